"""Tests for tools.preprocess.geo.counts: NCBI-generated RNA-seq count tables."""

from __future__ import annotations

import gzip
import logging

import numpy as np
import pytest
from tests.conftest import shared_file

from tests.tools.preprocess.geo.matrices import GSE201926_COUNTS
from tools.preprocess.geo import read_gene_count_table
from utils.errors import InputFileError
from utils.input_safety import ReadLimits

def test_gse201926_count_table():
    counts = read_gene_count_table(shared_file(GSE201926_COUNTS))
    assert counts.shape == (39376, 12)
    assert counts.index.name == "GeneID"
    # second data line: 653635  519  557 ...
    assert counts.loc["653635", "GSM6081173"] == 519
    assert (counts.dtypes == np.float64).all()


def test_comma_separated_table_with_a_text_cell(tmp_path, caplog):
    path = tmp_path / "GSE1_raw_counts.csv"
    path.write_text("GeneID,GSM1,GSM2\n7157,10,n/a\n672,3,x\n")
    with caplog.at_level(logging.WARNING, logger="tools.preprocess.geo"):
        counts = read_gene_count_table(path)
    assert list(counts.index) == ["7157", "672"]
    assert counts.loc["7157", "GSM1"] == 10 and np.isnan(counts.loc["7157", "GSM2"])
    assert np.isnan(counts.loc["672", "GSM2"])  # "x" is not a number: NaN, never 0
    assert "1 non-numeric expression values" in caplog.text  # "n/a" is a missing-value text


def test_empty_and_headless_count_tables(tmp_path):
    empty = tmp_path / "GSE1_counts.tsv"
    empty.write_text("\n\n")
    with pytest.raises(InputFileError, match="empty file"):
        read_gene_count_table(empty)
    headless = tmp_path / "GSE2_counts.tsv"
    headless.write_text("GeneID\tGSM1\n")
    with pytest.raises(InputFileError, match="header but no rows"):
        read_gene_count_table(headless)


# ---------------------------------------------------------------------------
# Shifted headers, cut files, wrong formats (issue 14)
# ---------------------------------------------------------------------------
COUNTS = "GeneID\tGSM1\tGSM2\n1\t10\t0\n2\t3\t7\n3\t5\t6\n"


@pytest.mark.parametrize("text, problem, line", [
    # header one name short: labels would shift (the gene ids became the first sample)
    (COUNTS.replace("GeneID\t", ""), "count table row has 3 fields, expected 2", 2),
    # one name too many: a phantom all-NaN sample
    (COUNTS.replace("GSM2\n", "GSM2\tGSM3\n"), "count table row has 3 fields, expected 4", 2),
    # a row with an extra field
    (COUNTS.replace("2\t3\t7", "2\t3\t7\t9"), "count table row has 4 fields, expected 3", 3),
    # cut in the middle of the last row: a field missing, or the last field cut short
    (COUNTS[:-3], "count table row has 2 fields, expected 3", 4),
    (COUNTS[:-2], "the file ends in the middle of this line", 4),
    ("GeneID\n1\n", "the header names no sample column", 1),
])
def test_count_table_shape_problems_name_the_line(tmp_path, text, problem, line):
    path = tmp_path / "GSE1_raw_counts.tsv"
    path.write_text(text)
    with pytest.raises(InputFileError, match=problem) as info:
        read_gene_count_table(path)
    assert str(info.value).startswith(f"{path}:{line}: ")


def test_comma_separated_widths_are_checked_too(tmp_path):
    path = tmp_path / "GSE1_raw_counts.csv"
    path.write_text("GSM1,GSM2\n7157,10,3\n")
    with pytest.raises(InputFileError, match="row has 3 fields, expected 2"):
        read_gene_count_table(path)


@pytest.mark.parametrize("data, problem", [
    (b"<!DOCTYPE html>\n<html><body>Not Found</body></html>\n", "an HTML or XML page"),
    (COUNTS.encode("utf-16"), "UTF-16 text \\(byte-order mark\\)"),
    (COUNTS.encode("utf-16-le"), "UTF-16 text without byte-order mark"),
])
def test_wrong_formats_are_refused_up_front(tmp_path, data, problem):
    path = tmp_path / "GSE1_raw_counts.tsv"
    path.write_bytes(data)
    with pytest.raises(InputFileError, match=problem):
        read_gene_count_table(path)


def test_a_utf8_bom_does_not_rename_the_first_column(tmp_path):
    path = tmp_path / "GSE1_raw_counts.tsv"
    path.write_bytes(b"\xef\xbb\xbf" + COUNTS.encode())
    assert read_gene_count_table(path).index.name == "GeneID"


def test_a_line_over_the_cap_is_refused(tmp_path):
    path = tmp_path / "GSE1_raw_counts.tsv"
    path.write_text(COUNTS + "4\t" + "9" * 200 + "\t1\n")
    with pytest.raises(InputFileError, match=":5: line longer than 100 bytes"):
        read_gene_count_table(path, limits=ReadLimits(max_line_bytes=100))


def test_gse201926_with_its_header_one_name_short_is_refused(tmp_path):
    """The issue's case: without 'GeneID' the samples were labelled ['GeneID', 'GSM6081173',
    ...] one column off; now the first data row is named."""
    text = gzip.decompress(shared_file(GSE201926_COUNTS).read_bytes())
    path = tmp_path / "GSE201926_raw_counts_GRCh38.p13_NCBI.tsv.gz"
    path.write_bytes(gzip.compress(text.replace(b"GeneID\t", b"", 1)))
    with pytest.raises(InputFileError, match="count table row has 13 fields, expected 12"):
        read_gene_count_table(path)
    cut = tmp_path / "cut.tsv.gz"
    cut.write_bytes(gzip.compress(text[:len(text) // 2]))  # cut in the middle of a row
    with pytest.raises(InputFileError, match="cut.tsv.gz:[0-9]+: "):
        read_gene_count_table(cut)
