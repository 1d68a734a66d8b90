"""TCGA (Xena) files, barcode trait rule, age/gender columns (SPEC 4.5)."""

from __future__ import annotations

import csv
import gzip
import math

import numpy as np
import pandas as pd
import pytest

from tests.conftest import shared_file
from tools.preprocess.tcga import (first_candidate, tcga_age_candidates, tcga_convert_age,
                                   tcga_convert_gender, tcga_convert_trait, tcga_gender_candidates,
                                   tcga_get_relevant_filepaths, tcga_read_clinical_data,
                                   tcga_read_genetic_data, tcga_sample_type_code,
                                   tcga_select_clinical_features)
from utils.errors import InputFileError, NoGeneDataError
from utils.input_safety import ReadLimits

LUAD = "tcga/LUAD/TCGA.LUAD.sampleMap_LUAD_clinicalMatrix"


@pytest.fixture(scope="module")
def luad():
    return tcga_read_clinical_data(shared_file(LUAD))


def luad_rows():
    """The clinicalMatrix parsed independently with the csv module."""
    with open(shared_file(LUAD), newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    return rows[0], rows[1:]


# ----------------------------------------------------------------- barcode rule
@pytest.mark.parametrize("barcode, label", [
    ("TCGA-05-4244-01", 1), ("TCGA-05-4244-09", 1), ("TCGA-05-4244-02", 1),
    ("TCGA-05-4244-10", 0), ("TCGA-05-4244-11", 0), ("TCGA-05-4244-19", 0),
    ("TCGA-05-4244-01A-01R-1107-07", 1), ("TCGA-AB-1234-11B", 0),
])
def test_barcode_tumour_normal(barcode, label):
    assert tcga_convert_trait(barcode) == label


@pytest.mark.parametrize("barcode", [
    "TCGA-05-4244-00", "TCGA-05-4244-20", "TCGA-05-4244-40", "TCGA-05-4244-50",
    "TCGA-05-4244-60", "TCGA-05-4244", "TCGA-05-4244-A1", "GSM123456", "", None, math.nan,
])
def test_barcode_other_codes_are_missing_not_minus_one(barcode):
    assert tcga_convert_trait(barcode) is None


def test_luad_barcode_counts_match_independent_count(luad):
    header, rows = luad_rows()
    assert header[0] == "sampleID"
    # Independent count: characters 14-15 (1-based) of each sampleID, i.e.
    # `tail -n +2 FILE | cut -f1 | cut -c14-15 | sort | uniq -c` gives
    # 584 "01", 2 "02", 120 "11": 586 tumour, 120 normal, 0 other.
    codes = [int(row[0][13:15]) for row in rows]
    tumour = sum(1 <= c <= 9 for c in codes)
    normal = sum(10 <= c <= 19 for c in codes)
    assert (tumour, normal, len(codes) - tumour - normal) == (586, 120, 0)
    labels = [tcga_convert_trait(s) for s in luad.index]
    assert (labels.count(1), labels.count(0), labels.count(None)) == (586, 120, 0)
    assert [tcga_sample_type_code(s) for s in luad.index] == codes


# ----------------------------------------------------------------- converters
@pytest.mark.parametrize("cell, unit, years", [
    (70, None, 70.0), ("70", None, 70.0), (70.0, "years", 70.0),
    (-25752, None, 25752 / 365.25), ("-25752", "days", 25752 / 365.25),
])
def test_tcga_convert_age(cell, unit, years):
    assert tcga_convert_age(cell, unit=unit) == pytest.approx(years)


@pytest.mark.parametrize("cell, unit", [
    ("[Not Available]", None), (None, None), (math.nan, None), ("", None),
    (25752, "days"), (200, None), (-200000, None), (True, None),
])
def test_tcga_convert_age_invalid(cell, unit):
    assert tcga_convert_age(cell, unit=unit) is None


def test_tcga_convert_age_rejects_unknown_unit():
    with pytest.raises(ValueError):
        tcga_convert_age(5, unit="months")


@pytest.mark.parametrize("cell, code", [("MALE", 1.0), ("FEMALE", 0.0), ("male", 1.0),
                                        ("Female", 0.0), ("[Not Available]", None),
                                        (math.nan, None)])
def test_tcga_convert_gender(cell, code):
    assert tcga_convert_gender(cell) == code


# ----------------------------------------------------------------- real clinicalMatrix
def test_luad_clinical_matrix_shape(luad):
    assert luad.shape == (706, 156)  # 157 columns including sampleID
    assert luad.index[0] == "TCGA-05-4244-01"
    assert luad.index.is_unique


def test_luad_age_gender_candidates(luad):
    ages = tcga_age_candidates(luad)
    assert list(ages)[:2] == ["age_at_initial_pathologic_diagnosis", "days_to_birth"]
    assert "pathologic_stage" not in ages
    # First values of the file's rows with an age (cut -f56 / cut -f64).
    assert ages["age_at_initial_pathologic_diagnosis"] == [70, 67, 79, 68, 66]
    assert ages["days_to_birth"][:2] == [-25752, -24532]
    genders = tcga_gender_candidates(luad)
    assert list(genders) == ["gender"]
    assert first_candidate(genders) == "gender"
    assert first_candidate({}) is None


def test_luad_select_clinical_features(luad):
    header, rows = luad_rows()
    gender_col = header.index("gender")
    age_col = header.index("age_at_initial_pathologic_diagnosis")
    # Golden counts with csv (= `cut -f80 | sort | uniq -c`): 350 FEMALE, 292 MALE,
    # 64 empty; `cut -f56`: 83 empty ages -> 623 ages.
    assert sum(r[gender_col] == "FEMALE" for r in rows) == 350
    assert sum(r[gender_col] == "MALE" for r in rows) == 292
    n_ages = sum(r[age_col] != "" for r in rows)
    assert n_ages == 623
    table = tcga_select_clinical_features(luad, "Lung_Cancer",
                                          age_col="age_at_initial_pathologic_diagnosis",
                                          gender_col="gender")
    assert list(table.columns) == ["Lung_Cancer", "Age", "Gender"]
    assert list(table.index) == [r[0] for r in rows]
    assert all(dtype == np.float64 for dtype in table.dtypes)
    assert (table["Lung_Cancer"] == 1).sum() == 586
    assert (table["Gender"] == 0).sum() == 350
    assert (table["Gender"] == 1).sum() == 292
    assert table["Age"].notna().sum() == n_ages
    assert table["Age"].iloc[0] == 70


def test_luad_days_to_birth_agrees_with_age_at_diagnosis(luad):
    by_years = tcga_select_clinical_features(
        luad, "T", age_col="age_at_initial_pathologic_diagnosis")["Age"]
    by_days = tcga_select_clinical_features(luad, "T", age_col="days_to_birth")["Age"]
    assert by_days.notna().sum() == 602  # `cut -f64 | awk '$0!=""' | wc -l`
    both = by_years.notna() & by_days.notna()
    difference = (by_days - by_years)[both]
    # days_to_birth is counted at diagnosis: completed years == the age column,
    # up to one day of calendar rounding (two samples are 0.25 day short).
    assert len(difference) > 500
    assert ((difference > -1 / 365) & (difference < 1)).all()


def test_select_unknown_column_is_clear(luad):
    with pytest.raises(KeyError, match="age_col='nope'"):
        tcga_select_clinical_features(luad, "T", age_col="nope")


# ----------------------------------------------------------------- file choice
def _touch(folder, *names):
    for name in names:
        (folder / name).write_text("x")


def test_filepaths_prefer_non_normalized_hiseq(tmp_path):
    _touch(tmp_path, "TCGA.LUAD.sampleMap_LUAD_clinicalMatrix",
           "TCGA.LUAD.sampleMap_HiSeqV2_PANCAN.gz", "TCGA.LUAD.sampleMap_HiSeqV2.gz",
           "TCGA.LUAD.sampleMap_HiSeqV2_exon.gz", "TCGA.LUAD.sampleMap_HiSeqV2_percentile.gz")
    clinical, genetic = tcga_get_relevant_filepaths(tmp_path)
    assert clinical.endswith("LUAD_clinicalMatrix")
    assert genetic.endswith("sampleMap_HiSeqV2.gz")


def test_filepaths_fall_back_to_pancan_and_accept_plain(tmp_path):
    _touch(tmp_path, "TCGA.BRCA.sampleMap_BRCA_clinicalMatrix",
           "TCGA.BRCA.sampleMap_HiSeqV2_PANCAN", ".hidden_HiSeqV2")
    _, genetic = tcga_get_relevant_filepaths(str(tmp_path))
    assert genetic.endswith("sampleMap_HiSeqV2_PANCAN")


def test_filepaths_missing_files_name_the_folder(tmp_path):
    with pytest.raises(InputFileError, match="TCGA cohort folder not found"):
        tcga_get_relevant_filepaths(tmp_path / "absent")
    _touch(tmp_path, "TCGA.X.sampleMap_HiSeqV2.gz")
    with pytest.raises(InputFileError, match=f"^{tmp_path}: no clinicalMatrix"):
        tcga_get_relevant_filepaths(tmp_path)
    (tmp_path / "TCGA.X.sampleMap_HiSeqV2.gz").unlink()
    _touch(tmp_path, "TCGA.X.sampleMap_X_clinicalMatrix")
    with pytest.raises(NoGeneDataError, match=f"^{tmp_path}: no gene-expression file"):
        tcga_get_relevant_filepaths(tmp_path)


# ----------------------------------------------------------------- readers, bad input
EXPRESSION = ("sample\tTCGA-01-0001-01\tTCGA-01-0001-11\n"
              "TP53\t10.5\t9.25\n"
              "EGFR\tNA\t7\n"
              "KRAS\tabc\t8.5\n")


def test_read_genetic_data_gzip_or_plain_and_nan_for_text(tmp_path):
    plain = tmp_path / "TCGA.X.sampleMap_HiSeqV2"
    plain.write_text(EXPRESSION)
    packed = tmp_path / "TCGA.X.sampleMap_HiSeqV2_PANCAN.gz"
    packed.write_bytes(gzip.compress(EXPRESSION.encode()))
    for path in (plain, packed):
        table = tcga_read_genetic_data(path)
        assert table.index.name == "Gene"
        assert list(table.index) == ["TP53", "EGFR", "KRAS"]
        assert list(table.columns) == ["TCGA-01-0001-01", "TCGA-01-0001-11"]
        assert table.loc["TP53", "TCGA-01-0001-11"] == 9.25
        assert math.isnan(table.loc["EGFR", "TCGA-01-0001-01"])
        assert math.isnan(table.loc["KRAS", "TCGA-01-0001-01"])  # "abc": NaN, never 0
        assert all(dtype == np.float64 for dtype in table.dtypes)


@pytest.mark.parametrize("content, problem, line", [
    ("", "empty file", 1),
    ("sample\tTCGA-01-0001-01\tTCGA-01-0001-01\nTP53\t1\t2\n", "duplicate sample id", 1),
    ("sample\nTP53\n", "no sample columns", 1),
    ("sample\tA\tB\nTP53\t1\t2\nEGFR\t1\n", "expected 3 tab-separated fields", 3),
    ("sample\tA\tB\nTP53\t1\t2\t3\n", "expected 3 tab-separated fields", 2),
])
def test_read_genetic_data_bad_input(tmp_path, content, problem, line):
    path = tmp_path / "TCGA.X.sampleMap_HiSeqV2"
    path.write_text(content)
    with pytest.raises(InputFileError, match=problem) as info:
        tcga_read_genetic_data(path)
    assert str(info.value).startswith(f"{path}:{line}:")


def test_read_genetic_data_refuses_a_matrix_of_mostly_text(tmp_path):
    """Three of four values are text (a clinical table's shape): refused, naming the
    count; one of six text values (EXPRESSION above) is only a warning."""
    path = tmp_path / "TCGA.X.sampleMap_HiSeqV2"
    path.write_text("sample\tA\tB\nTP53\tmale\tfemale\nEGFR\tstage I\t7\n")
    with pytest.raises(InputFileError, match="3 of its 4 values are not numbers"):
        tcga_read_genetic_data(path)


def test_read_genetic_data_refuses_the_real_clinical_matrix():
    with pytest.raises(InputFileError, match="not an expression matrix"):
        tcga_read_genetic_data(shared_file(LUAD))


CLINICAL = ("sampleID\tgender\tage_at_initial_pathologic_diagnosis\n"
            "TCGA-01-0001-01\tMALE\t70\n"
            "TCGA-01-0001-11\tMALE\t70\n"
            "TCGA-01-0002-01\tFEMALE\t\n")


@pytest.mark.parametrize("content, problem, line", [
    ("", "empty file", 1),
    ("\x89PNG\r\n\x1a\n\x00\x00garbage", "binary data, not text", 3),
    ("patient\tgender\nTCGA-01-0001-01\tMALE\n", "not a Xena clinicalMatrix", 1),
    (CLINICAL + "TCGA-01-0001-01\tMALE\t70\n", "duplicate sampleID", 5),
    (CLINICAL + "TCGA-01-0003-01\tMALE\n", "expected 3 tab-separated fields", 5),
    # pandas would read the second 'gender' as 'gender.1', the first one a guess
    (CLINICAL.replace("age_at_initial_pathologic_diagnosis", "gender", 1),
     r"column 'gender' occurs twice \(columns 2 and 3\)", 1),
])
def test_read_clinical_data_bad_input(tmp_path, content, problem, line):
    path = tmp_path / "TCGA.X.sampleMap_X_clinicalMatrix"
    path.write_text(content, encoding="latin-1")
    with pytest.raises(InputFileError, match=problem) as info:
        tcga_read_clinical_data(path)
    assert str(info.value).startswith(f"{path}:{line}:")


def test_read_clinical_data_without_sample_rows_names_file(tmp_path):
    path = tmp_path / "TCGA.X.sampleMap_X_clinicalMatrix"
    path.write_text(CLINICAL.splitlines(keepends=True)[0])
    with pytest.raises(InputFileError, match="a header but no sample rows") as info:
        tcga_read_clinical_data(path)
    assert str(info.value).startswith(str(path))


def test_read_clinical_data_truncated_gzip_names_file(tmp_path):
    path = tmp_path / "TCGA.X.sampleMap_X_clinicalMatrix"
    packed = gzip.compress((CLINICAL * 200).encode())
    path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(InputFileError, match="truncated gzip") as info:
        tcga_read_clinical_data(path)
    assert str(info.value).startswith(str(path))


def test_read_clinical_data_small_fixture(tmp_path):
    path = tmp_path / "TCGA.X.sampleMap_X_clinicalMatrix.gz"
    path.write_bytes(gzip.compress(CLINICAL.encode()))
    table = tcga_read_clinical_data(path)
    selected = tcga_select_clinical_features(
        table, "Cancer", age_col="age_at_initial_pathologic_diagnosis", gender_col="gender")
    expected = pd.DataFrame({"Cancer": [1.0, 0.0, 1.0], "Age": [70.0, 70.0, np.nan],
                             "Gender": [1.0, 1.0, 0.0]}, index=table.index)
    pd.testing.assert_frame_equal(selected, expected)


# ---------------------------------------------------------------------------
# Byte-order marks, cut files, shifted headers, bombs (issue 14)
# ---------------------------------------------------------------------------
def test_a_bom_prefixed_clinical_matrix_is_read(tmp_path):
    path = tmp_path / "TCGA.X.sampleMap_X_clinicalMatrix"
    path.write_bytes(b"\xef\xbb\xbf" + CLINICAL.encode())
    plain = tmp_path / "plain_clinicalMatrix"
    plain.write_text(CLINICAL)
    pd.testing.assert_frame_equal(tcga_read_clinical_data(path), tcga_read_clinical_data(plain))


@pytest.mark.parametrize("reader, content, problem, line", [
    (tcga_read_clinical_data, CLINICAL[:-1], "the file ends in the middle of this line", 4),
    (tcga_read_clinical_data, CLINICAL[:-3], "expected 3 tab-separated fields", 4),
    (tcga_read_genetic_data, EXPRESSION[:-2], "the file ends in the middle of this line", 4),
    # the header one name short: values would shift under the wrong barcodes
    (tcga_read_genetic_data, EXPRESSION.replace("sample\t", ""),
     "expected 2 tab-separated fields like the header, found 3", 2),
    (tcga_read_clinical_data, "<html><body>Bad Gateway</body></html>\n",
     "an HTML or XML page", 1),
    (tcga_read_genetic_data, EXPRESSION.encode("utf-16"), "UTF-16 text", 1),
])
def test_tcga_files_cut_short_or_wrong_are_named(tmp_path, reader, content, problem, line):
    path = tmp_path / "TCGA.X.sampleMap_HiSeqV2"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(InputFileError, match=problem) as info:
        reader(path)
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_a_gzip_bomb_is_stopped_with_the_file_named(tmp_path):
    """One endless row: stopped at the line cap, never a bare MemoryError."""
    path = tmp_path / "TCGA.X.sampleMap_HiSeqV2.gz"
    path.write_bytes(gzip.compress(b"sample\tA\nTP53\t" + b"1" * 3_000_000 + b"\n"))
    with pytest.raises(InputFileError, match=":2: line longer than 1000000 bytes"):
        tcga_read_genetic_data(path, limits=ReadLimits(max_line_bytes=1_000_000))
    many_rows = tmp_path / "TCGA.Y.sampleMap_HiSeqV2.gz"
    many_rows.write_bytes(gzip.compress(b"sample\tA\n" + b"TP53\t1\n" * 500_000))
    with pytest.raises(InputFileError, match="more than 1000000 bytes once decompressed"):
        tcga_read_genetic_data(many_rows, limits=ReadLimits(max_total_bytes=1_000_000))


def test_running_out_of_memory_names_the_file(tmp_path, monkeypatch):
    path = tmp_path / "TCGA.X.sampleMap_HiSeqV2"
    path.write_text(EXPRESSION)

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(pd, "read_csv", exhausted)
    with pytest.raises(InputFileError, match="not enough memory to read the file"):
        tcga_read_genetic_data(path)
