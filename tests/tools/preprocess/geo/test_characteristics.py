"""Tests for tools.preprocess.geo.characteristics: background text and per-sample tables."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from tests.conftest import shared_file

from tests.tools.preprocess.geo.matrices import (GSE4107, GSE55235, SAMPLES,
                                                 matrix_text, write)
from tools.preprocess.geo import (SAMPLE_ID_KEY, get_background_and_clinical_data,
                                  get_sample_rows, get_unique_values_by_row)

def test_gse55235_characteristics_table():
    background, clinical = get_background_and_clinical_data(shared_file(GSE55235))
    # 30 samples (GSM1332201..GSM1332230) + the tag column; 2 characteristics lines
    assert clinical.shape == (2, 31)
    assert clinical.columns[0] == SAMPLE_ID_KEY
    assert list(clinical.columns[1:4]) == ["GSM1332201", "GSM1332202", "GSM1332203"]
    assert list(clinical.index) == [0, 1]
    assert set(clinical[SAMPLE_ID_KEY]) == {"!Sample_characteristics_ch1"}
    assert clinical.loc[0, "GSM1332201"] == "disease state: healthy control"
    assert clinical.loc[1, "GSM1332201"] == "tissue: synovial tissue isolated from joint"
    lines = background.splitlines()
    assert [line.split("\t")[0] for line in lines] == (
        ["!Series_title"] + ["!Series_summary"] * 3 + ["!Series_overall_design"])
    assert "rheumatoid arthritis and osteoarthritis" in lines[0]
    unique = get_unique_values_by_row(clinical)
    assert unique[0] == ["disease state: healthy control", "disease state: osteoarthritis",
                         "disease state: synovial tissue isolated from osteoarthritic joint",
                         "disease state: rheumatoid arthritis"]
    assert unique[1] == ["tissue: synovial tissue isolated from joint"]

def test_gse4107_untidy_characteristics_and_empty_line():
    _, clinical = get_background_and_clinical_data(shared_file(GSE4107))
    # lines 36-39 of the file: Gender, Age, Tissue and an all-empty line
    assert clinical.shape == (4, 23)
    assert clinical.loc[0, "GSM93789"] == "Gender:M"
    assert clinical.loc[0, "GSM93920"] == "Gender: F"
    assert clinical.loc[1, "GSM93920"] == "Age: 49"
    assert clinical.loc[1, "GSM93921"] == "Age:49"
    assert clinical.loc[3].drop(SAMPLE_ID_KEY).isna().all()
    unique = get_unique_values_by_row(clinical)
    assert unique[0] == ["Gender:M", "Gender: F", "Gender:F"]
    assert unique[3] == [None]

def test_other_sample_rows_on_request():
    rows = get_sample_rows(shared_file(GSE55235))
    assert list(rows[SAMPLE_ID_KEY]) == ["!Sample_title", "!Sample_source_name_ch1",
                                        "!Sample_description"]
    assert rows.loc[0, "GSM1332201"].startswith("Synovial tisssue from healthy joint 1")
    _, table = get_background_and_clinical_data(
        shared_file(GSE55235), prefixes_b=[SAMPLE_ID_KEY, "!Sample_characteristics_ch1",
                                           "!Sample_source_name_ch1"])
    # rows keep file order: source name (line 37) precedes characteristics
    assert list(table[SAMPLE_ID_KEY]) == ["!Sample_source_name_ch1",
                                         "!Sample_characteristics_ch1",
                                         "!Sample_characteristics_ch1"]

def test_unique_values_limit_and_order():
    frame = pd.DataFrame({SAMPLE_ID_KEY: ["!x"], **{f"GSM{i}": [f"v{i % 40}"]
                                                    for i in range(100)}})
    assert get_unique_values_by_row(frame, max_len=30)[0] == [f"v{i}" for i in range(30)]

def test_header_without_table_still_gives_clinical_data(tmp_path: Path):
    path = write(tmp_path / "m.txt", matrix_text(SAMPLES, [], [["a: 1", "a: 2", "a: 3"]],
                                                  begin=False))
    _, clinical = get_background_and_clinical_data(path)
    assert clinical.shape == (1, 4)
