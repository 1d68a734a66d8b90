"""The registry of statistical models (tools.statistics.models): a new model is one
class plus one registry line (``register_model`` outside the package), run end to end by
``regress.py --model``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tests.regress_fixtures import small_benchmark

from genotex.cli import regress
from tools.statistics.engine import AnalysisConfig
from tools.statistics.lasso import Lasso
from tools.statistics.lmm import LMM
from tools.statistics.models import (EstimatorModel, StatisticalModel, get_model,
                                     model_for_constructor, model_names, register_model,
                                     resolve_model, unregister_model)
from tools.statistics.models.lasso import LassoModel
from tools.statistics.models.lmm import LinearMixedModel


# --------------------------------------------------------------------------- a toy model

class ToyRidge:
    """Ridge regression in its dual form (``n < p``): ``coef = X^T (X X^T + n alpha I)^-1 y``.

    A scikit-learn-style estimator written here, as a user's new model would be.
    """

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = alpha

    def fit(self, X: np.ndarray, y: np.ndarray) -> "ToyRidge":
        n = X.shape[0]
        self.intercept_ = float(np.mean(y))
        dual = np.linalg.solve(X @ X.T + n * self.alpha * np.eye(n), y - self.intercept_)
        self.coef_ = X.T @ dual
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return X @ self.coef_ + self.intercept_


class ToyModel(StatisticalModel):
    """Everything else (CV over the grid, tuning, final fit, ranking) is the default."""

    name = "toy"
    label = "Toy"
    compat_constructor = ToyRidge
    penalty_name = "alpha"


@pytest.fixture
def toy():
    register_model("toy", ToyModel)
    yield ToyModel
    unregister_model("toy")


@pytest.fixture
def tree(tmp_path):
    return small_benchmark(tmp_path / "bench")


def _run(tree, *extra):
    return regress.main(["--output-dir", str(tree["preprocess"].parent), "--task-info",
                         str(tree["task_info"]), "--no-progress", *extra])


def _read(tree, name):
    return json.loads((tree["regress"] / name).read_text())


def test_a_registered_model_runs_end_to_end_through_regress(toy, tree, capsys):
    assert "toy" in model_names()
    assert _run(tree, "--model", "toy") == 0
    assert "6 done" in capsys.readouterr().out
    document = _read(tree, "Asthma/significant_genes_condition_Age.json")
    analysis = document["analysis"]
    assert analysis["model"] == "Toy" and analysis["penalty"] in analysis["tuning"]["penalties"]
    assert list(analysis)[:5] == ["engine", "model", "penalty", "cv_prediction", "tuning"]
    genes = document["significant_genes"]
    # ridge keeps every gene; the planted ones lead the ranking
    assert len(genes["Variable"]) == analysis["n_genes"]
    assert {"G0000", "G0001", "G0002"} <= set(genes["Variable"][:6])
    assert genes["Absolute Coefficient"] == sorted(genes["Absolute Coefficient"], reverse=True)
    assert set(document["cv_performance"]["prediction"]) == {"accuracy", "precision",
                                                             "recall", "f1"}
    assert analysis["covariates"]["names"] == ["Age"]
    # the model's name is part of the inputs: up to date for toy, re-run for auto
    assert _run(tree, "--model", "toy") == 0
    assert "0 done, 6 up-to-date" in capsys.readouterr().out
    assert _run(tree) == 0
    assert "6 done, 0 up-to-date" in capsys.readouterr().out
    assert _read(tree, "Asthma/significant_genes_condition_Age.json")["analysis"][
        "model"] == "Lasso"


def test_the_compat_names_reach_a_registered_model(toy, tree):
    from tools.statistics import tune_hyperparameters

    assert type(model_for_constructor(ToyRidge)) is ToyModel
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 30))
    y = X[:, 0] + 0.1 * rng.normal(size=40)
    best, performance = tune_hyperparameters(ToyRidge, [1e-3, 1.0], X, y,
                                             [f"G{i:04d}" for i in range(30)], "Asthma",
                                             tree["task_info"])
    # ridge keeps every gene: equal selection precision, so the smaller penalty (SPEC 5.5)
    assert best == {"alpha": 1e-3} and performance["prediction"]["r2"] > 0.9
    assert performance["selection"]["recall"] == 100.0


def test_explicit_model_names_choose_the_path(tree, capsys):
    assert _run(tree, "--model", "lmm", "--problems", "Asthma|Age") == 0
    document = _read(tree, "Asthma/significant_genes_condition_Age.json")
    assert document["analysis"]["model"] == "LMM" and document["analysis"]["batch_effect"] is False
    assert "p_value" in document["significant_genes"]
    capsys.readouterr()
    assert _run(tree, "--model", "nope") == 2  # refused after parsing (--help stays fast)
    assert "--model nope: not a registered model (auto, lasso, lmm" in capsys.readouterr().err


def test_auto_is_the_batch_rule_and_stays_out_of_the_fingerprint():
    assert model_names()[:2] == ["lasso", "lmm"]
    assert isinstance(resolve_model(AnalysisConfig(), batch_effect=False), LassoModel)
    assert isinstance(resolve_model(AnalysisConfig(), batch_effect=True), LinearMixedModel)
    assert isinstance(resolve_model(AnalysisConfig(model="lasso"), batch_effect=True),
                      LassoModel)
    assert "model" not in AnalysisConfig().as_dict()  # results of auto keep their fingerprint
    assert AnalysisConfig(model="lmm").as_dict()["model"] == "lmm"
    with pytest.raises(KeyError, match="unknown statistical model 'nope'; known: lasso, lmm"):
        get_model("nope")


def test_registration_rules():
    for bad in ("auto", "", "Two Words", "Upper"):
        with pytest.raises(ValueError):
            register_model(bad, ToyModel)
    with pytest.raises(TypeError):
        register_model("thing", object)
    with pytest.raises(ValueError, match="declares name 'toy', registered as 'other'"):
        register_model("other", ToyModel)

    class Other(StatisticalModel):
        label = "Other"

    with pytest.raises(ValueError, match="already registered"):
        register_model("lasso", Other)
    assert get_model("lasso").label == "Lasso"


def test_constructors_resolve_to_their_models():
    assert type(model_for_constructor(Lasso)) is LassoModel
    assert type(model_for_constructor(LMM)) is LinearMixedModel
    generic = model_for_constructor(dict)
    assert isinstance(generic, EstimatorModel) and generic.penalty_name == "alpha"
    assert LassoModel().penalty_grid([1e-3, 1]) == (1e-3, 1.0)
    assert LinearMixedModel().penalty_grid([1e-3, 1]) == (1e-3,)  # nothing to tune
    assert LinearMixedModel().penalty_grid([]) == (None,)
