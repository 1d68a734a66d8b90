"""Folds, metrics and penalty choice (tools.statistics.crossval, SPEC 5.5)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

from tools.statistics.crossval import (PENALTY_GRID, GridCV, binary_metrics, choose_penalty,
                                       cross_validate_fits, cross_validate_lasso_grid,
                                       cv_prediction_metrics, is_binary, make_folds,
                                       prediction_metrics)
from tools.statistics.lasso import Lasso, lasso_grid_path
from tools.statistics.models import EstimatorModel


@pytest.mark.parametrize("n", [10, 37, 167])
@pytest.mark.parametrize("binary", [True, False])
def test_every_sample_is_tested_exactly_once(n, binary):
    rng = np.random.default_rng(n)
    y = (rng.uniform(size=n) < 0.3).astype(float) if binary else rng.normal(size=n)
    if binary:
        y[:5], y[5:10] = 0.0, 1.0
    folds = make_folds(y, binary)
    assert len(folds) == 5
    tested = np.concatenate(folds)
    assert sorted(tested.tolist()) == list(range(n))  # upstream dropped the remainder
    assert max(f.size for f in folds) - min(f.size for f in folds) <= 1
    again = make_folds(y, binary)  # seeded: identical folds
    assert all(np.array_equal(a, b) for a, b in zip(folds, again))


def test_binary_folds_are_stratified():
    y = np.array([1.0] * 20 + [0.0] * 80)
    for fold in make_folds(y, True):
        assert y[fold].sum() == 4  # 20 cases / 5 folds


@pytest.mark.parametrize("cases", [1, 2, 3, 4])
def test_few_cases_are_spread_over_distinct_folds(cases):
    # fewer than 5 cases: still stratified (no fold gets two cases while another has
    # none), and the pooled metrics of a perfect classifier are 100, not 40-80 as the
    # per-fold means of unstratified folds were
    y = np.zeros(60)
    y[np.arange(cases) * 7] = 1.0
    folds = make_folds(y, True)
    assert sorted(np.concatenate(folds).tolist()) == list(range(60))
    assert sorted(int(y[f].sum()) for f in folds) == [0] * (5 - cases) + [1] * cases
    perfect = cv_prediction_metrics([y[f] for f in folds], [y[f] for f in folds], True, 0.0)
    assert perfect == {"accuracy": 100.0, "precision": 100.0, "recall": 100.0, "f1": 100.0}


def test_binary_metrics_are_pooled_and_continuous_ones_averaged():
    truths = [np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0]), np.array([1.0, 1.0, 0.0])]
    predicted = [np.array([0.9, 0.6, 0.1]), np.array([0.2, 0.3]), np.array([0.4, 0.7, 0.0])]
    # pooled counts over the 8 samples: TP 2, FP 1, FN 1, TN 4
    pooled = cv_prediction_metrics(truths, predicted, True, 0.0)
    assert pooled == pytest.approx({"accuracy": 75.0, "precision": 200 / 3, "recall": 200 / 3,
                                    "f1": 200 / 3})
    continuous = cv_prediction_metrics([np.array([1.0, 3.0]), np.array([0.0, 2.0])],
                                       [np.array([1.0, 2.0]), np.array([1.0, 2.0])], False, 1.0)
    # fold 1: MSE 0.5 / var 1 = 0.5; fold 2: MSE 0.5 / var 1 = 0.5
    assert continuous == pytest.approx({"normalized_mse": 0.5, "r2": 0.5})


def test_penalty_grid_and_choice_rules():
    assert PENALTY_GRID == (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0)
    # maximum precision wins
    assert choose_penalty(PENALTY_GRID, [0, 10, 50, 20, 0, 0, 0], [True] * 7) == 2
    # ties go to the smaller penalty
    assert choose_penalty(PENALTY_GRID, [0, 30, 30, 30, 0, 0, 0], [True] * 7) == 1
    # never a known gene: 0.1
    assert PENALTY_GRID[choose_penalty(PENALTY_GRID, [0] * 7, [False] * 7)] == 0.1


def test_binary_metrics_match_scikit_learn():
    rng = np.random.default_rng(0)
    truth = rng.uniform(size=50) < 0.4
    predicted = rng.uniform(size=50) < 0.5
    ours = binary_metrics(truth, predicted)
    assert ours["accuracy"] == pytest.approx(100 * accuracy_score(truth, predicted))
    assert ours["precision"] == pytest.approx(100 * precision_score(truth, predicted))
    assert ours["recall"] == pytest.approx(100 * recall_score(truth, predicted))
    assert ours["f1"] == pytest.approx(100 * f1_score(truth, predicted))
    assert binary_metrics(truth, np.zeros(50, bool))["precision"] == 0.0


def test_continuous_metrics_by_hand():
    y = np.array([1.0, 2.0, 3.0, 4.0])
    pred = np.array([1.5, 2.0, 2.5, 4.0])
    # MSE = (0.25 + 0 + 0.25 + 0) / 4 = 0.125; Var(y) = 1.25
    metrics = prediction_metrics(y, pred, False, 1.0)
    assert metrics == {"normalized_mse": pytest.approx(0.1), "r2": pytest.approx(0.9)}
    assert is_binary(np.array([0.0, 1.0, 1.0])) and not is_binary(y)


def test_grid_cv_equals_the_generic_loop_at_each_penalty():
    # the Lasso's fast path (one certified path per fold) and the generic loop
    # every other model runs (one Lasso fit per fold and penalty) must report
    # the same metrics.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 80)) + 5
    y = (X[:, 0] - X[:, 1] + rng.normal(size=60) > 0).astype(float)
    Z = rng.normal(size=(60, 1))
    names = [f"G{i}" for i in range(80)]
    reference = ["G0", "G1", "G5"]
    grid = cross_validate_lasso_grid(X, y, Z, names, reference)
    generic = EstimatorModel(constructor=Lasso)
    penalties = [PENALTY_GRID[2], PENALTY_GRID[5]]
    loop = cross_validate_fits(generic.fit, X, y, Z, names, reference, penalties,
                               make_folds(y, True))
    for j, i in enumerate((2, 5)):
        for half in ("prediction", "selection"):
            for key, value in loop.metrics(j)[half].items():
                assert grid.metrics(i)[half][key] == pytest.approx(value, abs=1e-9)
        assert loop.hits[j] == grid.hits[i]
    assert loop.choose() == choose_penalty(penalties, [grid.selection[i]["precision"]
                                                       for i in (2, 5)], [True, True])


def test_folds_supports_per_penalty_seed_the_final_fit():
    # supports[i] is the union over folds of the genes non-zero at penalty i;
    # the final fit at a penalty starts from the supports at it and larger ones,
    # and gets the same solution as a fit without that seed
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 60))
    y = X[:, 0] - X[:, 3] + 0.5 * rng.normal(size=50)
    names = [f"G{i}" for i in range(60)]
    grid = cross_validate_lasso_grid(X, y, None, names, ["G0"])
    assert len(grid.supports) == len(PENALTY_GRID)
    assert np.array_equal(grid.support, np.unique(np.concatenate(grid.supports)))
    chosen = 4                                        # alpha = 0.01
    seed = grid.support_down_to(chosen)
    expected = np.unique(np.concatenate(grid.supports[chosen:]))  # the grid increases
    assert np.array_equal(seed, expected) and seed.size < grid.support.size
    XT = np.ascontiguousarray((X - X.mean(0)).T / X.std(0)[:, None])
    yc = y - y.mean()
    seeded = lasso_grid_path(XT, yc, [PENALTY_GRID[chosen]], candidates=seed)
    plain = lasso_grid_path(XT, yc, [PENALTY_GRID[chosen]])
    assert np.allclose(seeded.coefs, plain.coefs, atol=1e-10)


def test_a_single_penalty_is_chosen_without_a_fallback():
    assert GridCV((None,), [{}], [{"precision": 0.0}], [False]).choose() == 0
