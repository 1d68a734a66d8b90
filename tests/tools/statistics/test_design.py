"""A fold's genes built in one blocked pass (tools.statistics.design, SPEC 5.4).

The design must give the rows the whole-matrix functions give
(:func:`~tools.statistics.standardize.standardize_transposed`, then
:func:`~tools.statistics.adjust.adjust_transposed` with covariates), up to
the last bits: NumPy's vectorized row sums group their terms by the memory
alignment of each row (a gathered block and the whole matrix differ), and
BLAS blocks the covariate products by matrix size. Its float32 copy only
needs to lie within the screen's error bound.
"""

from __future__ import annotations

import numpy as np
import pytest

from tools.statistics.adjust import adjust_transposed
from tools.statistics.design import float32_scratch, standardized_design
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
    design = standardized_design(raw, columns, Z, scratch=float32_scratch(raw))
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
