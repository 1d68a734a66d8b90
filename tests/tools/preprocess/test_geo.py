"""Tests for tools.preprocess.geo: series matrix header, characteristics, expression table,
cohort folders (SPEC 4.1)."""

from __future__ import annotations

import gzip
import logging
import math
from pathlib import Path
from typing import List, Optional, Sequence

import numpy as np
import pandas as pd
import pytest
from tests.conftest import shared_file

from tools.preprocess.geo import (SAMPLE_ID_KEY, find_geo_files, geo_get_relevant_filepaths,
                                  get_background_and_clinical_data, get_genetic_data,
                                  get_sample_rows, get_unique_values_by_row, read_gene_count_table,
                                  read_series_header)
from utils.errors import InputFileError, NoExpressionTableError, SuperSeriesError

GSE55235 = "geo/GSE55235/GSE55235_series_matrix.txt.gz"
GSE4107 = "geo/GSE4107/GSE4107_series_matrix.txt.gz"
GSE201926 = "geo/GSE201926/GSE201926_series_matrix.txt.gz"
GSE201926_COUNTS = "geo/GSE201926/GSE201926_raw_counts_GRCh38.p13_NCBI.tsv.gz"


# ---------------------------------------------------------------------------
# Hand-made series matrices
# ---------------------------------------------------------------------------
def matrix_text(samples: Sequence[str], rows: Sequence[Sequence[str]],
                characteristics: Sequence[Sequence[str]] = (),
                taxid: Optional[str] = "9606", begin: bool = True, end: bool = True,
                extra: str = "") -> str:
    """A minimal series matrix: header, characteristics, table."""
    quoted = "\t".join(f'"{s}"' for s in samples)
    lines = ['!Series_title\t"A small test series"',
             '!Series_summary\t"Summary line"',
             '!Series_overall_design\t"Cases vs controls"',
             '!Series_type\t"Expression profiling by array"',
             "!Sample_title\t" + "\t".join(f'"title {s}"' for s in samples),
             f"{SAMPLE_ID_KEY}\t{quoted}"]
    if taxid is not None:
        lines.append("!Sample_taxid_ch1\t" + "\t".join(f'"{taxid}"' for _ in samples))
    for row in characteristics:
        lines.append("!Sample_characteristics_ch1\t" + "\t".join(f'"{c}"' for c in row))
    if extra:
        lines.append(extra)
    if begin:
        lines.append("!series_matrix_table_begin")
        lines.append('"ID_REF"\t' + quoted)
        for row in rows:
            lines.append("\t".join(row))
        if end:
            lines.append("!series_matrix_table_end")
    return "\n".join(lines) + "\n"


def write(path: Path, text: str | bytes, gz: bool = False) -> Path:
    data = text.encode("utf-8") if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


SAMPLES = ["GSM1", "GSM2", "GSM3"]
ROWS = [['"p1"', "1.5", "2", "3"],
        ['"p2"', "4", "5.25", "6"],
        ['"p3"', "7", "8", "9"]]


@pytest.fixture
def small_matrix(tmp_path: Path) -> Path:
    return write(tmp_path / "GSE1_series_matrix.txt.gz",
                 matrix_text(SAMPLES, ROWS, [["disease: RA", "disease: OA", ""],
                                             ["age: 40", "age: 50", "age: 60"]]), gz=True)


# ---------------------------------------------------------------------------
# Real data
# ---------------------------------------------------------------------------
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


def test_gse201926_empty_table_is_reported():
    with pytest.raises(NoExpressionTableError, match="empty") as info:
        get_genetic_data(shared_file(GSE201926))
    assert "GSE201926_series_matrix" in str(info.value)
    # the characteristics are still readable
    _, clinical = get_background_and_clinical_data(shared_file(GSE201926))
    assert clinical.shape[1] == 13


def test_gse201926_count_table():
    counts = read_gene_count_table(shared_file(GSE201926_COUNTS))
    assert counts.shape == (39376, 12)
    assert counts.index.name == "GeneID"
    # second data line: 653635  519  557 ...
    assert counts.loc["653635", "GSM6081173"] == 519
    assert (counts.dtypes == np.float64).all()


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


# ---------------------------------------------------------------------------
# Hand-made fixtures: behaviour
# ---------------------------------------------------------------------------
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


def test_unique_values_limit_and_order():
    frame = pd.DataFrame({SAMPLE_ID_KEY: ["!x"], **{f"GSM{i}": [f"v{i % 40}"]
                                                    for i in range(100)}})
    assert get_unique_values_by_row(frame, max_len=30)[0] == [f"v{i}" for i in range(30)]


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


def test_header_without_table_still_gives_clinical_data(tmp_path: Path):
    path = write(tmp_path / "m.txt", matrix_text(SAMPLES, [], [["a: 1", "a: 2", "a: 3"]],
                                                  begin=False))
    _, clinical = get_background_and_clinical_data(path)
    assert clinical.shape == (1, 4)


def test_header_properties(tmp_path: Path):
    path = write(tmp_path / "m.txt", matrix_text(SAMPLES, ROWS, extra='!Sample_platform_id\t'
                                                 '"GPL570"\t"GPL570"\t"GPL570"'))
    header = read_series_header(path)
    assert header.sample_ids == SAMPLES
    assert header.platform_ids == ["GPL570"]
    assert header.is_human is True
    # 4 !Series lines, title, accession, taxid, platform: begin is line 9
    assert header.table_begin_line == 9


# ---------------------------------------------------------------------------
# Bad input: one test per case
# ---------------------------------------------------------------------------
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


def test_duplicate_sample_ids_in_header(tmp_path: Path):
    path = write(tmp_path / "m.txt", matrix_text(["GSM1", "GSM2", "GSM1"], ROWS))
    with pytest.raises(InputFileError, match="duplicate sample ids: GSM1") as info:
        get_background_and_clinical_data(path)
    assert f"{path}:6:" in str(info.value)


def test_duplicate_sample_ids_in_table_header(tmp_path: Path):
    text = matrix_text(SAMPLES, ROWS).replace('"ID_REF"\t"GSM1"\t"GSM2"\t"GSM3"',
                                              '"ID_REF"\t"GSM1"\t"GSM2"\t"GSM2"')
    path = write(tmp_path / "m.txt", text)
    with pytest.raises(InputFileError, match="duplicate sample ids: GSM2") as info:
        get_genetic_data(path)
    assert f"{path}:9:" in str(info.value)  # the ID_REF line


def test_sample_line_with_wrong_number_of_values(tmp_path: Path):
    path = write(tmp_path / "m.txt", matrix_text(SAMPLES, ROWS, [["a: 1", "a: 2"]]))
    with pytest.raises(InputFileError, match="has 2 values but the series has 3") as info:
        get_background_and_clinical_data(path)
    assert f"{path}:8:" in str(info.value)


def test_non_utf8_bytes_decoded_as_latin1(tmp_path: Path):
    text = matrix_text(SAMPLES, [['"probe_\xe9"', "1", "2", "3"]],
                       [["sex: f\xe9minin", "sex: male", "sex: male"]])
    path = write(tmp_path / "m.txt.gz", text.encode("latin-1"), gz=True)
    _, clinical = get_background_and_clinical_data(path)
    assert clinical.loc[0, "GSM1"] == "sex: f\u00e9minin"
    assert list(get_genetic_data(path).index) == ["probe_\u00e9"]


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


# ---------------------------------------------------------------------------
# Cohort folders and multi-platform series
# ---------------------------------------------------------------------------
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
