"""Compatibility surface of the original ``tools.statistics`` (SPEC Appendix A).

Existing notebooks and agent prompts call these names with
``from tools.statistics import *``; every name keeps its positional order and
keyword names, with the behaviour of the SPEC (converged Lasso, LMM with
p-values, folds covering every sample, ...). The engine behind them lives in
:mod:`tools.statistics.lasso`, :mod:`tools.statistics.lmm`, :mod:`tools.statistics.crossval`,
:mod:`tools.statistics.two_step`, :mod:`utils.selection` and :mod:`tools.statistics.engine`;
``regress.py`` uses the engine directly.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from tools.statistics.batch import detect_batch_effect
from tools.statistics.cohort_cache import parse_linked_table
from tools.statistics.crossval import (FALLBACK_PENALTY, choose_penalty, cross_validate_lasso_grid,
                                       is_binary, make_folds, mean_metrics, prediction_metrics,
                                       selection_metrics, train_indices)
from tools.statistics.lasso import Lasso
from tools.statistics.lmm import LMM
from tools.statistics.ranking import rank_by_coefficient, rank_significant
from tools.statistics.residualize import CovariateFit, residualize
from tools.statistics.standardize import Standardizer
from utils.io import PathLike
from utils.paths import default_task_info_path
from utils.problems import Problem, load_task_info, normalize_trait, related_genes, result_path
from utils.schemas.result import write_result
from utils.selection import (LinkedTableIndex, load_cohort_info, rank_one_step, select_in_tree,
                             shared_regressors, usable_cohorts)

logger = logging.getLogger(__name__)

__all__ = ["read_json_to_dataframe", "filter_and_rank_cohorts", "select_and_load_cohort",
           "normalize_data", "detect_batch_effect", "ResidualizationRegressor", "Lasso", "LMM",
           "cross_validation", "tune_hyperparameters", "get_known_related_genes",
           "get_gene_regressors", "interpret_result", "save_result"]

PENALTY_NAMES = {Lasso: "alpha", LMM: "lamda"}


# --------------------------------------------------------------------------- cohorts

def read_json_to_dataframe(json_file: PathLike) -> pd.DataFrame:
    """A ``cohort_info.json`` as a table: one row per cohort, column ``cohort_id`` first."""
    records = load_cohort_info(json_file)
    frame = pd.DataFrame.from_dict(records, orient="index")
    frame.index.name = "cohort_id"
    return frame.reset_index()


def filter_and_rank_cohorts(json_file: PathLike, condition: Optional[str] = None
                            ) -> Tuple[Optional[str], pd.DataFrame]:
    """Usable cohorts (with Age / Gender when that is the condition), best first.

    Returns
    -------
    best_id : str or None
    ranked : pandas.DataFrame
        The ranked records (same columns as :func:`read_json_to_dataframe`).
    """
    records = load_cohort_info(json_file)
    ranked_ids = rank_one_step(usable_cohorts(records), condition)
    frame = read_json_to_dataframe(json_file).set_index("cohort_id")
    ranked = frame.loc[ranked_ids].reset_index() if ranked_ids else frame.iloc[0:0].reset_index()
    return (ranked_ids[0] if ranked_ids else None), ranked


def _task_info(gene_info_path: Optional[PathLike]) -> Dict[str, Any]:
    return load_task_info(gene_info_path or default_task_info_path())


def _read_table(path: Path) -> pd.DataFrame:
    return parse_linked_table(path, path.read_bytes())


def select_and_load_cohort(data_root: PathLike, trait: str, condition: Optional[str] = None,
                           is_two_step: bool = True, gene_info_path: Optional[PathLike] = None
                           ) -> Tuple[Optional[pd.DataFrame], Optional[pd.DataFrame],
                                      Optional[List[str]]]:
    """Select (SPEC 5.2) and load the linked table(s) of a problem.

    Parameters
    ----------
    data_root : path-like
        The preprocess tree (``output/preprocess``).
    trait, condition : str
    is_two_step : bool
        Treat a condition that is another trait as a two-step problem.
    gene_info_path : path-like, optional
        ``task_info.json`` (default: the project's).

    Returns
    -------
    trait_df, condition_df, regressors
        ``condition_df`` and ``regressors`` are None for one-step problems;
        everything is None when no cohort (pair) can be selected.
    """
    task_info = _task_info(gene_info_path)
    two_step = is_two_step and condition not in (None, "None", "Age", "Gender")
    problem = Problem(normalize_trait(trait), condition if two_step or condition in
                      ("Age", "Gender") else None)
    index = LinkedTableIndex(data_root)
    selection = select_in_tree(problem, data_root, task_info, index)
    if not selection.ok:
        logger.info("%s: %s", problem, selection.reason)
        return None, None, None
    trait_df = _read_table(index.path(problem.trait, selection.cohorts[0]))
    if not two_step:
        return trait_df, None, None
    condition_df = _read_table(index.path(problem.condition, selection.cohorts[1]))
    return trait_df, condition_df, list(selection.regressors)


def get_known_related_genes(file_path: PathLike, entity: str) -> List[str]:
    """Known related genes of a trait from ``task_info.json`` (empty for Age/Gender)."""
    return related_genes(load_task_info(file_path), normalize_trait(entity))


def get_gene_regressors(trait: str, condition: str, trait_df: pd.DataFrame,
                        condition_df: pd.DataFrame, gene_info_path: Optional[PathLike]
                        ) -> Optional[List[str]]:
    """The condition's known genes present in both tables (None when there is none)."""
    genes = get_known_related_genes(gene_info_path or default_task_info_path(), condition)
    shared = shared_regressors(genes, [str(c) for c in trait_df.columns],
                               [str(c) for c in condition_df.columns])
    return shared or None


# --------------------------------------------------------------------------- models

def normalize_data(X_train: Any, X_test: Any = None) -> Tuple[Any, Any]:
    """Z-score with the training statistics (zero-variance columns unscaled).

    DataFrames come back as DataFrames (same index and columns), arrays as arrays.
    """
    scaler = Standardizer.fit(np.asarray(X_train, dtype=float))

    def apply(X: Any) -> Any:
        if X is None:
            return None
        values = scaler.transform(np.asarray(X, dtype=float))
        if isinstance(X, pd.DataFrame):
            return pd.DataFrame(values, index=X.index, columns=X.columns)
        return values

    return apply(X_train), apply(X_test)


class ResidualizationRegressor:
    """A gene model fitted on the response with covariates regressed out.

    ``fit(X, Y, Z)`` regresses ``Y`` on ``[1, Z]`` by least squares and fits
    the gene model on the residual; the LMM instead takes ``Z`` as fixed
    effects of its tests. ``Z``'s coefficients are available from
    :meth:`get_covariate_coefficients`, never among the gene coefficients.

    Parameters
    ----------
    model_constructor : callable
        ``Lasso``, ``LMM`` or any scikit-learn-style regressor class.
    params : dict, optional
        Keyword arguments of the constructor.
    """

    def __init__(self, model_constructor: Callable[..., Any],
                 params: Optional[Dict[str, Any]] = None) -> None:
        self.model_constructor = model_constructor
        self.params = dict(params or {})
        self.regression_model = model_constructor(**self.params)
        self.covariates: Optional[CovariateFit] = None

    @property
    def _takes_covariates(self) -> bool:
        return bool(getattr(self.regression_model, "accepts_covariates", False))

    def fit(self, X: Any, Y: Any, Z: Any = None) -> "ResidualizationRegressor":
        """Fit the covariates, then the gene model on the residual."""
        X = np.asarray(X, dtype=float)
        Y = np.asarray(Y, dtype=float).ravel()
        Z = None if Z is None else np.asarray(Z, dtype=float).reshape(len(Y), -1)
        if self._takes_covariates:
            self.regression_model.fit(X, Y, Z)
            coef = np.asarray(self.regression_model.covariate_coef_)
            self.covariates = CovariateFit(float(coef[0]), coef[1:])
        else:
            residual, self.covariates = residualize(Y, Z)
            self.regression_model.fit(X, residual)
        return self

    def predict(self, X: Any, Z: Any = None) -> np.ndarray:
        """Covariate part plus gene part."""
        X = np.asarray(X, dtype=float)
        Z = None if Z is None else np.asarray(Z, dtype=float).reshape(X.shape[0], -1)
        if self._takes_covariates:
            return self.regression_model.predict(X, Z)
        if self.covariates is None:
            raise RuntimeError("ResidualizationRegressor.predict called before fit")
        return self.covariates.predict(Z, X.shape[0]) + np.ravel(self.regression_model.predict(X))

    def get_coefficients(self) -> np.ndarray:
        """Gene coefficients (one per column of ``X``)."""
        return np.ravel(np.asarray(self.regression_model.coef_, dtype=float))

    def get_covariate_coefficients(self) -> Dict[str, Any]:
        """``{"intercept": ..., "coefficients": [...]}`` of ``[1, Z]``."""
        if self.covariates is None:
            raise RuntimeError("model not fitted")
        return {"intercept": self.covariates.intercept,
                "coefficients": [float(c) for c in self.covariates.coef]}

    def get_p_values(self) -> Optional[np.ndarray]:
        """Per-gene p-values (LMM), or None for models without tests."""
        values = getattr(self.regression_model, "p_values_", None)
        return None if values is None else np.asarray(values)

    def get_corrected_p_values(self) -> Optional[np.ndarray]:
        """Benjamini-Hochberg corrected p-values (LMM), or None."""
        values = getattr(self.regression_model, "corrected_p_values_", None)
        return None if values is None else np.asarray(values)


def interpret_result(model: Any, var_names: Sequence[str], trait: str,
                     condition: Optional[str] = None, threshold: float = 0.05,
                     print_output: bool = False) -> Dict[str, list]:
    """Significant genes of a fitted model, ranked (SPEC 2).

    Models with p-values (LMM): genes with corrected p below ``threshold``,
    ranked by corrected p, with ``p_value`` and ``corrected_p_value`` lists.
    Otherwise: the non-zero coefficients ranked by absolute value.
    """
    if not isinstance(model, ResidualizationRegressor):
        wrapped = ResidualizationRegressor.__new__(ResidualizationRegressor)
        wrapped.regression_model, wrapped.covariates = model, None
        model = wrapped
    names = [str(v) for v in var_names]
    coef = model.get_coefficients()
    p_values = model.get_p_values()
    if p_values is not None:
        corrected = model.get_corrected_p_values()
        order = rank_significant(coef, corrected, threshold)
        result = {"Variable": [names[i] for i in order],
                  "Coefficient": [float(coef[i]) for i in order],
                  "Absolute Coefficient": [float(abs(coef[i])) for i in order],
                  "p_value": [float(p_values[i]) for i in order],
                  "corrected_p_value": [float(corrected[i]) for i in order]}
    else:
        order = rank_by_coefficient(names, coef)
        result = {"Variable": [names[i] for i in order],
                  "Coefficient": [float(coef[i]) for i in order],
                  "Absolute Coefficient": [float(abs(coef[i])) for i in order]}
    if print_output:
        given = "" if condition in (None, "None") else f" given {condition}"
        print(f"{len(result['Variable'])} genes significantly associated with "
              f"{trait}{given}:")
        print(pd.DataFrame(result).head(20).to_string(index=False))
    return result


# --------------------------------------------------------------------------- CV

def _reference(gene_info_path: Optional[PathLike], trait: str, var_names: Sequence[str]
               ) -> List[str]:
    present = set(str(v) for v in var_names)
    genes = get_known_related_genes(gene_info_path or default_task_info_path(), trait)
    return [g for g in dict.fromkeys(genes) if g in present]


def cross_validation(model_constructor: Callable[..., Any], model_params: Dict[str, Any],
                     X: Any, Y: Any, var_names: Sequence[str], trait: str,
                     gene_info_path: Optional[PathLike], condition: Optional[str] = None,
                     Z: Any = None, k: int = 5) -> Dict[str, Dict[str, float]]:
    """k-fold CV of one model (SPEC 5.5): mean prediction and selection metrics.

    Returns
    -------
    dict
        ``{"prediction": {...}, "selection": {...}}``.
    """
    X = np.asarray(X, dtype=float)
    Y = np.asarray(Y, dtype=float).ravel()
    Z = None if Z is None else np.asarray(Z, dtype=float).reshape(len(Y), -1)
    reference = _reference(gene_info_path, trait, var_names)
    binary = is_binary(Y)
    variance = float(np.var(Y))
    prediction, selection = [], []
    for test in make_folds(Y, binary, k):
        train = train_indices(len(Y), test)
        X_train, X_test = normalize_data(X[train], X[test])
        model = ResidualizationRegressor(model_constructor, model_params)
        model.fit(X_train, Y[train], None if Z is None else Z[train])
        predicted = model.predict(X_test, None if Z is None else Z[test])
        chosen = interpret_result(model, var_names, trait, condition)["Variable"]
        prediction.append(prediction_metrics(Y[test], predicted, binary, variance))
        selection.append(selection_metrics(chosen, reference))
    return {"prediction": mean_metrics(prediction), "selection": mean_metrics(selection)}


def tune_hyperparameters(model_constructor: Callable[..., Any], param_values: Sequence[float],
                         X: Any, Y: Any, var_names: Sequence[str], trait: str,
                         gene_info_path: Optional[PathLike], condition: Optional[str] = None,
                         Z: Any = None, fixed_params: Optional[Dict[str, Any]] = None,
                         k: int = 5) -> Tuple[Dict[str, Any], Dict[str, Dict[str, float]]]:
    """Choose the penalty by CV (SPEC 5.5) and return it with its CV metrics.

    The penalty is ``alpha`` for ``Lasso`` and ``lamda`` for ``LMM``. For the
    project's ``Lasso`` the whole grid is solved per fold in one certified
    path. The ``LMM`` has no penalty that changes its tests, so it is
    cross-validated once and the first value is returned.

    Returns
    -------
    best_config : dict
        Constructor keyword arguments (``fixed_params`` plus the penalty).
    best_performance : dict
        ``{"prediction": {...}, "selection": {...}}`` of the chosen penalty.
    """
    fixed = dict(fixed_params or {})
    name = PENALTY_NAMES.get(model_constructor, "alpha")
    values = [float(v) for v in param_values]
    if model_constructor is LMM:
        config = {**fixed, name: values[0] if values else None}
        return config, cross_validation(LMM, config, X, Y, var_names, trait, gene_info_path,
                                        condition, Z, k)
    if model_constructor is Lasso and not fixed:
        Y_arr = np.asarray(Y, dtype=float).ravel()
        grid = cross_validate_lasso_grid(
            np.asarray(X, dtype=float), Y_arr,
            None if Z is None else np.asarray(Z, dtype=float).reshape(len(Y_arr), -1),
            [str(v) for v in var_names], _reference(gene_info_path, trait, var_names),
            values, make_folds(Y_arr, is_binary(Y_arr), k))
        best = grid.choose()
        return ({name: values[best]},
                {"prediction": grid.prediction[best], "selection": grid.selection[best]})
    results = [cross_validation(model_constructor, {**fixed, name: v}, X, Y, var_names, trait,
                                gene_info_path, condition, Z, k) for v in values]
    references = set(_reference(gene_info_path, trait, var_names))
    hits = [r["selection"]["precision"] > 0 and bool(references) for r in results]
    best = choose_penalty(values, [r["selection"]["precision"] for r in results], hits,
                          FALLBACK_PENALTY)
    return {**fixed, name: values[best]}, results[best]


def save_result(significant_genes: Dict[str, list], performance: Dict[str, Any],
                output_root: PathLike, trait: str, condition: Optional[str] = None) -> Path:
    """Write ``<output_root>/<Trait>/significant_genes_condition_<C>.json`` atomically.

    The document (:class:`utils.schemas.result.ResultDocument`) is validated first.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    utils.schemas.base.FormatError
        When ``significant_genes`` or ``performance`` do not follow SPEC 2 (the
        message names the key).
    """
    condition = None if condition in (None, "None") else condition
    path = result_path(output_root, Problem(normalize_trait(trait), condition))
    write_result(path, {"significant_genes": significant_genes, "cv_performance": performance})
    return path
