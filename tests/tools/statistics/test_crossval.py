"""Folds, metrics and penalty choice (tools.statistics.crossval, SPEC 5.5)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score, precision_score, recall_score

from tools.statistics.crossval import (PENALTY_GRID, GridCV, binary_metrics, choose_penalty,
                                       cross_validate_fits, cross_validate_lasso_grid, is_binary,
                                       make_folds, prediction_metrics)
from tools.statistics.lasso import Lasso
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


def test_a_single_penalty_is_chosen_without_a_fallback():
    assert GridCV((None,), [{}], [{"precision": 0.0}], [False]).choose() == 0
