"""Tests for tools.preprocess.geo.counts: NCBI-generated RNA-seq count tables."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from tests.conftest import shared_file

from tests.tools.preprocess.geo.matrices import GSE201926_COUNTS
from tools.preprocess.geo import read_gene_count_table
from utils.errors import InputFileError

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
