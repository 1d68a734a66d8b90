"""Linking clinical and gene tables; missing-value rules (SPEC 4.6)."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

from tools.preprocess.linking import geo_link_clinical_genetic_data, handle_missing_values
from utils.columns import gene_columns

NAN = np.nan


def clinical_features_by_samples():
    return pd.DataFrame([[1.0, 0.0, 1.0, 0.0], [50.0, 60.0, NAN, 40.0],
                         [0.0, 1.0, 1.0, NAN]],
                        index=["Asthma", "Age", "Gender"],
                        columns=["GSM4", "GSM1", "GSM2", "GSM9"])


def genes_by_samples():
    return pd.DataFrame([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]],
                        index=pd.Index(["TP53", "EGFR"], name="Gene"),
                        columns=["GSM1", "GSM2", "GSM3", "GSM4"])


# ----------------------------------------------------------------- linking
def test_link_inner_join_in_clinical_order():
    linked = geo_link_clinical_genetic_data(clinical_features_by_samples(), genes_by_samples())
    assert list(linked.index) == ["GSM4", "GSM1", "GSM2"]  # GSM9 / GSM3 in one table only
    assert list(linked.columns) == ["Asthma", "Age", "Gender", "TP53", "EGFR"]
    assert linked.loc["GSM4", "TP53"] == 4.0
    assert linked.loc["GSM1", "Age"] == 60.0
    assert linked.index.name is None


def test_link_accepts_samples_by_features_clinical():
    """The TCGA helper returns samples as rows (original orientation)."""
    by_rows = geo_link_clinical_genetic_data(clinical_features_by_samples().T,
                                             genes_by_samples())
    by_columns = geo_link_clinical_genetic_data(clinical_features_by_samples(),
                                                genes_by_samples())
    pd.testing.assert_frame_equal(by_rows, by_columns)


def test_link_without_shared_samples_is_empty(caplog):
    clinical = clinical_features_by_samples().rename(columns=lambda c: c + "x")
    with caplog.at_level(logging.WARNING):
        linked = geo_link_clinical_genetic_data(clinical, genes_by_samples())
    assert linked.empty
    assert "no sample is in both" in caplog.text


def test_link_rejects_duplicates_and_name_clashes():
    genes = genes_by_samples()
    duplicated = genes.rename(columns={"GSM3": "GSM1"})
    with pytest.raises(ValueError, match="duplicate sample ids in the gene table"):
        geo_link_clinical_genetic_data(clinical_features_by_samples(), duplicated)
    clash = genes.rename(index={"EGFR": "Age"})
    with pytest.raises(ValueError, match="named like clinical features"):
        geo_link_clinical_genetic_data(clinical_features_by_samples(), clash)


# ----------------------------------------------------------------- missing values
def linked_table(n_samples, gene_values, trait=None, age=None, gender=None):
    """A linked table with samples S0.. and genes given as {name: values}."""
    index = [f"S{i}" for i in range(n_samples)]
    data = {"Trait": trait if trait is not None else [i % 2 for i in range(n_samples)]}
    if age is not None:
        data["Age"] = age
    if gender is not None:
        data["Gender"] = gender
    data.update(gene_values)
    return pd.DataFrame(data, index=index, dtype="float64")


def with_missing(n_samples, missing_rows, base=1.0):
    values = [base + i for i in range(n_samples)]
    for row in missing_rows:
        values[row] = NAN
    return values


def test_samples_with_missing_trait_dropped_first():
    table = linked_table(5, {"G1": [1, 2, 3, 4, 5]}, trait=[1, NAN, 0, 1, NAN])
    result = handle_missing_values(table, "Trait")
    assert list(result.index) == ["S0", "S2", "S3"]


@pytest.mark.parametrize("n_samples", [5, 10, 15, 20, 35])
def test_gene_missing_exactly_20_percent_is_kept(n_samples):
    at_limit = n_samples // 5  # exactly 20 %
    genes = {"AT_LIMIT": with_missing(n_samples, range(at_limit)),
             "OVER": with_missing(n_samples, range(at_limit + 1)),
             "FULL": with_missing(n_samples, [])}
    result = handle_missing_values(linked_table(n_samples, genes), "Trait")
    # No sample misses more than 20 % of the 2 remaining genes except those
    # missing AT_LIMIT (1 of 2 = 50 %): they are dropped in step 3.
    assert gene_columns(result.columns, "Trait") == ["AT_LIMIT", "FULL"]
    assert len(result) == n_samples - at_limit


def test_gene_share_is_counted_after_trait_drop():
    # 6 samples, 2 lack the trait; G1 misses 1 of the remaining 4 (25 %) -> dropped,
    # although it misses only 1 of 6 (17 %) of all samples.
    table = linked_table(6, {"G1": [NAN, 2, 3, 4, 5, 6], "G2": [1, 2, 3, 4, 5, 6]},
                         trait=[1, 0, 1, 0, NAN, NAN])
    result = handle_missing_values(table, "Trait")
    assert gene_columns(result.columns, "Trait") == ["G2"]


def test_sample_missing_exactly_20_percent_of_genes_is_kept():
    # 10 genes, no gene misses > 20 % of 6 samples (at most 1 of 6).
    genes = {f"G{j}": [float(j)] * 6 for j in range(10)}
    for j in (0, 1):
        genes[f"G{j}"][0] = NAN   # S0 misses 2 of 10 genes = 20 %: kept
    for j in (2, 3, 4):
        genes[f"G{j}"][1] = NAN   # S1 misses 3 of 10 = 30 %: dropped
    result = handle_missing_values(linked_table(6, genes), "Trait")
    assert list(result.index) == ["S0", "S2", "S3", "S4", "S5"]
    assert len(gene_columns(result.columns, "Trait")) == 10
    assert not result.isna().any().any()


def test_gene_step_runs_before_sample_step():
    # S0 misses SPARSE1..2 (dropped genes, 2 of 4 samples each) -> after the gene
    # step S0 misses nothing, so it is kept.
    genes = {"SPARSE1": [NAN, NAN, 1, 1], "SPARSE2": [NAN, 1, NAN, 1],
             "G1": [1, 2, 3, 4], "G2": [4, 3, 2, 1]}
    result = handle_missing_values(linked_table(4, genes), "Trait")
    assert gene_columns(result.columns, "Trait") == ["G1", "G2"]
    assert list(result.index) == ["S0", "S1", "S2", "S3"]


def test_fill_values_age_mean_gender_mode_gene_mean():
    genes = {f"G{j}": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] for j in range(4)}
    genes["G0"][5] = NAN  # G0 misses 1 of 6 samples: kept, filled with its mean
    genes["G1"][0] = NAN
    # 10 genes, so S0 and S5 miss 1 of 10 genes (10 %) and are kept:
    genes.update({f"H{j}": [1.0] * 6 for j in range(6)})
    table = linked_table(6, genes, age=[30, NAN, 50, 70, NAN, 20],
                         gender=[1, 1, NAN, 0, 0, 0])
    result = handle_missing_values(table, "Trait")
    assert len(result) == 6
    assert result.loc["S1", "Age"] == pytest.approx((30 + 50 + 70 + 20) / 4)
    assert result.loc["S2", "Gender"] == 0  # mode of [1, 1, 0, 0, 0]
    assert result.loc["S5", "G0"] == pytest.approx((1 + 2 + 3 + 4 + 5) / 5)
    assert result.loc["S0", "G1"] == pytest.approx((2 + 3 + 4 + 5 + 6) / 5)
    assert not result.isna().any().any()


def test_gender_mode_tie_fills_smaller_code():
    genes = {"G1": [1.0, 2.0, 3.0, 4.0, 5.0]}
    table = linked_table(5, genes, gender=[1, 0, 1, 0, NAN])
    assert handle_missing_values(table, "Trait").loc["S4", "Gender"] == 0


def test_all_missing_covariate_is_dropped():
    table = linked_table(3, {"G1": [1, 2, 3]}, age=[NAN, NAN, NAN], gender=[NAN] * 3)
    result = handle_missing_values(table, "Trait")
    assert list(result.columns) == ["Trait", "G1"]


def test_no_gene_surviving_keeps_samples_and_says_so(caplog):
    genes = {"G1": [NAN, NAN, 1.0], "G2": [1.0, NAN, NAN]}
    table = linked_table(3, genes, age=[20, 30, 40])
    with caplog.at_level(logging.WARNING):
        result = handle_missing_values(table, "Trait")
    assert list(result.columns) == ["Trait", "Age"]
    assert len(result) == 3
    assert "no gene column left" in caplog.text


def test_all_traits_missing_gives_empty_table():
    table = linked_table(3, {"G1": [1, 2, 3]}, trait=[NAN, NAN, NAN])
    result = handle_missing_values(table, "Trait")
    assert result.empty and "G1" in result.columns


def test_input_left_untouched_and_unknown_trait_is_clear():
    table = linked_table(5, {"G1": [NAN, 2, 3, 4, 5]}, age=[1, NAN, 3, 4, 5])
    before = table.copy()
    handle_missing_values(table, "Trait")
    pd.testing.assert_frame_equal(table, before)
    with pytest.raises(KeyError, match="Nope"):
        handle_missing_values(table, "Nope")


def test_infinities_are_missing_values(caplog):
    """inf / -inf carry no measurement: handled exactly like NaN, in genes and clinical
    columns (the sample with an infinite trait goes, an infinite Age is filled)."""
    table = pd.DataFrame({"Asthma": [1.0, 0.0, 1.0, 0.0, np.inf, 1.0],
                          "Age": [30.0, -np.inf, 50.0, 60.0, 70.0, 40.0],
                          "TP53": [1.0, 2.0, np.inf, 4.0, 5.0, 6.0],
                          "EGFR": [1.0, 2.0, 3.0, 4.0, 5.0, -np.inf]},
                         index=[f"GSM{i}" for i in range(6)])
    with caplog.at_level(logging.WARNING, logger="tools.preprocess.linking"):
        result = handle_missing_values(table, "Asthma")
    as_nan = handle_missing_values(table.replace([np.inf, -np.inf], np.nan), "Asthma")
    pd.testing.assert_frame_equal(result, as_nan)
    assert np.isfinite(result.to_numpy()).all()
    assert "GSM4" not in result.index and result.loc["GSM1", "Age"] == 45.0
    assert "2 infinite clinical values" in caplog.text
