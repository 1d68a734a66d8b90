"""Tests of utils.metrics: golden values computed by hand, and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from utils.metrics import (auroc_from_hits, auroc_from_scores, classification_metrics,
                           failed_gene_metrics, gene_list_metrics, gsea_es_from_hits,
                           gsea_es_from_scores, jaccard_index, nan_mean, overlap_metrics,
                           pearson_by_row, ranking_scores, table_similarity)

# ----------------------------------------------------------------------------- overlap


def test_overlap_golden():
    # pred {A,B,C}, ref {A,C,D,E}: common 2 -> P 2/3, R 2/4, F1 2*2/(3+4), J 2/5.
    scores = overlap_metrics(["A", "B", "C"], ["A", "C", "D", "E"])
    assert scores["precision"] == pytest.approx(200 / 3)
    assert scores["recall"] == pytest.approx(50.0)
    assert scores["f1"] == pytest.approx(400 / 7)
    assert scores["jaccard"] == pytest.approx(40.0)


def test_overlap_empty_rules():
    assert overlap_metrics([], []) == dict.fromkeys(["precision", "recall", "f1", "jaccard"],
                                                    100.0)
    assert set(overlap_metrics(["A"], []).values()) == {0.0}
    assert set(overlap_metrics([], ["A"]).values()) == {0.0}
    # disjoint non-empty sets: everything 0
    assert set(overlap_metrics(["A"], ["B"]).values()) == {0.0}


def test_classification_golden():
    # pred [T,T,F,F,T], ref [T,F,T,F,T]: tp 2, fp 1, fn 1, tn 1
    # precision 2/3, recall 2/3, F1 2*2/(3+3) = 2/3, accuracy 3/5.
    scores = classification_metrics([1, 1, 0, 0, 1], [1, 0, 1, 0, 1])
    assert (scores["tp"], scores["fp"], scores["fn"], scores["tn"]) == (2, 1, 1, 1)
    assert scores["precision"] == pytest.approx(200 / 3)
    assert scores["recall"] == pytest.approx(200 / 3)
    assert scores["f1"] == pytest.approx(200 / 3)
    assert scores["accuracy"] == pytest.approx(60.0)


def test_classification_no_positive_anywhere_and_no_items():
    scores = classification_metrics([False, False], [False, False])
    assert scores["f1"] == 100.0 and scores["accuracy"] == 100.0
    assert math.isnan(classification_metrics([], [])["accuracy"])
    with pytest.raises(ValueError):
        classification_metrics([True], [True, False])


# ----------------------------------------------------------------------------- ranking

def test_auroc_golden_with_ties():
    # U = A..F, prediction [A, B] -> scores A=2, B=1, C..F=0; reference {A, C}.
    # Positive A beats every negative (B, D, E, F): 4 wins.
    # Positive C (never predicted, score 0) loses to B and ties D, E, F: 3 x 1/2.
    # AUROC = (4 + 1.5) / (2 positives x 4 negatives) = 5.5 / 8 = 0.6875.
    universe = list("ABCDEF")
    scores = ranking_scores(["A", "B"], universe)
    labels = [g in {"A", "C"} for g in universe]
    assert list(scores) == [2, 1, 0, 0, 0, 0]
    assert auroc_from_scores(scores, labels) == pytest.approx(0.6875)
    assert auroc_from_hits([True, False], 2, 6) == pytest.approx(0.6875)
    assert gene_list_metrics(["A", "B"], ["A", "C"], universe)["auroc"] == pytest.approx(0.6875)


def test_auroc_unpredicted_reference_genes_count():
    # Upstream ignored C; counting it as a score-0 positive lowers AUROC from 1.
    assert gene_list_metrics(["A"], ["A", "C"], list("ABCD"))["auroc"] < 1.0
    # all reference genes ranked on top -> 1
    assert gene_list_metrics(["A", "C"], ["A", "C"], list("ABCD"))["auroc"] == 1.0


def test_gsea_es_step_by_step():
    # Same ranking: Nh = 2 hits (+1/2 each), |U| - Nh = 4 misses (-1/4 each).
    # Order: A (score 2, hit) -> 0.50; B (1, miss) -> 0.25; then the tied score-0 block
    # with reference genes last: D, E, F misses -> 0.00, -0.25, -0.50; C hit -> 0.00.
    # ES = max running value = 0.5.
    universe = list("ABCDEF")
    scores = ranking_scores(["A", "B"], universe)
    labels = [g in {"A", "C"} for g in universe]
    assert gsea_es_from_scores(scores, labels) == pytest.approx(0.5)
    assert gsea_es_from_hits([True, False], 2, 6) == pytest.approx(0.5)


def test_gsea_es_only_misses_is_zero_and_perfect_is_one():
    # [B, D] misses: 0 -> -0.25 -> -0.5; block E, F (-1.0), then A, C (+0.5 each) -> 0.
    assert gsea_es_from_hits([False, False], 2, 6) == 0.0
    assert gsea_es_from_hits([True, True], 2, 6) == pytest.approx(1.0)


def test_ranking_metrics_undefined():
    metrics = gene_list_metrics([], [], list("ABC"))
    assert metrics["precision"] == 100.0
    assert math.isnan(metrics["auroc"]) and math.isnan(metrics["gsea_es"])
    # reference covering the whole universe: no negative
    covered = gene_list_metrics(["A"], ["A", "B"], ["A", "B"])
    assert math.isnan(covered["auroc"]) and math.isnan(covered["gsea_es"])
    # empty prediction, non-empty reference: all tied -> AUROC 1/2, ES 0
    empty = gene_list_metrics([], ["A"], list("ABCD"))
    assert empty["auroc"] == 0.5 and empty["gsea_es"] == 0.0 and empty["recall"] == 0.0


def test_universe_rules():
    # predicted gene X outside U is added: |U| = 4 + 1
    assert gene_list_metrics(["X"], ["A"], list("ABCD"))["universe_size"] == 5
    # virtual universe: 20,000 genes (or the union when larger)
    assert gene_list_metrics(["A"], ["B"])["universe_size"] == 20_000
    assert gene_list_metrics(["A"], ["B"], virtual_size=1)["universe_size"] == 2
    # repeats keep the first rank: [A, B, A] == [A, B]
    assert gene_list_metrics(["A", "B", "A"], ["A"], list("ABCD")) == \
        gene_list_metrics(["A", "B"], ["A"], list("ABCD"))


def test_failed_gene_metrics_all_zero():
    assert set(failed_gene_metrics().values()) == {0.0}
    assert len(failed_gene_metrics()) == 6


# ----------------------------------------------------------------------------- tables

def test_csc_golden_with_constant_column():
    # Reference: F1 = 1,2,3,4; F2 constant 5; F3 = 1,2,3,4 over samples S1..S4.
    # Prediction: F1 = 2,4,6,8 (r = 1); F2 = 1,2,3,4 (constant in the reference: left
    # out); F3 = 1,3,2,4 (deviations -1.5,.5,-.5,1.5 vs -1.5,-.5,.5,1.5: cov 4,
    # variances 5 and 5 -> r = 0.8); extra feature F4; extra sample S5.
    # AJ = 3/4, SJ = 4/5, mean r = 0.9 -> CSC = 0.75 * 0.8 * 0.9 = 0.54 -> 54 %.
    ref = np.array([[1, 2, 3, 4], [5, 5, 5, 5], [1, 2, 3, 4]], dtype=float)
    pred = np.array([[2, 4, 6, 8, 0], [1, 2, 3, 4, 0], [1, 3, 2, 4, 0], [1, 1, 2, 2, 0]],
                    dtype=float)
    scores = table_similarity(["F1", "F2", "F3"], ["S1", "S2", "S3", "S4"], ref,
                              ["F1", "F2", "F3", "F4"], ["S1", "S2", "S3", "S4", "S5"], pred)
    assert scores["aj"] == pytest.approx(75.0)
    assert scores["sj"] == pytest.approx(80.0)
    assert scores["correlation"] == pytest.approx(0.9)
    assert scores["csc"] == pytest.approx(54.0)
    assert scores["correlated_features"] == 2


def test_csc_no_comparable_feature_is_zero():
    ref = np.array([[1.0, 1.0, 1.0]])
    scores = table_similarity(["F"], ["A", "B", "C"], ref, ["F"], ["A", "B", "C"], ref)
    assert scores["aj"] == 100.0 and scores["csc"] == 0.0
    disjoint = table_similarity(["F"], ["A", "B"], np.ones((1, 2)), ["G"], ["A", "B"],
                                np.ones((1, 2)))
    assert disjoint["aj"] == 0.0 and disjoint["csc"] == 0.0


def test_missing_predicted_values_are_mean_filled_and_cost():
    # Reference F = 1..6; prediction blanks S3 and S4: they are filled with the mean of
    # the given values (1 + 2 + 5 + 6) / 4 = 3.5, so y = 1, 2, 3.5, 3.5, 5, 6.
    # Deviations x: -2.5 -1.5 -.5 .5 1.5 2.5 (var 17.5); y: -2.5 -1.5 0 0 1.5 2.5
    # (var 17); cov 17 -> r = 17 / sqrt(17.5 * 17) = sqrt(17 / 17.5) = 0.98561.
    # Pairwise-complete correlation would have given 1 (the blanks would be free).
    ref = np.array([[1, 2, 3, 4, 5, 6]], dtype=float)
    pred = np.array([[1, 2, np.nan, np.nan, 5, 6]])
    samples = ["S1", "S2", "S3", "S4", "S5", "S6"]
    scores = table_similarity(["F"], samples, ref, ["F"], samples, pred)
    assert scores["correlation"] == pytest.approx(math.sqrt(17 / 17.5))
    assert scores["coverage"] == pytest.approx(100 * 4 / 6)


def test_blanked_feature_counts_zero_not_left_out():
    # F1 predicted perfectly; F2 blank but for one value (constant once filled): it
    # correlates 0 instead of leaving the mean -> mean r = (1 + 0) / 2.
    # A reference-constant feature F3 is still left out, blank or not.
    ref = np.array([[1, 2, 3, 4], [4, 1, 3, 2], [5, 5, 5, 5]], dtype=float)
    pred = np.array([[1, 2, 3, 4], [np.nan, 7, np.nan, np.nan], [np.nan] * 4])
    names, samples = ["F1", "F2", "F3"], ["A", "B", "C", "D"]
    scores = table_similarity(names, samples, ref, names, samples, pred)
    assert scores["correlation"] == pytest.approx(0.5)
    assert scores["correlated_features"] == 2
    assert scores["coverage"] == pytest.approx(100 * 5 / 12)
    # A genuinely constant prediction (two or more equal values) is left out (SPEC 6.2).
    constant = np.array([[1, 2, 3, 4], [7, 7, 7, 7], [5, 5, 5, 5]], dtype=float)
    assert table_similarity(names, samples, ref, names, samples,
                            constant)["correlation"] == pytest.approx(1.0)
    # The original evaluator's convention leaves the blanked feature out.
    legacy = table_similarity(names, samples, ref, names, samples, pred, legacy=True)
    assert legacy["correlation"] == pytest.approx(1.0)


def test_coverage_counts_missing_features_and_samples():
    ref = np.array([[1, 2, np.nan], [3, 4, 5]], dtype=float)  # 5 finite reference cells
    pred = np.array([[1, 2]], dtype=float)  # only F1 on S1, S2
    scores = table_similarity(["F1", "F2"], ["S1", "S2", "S3"], ref, ["F1"], ["S1", "S2"], pred)
    assert scores["coverage"] == pytest.approx(100 * 2 / 5)


def test_pearson_pairwise_complete_and_nan_rules():
    a = np.array([[1, 2, 3, np.nan], [1, 2, np.nan, np.nan], [1, 2, 3, 4]])
    b = np.array([[2, 4, 6, 100.0], [1, 2, 3, 4], [np.nan] * 4])
    r = pearson_by_row(a, b)
    assert r[0] == pytest.approx(1.0)       # the NaN sample is left out
    assert r[1] == pytest.approx(1.0)       # two jointly finite values
    assert math.isnan(r[2])                 # nothing in common
    with pytest.raises(ValueError):
        pearson_by_row(np.ones((2, 2)), np.ones((2, 3)))


def test_nan_mean_counts_denominator():
    assert nan_mean([1.0, float("nan"), 3.0, None]) == (2.0, 2)
    mean, n = nan_mean([])
    assert math.isnan(mean) and n == 0


def test_jaccard_index_empty():
    assert jaccard_index([], []) == 1.0
    assert jaccard_index(["A"], []) == 0.0


# ----------------------------------------------------------------------------- properties

GENE = st.sampled_from([f"G{i}" for i in range(40)])


@settings(max_examples=200, deadline=None)
@given(st.lists(GENE, unique=True, max_size=25), st.lists(GENE, unique=True, max_size=25),
       st.integers(0, 10))
def test_fast_ranking_metrics_equal_generic(predicted, reference, extra):
    universe = sorted(set(predicted) | set(reference)) + [f"U{i}" for i in range(extra)]
    scores = ranking_scores(predicted, universe)
    labels = [g in set(reference) for g in universe]
    fast = gene_list_metrics(predicted, reference, universe)
    generic_auroc = auroc_from_scores(scores, labels)
    generic_es = gsea_es_from_scores(scores, labels)
    for fast_value, generic in ((fast["auroc"], generic_auroc), (fast["gsea_es"], generic_es)):
        if math.isnan(generic):
            assert math.isnan(fast_value)
        else:
            assert fast_value == pytest.approx(generic, abs=1e-12)
            assert 0.0 <= fast_value <= 1.0


@settings(max_examples=200, deadline=None)
@given(st.lists(GENE, max_size=25), st.lists(GENE, max_size=25))
def test_overlap_bounds_symmetry_and_self(predicted, reference):
    scores = overlap_metrics(predicted, reference)
    assert all(0.0 <= v <= 100.0 for v in scores.values())
    swapped = overlap_metrics(reference, predicted)
    assert scores["f1"] == pytest.approx(swapped["f1"])
    assert scores["jaccard"] == pytest.approx(swapped["jaccard"])
    assert scores["precision"] == pytest.approx(swapped["recall"])
    assert set(overlap_metrics(predicted, predicted).values()) == {100.0}


@settings(max_examples=100, deadline=None)
@given(st.lists(GENE, unique=True, min_size=1, max_size=25), st.integers(1, 10))
def test_perfect_ranking_scores_one(reference, extra):
    universe = list(reference) + [f"U{i}" for i in range(extra)]
    metrics = gene_list_metrics(reference, reference, universe)
    assert metrics["auroc"] == 1.0 and metrics["gsea_es"] == pytest.approx(1.0)
    assert metrics["f1"] == 100.0


def _pearson_one_row(x: np.ndarray, y: np.ndarray) -> float:
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if x.size < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return float("nan")
    return float(np.clip(np.corrcoef(x, y)[0, 1], -1, 1))


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 6), st.integers(1, 7), st.integers(0, 2**31 - 1), st.booleans())
def test_pearson_by_row_matches_row_by_row(n_rows, n_cols, seed, with_nan):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n_rows, n_cols)) * 10.0 ** rng.integers(-3, 4)
    b = rng.normal(size=(n_rows, n_cols))
    a[0] = 7.3  # a constant row (exactly equal values)
    if n_rows > 1:
        b[-1] = a[-1] * 2 + 1  # perfectly correlated
    if with_nan:
        a[rng.random(a.shape) < 0.2] = np.nan
        b[rng.random(b.shape) < 0.1] = np.inf
    got = pearson_by_row(a, b)
    expected = [_pearson_one_row(a[i], b[i]) for i in range(n_rows)]
    np.testing.assert_allclose(got, expected, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 8), st.integers(2, 8), st.integers(0, 2**31 - 1))
def test_table_similarity_invariant_to_order_and_perfect_on_self(n_features, n_samples,
                                                                 seed):
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n_features, n_samples))
    features = [f"F{i}" for i in range(n_features)]
    samples = [f"S{i}" for i in range(n_samples)]
    perturbed = values + rng.normal(scale=0.5, size=values.shape)
    base = table_similarity(features, samples, values, features, samples, perturbed)
    row_order, col_order = rng.permutation(n_features), rng.permutation(n_samples)
    shuffled = table_similarity(features, samples, values,
                                [features[i] for i in row_order],
                                [samples[j] for j in col_order],
                                perturbed[np.ix_(row_order, col_order)])
    for key in ("aj", "sj", "csc"):
        assert shuffled[key] == pytest.approx(base[key], abs=1e-9)
        assert -100.0 <= base[key] <= 100.0
    self_score = table_similarity(features, samples, values, features, samples, values)
    assert self_score["aj"] == self_score["sj"] == 100.0
    assert self_score["csc"] == pytest.approx(100.0)
