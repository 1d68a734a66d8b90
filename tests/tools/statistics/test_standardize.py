"""Standardization with training statistics and the variance floor (tools.statistics.standardize)."""

from __future__ import annotations

import numpy as np

from tools.statistics.crossval import cross_validate_lasso_grid, make_folds
from tools.statistics.lmm import fit_lmm
from tools.statistics.standardize import (Standardizer, constant_columns, standardize_rows,
                                          standardize_transposed)


def _with_indicator(seed: int = 0, n: int = 80, p: int = 200):
    """Genes on a log2-like scale plus one gene at 7 that differs by 1e-9 in sample 0,
    whose trait is far from the others: scaled to unit variance, that gene would be an
    indicator of sample 0."""
    rng = np.random.default_rng(seed)
    X = 7.0 + rng.normal(size=(n, p))
    X[:, -1] = 7.0
    X[0, -1] += 1e-9
    y = X[:, 0] - X[:, 1] + rng.normal(size=n)
    y[0] += 8.0
    return X, y


def test_a_gene_varying_far_below_the_data_scale_is_constant():
    X, _ = _with_indicator()
    std = X.std(axis=0)
    assert std[-1] > 1e-12 * 7.0          # not round-off: the old rule scaled it up
    assert constant_columns(std, X.mean(axis=0)).tolist() == [False] * 199 + [True]
    for X_std in (Standardizer.fit(X).transform(X), standardize_rows(X, np.arange(80))[0],
                  standardize_rows(X, np.arange(80), np.float32)[0]):
        assert np.all(X_std[:, -1] == 0.0)            # exactly zero, every sample
    XT = np.ascontiguousarray(X.T)
    _, scale = standardize_transposed(XT)
    assert np.isinf(scale[-1]) and np.all(XT[-1] == 0.0)
    # held-out samples get 0 too, whatever their value
    new = Standardizer.fit(X).transform(np.full((2, 200), 9.0))
    assert np.all(new[:, -1] == 0.0)
    # a gene with SD 1e-4 (1e-4 of the others) is kept
    assert not constant_columns(np.r_[np.ones(10), 1e-4])[-1]


def test_the_indicator_gene_is_never_selected_or_tested():
    X, y = _with_indicator()
    names = [f"G{i}" for i in range(200)]
    grid = cross_validate_lasso_grid(X, y, None, names, ["G0"], folds=make_folds(y, False))
    assert 199 not in grid.support.tolist()
    fit = fit_lmm(Standardizer.fit(X).transform(X), y)
    assert not fit.tests.valid[-1] and fit.tests.p_value[-1] == 1.0
