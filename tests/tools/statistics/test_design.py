"""A problem's designs built in one blocked pass (tools.statistics.design, SPEC 5.4).

A design must give the rows the whole-matrix functions give
(:func:`~tools.statistics.standardize.standardize_transposed`, then
:func:`~tools.statistics.adjust.adjust_transposed` with covariates), up to
the last bits: NumPy's vectorized row sums group their terms by the memory
alignment of each row (a gathered block and the whole matrix differ), and
BLAS blocks the covariate products by matrix size. The folds' statistics come
from held-out sums subtracted from all-sample sums, so they too agree with the
gathered training columns up to the last bits, cancellation included (genes
that lose most of their variance are recomputed). The screen's values only
need to lie within their stated error bound of the exact products.
"""

from __future__ import annotations

import numpy as np
import pytest

from tools.statistics.adjust import adjust_transposed
from tools.statistics.crossval import make_folds
from tools.statistics.design import problem_designs, standardized_design
from tools.statistics.standardize import standardize_transposed


def _raw(seed: int, p: int = 1300, n: int = 90) -> np.ndarray:
    rng = np.random.default_rng(seed)
    raw = rng.normal(size=(p, n)) * rng.uniform(0.1, 50.0, size=(p, 1)) + 7.0
    raw[5] = 3.0                                   # a constant gene
    raw[6] = raw[7] * 2.0 + 1.0                    # collinear genes
    return raw


@pytest.mark.parametrize("covariates", [0, 1, 2])
@pytest.mark.parametrize("subset", [False, True])
def test_rows_are_the_whole_matrix_standardization(covariates, subset):
    raw = _raw(covariates + 3 * subset)
    rng = np.random.default_rng(11)
    columns = np.sort(rng.choice(raw.shape[1], 70, replace=False)) if subset else None
    n = raw.shape[1] if columns is None else columns.size
    Z = None
    if covariates:
        Z = np.column_stack([rng.normal(50, 10, n), rng.integers(0, 2, n)])[:, :covariates]
        raw[8, columns if subset else slice(None)] = Z[:, 0] * 3.0   # a copy of a covariate
    expected = np.array(raw if columns is None else raw[:, columns])
    mean, scale = standardize_transposed(expected)
    adjustment = adjust_transposed(expected, Z)
    design = standardized_design(raw, columns, Z)
    genes = np.arange(raw.shape[0])
    # last bits: a mean's ulp (raw values near 7) divided by a deviation down to 0.1
    np.testing.assert_allclose(design.rows(genes), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(design.mean, mean, rtol=0, atol=1e-13)   # sums of |x| < 200
    np.testing.assert_allclose(design.scale, scale, rtol=1e-13)
    if covariates:
        np.testing.assert_allclose(design.adjustment.gamma, adjustment.gamma, rtol=0,
                                   atol=1e-12)
        np.testing.assert_allclose(design.adjustment.scale, adjustment.scale, rtol=1e-12)
    assert not design.rows(np.array([5])).any()                # constant gene -> 0
    # the float32 copy: every entry within a few float32 roundings
    single = design.single.astype(np.float64)
    assert np.all(np.abs(single - expected) <= 4 * 2.0 ** -24 * np.abs(expected) + 1e-30)
    norms = np.sqrt(np.einsum("ij,ij->i", expected, expected))
    assert design.row_norm >= norms.max()


def test_held_out_rows_use_the_training_statistics():
    raw = _raw(9)
    train, test = np.arange(0, 60), np.arange(60, 90)
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(90, 2))
    design = standardized_design(raw, train, Z[train])
    genes = np.array([0, 7, 100])
    centred = (raw[np.ix_(genes, test)] - design.mean[genes, None]) / design.scale[genes, None]
    adjustment = design.adjustment
    shift = adjustment.gamma[:, genes].T @ (Z[test] - adjustment.z_mean).T
    expected = (centred - shift) / adjustment.scale[genes, None]
    np.testing.assert_allclose(design.other_rows(genes, test, Z[test]), expected,
                               rtol=1e-12, atol=1e-12)


def _hard_raw(seed: int, p: int = 900, n: int = 84) -> np.ndarray:
    """Genes that cancel: constant in all but one sample, near-constant, huge
    offsets, a covariate's copy (set by the caller), log-count zeros."""
    raw = _raw(seed, p, n)
    rng = np.random.default_rng(seed + 100)
    raw[20] = 5.0
    raw[20, 3] = 900.0                              # one outlier, then constant
    raw[21] = 1e6 + rng.normal(size=n) * 1e-3       # a huge offset, a tiny spread
    raw[22] = 7.0 + 1e-9 * rng.normal(size=n)       # round-off spread (constant)
    raw[23, : n // 2] = 0.0                         # half zeros (log counts)
    raw[24] = np.where(rng.random(n) < 0.95, 0.0, rng.uniform(5, 10, n))
    return raw


@pytest.mark.parametrize("covariates", [0, 1, 2])
@pytest.mark.parametrize("seed", [0, 1])
def test_fold_designs_are_those_of_the_gathered_training_samples(covariates, seed):
    raw = _hard_raw(seed)
    n_all = raw.shape[1]
    rng = np.random.default_rng(seed + 7)
    y = (rng.random(n_all) < 0.4).astype(float)
    folds = make_folds(y, True)
    Z = None
    if covariates:
        Z = np.column_stack([rng.normal(50, 10, n_all),
                             rng.integers(0, 2, n_all)])[:, :covariates].astype(float)
        raw[8] = Z[:, 0] * 3.0 + 1.0                  # a copy of a covariate
        raw[9] = Z[:, 0] + 1e-4 * rng.normal(size=n_all)   # nearly a copy
    final, designs = problem_designs(raw, Z, folds)
    reference = standardized_design(raw, None, Z)
    # the final fit: the same arithmetic as one design over all samples
    np.testing.assert_array_equal(final.mean, reference.mean)
    np.testing.assert_array_equal(final.scale, reference.scale)
    if covariates:
        np.testing.assert_array_equal(final.adjustment.gamma, reference.adjustment.gamma)
        np.testing.assert_array_equal(final.adjustment.scale, reference.adjustment.scale)
    genes = np.arange(raw.shape[0])
    for test, design in zip(folds, designs):
        train = np.setdiff1d(np.arange(n_all), test)
        Z_train = None if Z is None else Z[train]
        gathered = standardized_design(raw, train, Z_train)
        np.testing.assert_array_equal(design.columns, train)
        np.testing.assert_allclose(design.mean, gathered.mean, rtol=1e-13, atol=1e-12)
        # the same genes are constant (scale inf) with and without subtraction
        np.testing.assert_array_equal(np.isinf(design.scale), np.isinf(gathered.scale))
        np.testing.assert_allclose(design.scale, gathered.scale, rtol=1e-10)
        rows, expected = design.rows(genes), gathered.rows(genes)
        # both round the mean to the raw values' precision: a gene whose values
        # are 1e9 times its spread (gene 21) is only known to ~1e-7 of it, and
        # a gene almost a copy of a covariate (gene 9) is divided by its tiny
        # residual deviation
        conditioning = np.max(np.abs(raw[:, train]), axis=1) / np.where(
            np.isfinite(gathered.scale), gathered.scale, 1.0)
        if covariates:
            conditioning /= np.where(np.isfinite(gathered.adjustment.scale),
                                     gathered.adjustment.scale, 1.0)
        tolerance = 1e-12 + 64 * np.finfo(float).eps * conditioning
        assert np.all(np.abs(rows - expected) <= tolerance[:, None])
        if covariates:
            np.testing.assert_array_equal(np.isinf(design.adjustment.scale),
                                          np.isinf(gathered.adjustment.scale))
            np.testing.assert_allclose(design.adjustment.gamma, gathered.adjustment.gamma,
                                       rtol=1e-9, atol=1e-10)
        assert not rows[[5, 22]].any()                # constant in the training samples
        assert rows[20].any() == (3 in train)         # constant unless its outlier trains


@pytest.mark.parametrize("covariates,scale", [(0, 1.0), (1, 1.0), (0, 1e-25), (1, 1e18)])
def test_screen_values_lie_within_their_bound(covariates, scale):
    """Every design's approximate ``|x_j^T r|`` is within the stated bound of the
    exact product with its rows, for residuals of every kind, whatever the
    genes' scale (their factors then sit near float32's range limits)."""
    raw = _hard_raw(3) * scale
    n_all = raw.shape[1]
    rng = np.random.default_rng(5)
    folds = make_folds(rng.normal(size=n_all), False)
    Z = rng.normal(size=(n_all, covariates)) if covariates else None
    final, designs = problem_designs(raw, Z, folds)
    genes = np.arange(raw.shape[0])
    for design in [final, *designs]:
        rows = design.rows(genes)
        n = rows.shape[1]
        for residual in (rng.normal(size=n), rng.normal(size=n) * 1e-8,
                         rows[30] - rows[30].mean(), np.eye(n)[0] * 50.0):
            values, bound = design.screening.approximate(residual)
            exact = np.abs(rows @ residual)
            assert np.all(np.abs(values - exact) <= bound), np.max(np.abs(values - exact) / bound)
            products = design.products(genes, residual)
            np.testing.assert_allclose(np.abs(products), exact, rtol=1e-9, atol=1e-9 * bound)


def test_products_of_several_residuals():
    raw = _raw(4, p=200, n=50)
    train = np.arange(10, 50)
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(40, 1))
    design = standardized_design(raw, train, Z)
    residuals = rng.normal(size=(40, 3))
    genes = np.array([0, 5, 17, 199])
    np.testing.assert_allclose(design.products(genes, residuals),
                               design.rows(genes) @ residuals, rtol=1e-10, atol=1e-12)


def test_folds_need_not_cover_the_samples():
    # a fold trains on every sample but its own held-out ones, whatever the
    # other folds hold (the all-sample sums are computed, not added up)
    raw = _raw(8, p=300, n=60)
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(60, 1))
    folds = [np.arange(0, 10), np.arange(25, 31)]
    _, designs = problem_designs(raw, Z, folds)
    genes = np.arange(300)
    for test, design in zip(folds, designs):
        train = np.setdiff1d(np.arange(60), test)
        gathered = standardized_design(raw, train, Z[train])
        np.testing.assert_allclose(design.rows(genes), gathered.rows(genes), rtol=0, atol=1e-9)
