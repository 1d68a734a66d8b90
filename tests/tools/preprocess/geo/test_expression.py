"""Tests for tools.preprocess.geo.expression: the expression table, read in one pass."""

from __future__ import annotations

import gzip
import logging
import math
from pathlib import Path
from typing import List

import numpy as np
import pandas as pd
import pytest
from tests.conftest import shared_file

from tests.tools.preprocess.geo.matrices import (GSE201926, GSE55235, ROWS, SAMPLES, matrix_text,
                                                 write)
from tools.preprocess.geo import get_background_and_clinical_data, get_genetic_data
from utils.errors import InputFileError, NoExpressionTableError, SuperSeriesError

@pytest.fixture
def small_matrix(tmp_path: Path) -> Path:
    return write(tmp_path / "GSE1_series_matrix.txt.gz",
                 matrix_text(SAMPLES, ROWS, [["disease: RA", "disease: OA", ""],
                                             ["age: 40", "age: 50", "age: 60"]]), gz=True)

def test_gse55235_expression_table():
    table = get_genetic_data(shared_file(GSE55235))
    assert table.shape == (22283, 30)
    assert table.index.name == "ID"
    assert table.index[0] == "1007_s_at" and isinstance(table.index[0], str)
    assert list(table.columns[:2]) == ["GSM1332201", "GSM1332202"]
    assert (table.dtypes == np.float64).all()
    # first data line of the file: "1007_s_at" 122.6 117.9 193.6 ...
    assert table.loc["1007_s_at", "GSM1332201"] == pytest.approx(122.6)
    assert table.loc["1007_s_at", "GSM1332203"] == pytest.approx(193.6)
    assert not table.isna().any().any()

def test_gse201926_empty_table_is_reported():
    with pytest.raises(NoExpressionTableError, match="empty") as info:
        get_genetic_data(shared_file(GSE201926))
    assert "GSE201926_series_matrix" in str(info.value)
    # the characteristics are still readable
    _, clinical = get_background_and_clinical_data(shared_file(GSE201926))
    assert clinical.shape[1] == 13

def test_small_matrix_gzip_and_plain_agree(small_matrix: Path, tmp_path: Path):
    plain = write(tmp_path / "plain_series_matrix.txt", gzip.decompress(small_matrix.read_bytes()))
    for path in (small_matrix, plain):
        table = get_genetic_data(path)
        assert list(table.index) == ["p1", "p2", "p3"]
        assert table.loc["p2", "GSM2"] == 5.25
        _, clinical = get_background_and_clinical_data(path)
        assert clinical.loc[0, "GSM2"] == "disease: OA"
        assert pd.isna(clinical.loc[0, "GSM3"])

def test_crlf_line_endings(tmp_path: Path):
    text = matrix_text(SAMPLES, ROWS, [["a: 1", "a: 2", "a: 3"]]).replace("\n", "\r\n")
    path = write(tmp_path / "crlf_series_matrix.txt", text)
    table = get_genetic_data(path)
    assert table.loc["p3", "GSM3"] == 9
    _, clinical = get_background_and_clinical_data(path)
    assert clinical.loc[0, "GSM3"] == "a: 3"

def test_missing_value_spellings_are_nan(tmp_path: Path):
    rows = [['"p1"', "null", "", "NA"], ['"p2"', "1", "2", "3"]]
    table = get_genetic_data(write(tmp_path / "m.txt", matrix_text(SAMPLES, rows)))
    assert table.loc["p1"].isna().all()
    assert table.loc["p2"].tolist() == [1, 2, 3]

def test_superseries_detected(tmp_path: Path):
    text = ('!Series_title\t"Super"\n'
            '!Series_relation\t"SuperSeries of: GSE101"\n'
            '!Series_relation\t"SuperSeries of: GSE102"\n'
            "!series_matrix_table_begin\n\"ID_REF\"\n!series_matrix_table_end\n")
    path = write(tmp_path / "GSE100_series_matrix.txt", text)
    with pytest.raises(SuperSeriesError, match="GSE101, GSE102"):
        get_genetic_data(path)
    with pytest.raises(SuperSeriesError, match="SuperSeries"):
        get_background_and_clinical_data(path)

def test_truncated_gzip(tmp_path: Path):
    rows = [[f'"p{i}"', *(f"{i * 0.37 + j:.3f}" for j in range(3))] for i in range(20000)]
    data = gzip.compress(matrix_text(SAMPLES, rows).encode())
    path = write(tmp_path / "trunc_series_matrix.txt.gz", data[: len(data) // 2])
    with pytest.raises(InputFileError, match="truncated gzip") as info:
        get_genetic_data(path)
    assert str(info.value).startswith(str(path))

def test_missing_table_begin(tmp_path: Path):
    path = write(tmp_path / "m.txt", matrix_text(SAMPLES, ROWS, begin=False))
    with pytest.raises(InputFileError, match="no '!series_matrix_table_begin' line") as info:
        get_genetic_data(path)
    assert str(info.value).startswith(str(path))

def test_missing_table_end(tmp_path: Path):
    path = write(tmp_path / "m.txt", matrix_text(SAMPLES, ROWS, end=False))
    with pytest.raises(InputFileError, match="missing '!series_matrix_table_end'") as info:
        get_genetic_data(path)
    # 7 header lines (4 !Series, title, accession, taxid), begin at 8, ID_REF at 9,
    # 3 rows at 10-12: the file ends at line 12
    assert f"{path}:12:" in str(info.value)

@pytest.mark.parametrize("bad_row, found", [(['"p2"', "4", "5"], 3),
                                            (['"p2"', "4", "5", "6", "7"], 5)])
def test_row_with_wrong_number_of_fields(tmp_path: Path, bad_row: List[str], found: int):
    rows = [ROWS[0], bad_row, ROWS[2]]
    path = write(tmp_path / "m.txt", matrix_text(SAMPLES, rows))
    with pytest.raises(InputFileError, match=f"row has {found} fields, expected 4") as info:
        get_genetic_data(path)
    # header lines 1-7, begin at 8, ID_REF at 9, p1 at 10, bad row at 11
    assert f"{path}:11:" in str(info.value)

def test_non_numeric_values_become_nan_not_zero(tmp_path: Path, caplog):
    rows = [['"p1"', "1.5", "oops", "3"], ['"p2"', "4", "5", "n.d."]]
    path = write(tmp_path / "m.txt", matrix_text(SAMPLES, rows))
    with caplog.at_level(logging.WARNING, logger="tools.preprocess.geo"):
        table = get_genetic_data(path)
    assert math.isnan(table.loc["p1", "GSM2"]) and math.isnan(table.loc["p2", "GSM3"])
    assert table.loc["p1", "GSM1"] == 1.5 and table.loc["p2", "GSM2"] == 5
    assert (table.dtypes == np.float64).all()
    assert "2 non-numeric expression values" in caplog.text

def test_empty_file(tmp_path: Path):
    path = write(tmp_path / "empty_series_matrix.txt.gz", b"", gz=True)
    with pytest.raises(InputFileError, match="empty file"):
        get_genetic_data(path)
    with pytest.raises(InputFileError, match="empty file"):
        get_background_and_clinical_data(path)

def test_duplicate_sample_ids_in_table_header(tmp_path: Path):
    text = matrix_text(SAMPLES, ROWS).replace('"ID_REF"\t"GSM1"\t"GSM2"\t"GSM3"',
                                              '"ID_REF"\t"GSM1"\t"GSM2"\t"GSM2"')
    path = write(tmp_path / "m.txt", text)
    with pytest.raises(InputFileError, match="duplicate sample ids: GSM2") as info:
        get_genetic_data(path)
    assert f"{path}:9:" in str(info.value)  # the ID_REF line

def test_non_utf8_bytes_decoded_as_latin1(tmp_path: Path):
    text = matrix_text(SAMPLES, [['"probe_\xe9"', "1", "2", "3"]],
                       [["sex: f\xe9minin", "sex: male", "sex: male"]])
    path = write(tmp_path / "m.txt.gz", text.encode("latin-1"), gz=True)
    _, clinical = get_background_and_clinical_data(path)
    assert clinical.loc[0, "GSM1"] == "sex: f\u00e9minin"
    assert list(get_genetic_data(path).index) == ["probe_\u00e9"]


# ---------------------------------------------------------------------------
# One pass: the file is opened once, whatever the table holds
# ---------------------------------------------------------------------------
@pytest.fixture
def count_opens(monkeypatch):
    """``paths -> number of open() calls`` seen while the test runs."""
    opened: List[str] = []
    real_open = open

    def counting_open(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", counting_open)
    return lambda path: opened.count(str(path))


def big_rows(n_rows: int, text_at: int = -1, text: str = "n/d") -> List[List[str]]:
    """Rows ``p<i>`` with values ``i + j/8`` (exact in binary); ``text`` at one cell."""
    rows = [[f'"p{i}"', *(repr(i + j / 8) for j in range(3))] for i in range(n_rows)]
    if text_at >= 0:
        rows[text_at][2] = text
    return rows


@pytest.mark.parametrize("gz", [False, True])
def test_file_is_opened_once(tmp_path: Path, count_opens, gz: bool):
    path = write(tmp_path / "m.txt", matrix_text(SAMPLES, big_rows(50)), gz=gz)
    get_genetic_data(path)
    assert count_opens(path) == 1


def test_text_cell_late_in_a_big_table_is_read_in_the_same_pass(tmp_path: Path, count_opens,
                                                                   caplog):
    """pandas parses in chunks: a text cell in the last one still costs no second read."""
    n_rows = 200_000  # about 3 MB of rows: several parser chunks
    path = write(tmp_path / "m.txt.gz", matrix_text(SAMPLES, big_rows(n_rows, n_rows - 1)),
                 gz=True)
    with caplog.at_level(logging.WARNING, logger="tools.preprocess.geo"):
        table = get_genetic_data(path)
    assert count_opens(path) == 1
    assert "1 non-numeric expression values" in caplog.text
    assert (table.dtypes == np.float64).all()
    assert math.isnan(table.iloc[-1, 1])
    # every other cell is i + j/8, exactly as written
    expected = np.arange(n_rows)[:, None] + np.arange(3)[None, :] / 8
    expected[-1, 1] = np.nan
    np.testing.assert_array_equal(table.to_numpy(), expected)


def test_true_false_cells_are_not_numbers(tmp_path: Path):
    rows = [['"p1"', "TRUE", "1", "2"], ['"p2"', "FALSE", "3", "4"], ['"p3"', "", "5", "TRUE"]]
    table = get_genetic_data(write(tmp_path / "m.txt", matrix_text(SAMPLES, rows)))
    assert table["GSM1"].isna().all()  # a column of true/false only
    assert math.isnan(table.loc["p3", "GSM3"]) and table.loc["p1", "GSM3"] == 2
    assert table["GSM2"].tolist() == [1, 3, 5]


def test_bad_row_after_the_first_block_is_named_without_a_second_read(tmp_path: Path,
                                                                     count_opens):
    rows = big_rows(100_000)
    rows[90_000] = rows[90_000][:3]  # beyond the first 1 MiB block of the stream
    path = write(tmp_path / "m.txt.gz", matrix_text(SAMPLES, rows), gz=True)
    with pytest.raises(InputFileError, match="row has 3 fields, expected 4") as info:
        get_genetic_data(path)
    # header lines 1-7, begin at 8, ID_REF at 9, row i at line 10 + i
    assert f"{path}:90010:" in str(info.value)
    assert count_opens(path) == 1


def test_duplicated_probe_ids_are_kept_and_reported(tmp_path: Path, caplog):
    rows = [ROWS[0], ROWS[1], ['"p1"', "x", "8", "9"]]
    with caplog.at_level(logging.WARNING, logger="tools.preprocess.geo"):
        table = get_genetic_data(write(tmp_path / "m.txt", matrix_text(SAMPLES, rows)))
    assert list(table.index) == ["p1", "p2", "p1"]
    assert math.isnan(table.iloc[2, 0]) and table.iloc[2, 2] == 9
    assert "1 duplicated probe ids" in caplog.text


# ---------------------------------------------------------------------------
# Sample ids against the header, stray markers, byte-order marks (issue 14)
# ---------------------------------------------------------------------------
def with_table_header(samples: List[str]) -> str:
    """The small matrix with another table header (the accession line keeps SAMPLES)."""
    text = matrix_text(SAMPLES, ROWS)
    return text.replace('"ID_REF"\t' + "\t".join(f'"{s}"' for s in SAMPLES),
                        '"ID_REF"\t' + "\t".join(f'"{s}"' for s in samples))


@pytest.mark.parametrize("samples, problem", [
    (["GSM1", "GSM2", "GSM9"], "missing GSM3; not listed GSM9"),
    (["GSM1", "GSM2"], "missing GSM3"),
    (["GSM1", "GSM2", "GSM3", "GSM4"], "not listed GSM4"),  # would be a phantom sample
])
def test_table_sample_ids_are_checked_against_the_header(tmp_path: Path, samples, problem):
    path = write(tmp_path / "m.txt", with_table_header(samples))
    with pytest.raises(InputFileError, match=problem) as info:
        get_genetic_data(path)
    # header lines 1-7, begin at 8, the table header at 9
    assert str(info.value).startswith(f"{path}:9: the expression table's sample ids differ "
                                      "from '!Sample_geo_accession' (line 6)")


def test_the_same_samples_in_another_order_are_labelled_by_the_table(tmp_path: Path):
    rows = [[r[0], r[3], r[1], r[2]] for r in ROWS]
    text = with_table_header(["GSM3", "GSM1", "GSM2"])
    text = text.replace("\n".join("\t".join(r) for r in ROWS),
                        "\n".join("\t".join(r) for r in rows))
    table = get_genetic_data(write(tmp_path / "m.txt", text))
    assert list(table.columns) == ["GSM3", "GSM1", "GSM2"]
    assert table.loc["p1", "GSM1"] == 1.5 and table.loc["p1", "GSM3"] == 3


@pytest.mark.parametrize("edit, line, problem", [
    # a second begin marker inside the table
    (lambda t: t.replace('"p2"', '!series_matrix_table_begin\n"p2"'), 11,
     "unexpected '!series_matrix_table_begin' line inside the table"),
    # a repeated begin marker where the table header belongs
    (lambda t: t.replace("!series_matrix_table_begin", "!series_matrix_table_begin\n"
                                                       "!series_matrix_table_begin"), 9,
     "expected the table header"),
    # an end marker inside the table: the rows after it must not be lost silently
    (lambda t: t.replace('"p2"', '!series_matrix_table_end\n"p2"'), 12,
     "content after '!series_matrix_table_end' \\(line 11\\)"),
    # two matrices joined
    (lambda t: t + t, 14, "content after '!series_matrix_table_end' \\(line 13\\)"),
])
def test_stray_begin_markers_are_refused(tmp_path: Path, edit, line, problem):
    path = write(tmp_path / "m.txt", edit(matrix_text(SAMPLES, ROWS)))
    with pytest.raises(InputFileError, match=problem) as info:
        get_genetic_data(path)
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_a_header_one_name_short_never_shifts_the_labels(tmp_path: Path):
    text = matrix_text(SAMPLES, ROWS).replace('"ID_REF"\t', "")
    with pytest.raises(InputFileError, match="sample ids differ|row has 4 fields, expected 3"):
        get_genetic_data(write(tmp_path / "m.txt", text))


def test_a_utf8_bom_changes_nothing(tmp_path: Path):
    text = matrix_text(SAMPLES, ROWS)
    plain = get_genetic_data(write(tmp_path / "a.txt", text))
    marked = get_genetic_data(write(tmp_path / "b.txt.gz", b"\xef\xbb\xbf" + text.encode(),
                                    gz=True))
    pd.testing.assert_frame_equal(plain, marked)
