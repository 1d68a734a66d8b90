"""Tests for tools.preprocess.geo.header: the series matrix header, parsed and checked."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from tests.conftest import shared_file
from tests.hang_guard import fail_after
from tests.tools.preprocess.geo.matrices import GSE4107, ROWS, SAMPLES, matrix_text, write
from tools.preprocess.geo import get_background_and_clinical_data, read_series_header
from utils.errors import InputFileError
from utils.input_safety import ReadLimits


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


# ---------------------------------------------------------------------------
# Byte-order marks, wrong formats, FIFOs, long lines (issue 14)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("gz", [False, True])
def test_a_utf8_bom_keeps_the_series_title(tmp_path: Path, gz: bool):
    text = matrix_text(SAMPLES, ROWS)
    plain = write(tmp_path / "plain.txt", text, gz=gz)
    marked = write(tmp_path / "bom.txt", b"\xef\xbb\xbf" + text.encode(), gz=gz)
    background, clinical = get_background_and_clinical_data(marked)
    assert background.startswith('!Series_title\t"A small test series"')
    assert (background, clinical.to_dict()) == tuple(
        [get_background_and_clinical_data(plain)[0],
         get_background_and_clinical_data(plain)[1].to_dict()])


@pytest.mark.parametrize("data, problem", [
    (matrix_text(SAMPLES, ROWS).encode("utf-16"), "UTF-16 text"),
    (b"<html><head><title>Error 503</title></head></html>\n", "an HTML or XML page"),
    (b"\x00\x01\x02\x03garbage", "binary data"),
])
def test_wrong_formats_name_the_file(tmp_path: Path, data: bytes, problem: str):
    path = write(tmp_path / "GSE1_series_matrix.txt.gz", data, gz=True)
    with pytest.raises(InputFileError, match=problem) as info:
        read_series_header(path)
    assert str(info.value).startswith(f"{path}:")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_a_fifo_in_place_of_the_matrix_is_refused(tmp_path: Path):
    fifo = tmp_path / "GSE1_series_matrix.txt.gz"
    os.mkfifo(fifo)
    with fail_after(20, "reading a FIFO"):
        with pytest.raises(InputFileError, match="is a FIFO"):
            get_background_and_clinical_data(fifo)


def test_a_header_line_over_the_cap_names_its_line(tmp_path: Path):
    long_title = '!Series_summary\t"' + "x" * 500 + '"'
    path = write(tmp_path / "m.txt", matrix_text(SAMPLES, ROWS, extra=long_title), gz=True)
    with pytest.raises(InputFileError, match=":8: line longer than 200 bytes"):
        read_series_header(path, limits=ReadLimits(max_line_bytes=200))
    with pytest.raises(InputFileError, match="more than 300 bytes once decompressed"):
        read_series_header(path, limits=ReadLimits(max_total_bytes=300))


def test_a_header_reader_refuses_a_gzip_file_cut_after_the_header(tmp_path: Path):
    """Reading the header only, the reader still checks the rest of a gzip stream."""
    rows = [[f'"p{i}"', "1", "2", "3"] for i in range(20000)]
    packed = gzip.compress(matrix_text(SAMPLES, rows).encode())
    assert read_series_header(write(tmp_path / "whole.txt.gz", packed)).sample_ids == SAMPLES
    cut = write(tmp_path / "cut.txt.gz", packed[:len(packed) // 2])
    for reader in (read_series_header, get_background_and_clinical_data):
        with pytest.raises(InputFileError, match=r"cut.txt.gz: truncated gzip file"):
            reader(cut)


def test_the_real_gse4107_header_is_refused_when_its_gzip_is_cut(tmp_path: Path):
    raw = shared_file(GSE4107).read_bytes()
    cut = tmp_path / "GSE4107_series_matrix.txt.gz"
    cut.write_bytes(raw[:-100])
    with pytest.raises(InputFileError, match="truncated gzip file") as info:
        get_background_and_clinical_data(cut)
    assert str(info.value).startswith(str(cut))
