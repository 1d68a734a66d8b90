"""Residualization and two-step regression, checked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tools.statistics import Lasso, ResidualizationRegressor
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
    # predict = covariate part + gene part of the genes adjusted for z (Frisch-Waugh-Lovell)
    covariates = model.covariates
    adjusted = model.fitted_.adjustment.rows(X, z)
    np.testing.assert_allclose(model.predict(X, z),
                               covariates.predict(z, 80) + model.regression_model.predict(adjusted))


def test_two_step_least_squares_by_hand():
    # condition = 1 + 2 g1 - g2 exactly in standardized units of the condition cohort
    rng = np.random.default_rng(1)
    genes_c = rng.normal(size=(50, 2)) * [2.0, 0.5] + [10.0, 3.0]
    std_c = Standardizer.fit(genes_c).transform(genes_c)
    condition = 1 + 2 * std_c[:, 0] - std_c[:, 1]
    model = fit_condition_model(genes_c, condition)
    assert model.kind == "least-squares" and not model.binary
    # fitted on the condition's own z-scale: (condition - mean) / sd
    assert model.center == pytest.approx(condition.mean())
    assert model.scale == pytest.approx(condition.std())
    assert model.intercept == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(model.coef * model.scale, [2.0, -1.0], atol=1e-10)
    assert model.describe()["condition_sd"] == pytest.approx(condition.std())
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


def test_continuous_condition_model_does_not_depend_on_the_units():
    # the step-1 Lasso (alpha = 0.1) on raw units kept 0 regressors for a condition in
    # hundredths and all of them in thousands; on the condition's z-scale the same genes
    rng = np.random.default_rng(5)
    genes = rng.normal(size=(40, 60))
    condition = genes[:, :12] @ rng.normal(size=12) + rng.normal(size=40)
    kept, predictions = [], []
    for unit in (0.01, 1.0, 1000.0):
        model = fit_condition_model(genes, unit * condition)
        assert model.kind == "lasso"
        kept.append(np.flatnonzero(model.coef).tolist())
        predictions.append(predict_condition(model, genes) / unit)
    assert kept[0] == kept[1] == kept[2] and 0 < len(kept[0]) < 60
    np.testing.assert_allclose(predictions[0], predictions[2], rtol=1e-9)


def test_regressor_genes_are_removed():
    names, kept = without_regressors(["A", "B", "C", "D"], ["C", "A", "Z"])
    assert names == ["B", "D"] and kept.tolist() == [1, 3]
