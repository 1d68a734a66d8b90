"""Gene tables by rule (:mod:`genotex.methods.rules.expression`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from genotex.methods.rules.expression import (geo_gene_table, ids_are_symbols, is_linear_scale,
                                              log2_counts_per_million)
from tests.conftest import REPO_ROOT
from utils.paths import resolve_paths
from utils.symbols import load_synonym_map


def test_scale_rule():
    assert not is_linear_scale(np.array([1.0, 7.5, 14.9, np.nan]))
    assert is_linear_scale(np.linspace(1, 20000, 1000))
    assert not is_linear_scale(np.array([-2.0, 500.0, 20000.0]))        # negative: not raw
    assert not is_linear_scale(np.array([np.nan]))


def test_counts_per_million():
    counts = pd.DataFrame({"s1": [10.0, 30.0, 60.0], "s2": [0.0, 50.0, 50.0]})
    cpm = log2_counts_per_million(counts)
    np.testing.assert_allclose(cpm["s1"], np.log2([1e5 + 1, 3e5 + 1, 6e5 + 1]))
    np.testing.assert_allclose(cpm["s2"], np.log2([1, 5e5 + 1, 5e5 + 1]))


def test_symbol_ids():
    synonyms = {"TNF": "TNF", "IL6": "IL6"}
    assert ids_are_symbols(pd.Index(["TNF", "il6", "X1"]), synonyms)
    assert not ids_are_symbols(pd.Index(["1007_s_at", "TNF", "A_23_P1"]), synonyms)
    assert not ids_are_symbols(pd.Index([]), synonyms)


def test_the_demo_multi_platform_series_uses_the_human_platform():
    paths = resolve_paths()
    folder = REPO_ROOT / "input" / "GEO" / "Rheumatoid_Arthritis" / "GSE9100401"
    soft = next(folder.glob("*family.soft*"))
    table = geo_gene_table(folder, soft, paths.gene_synonyms, load_synonym_map())
    assert table.decisions["platform"] == "GPL91001"
    assert (table.decisions["probe_col"], table.decisions["gene_col"]) == ("ID", "Gene Symbol")
    reference = pd.read_csv(REPO_ROOT / "output" / "preprocess" / "Rheumatoid_Arthritis" /
                            "gene_data" / "GSE9100401.csv", index_col=0)
    assert list(table.genes.index) == list(reference.index)
    np.testing.assert_allclose(table.genes.to_numpy(), reference.to_numpy(), rtol=1e-5)
