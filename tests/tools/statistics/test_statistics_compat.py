"""The Appendix-A surface of tools.statistics: names, signatures, behaviour."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pandas as pd
import pytest
from tests.conftest import assert_snippet_runs
from tests.regress_fixtures import small_benchmark

import tools.statistics as statistics
from tools.statistics import *  # noqa: F401,F403 - the way notebooks import it

SIGNATURES = {
    "read_json_to_dataframe": ["json_file"],
    "filter_and_rank_cohorts": ["json_file", "condition"],
    "select_and_load_cohort": ["data_root", "trait", "condition", "is_two_step",
                               "gene_info_path"],
    "normalize_data": ["X_train", "X_test"],
    "detect_batch_effect": ["X"],
    "cross_validation": ["model_constructor", "model_params", "X", "Y", "var_names", "trait",
                         "gene_info_path", "condition", "Z", "k"],
    "tune_hyperparameters": ["model_constructor", "param_values", "X", "Y", "var_names",
                             "trait", "gene_info_path", "condition", "Z", "fixed_params", "k"],
    "get_known_related_genes": ["file_path", "entity"],
    "get_gene_regressors": ["trait", "condition", "trait_df", "condition_df",
                            "gene_info_path"],
    "interpret_result": ["model", "var_names", "trait", "condition", "threshold",
                         "print_output"],
    "save_result": ["significant_genes", "performance", "output_root", "trait", "condition"],
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_signatures(name):
    params = list(inspect.signature(getattr(statistics, name)).parameters)
    assert params[:len(SIGNATURES[name])] == SIGNATURES[name]
    assert name in statistics.__all__


def test_engine_modules_import_without_the_compatibility_surface():
    # issue 26: the package loads its compatibility names on first use only
    code = ("import sys, tools.statistics.engine, tools.statistics.lasso\n"
            "assert 'tools.statistics.compat' not in sys.modules\n"
            "from tools.statistics import *\n"
            "import tools.statistics as s\n"
            "assert 'tools.statistics.compat' in sys.modules\n"
            "assert ResidualizationRegressor is s.compat.ResidualizationRegressor\n"
            "assert pd.DataFrame and np.ndarray and Optional and s.__all__[0] == "
            "'read_json_to_dataframe'\n"
            "assert 'lasso' not in s.__all__ and s.lasso.Lasso is Lasso\n")
    assert_snippet_runs(code)
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        statistics.nothing_here


def test_defaults_and_constructors():
    assert inspect.signature(interpret_result).parameters["threshold"].default == 0.05
    assert inspect.signature(cross_validation).parameters["k"].default == 5
    assert list(inspect.signature(ResidualizationRegressor).parameters) == [
        "model_constructor", "params"]
    for method in ("fit", "predict", "get_coefficients", "get_p_values"):
        assert callable(getattr(ResidualizationRegressor, method))
    assert list(inspect.signature(ResidualizationRegressor.fit).parameters) == [
        "self", "X", "Y", "Z"]
    LMM(lamda=3e-4)
    Lasso(alpha=0.1, random_state=42)


@pytest.fixture
def tree(tmp_path):
    return small_benchmark(tmp_path)


def test_cohort_functions(tree):
    info = tree["preprocess"] / "Asthma" / "cohort_info.json"
    frame = read_json_to_dataframe(info)
    assert frame.columns[0] == "cohort_id" and set(frame["cohort_id"]) == {"GSE1001", "GSE1002"}
    best, ranked = filter_and_rank_cohorts(info)
    assert best == "GSE1001" and list(ranked["cohort_id"]) == ["GSE1001", "GSE1002"]
    best, ranked = filter_and_rank_cohorts(info, "Gender")  # GSE1002 has no Gender
    assert best == "GSE1001" and len(ranked) == 1
    assert get_known_related_genes(tree["task_info"], "Obesity") == ["G0010", "G0011", "G0012"]
    assert get_known_related_genes(tree["task_info"], "Age") == []


def test_full_notebook_flow(tree, tmp_path):
    trait_df, condition_df, regressors = select_and_load_cohort(
        tree["preprocess"], "Asthma", "Obesity", True, tree["task_info"])
    assert regressors == ["G0010", "G0011", "G0012"] and condition_df.shape[0] == 50
    assert get_gene_regressors("Asthma", "Obesity", trait_df, condition_df,
                               tree["task_info"]) == regressors
    trait_df, none_df, none_reg = select_and_load_cohort(
        tree["preprocess"], "Asthma", "Age", gene_info_path=tree["task_info"])
    assert none_df is None and none_reg is None
    X = trait_df.drop(columns=["Asthma", "Age", "Gender"])
    Y, Z = trait_df["Asthma"].to_numpy(), trait_df["Age"].to_numpy()
    X_n, _ = normalize_data(X)
    assert isinstance(X_n, pd.DataFrame)
    np.testing.assert_allclose(X_n.to_numpy().mean(axis=0), 0, atol=1e-12)
    assert detect_batch_effect(X_n.to_numpy()) is False
    grid = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1]
    config, performance = tune_hyperparameters(Lasso, grid, X_n, Y, list(X.columns), "Asthma",
                                               tree["task_info"], "Age", Z)
    assert set(config) == {"alpha"} and config["alpha"] in grid
    assert set(performance) == {"prediction", "selection"}
    model = ResidualizationRegressor(Lasso, config)
    model.fit(X_n, Y, Z)
    genes = interpret_result(model, list(X.columns), "Asthma", "Age")
    assert {"G0000", "G0001"} <= set(genes["Variable"][:4])
    path = save_result(genes, performance, tmp_path / "regress", "Asthma", "Age")
    assert path == tmp_path / "regress" / "Asthma" / "significant_genes_condition_Age.json"
    saved = json.loads(path.read_text())
    assert saved["significant_genes"]["Variable"] == genes["Variable"]
    assert set(saved["cv_performance"]) == {"prediction", "selection"}


def test_lmm_through_the_compat_surface():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 40))
    Y = 1.5 * X[:, 3] + rng.normal(size=80)
    X_n, _ = normalize_data(X)
    model = ResidualizationRegressor(LMM, {"lamda": 3e-4}).fit(X_n, Y)
    p_values = model.get_p_values()
    assert p_values.shape == (40,) and np.argmin(p_values) == 3
    genes = interpret_result(model, [f"G{i}" for i in range(40)], "T")
    assert genes["Variable"][0] == "G3"
    assert list(genes) == ["Variable", "Coefficient", "Absolute Coefficient", "p_value",
                           "corrected_p_value"]
    assert all(p < 0.05 for p in genes["corrected_p_value"])


# --------------------------------------------------------------------------- same engine

def _engine_problem(tree, problem):
    """The engine's data of a problem of the small benchmark, and its task info."""
    from tools.statistics.cohort_cache import CohortCache
    from tools.statistics.engine import problem_data
    from utils.problems import load_task_info
    from utils.selection import LinkedTableIndex, select_in_tree

    task_info = load_task_info(tree["task_info"])
    index = LinkedTableIndex(tree["preprocess"])
    selection = select_in_tree(problem, tree["preprocess"], task_info, index)
    owners = [problem.trait] + ([problem.condition] if problem.is_two_step else [])
    tables = [CohortCache().load(index.path(owner, cohort))
              for cohort, owner in zip(selection.cohorts, owners)]
    return problem_data(problem, selection, tables, task_info)


@pytest.mark.parametrize("problem, constructor, config", [
    (("Asthma", "Age"), "Lasso", {}),
    (("Obesity", None), "Lasso", {}),            # continuous trait
    (("Asthma", "Obesity"), "Lasso", {}),        # two-step: Z is the predicted condition
    (("Asthma", "Gender"), "LMM", {"batch_gap_numerator": 0.0}),  # every gap is a batch effect
])
def test_compat_names_give_what_regress_writes(tree, problem, constructor, config):
    """tune_hyperparameters + ResidualizationRegressor + interpret_result on a problem's
    matrices give the genes, metrics and penalty ``regress.py`` writes for it."""
    from tools.statistics.crossval import PENALTY_GRID
    from tools.statistics.engine import AnalysisConfig, analyze
    from utils.precision import round_floats
    from utils.problems import Problem

    data = _engine_problem(tree, Problem(*problem))
    written = analyze(data, AnalysisConfig(**config))
    assert written["analysis"]["model"] == constructor
    model_constructor = {"Lasso": Lasso, "LMM": LMM}[constructor]
    names, trait, condition = data.gene_names, data.problem.trait, data.problem.condition
    best, performance = tune_hyperparameters(model_constructor, list(PENALTY_GRID), data.X,
                                             data.y, names, trait, tree["task_info"],
                                             condition, data.Z)
    X_n, _ = normalize_data(data.X)
    model = ResidualizationRegressor(model_constructor, best).fit(X_n, data.y, data.Z)
    genes = interpret_result(model, names, trait, condition)
    assert round_floats(performance) == written["cv_performance"]
    assert round_floats(genes) == written["significant_genes"]
    assert len(genes["Variable"]) > 0
    if constructor == "Lasso":
        assert best == {"alpha": written["analysis"]["penalty"]}
    else:
        assert best == {"lamda": PENALTY_GRID[0]} and written["analysis"]["penalty"] is None
    covariates = round_floats(model.get_covariate_coefficients())
    assert covariates["coefficients"] == written["analysis"]["covariates"]["coefficients"]


def test_compat_cross_validation_is_the_engines_at_one_penalty(tree):
    from tools.statistics.crossval import PENALTY_GRID, cross_validate_lasso_grid, make_folds
    from utils.problems import Problem

    data = _engine_problem(tree, Problem("Asthma", "Age"))
    grid = cross_validate_lasso_grid(data.X, data.y, data.Z, data.gene_names, data.reference,
                                     PENALTY_GRID, make_folds(data.y, True))
    for i in (1, 4):
        single = cross_validation(Lasso, {"alpha": PENALTY_GRID[i]}, data.X, data.y,
                                  data.gene_names, "Asthma", tree["task_info"], "Age", data.Z)
        assert single == grid.metrics(i)


def test_unregistered_constructors_take_the_generic_path(tree):
    """A scikit-learn regressor: penalty ``alpha``, residualized response, coefficient ranking."""
    from sklearn.linear_model import Lasso as SkLasso

    from tools.statistics.models import EstimatorModel, model_for_constructor
    from utils.problems import Problem

    assert isinstance(model_for_constructor(SkLasso), EstimatorModel)
    data = _engine_problem(tree, Problem("Asthma", "Age"))
    best, performance = tune_hyperparameters(SkLasso, [1e-2, 1e-1], data.X, data.y,
                                             data.gene_names, "Asthma", tree["task_info"], "Age",
                                             data.Z, fixed_params={"max_iter": 5000})
    assert set(best) == {"alpha", "max_iter"} and best["alpha"] in (1e-2, 1e-1)
    assert set(performance["selection"]) == {"precision", "recall", "f1", "jaccard"}
    X_n, _ = normalize_data(data.X)
    model = ResidualizationRegressor(SkLasso, best).fit(X_n, data.y, data.Z)
    assert model.get_p_values() is None
    genes = interpret_result(model, data.gene_names, "Asthma", "Age")
    assert {"G0000", "G0001"} <= set(genes["Variable"][:5])
    # a fitted estimator is ranked the same way without the wrapper
    raw = interpret_result(model.regression_model, data.gene_names, "Asthma")
    assert raw == genes
    predicted = model.predict(X_n, data.Z)
    assert predicted.shape == data.y.shape
