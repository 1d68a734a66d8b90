"""Residualization, two-step regression and batch detection, checked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tools.statistics import Lasso, ResidualizationRegressor
from tools.statistics.batch import detect_batch_effect, leading_eigenvalue_ratios
from tools.statistics.residualize import residualize
from tools.statistics.standardize import Standardizer
from tools.statistics.two_step import fit_condition_model, predict_condition, without_regressors


def test_residualization_by_hand():
    # y = 3 + 2 z exactly plus e orthogonal to [1, z]: coefficients (3, 2), residual e.
    z = np.array([0.0, 1.0, 2.0, 3.0])
    e = np.array([1.0, -1.0, -1.0, 1.0])  # orthogonal to 1 and to z
    y = 3 + 2 * z + e
    residual, fit = residualize(y, z)
    assert fit.intercept == pytest.approx(3.0)
    assert fit.coef == pytest.approx([2.0])
    np.testing.assert_allclose(residual, e, atol=1e-12)
    residual, fit = residualize(y)
    assert fit.intercept == pytest.approx(y.mean()) and fit.coef.size == 0


def test_covariate_is_reported_separately_never_as_gene():
    rng = np.random.default_rng(0)
    X = Standardizer.fit(rng.normal(size=(80, 30))).transform(rng.normal(size=(80, 30)))
    z = rng.normal(size=80)
    y = 5.0 * z + 1.0 * X[:, 0] + 0.1 * rng.normal(size=80)
    model = ResidualizationRegressor(Lasso, {"alpha": 0.01}).fit(X, y, z)
    assert model.get_coefficients().shape == (30,)
    assert model.get_covariate_coefficients()["coefficients"][0] == pytest.approx(5.0, abs=0.3)
    assert np.argmax(np.abs(model.get_coefficients())) == 0
    assert model.get_p_values() is None
    # predict = covariate part + gene part
    covariates = model.covariates
    np.testing.assert_allclose(model.predict(X, z),
                               covariates.predict(z, 80) + model.regression_model.predict(X))


def test_two_step_least_squares_by_hand():
    # condition = 1 + 2 g1 - g2 exactly in standardized units of the condition cohort
    rng = np.random.default_rng(1)
    genes_c = rng.normal(size=(50, 2)) * [2.0, 0.5] + [10.0, 3.0]
    std_c = Standardizer.fit(genes_c).transform(genes_c)
    condition = 1 + 2 * std_c[:, 0] - std_c[:, 1]
    model = fit_condition_model(genes_c, condition)
    assert model.kind == "least-squares" and not model.binary
    assert model.intercept == pytest.approx(1.0)
    np.testing.assert_allclose(model.coef, [2.0, -1.0], atol=1e-10)
    # step 2 standardizes the trait cohort with its own statistics
    genes_t = rng.normal(size=(30, 2)) * 7 + 100
    std_t = (genes_t - genes_t.mean(0)) / genes_t.std(0)
    np.testing.assert_allclose(predict_condition(model, genes_t),
                               1 + 2 * std_t[:, 0] - std_t[:, 1], atol=1e-10)


def test_two_step_binary_condition_uses_logistic_l1_when_wide():
    rng = np.random.default_rng(2)
    genes = rng.normal(size=(40, 3))
    condition = (genes[:, 0] > 0).astype(float)
    narrow = fit_condition_model(genes, condition)
    assert narrow.kind == "logistic-l2" and narrow.binary
    probability = predict_condition(narrow, genes)
    assert ((probability > 0) & (probability < 1)).all()
    assert np.mean((probability > 0.5) == (condition == 1)) > 0.9
    wide = fit_condition_model(rng.normal(size=(10, 25)), np.tile([0.0, 1.0], 5))
    assert wide.kind == "logistic-l1"
    continuous_wide = fit_condition_model(rng.normal(size=(10, 25)), rng.normal(size=10))
    assert continuous_wide.kind == "lasso"


def test_regressor_genes_are_removed():
    names, kept = without_regressors(["A", "B", "C", "D"], ["C", "A", "Z"])
    assert names == ["B", "D"] and kept.tolist() == [1, 3]


def test_batch_effect_rule():
    rng = np.random.default_rng(3)
    noise = rng.normal(size=(300, 200))
    assert not detect_batch_effect(noise)
    shifted = noise.copy()
    shifted[:150] += 3.0  # two batches: one dominant eigenvalue
    ratios = leading_eigenvalue_ratios(shifted)
    assert ratios[0] == 1.0 and ratios[1] < 0.2
    assert detect_batch_effect(shifted)                      # gap > 200 / 300
    assert not detect_batch_effect(shifted[:150 + 40])       # n < 200: threshold > 1
    assert detect_batch_effect(shifted[:190], gap_numerator=100)
