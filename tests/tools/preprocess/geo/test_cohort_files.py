"""Tests for tools.preprocess.geo.cohort_files: cohort folders and multi-platform series."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import shared_file

from tests.tools.preprocess.geo.matrices import (GSE201926, GSE201926_COUNTS, ROWS, SAMPLES,
                                                 matrix_text, write)
from tools.preprocess.geo import find_geo_files, geo_get_relevant_filepaths
from utils.errors import InputFileError

def test_cohort_dir_without_soft_or_matrix(tmp_path: Path):
    folder = tmp_path / "GSE9"
    folder.mkdir()
    with pytest.raises(InputFileError, match="lacks a SOFT file .* and a series matrix") as info:
        geo_get_relevant_filepaths(folder)
    assert str(info.value).startswith(str(folder))
    write(folder / "GSE9_family.soft.gz", b"^PLATFORM = GPL1\n", gz=True)
    with pytest.raises(InputFileError, match="lacks a series matrix"):
        geo_get_relevant_filepaths(folder)
    with pytest.raises(InputFileError, match="cohort folder not found"):
        geo_get_relevant_filepaths(tmp_path / "missing")

def test_multi_platform_series_picks_human_platforms_in_order(tmp_path: Path):
    folder = tmp_path / "GSE7"
    folder.mkdir()
    write(folder / "GSE7_family.soft.gz", b"^PLATFORM = GPL96\n", gz=True)
    for platform, taxid in [("GPL1261", "10090"), ("GPL570", "9606"), ("GPL96", "9606")]:
        write(folder / f"GSE7-{platform}_series_matrix.txt.gz",
              matrix_text(SAMPLES, ROWS, taxid=taxid), gz=True)
    files = find_geo_files(folder)
    assert [m.platform_id for m in files.matrices] == ["GPL96", "GPL570", "GPL1261"]
    assert [m.is_human for m in files.matrices] == [True, True, False]
    assert [m.platform_id for m in files.human_matrices] == ["GPL96", "GPL570"]
    soft, matrix = geo_get_relevant_filepaths(folder)
    assert Path(soft).name == "GSE7_family.soft.gz"
    assert Path(matrix).name == "GSE7-GPL96_series_matrix.txt.gz"

def test_only_non_human_platforms(tmp_path: Path):
    folder = tmp_path / "GSE8"
    folder.mkdir()
    write(folder / "GSE8_family.soft", "^PLATFORM = GPL1261\n")
    write(folder / "GSE8_series_matrix.txt", matrix_text(SAMPLES, ROWS, taxid="10090"))
    with pytest.raises(InputFileError, match="no series matrix of a human platform"):
        geo_get_relevant_filepaths(folder)

def test_real_cohort_folder_with_count_table():
    folder = shared_file(GSE201926).parent
    files = find_geo_files(folder)
    assert files.soft_path is None
    assert [p.name for p in files.count_tables] == [Path(GSE201926_COUNTS).name]
    assert files.matrices[0].platform_id == "GPL23227"
    assert files.matrices[0].n_samples == 12
