"""Tests for tools.preprocess.gene_mapping: symbol extraction, probe -> gene aggregation and
symbol / GeneID / Ensembl normalization (SPEC 4.3, 4.4)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tests.conftest import shared_file

from tools.preprocess.gene_mapping import (apply_gene_mapping, detect_id_type,
                                           extract_human_gene_symbols, grouped_nanmean,
                                           normalize_gene_symbols_in_index)
from tools.preprocess.geo import get_genetic_data, read_gene_count_table
from tools.preprocess.soft import get_gene_annotation, get_gene_mapping


# ---------------------------------------------------------------------------
# Symbol extraction
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("DDR1 /// MIR4640", ["DDR1", "MIR4640"]),
    ("ABC1;DEF2|GHI3,JKL4 MNO5//PQR6", ["ABC1", "DEF2", "GHI3", "JKL4", "MNO5", "PQR6"]),
    ("NM_001005484 // OR4F5 // olfactory receptor family 4 // 1p36.33 // 79501", ["OR4F5"]),
    ("C1orf112", ["C1orf112"]),
    ("C6orf47-AS1 /// SLC25A25-AS1", ["C6orf47-AS1", "SLC25A25-AS1"]),
    ("CXorf58", ["CXorf58"]),
    ("LINC00115", ["LINC00115"]),
    ("HLA-DRB1", ["HLA-DRB1"]),
    ("LOC100287102 /// NR_046018 /// XR_001737578 /// NM_000546", []),
    ("DNA RNA PCR EST CHR", []),
    ("hsa_circRNA_000113", []),
    ("U48705 /// AA123456 /// ENSG00000141510", []),
    ("TP53 /// TP53 /// tp53", ["TP53"]),
    ("A B", []),  # single letters are not genes
    ("X" * 31, []),
    ("(TP53)", ["TP53"]),
    ("", []),
])
def test_extract_human_gene_symbols(text, expected):
    assert extract_human_gene_symbols(text) == expected


@pytest.mark.parametrize("value", [None, float("nan"), 7157, pd.NA])
def test_extract_non_text_gives_nothing(value):
    assert extract_human_gene_symbols(value) == []


# ---------------------------------------------------------------------------
# Probe -> gene aggregation
# ---------------------------------------------------------------------------
@pytest.fixture
def probes() -> pd.DataFrame:
    return pd.DataFrame(
        {"S1": [1.0, 3.0, np.nan, 10.0, 7.0, np.nan],
         "S2": [2.0, np.nan, np.nan, 20.0, 8.0, 5.0]},
        index=pd.Index(["p1", "p2", "p3", "p4", "p5", "p6"], name="ID"))


@pytest.fixture
def mapping() -> pd.DataFrame:
    return pd.DataFrame({"ID": ["p1", "p2", "p3", "p4", "p5", "p7"],
                         "Gene": ["AAA1 /// BBB2", "AAA1", "CCC3", "---", "AAA1", "DDD4"]})


def test_apply_gene_mapping_mean_over_probe_contributions(probes, mapping):
    genes = apply_gene_mapping(probes, mapping)
    assert genes.index.name == "Gene"
    # p4 has no symbol, p6 no mapping, p7 no expression row: none contribute
    assert list(genes.index) == ["AAA1", "BBB2", "CCC3"]
    assert list(genes.columns) == ["S1", "S2"]
    # AAA1 <- p1, p2, p5 (p1 also to BBB2): S1 mean(1, 3, 7) = 11/3; S2 mean(2, 8) = 5
    assert genes.loc["AAA1", "S1"] == pytest.approx(11 / 3)
    assert genes.loc["AAA1", "S2"] == pytest.approx(5.0)
    # a multi-gene probe gives its full value to each gene (not split)
    assert genes.loc["BBB2"].tolist() == [1.0, 2.0]
    # all-NaN probe contributions stay NaN, never 0
    assert genes.loc["CCC3"].isna().all()


def test_apply_gene_mapping_matches_naive_reference():
    rng = np.random.default_rng(7)
    n_probes, n_samples = 300, 9
    values = rng.normal(size=(n_probes, n_samples))
    values[rng.random(values.shape) < 0.2] = np.nan
    probe_ids = [f"p{i}" for i in range(n_probes)]
    pool = [f"G{i}" for i in range(40)]
    texts = [" /// ".join(rng.choice(pool, size=rng.integers(0, 4), replace=False))
             for _ in range(n_probes)]
    expression = pd.DataFrame(values, index=probe_ids, columns=[f"S{j}" for j in range(9)])
    result = apply_gene_mapping(expression, pd.DataFrame({"ID": probe_ids, "Gene": texts}))
    contributions = {}
    for probe, text in zip(probe_ids, texts):
        for gene in dict.fromkeys(t for t in text.split(" /// ") if t):
            contributions.setdefault(gene, []).append(expression.loc[probe].to_numpy())
    assert sorted(contributions) == list(result.index)
    for gene, rows in contributions.items():
        stacked = np.vstack(rows)
        with np.errstate(all="ignore"):
            expected = np.array([np.nan if np.isnan(c).all() else np.nanmean(c)
                                 for c in stacked.T])
        np.testing.assert_allclose(result.loc[gene].to_numpy(), expected, equal_nan=True)


def _reference_group_means(values: np.ndarray, rows, groups, n_groups: int) -> np.ndarray:
    """The former algorithm, kept as the reference: a sparse (groups x rows) indicator
    product over a C-ordered copy with NaN read as 0, divided by the non-NaN counts."""
    from scipy import sparse
    values = np.array(values, dtype=np.float64, order="C", copy=True)
    indicator = sparse.csr_matrix((np.ones(len(rows)), (groups, rows)),
                                  shape=(n_groups, values.shape[0]))
    missing = np.isnan(values)
    values[missing] = 0.0
    counts = indicator @ (~missing).astype(np.float64)
    sums = indicator @ values
    with np.errstate(invalid="ignore", divide="ignore"):
        sums /= counts
    sums[counts == 0] = np.nan
    return sums


def _reference_mapping(expression: pd.DataFrame, mapping: pd.DataFrame) -> pd.DataFrame:
    """Probe -> gene means computed the straightforward way (unique probe ids)."""
    pairs = {}
    for probe, text in zip(mapping["ID"].astype(str), mapping["Gene"]):
        for symbol in extract_human_gene_symbols(text):
            pairs[(probe, symbol)] = None
    position = {probe: i for i, probe in enumerate(expression.index.astype(str))}
    kept = [(position[p], s) for p, s in pairs if p in position]
    genes, groups = np.unique(np.array([s for _, s in kept], dtype=str), return_inverse=True)
    rows = np.array([r for r, _ in kept], dtype=np.int64)
    means = _reference_group_means(expression.to_numpy(), rows, groups, len(genes))
    return pd.DataFrame(means, index=pd.Index(genes.tolist(), name="Gene"),
                        columns=expression.columns)


def _same_bits(result: pd.DataFrame, expected: pd.DataFrame) -> bool:
    """Equal index, columns and float64 bit patterns (NaN payloads, the sign of 0)."""
    return (list(result.index) == list(expected.index)
            and list(result.columns) == list(expected.columns)
            and result.to_numpy().shape == expected.to_numpy().shape
            and np.array_equal(np.ascontiguousarray(result.to_numpy()).view(np.int64),
                               np.ascontiguousarray(expected.to_numpy()).view(np.int64)))


def _generated_mapping_case(seed: int, n_probes: int = 400, n_samples: int = 21):
    """Probes with NaN (20 %), -0.0 and all-NaN rows; texts with 0-3 symbols out of 60;
    some mapping ids repeated or absent from the table; sample count not a multiple of
    the aggregation block."""
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n_probes, n_samples)).round(2)  # rounding makes some -0.0
    values[rng.random(values.shape) < 0.2] = np.nan
    values[::37] = np.nan
    probe_ids = [f"p{i}" for i in range(n_probes)]
    pool = [f"G{i}" for i in range(60)]
    texts = [" /// ".join(rng.choice(pool, size=rng.integers(0, 4), replace=False))
             for _ in range(n_probes)]
    mapping = pd.DataFrame({"ID": probe_ids + ["p3", "p5", "absent"],
                            "Gene": texts + ["G1 /// G2", texts[5], "G7"]})
    expression = pd.DataFrame(values, index=pd.Index(probe_ids, name="ID"),
                              columns=[f"S{j}" for j in range(n_samples)])
    return expression, mapping


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_apply_gene_mapping_bit_identical_to_reference(seed):
    expression, mapping = _generated_mapping_case(seed)
    assert (expression.to_numpy() == 0).any() and np.signbit(expression.to_numpy()[
        expression.to_numpy() == 0]).any(), "the case must hold -0.0"
    assert _same_bits(apply_gene_mapping(expression, mapping),
                      _reference_mapping(expression, mapping))
    unique_ids = mapping.iloc[:len(expression)]  # the fast path without duplicate pairs
    assert _same_bits(apply_gene_mapping(expression, unique_ids),
                      _reference_mapping(expression, unique_ids))


@pytest.mark.parametrize("collide", [True, False])
def test_normalize_bit_identical_to_reference(tmp_path: Path, collide: bool):
    expression, _ = _generated_mapping_case(3, n_probes=120)
    genes = expression.set_axis([f"G{i}" for i in range(len(expression))], axis=0)
    labels = list(genes.index)
    # every other label maps to itself; with collisions, three more fold onto two of them
    synonyms = {label.upper(): label for label in labels[::2]}
    if collide:
        synonyms.update({labels[1].upper(): labels[0], labels[3].upper(): labels[0],
                         labels[5].upper(): labels[2]})
    path = tmp_path / "gene_synonym.json"
    path.write_text(json.dumps(synonyms))
    result = normalize_gene_symbols_in_index(genes, synonym_path=path, id_type="symbol")
    official = [synonyms.get(label.upper()) for label in labels]
    rows = np.array([i for i, o in enumerate(official) if o is not None])
    names, groups = np.unique(np.array([official[i] for i in rows], dtype=str),
                              return_inverse=True)
    values = genes.to_numpy()
    expected = (_reference_group_means(values, rows, groups, len(names)) if collide
                else values[rows[np.argsort(groups)]])
    assert (len(names) < len(rows)) == collide
    assert _same_bits(result, pd.DataFrame(expected, index=names.tolist(),
                                           columns=genes.columns))


def test_grouped_nanmean_bit_identical_to_reference():
    rng = np.random.default_rng(5)
    values = rng.normal(size=(50, 19)).round(1)
    values[rng.random(values.shape) < 0.3] = np.nan
    rows = rng.integers(0, 50, size=120)
    groups = rng.integers(0, 30, size=120)  # unordered, overlapping, some groups empty
    pairs = np.unique(np.stack([rows, groups]), axis=1)
    result = grouped_nanmean(values, pairs[0], pairs[1], 33)
    expected = _reference_group_means(values, pairs[0], pairs[1], 33)
    assert np.array_equal(np.ascontiguousarray(result).view(np.int64),
                          np.ascontiguousarray(expected).view(np.int64))
    # F-ordered input and a (n_groups, n_columns) result, in the layout of a DataFrame block
    assert np.array_equal(grouped_nanmean(np.asfortranarray(values), pairs[0], pairs[1], 33),
                          expected, equal_nan=True)
    assert result.T.flags.c_contiguous


def test_apply_gene_mapping_duplicate_probe_rows_are_averaged():
    expression = pd.DataFrame({"S1": [1.0, 3.0]}, index=["p1", "p1"])
    genes = apply_gene_mapping(expression, pd.DataFrame({"ID": ["p1"], "Gene": ["TP53"]}))
    assert genes.loc["TP53", "S1"] == 2.0


def test_apply_gene_mapping_nothing_mapped(probes):
    genes = apply_gene_mapping(probes, pd.DataFrame({"ID": ["p1"], "Gene": ["---"]}))
    assert genes.shape == (0, 2) and genes.index.name == "Gene"


def test_grouped_nanmean_overlapping_groups():
    values = np.array([[1.0, np.nan], [3.0, np.nan], [5.0, 6.0]])
    out = grouped_nanmean(values, rows=np.array([0, 1, 2, 2]), groups=np.array([0, 0, 0, 1]),
                          n_groups=3)
    np.testing.assert_allclose(out, [[3.0, 6.0], [5.0, 6.0], [np.nan, np.nan]],
                               equal_nan=True)


# ---------------------------------------------------------------------------
# Normalization with a small hand-made map
# ---------------------------------------------------------------------------
@pytest.fixture
def small_maps(tmp_path: Path) -> Path:
    synonyms = {"TP53": "TP53", "P53": "TP53", "ERBB2": "ERBB2", "HER2": "ERBB2",
                "C1ORF112": "C1orf112", "FIRRM": "FIRRM"}
    (tmp_path / "gene_synonym.json").write_text(json.dumps(synonyms))
    (tmp_path / "gene_entrez.json").write_text(json.dumps({"7157": "TP53", "2064": "ERBB2"}))
    (tmp_path / "gene_ensembl.json").write_text(json.dumps({"ENSG00000141510": "TP53"}))
    return tmp_path / "gene_synonym.json"


def test_normalize_symbols_maps_drops_and_averages(small_maps: Path):
    table = pd.DataFrame({"S1": [1.0, 3.0, 5.0, 100.0, 2.0, np.nan],
                          "S2": [np.nan, 4.0, 6.0, 100.0, np.nan, np.nan]},
                         index=["TP53", "p53", "HER2", "NOTAGENE", "c1orf112", "erbb2"])
    result = normalize_gene_symbols_in_index(table, synonym_path=small_maps)
    assert result.index.name == "Gene"
    assert list(result.index) == ["C1orf112", "ERBB2", "TP53"]
    # TP53 <- TP53, p53: S1 mean(1, 3) = 2, S2 mean(NaN, 4) = 4 (NaN-aware)
    assert result.loc["TP53"].tolist() == [2.0, 4.0]
    # ERBB2 <- HER2 (5, 6) and erbb2 (NaN, NaN) -> 5, 6
    assert result.loc["ERBB2"].tolist() == [5.0, 6.0]
    assert result.loc["C1orf112", "S1"] == 2.0 and math.isnan(result.loc["C1orf112", "S2"])


def test_normalize_entrez_and_ensembl_ids(small_maps: Path):
    entrez = pd.DataFrame({"S1": [1.0, 2.0, 9.0]}, index=["7157", "2064", "999999"])
    result = normalize_gene_symbols_in_index(entrez, synonym_path=small_maps)
    assert result["S1"].to_dict() == {"ERBB2": 2.0, "TP53": 1.0}
    ensembl = pd.DataFrame({"S1": [4.0, 6.0]},
                           index=["ENSG00000141510.17", "ENSG00000141510"])
    result = normalize_gene_symbols_in_index(ensembl, synonym_path=small_maps)
    assert result["S1"].to_dict() == {"TP53": 5.0}


def test_detect_id_type():
    assert detect_id_type(["7157", "2064", "1"]) == "entrez"
    assert detect_id_type([7157, 2064]) == "entrez"
    assert detect_id_type(["ENSG00000141510.17", "ENSG00000141510"]) == "ensembl"
    assert detect_id_type(["TP53", "7157", "EGFR"]) == "symbol"
    assert detect_id_type([]) == "symbol"


def test_missing_synonym_map_is_a_clear_error(tmp_path: Path):
    table = pd.DataFrame({"S1": [1.0]}, index=["TP53"])
    with pytest.raises(ValueError, match="gene map not found"):
        normalize_gene_symbols_in_index(table, synonym_path=tmp_path / "gene_synonym.json")


# ---------------------------------------------------------------------------
# Real data with the real synonym map
# ---------------------------------------------------------------------------
def test_gse55235_gpl96_to_normalized_genes(real_gene_maps: Path):
    expression = get_genetic_data(shared_file("geo/GSE55235/GSE55235_series_matrix.txt.gz"))
    annotation = get_gene_annotation(shared_file("geo/platforms/GPL96.soft.gz"))
    mapping = get_gene_mapping(annotation, "ID", "Gene Symbol")
    genes = apply_gene_mapping(expression, mapping)
    assert 12500 < len(genes) < 13500  # roughly 13k symbols on HG-U133A
    assert genes.shape[1] == 30
    # golden value derived independently: mean over the probes whose ' /// '-split
    # Gene Symbol cell lists DDR1
    ddr1_probes = annotation.loc[annotation["Gene Symbol"].fillna("").str.split(" /// ")
                                 .apply(lambda s: "DDR1" in s), "ID"]
    assert len(ddr1_probes) >= 2
    expected = expression.loc[ddr1_probes].mean(axis=0)
    np.testing.assert_allclose(genes.loc["DDR1"].to_numpy(), expected.to_numpy())

    normalized = normalize_gene_symbols_in_index(genes, synonym_path=real_gene_maps)
    assert 12500 < len(normalized) <= len(genes)
    assert normalized.index.is_unique and normalized.index.is_monotonic_increasing
    # outdated GPL96 symbols are renamed to today's official ones
    assert "A2BP1" in genes.index and "A2BP1" not in normalized.index
    assert "RBFOX1" in normalized.index
    assert normalized.loc["TP53"].notna().all()


def test_gse201926_entrez_counts_to_symbols(real_gene_maps: Path):
    counts = read_gene_count_table(
        shared_file("geo/GSE201926/GSE201926_raw_counts_GRCh38.p13_NCBI.tsv.gz"))
    normalized = normalize_gene_symbols_in_index(counts, synonym_path=real_gene_maps)
    # 39,376 GeneIDs; the 2022 gene_info knows most of them
    assert 35000 < len(normalized) <= 39376
    assert normalized.index.name == "Gene"
    pd.testing.assert_series_equal(normalized.loc["TP53"], counts.loc["7157"],
                                   check_names=False)
    assert normalized.loc["ERBB2"].tolist() == counts.loc["2064"].tolist()
