"""Covariates unpenalized by Frisch-Waugh-Lovell (tools.statistics.adjust, SPEC 5.4)."""

from __future__ import annotations

import numpy as np
import pytest

from tools.statistics.adjust import adjust_rows, adjust_transposed
from tools.statistics.inputs import ProblemData
from tools.statistics.models.base import EstimatorModel
from tools.statistics.models.lasso import LassoModel
from tools.statistics.lasso import Lasso
from tools.statistics.residualize import residualize
from tools.statistics.standardize import Standardizer
from utils.problems import Problem


def _sex_linked(seed: int = 0, n: int = 120, p: int = 60):
    """Genes 0-9 follow Gender strongly; gene 0 also acts on y within each sex."""
    rng = np.random.default_rng(seed)
    gender = rng.integers(0, 2, size=n).astype(float)
    X = rng.normal(size=(n, p))
    X[:, :10] += 2.0 * (2 * gender[:, None] - 1)
    y = 1.5 * gender + 0.8 * (X[:, 0] - 2.0 * (2 * gender - 1)) + 0.7 * X[:, 20] \
        + rng.normal(size=n)
    return X, y, gender[:, None]


def test_the_lasso_path_solves_the_problem_with_z_unpenalized():
    # KKT conditions of min 1/(2n) ||y - C g - Xt w||^2 + alpha ||w||_1 with C = [1, Z]
    # free and Xt the genes scaled by their Z-adjusted standard deviation: C'r = 0,
    # |xt_j'r| / n <= alpha, with equality and the coefficient's sign on the support.
    X, y, Z = _sex_linked()
    n = y.size
    X_std = Standardizer.fit(X).transform(X)
    alpha = 0.05
    fitted = EstimatorModel(constructor=Lasso).fit(X_std, y, Z, alpha)
    joint = fitted.reported_covariates()
    scale = fitted.adjustment.scale
    w = fitted.coef
    residual = y - joint.intercept - Z @ joint.coef - X_std @ (w / scale)
    C = np.column_stack([np.ones(n), Z])
    np.testing.assert_allclose(C.T @ residual / n, 0.0, atol=1e-10)
    gradient = (X_std / scale).T @ residual / n
    active = w != 0
    assert active.sum() >= 2 and active[0]            # the within-sex gene is found
    np.testing.assert_allclose(gradient[active], alpha * np.sign(w[active]), rtol=1e-6)
    assert np.all(np.abs(gradient[~active]) <= alpha * (1 + 1e-6))
    # residualizing y alone (the previous method) solves another problem: its KKT fail
    y_only, _ = residualize(y, Z)
    other = Lasso(alpha=alpha).fit(X_std, y_only)
    joint_other = np.linalg.lstsq(C, y - X_std @ other.coef_, rcond=None)[0]
    gradient_other = X_std.T @ (y - C @ joint_other - X_std @ other.coef_) / n
    assert np.max(np.abs(gradient_other[other.coef_ == 0])) > alpha * 1.001 or \
        not np.allclose(gradient_other[other.coef_ != 0],
                        alpha * np.sign(other.coef_[other.coef_ != 0]), rtol=1e-6)


def test_engine_final_fit_and_compat_fit_agree():
    X, y, Z = _sex_linked(1)
    names = [f"G{i}" for i in range(X.shape[1])]
    data = ProblemData(Problem("T", "Gender"), X, y, Z, names, ["Gender"], ["G0", "G20"],
                       ("GSE1",))
    model = LassoModel()
    folds = [np.arange(i, y.size, 5) for i in range(5)]
    outcome = model.analyse(data, folds)
    penalty = outcome["model"]["penalty"]
    fitted = model.fit(Standardizer.fit(X).transform(X), y, Z, penalty)
    ranked = fitted.ranked_genes(names, 0.05)
    assert ranked["Variable"] == outcome["genes"]["Variable"]
    np.testing.assert_allclose(ranked["Coefficient"], outcome["genes"]["Coefficient"],
                               rtol=1e-9)
    joint = fitted.reported_covariates()
    assert outcome["covariates"]["coefficients"] == pytest.approx(list(joint.coef), rel=1e-9)


def test_both_layouts_agree_and_a_copy_of_a_covariate_becomes_zero():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 6))
    X_std = Standardizer.fit(X).transform(X)
    Z = rng.normal(size=(40, 2))
    X_std[:, 5] = (Z[:, 0] - Z[:, 0].mean()) / Z[:, 0].std()   # nothing left after Z
    rows, adjustment = adjust_rows(X_std, Z)
    XT = np.ascontiguousarray(X_std.T)
    transposed = adjust_transposed(XT, Z)
    np.testing.assert_allclose(XT.T, rows, atol=1e-12)
    assert np.all(rows[:, 5] == 0.0) and np.isinf(adjustment.scale[5])
    np.testing.assert_allclose(rows[:, :5].std(axis=0), 1.0)
    np.testing.assert_allclose(Z.T @ rows[:, :5] - Z.sum(0)[:, None] * rows[:, :5].mean(0),
                               0.0, atol=1e-10)
    new = rng.normal(size=(7, 6))
    Z_new = rng.normal(size=(7, 2))
    np.testing.assert_allclose(adjustment.rows(new, Z_new),
                               transposed.transposed(new.T, Z_new).T, atol=1e-12)
    assert adjust_rows(X_std, None) == (X_std, None)
