"""Tests for tools.preprocess.geo.header: the series matrix header, parsed and checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tools.preprocess.geo.matrices import ROWS, SAMPLES, matrix_text, write
from tools.preprocess.geo import get_background_and_clinical_data, read_series_header
from utils.errors import InputFileError

def test_header_properties(tmp_path: Path):
    path = write(tmp_path / "m.txt", matrix_text(SAMPLES, ROWS, extra='!Sample_platform_id\t'
                                                 '"GPL570"\t"GPL570"\t"GPL570"'))
    header = read_series_header(path)
    assert header.sample_ids == SAMPLES
    assert header.platform_ids == ["GPL570"]
    assert header.is_human is True
    # 4 !Series lines, title, accession, taxid, platform: begin is line 9
    assert header.table_begin_line == 9

def test_duplicate_sample_ids_in_header(tmp_path: Path):
    path = write(tmp_path / "m.txt", matrix_text(["GSM1", "GSM2", "GSM1"], ROWS))
    with pytest.raises(InputFileError, match="duplicate sample ids: GSM1") as info:
        get_background_and_clinical_data(path)
    assert f"{path}:6:" in str(info.value)

def test_sample_line_with_wrong_number_of_values(tmp_path: Path):
    path = write(tmp_path / "m.txt", matrix_text(SAMPLES, ROWS, [["a: 1", "a: 2"]]))
    with pytest.raises(InputFileError, match="has 2 values but the series has 3") as info:
        get_background_and_clinical_data(path)
    assert f"{path}:8:" in str(info.value)
