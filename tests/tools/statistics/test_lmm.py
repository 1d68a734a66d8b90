"""Linear mixed model (tools.statistics.lmm, SPEC 5.4) against dense computations."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import optimize
from statsmodels.stats.multitest import multipletests

from tools.statistics.fdr import rank_significant, significant_genes, two_sided_p
from tools.statistics.lasso import lasso_grid_path
from tools.statistics.lmm import (LMM, benjamini_hochberg, fit_lmm, kinship_eigen,
                                  null_log_likelihood, reml_score, selected_genes)
from tools.statistics.standardize import Standardizer


def _dense_negative_log_likelihood(log_delta, K, C, y):
    """Profiled REML of y ~ N(C b, s2 (K + delta I)) with explicit inverses.

    Restricted likelihood of the error contrasts A'y (A: n x (n-c) orthonormal
    basis of C's orthogonal complement): y'A (A'VA)^-1 A'y and ln|A'VA|,
    computed without the eigenbasis or the closed form used by tools.statistics.lmm.
    """
    n, c = C.shape
    V = K + np.exp(log_delta) * np.eye(n)
    q, _ = np.linalg.qr(C, mode="complete")
    A = q[:, c:]
    AVA = A.T @ V @ A
    e = A.T @ y
    sigma2 = e @ np.linalg.solve(AVA, e) / (n - c)
    return 0.5 * ((n - c) * np.log(2 * np.pi * sigma2) + np.linalg.slogdet(AVA)[1] + (n - c))


@pytest.fixture
def structured_small():
    rng = np.random.default_rng(0)
    n, p = 40, 70
    group = np.repeat([0.0, 1.0], n // 2)
    X = rng.normal(size=(n, p)) + 1.2 * group[:, None] * (np.arange(p) < 30)
    X_std = Standardizer.fit(X).transform(X)
    Z = rng.normal(size=(n, 1))
    y = 0.8 * X_std[:, 40] + 0.5 * Z[:, 0] + 1.0 * group + rng.normal(size=n)
    return X_std, y, Z


def test_delta_and_p_values_match_dense_gls(structured_small):
    X_std, y, Z = structured_small
    n, p = X_std.shape
    fit = fit_lmm(X_std, y, Z)
    K = X_std @ X_std.T / p
    C = np.column_stack([np.ones(n), Z])
    dense = optimize.minimize_scalar(_dense_negative_log_likelihood, bounds=(-10, 10),
                                     args=(K, C, y), method="bounded",
                                     options={"xatol": 1e-10})
    assert -10 < np.log(fit.delta) < 10  # an interior optimum for this data
    np.testing.assert_allclose(np.log(fit.delta), dense.x, atol=1e-6)
    # the fast likelihood equals the dense one (the closed form differs from the
    # contrast form by the constant ln|C'C|, which tools.statistics.lmm subtracts)
    for log_delta in (-3.0, 0.3, 4.0):
        np.testing.assert_allclose(
            -null_log_likelihood(np.array([log_delta]), fit.eigen.values,
                                 fit.eigen.vectors.T @ C, fit.eigen.vectors.T @ y)[0],
            _dense_negative_log_likelihood(log_delta, K, C, y), rtol=1e-10)
    # the score is the derivative of the likelihood and vanishes at the estimate
    Cr, yr = fit.eigen.vectors.T @ C, fit.eigen.vectors.T @ y
    step = 1e-5
    numeric = (null_log_likelihood(np.array([0.3 + step]), fit.eigen.values, Cr, yr)
               - null_log_likelihood(np.array([0.3 - step]), fit.eigen.values, Cr, yr)) / (2 * step)
    np.testing.assert_allclose(reml_score(np.array([0.3]), fit.eigen.values, Cr, yr), numeric,
                               rtol=1e-6)
    assert abs(reml_score(np.log([fit.delta]), fit.eigen.values, Cr, yr)[0]) < 1e-9
    V = K + fit.delta * np.eye(n)
    for j in (0, 10, 40, 69):
        gls = sm.GLS(y, np.column_stack([C, X_std[:, j]]), sigma=V).fit()
        np.testing.assert_allclose(fit.tests.coef[j], gls.params[-1], rtol=1e-8)
        np.testing.assert_allclose(fit.tests.std_err[j], gls.bse[-1], rtol=1e-8)
        np.testing.assert_allclose(fit.tests.p_value[j], gls.pvalues[-1], rtol=1e-6)
    # covariate effects are those of the null model
    null = sm.GLS(y, C, sigma=V).fit()
    np.testing.assert_allclose(fit.covariate_coef, null.params, rtol=1e-8)


def test_benjamini_hochberg_matches_statsmodels():
    rng = np.random.default_rng(1)
    p = np.concatenate([rng.uniform(size=200), rng.uniform(0, 1e-3, 20), [0.5, 0.5, 0.02]])
    expected = multipletests(p, method="fdr_bh")[1]
    np.testing.assert_allclose(benjamini_hochberg(p), expected, rtol=1e-12)
    assert benjamini_hochberg(np.array([])).size == 0


def test_blup_prediction_uses_training_kinship(structured_small):
    X_std, y, Z = structured_small
    model = LMM(lamda=3e-4).fit(X_std[:30], y[:30], Z[:30])
    fitted = model.fit_
    # BLUP by hand: C b + K_new,train (K + delta I)^-1 (y - C b)
    p = X_std.shape[1]
    K = X_std[:30] @ X_std[:30].T / p
    C = np.column_stack([np.ones(30), Z[:30]])
    dual = np.linalg.solve(K + fitted.delta * np.eye(30), y[:30] - C @ fitted.covariate_coef)
    expected = (np.column_stack([np.ones(10), Z[30:]]) @ fitted.covariate_coef
                + (X_std[30:] @ X_std[:30].T / p) @ dual)
    np.testing.assert_allclose(model.predict(X_std[30:], Z[30:]), expected, rtol=1e-8)
    assert model.get_params()["lamda"] == 3e-4


def _confounded(seed, n=240, p=1500, n_structure=400, n_true=5):
    """Two populations shift 400 genes and the trait; 5 other genes are causal."""
    rng = np.random.default_rng(seed)
    population = np.repeat([0.0, 1.0], n // 2)
    X = rng.normal(size=(n, p))
    X[:, :n_structure] += 1.5 * population[:, None]
    causal = np.arange(p - n_true, p)
    y = 2.0 * population + X[:, causal].sum(axis=1) * 0.6 + rng.normal(size=n)
    return X, y, set(range(n_structure)), set(causal.tolist())


@pytest.mark.slow
def test_lmm_controls_fdr_where_lasso_selects_confounded_genes():
    fdr, confounded_share, power = [], [], []
    for seed in range(5):
        X, y, structure, causal = _confounded(seed)
        X_std = Standardizer.fit(X).transform(X)
        selected = set(selected_genes(fit_lmm(X_std, y).tests).tolist())
        fdr.append(len(selected - causal) / max(len(selected), 1))
        power.append(len(selected & causal) / len(causal))
        lasso = lasso_grid_path(np.ascontiguousarray(X_std.T), y - y.mean(), [0.1])
        chosen = set(np.flatnonzero(lasso.coefs[0]).tolist())
        confounded_share.append(len(chosen & structure) / max(len(chosen), 1))
    assert np.mean(fdr) <= 0.10          # nominal 5%: measured 3.3% over these seeds
    assert np.mean(power) >= 0.8
    assert np.mean(confounded_share) >= 0.25   # measured ~45%


def test_kinship_eigen_is_one_decomposition(structured_small):
    X_std, _, _ = structured_small
    eigen = kinship_eigen(X_std)
    K = X_std @ X_std.T / X_std.shape[1]
    np.testing.assert_allclose(eigen.vectors @ np.diag(eigen.values) @ eigen.vectors.T, K,
                               atol=1e-10)
    assert (eigen.values >= 0).all()


@pytest.mark.parametrize("seed", range(6))
def test_fdr_selection_without_every_p_value_is_exact(seed):
    # tools.statistics.fdr computes p-values only where they can pass; the selected genes,
    # their order, p-values and corrected p-values must be those of the full
    # computation, bit for bit (ties in |t| included).
    rng = np.random.default_rng(seed)
    m, df = 3000, [1, 5, 40, 160, 160, 0][seed]
    t_stat = rng.normal(size=m)
    t_stat[: 20 * seed + 5] *= rng.uniform(2.0, 8.0, size=20 * seed + 5)
    t_stat[100:110] = t_stat[0]                      # exact ties
    valid = rng.uniform(size=m) > 0.01
    t_stat[~valid] = 0.0
    coef = rng.normal(size=m)
    for threshold in (0.05, 0.2, 1e-4, 1.0):
        fast = significant_genes(coef, t_stat, valid, df, threshold)
        p = two_sided_p(t_stat, valid, df)
        corrected = benjamini_hochberg(p)
        order = rank_significant(coef, corrected, threshold)
        np.testing.assert_array_equal(fast.indices, order)
        np.testing.assert_array_equal(fast.p_value, p[order])
        np.testing.assert_array_equal(fast.corrected_p_value, corrected[order])


@pytest.mark.parametrize("seed", range(4))
def test_gls_screen_keeps_every_gene_that_can_pass(seed):
    # tools.statistics.gls bounds each gene's |t| from the kinship's spikes and tests only
    # the genes that can reach p < q: every gene the full computation puts
    # above the cut-off must be kept, and the FDR selection must not change.
    from scipy import special

    from tools.statistics.gls import screen

    rng = np.random.default_rng(seed)
    n, p = (90, 3000) if seed % 2 else (120, 2000)
    X = rng.normal(size=(n, 8)) @ rng.normal(size=(8, p)) + rng.normal(size=(n, p))
    X[: n // 2] += seed % 3
    X_std = Standardizer.fit(X).transform(X)
    y = X_std[:, :4] @ np.array([0.5, -0.5, 0.4, 0.3]) + rng.normal(size=n)
    Z = rng.normal(size=(n, 1)) if seed >= 2 else None
    for dtype in (np.float64, np.float32):
        fit = fit_lmm(X_std.astype(dtype), y, Z)
        tests = fit.tests
        for q in (0.05, 0.3):
            candidates = screen(tests.model, *tests._eigen, tests._X, q)
            assert candidates is not None and candidates.size < p // 2
            cut = -special.stdtrit(tests.df, q / 2)
            assert set(np.flatnonzero(np.abs(tests.t_stat) > cut)) <= set(candidates.tolist())
            fresh = fit_lmm(X_std.astype(dtype), y, Z).tests.significant(q)
            full = tests.significant(q)                   # full arrays are cached by now
            np.testing.assert_array_equal(fresh.indices, full.indices)
            np.testing.assert_allclose(fresh.p_value, full.p_value, rtol=1e-5)
