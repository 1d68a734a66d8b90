"""The LMM path's cross-validation (tools.statistics.lmm_cv) against the generic loop, and
the shortcut of the FDR ranking (tools.statistics.ranking.rank_significant)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from tools.statistics.crossval import cross_validate_fits, fold_rows, make_folds
from tools.statistics.inputs import AnalysisConfig
from tools.statistics.lmm_cv import cross_validate_lmm, held_out_columns
from tools.statistics.models.lmm import LinearMixedModel
from tools.statistics.ranking import rank_significant
from utils.precision import round_array


def _problem(seed: int, binary: bool, covariate: bool):
    """Two batches, a constant and a nearly constant gene, 6 genes acting strongly: the
    folds select genes, so their refit predictions read held-out gene columns."""
    rng = np.random.default_rng(seed)
    n, p = 90, 400
    X = rng.normal(size=(n, p)) + 6.0
    X[: n // 2, : p // 3] += 0.7
    X[:, 7] = 5.0
    X[:3, 9] += 1e-9
    signal = (X[:, 20:26] - X[:, 20:26].mean(0)) @ rng.uniform(1.0, 2.0, 6)
    y = signal + 0.5 * rng.normal(size=n)
    if binary:
        y = (y > np.median(y)).astype(float)
    Z = (rng.normal(size=n) + 0.3 * signal)[:, None] if covariate else None
    names = [f"G{j}" for j in range(p)]
    return X, y, Z, names, names[15:35]


@pytest.mark.parametrize("seed, binary, covariate",
                         [(0, False, True), (1, True, False), (2, True, True), (3, False, False)])
def test_lmm_cross_validation_is_the_generic_loop_bit_for_bit(seed, binary, covariate):
    # cross_validate_lmm standardizes only the held-out genes the refit reads; the
    # metrics must be exactly those of the generic loop (every held-out gene standardized,
    # predictions through LMM.predict), with and without threads
    X, y, Z, names, reference = _problem(seed, binary, covariate)
    model = LinearMixedModel(AnalysisConfig())
    folds = make_folds(y, binary)
    generic = cross_validate_fits(model.fit, X, y, Z, names, reference, (None,), folds,
                                  0.05, np.float32)
    fast = cross_validate_lmm(model.fit, X, y, Z, names, reference, (None,), folds, 0.05,
                              np.float32)
    with ThreadPoolExecutor(2) as pool:
        threaded = model.cross_validate(X, y, Z, names, reference, (None,), folds, pool)
    for result in (fast, threaded):
        assert result.prediction == generic.prediction
        assert result.selection == generic.selection
        assert result.hits == generic.hits
        assert result.penalties == generic.penalties


def test_the_folds_select_genes_that_the_refit_reads():
    # the comparison above is only meaningful when the refit predicts from genes
    X, y, Z, names, reference = _problem(0, False, True)
    model = LinearMixedModel(AnalysisConfig())
    test = make_folds(y, False)[0]
    train, X_train, _ = fold_rows(X.astype(np.float32), test, np.float32)
    fitted = model.fit(X_train, y[train], Z[train], None)
    selected, refit = fitted.estimator.refit()
    assert selected.size > 0 and refit.size > 2


def test_held_out_columns_are_those_of_fold_rows():
    X, y, *_ = _problem(4, True, False)
    X32 = X.astype(np.float32)
    test = make_folds(y, True)[1]
    from tools.statistics.standardize import standardize_rows
    train, _, X_test = fold_rows(X32, test, np.float32)
    _, mean, scale = standardize_rows(X32, train, np.float32)
    columns = np.array([3, 7, 9, 20, 399, 3])
    np.testing.assert_array_equal(held_out_columns(X32, test, columns, mean, scale, np.float32),
                                  X_test[:, columns])


def _rank_rounding_everything(coef, corrected_p, threshold):
    """rank_significant as it was: every corrected p rounded before the comparison."""
    corrected = round_array(np.asarray(corrected_p, dtype=float))
    hits = np.flatnonzero(corrected < threshold)
    order = np.lexsort((hits, -round_array(np.abs(coef[hits])), corrected[hits]))
    return hits[order]


@pytest.mark.parametrize("values", ["uniform", "at the threshold", "rounding down to it",
                                    "rounding up to it", "ties", "nan"])
def test_ranking_rounds_only_the_values_that_can_pass(values):
    # rank_significant rounds only the corrected p-values within ROUNDING_SLACK of the
    # threshold; values just above it that round below it (0.04999951 -> 0.05 is not
    # below; 0.0499995 -> 0.0499995 is) must be decided as before
    rng = np.random.default_rng(len(values))
    m = 300
    corrected = {"uniform": rng.uniform(0, 0.1, m),
                 "at the threshold": 0.05 + rng.normal(scale=1e-7, size=m),
                 "rounding down to it": np.full(m, 0.0499999),
                 "rounding up to it": np.full(m, 0.04999951),
                 "ties": np.repeat(rng.uniform(0, 0.06, m // 10), 10),
                 "nan": np.append(rng.uniform(0, 0.1, m - 1), np.nan)}[values]
    coef = np.round(rng.normal(size=m), 2)
    for threshold in (0.05, 0.01, 0.5, 1.0):
        np.testing.assert_array_equal(rank_significant(coef, corrected, threshold),
                                      _rank_rounding_everything(coef, corrected, threshold))
