"""Compatibility surface of the original ``tools.statistics`` (SPEC Appendix A).

Existing notebooks and agent prompts call these names with
``from tools.statistics import *``; every name keeps its positional order and
keyword names, with the behaviour of the SPEC (converged Lasso, LMM with
p-values, folds covering every sample, ...).

The names hold no analysis of their own: a model constructor (``Lasso``,
``LMM``, or any scikit-learn-style class) is resolved to its registered model
(:func:`tools.statistics.models.model_for_constructor`), whose fits,
cross-validation and gene ranking are the ones ``regress.py`` runs; a
constructor that is not registered gets the generic
:class:`~tools.statistics.models.base.EstimatorModel` (penalty keyword
``alpha``). Selection is :mod:`utils.selection`, shared with ``regress.py``
and ``eval.py``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from tools.statistics.batch import detect_batch_effect
from tools.statistics.cohort_cache import parse_linked_table, read_linked_bytes
from tools.statistics.crossval import FALLBACK_PENALTY, make_folds
from tools.statistics.lasso import Lasso
from tools.statistics.lmm import FDR_THRESHOLD, LMM
from tools.statistics.models import FittedModel, StatisticalModel, model_for_constructor
from tools.statistics.residualize import CovariateFit, as_matrix
from tools.statistics.standardize import standardize_rows
from utils.columns import is_binary
from utils.io import PathLike
from utils.paths import default_task_info_path
from utils.problems import (NONE_LABEL, Problem, load_task_info, normalize_trait, related_genes,
                            result_path)
from utils.schemas.result import write_result
from utils.selection import (LinkedTableIndex, load_cohort_info, rank_one_step, select_in_tree,
                             shared_regressors, usable_cohorts)

logger = logging.getLogger(__name__)

__all__ = ["read_json_to_dataframe", "filter_and_rank_cohorts", "select_and_load_cohort",
           "normalize_data", "detect_batch_effect", "ResidualizationRegressor", "Lasso", "LMM",
           "cross_validation", "tune_hyperparameters", "get_known_related_genes",
           "get_gene_regressors", "interpret_result", "save_result"]


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
    return parse_linked_table(path, read_linked_bytes(path)[0])


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
    problem = Problem(normalize_trait(trait), None if condition == NONE_LABEL else condition)
    if problem.is_two_step and not is_two_step:
        problem = Problem(problem.trait)
    two_step = problem.is_two_step
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
    """The condition's known genes that are not the trait's, present in both tables
    (SPEC 5.2; None when there is none)."""
    path = gene_info_path or default_task_info_path()
    shared = shared_regressors(get_known_related_genes(path, condition),
                               [str(c) for c in trait_df.columns],
                               [str(c) for c in condition_df.columns],
                               trait_genes=get_known_related_genes(path, trait))
    return shared or None


# --------------------------------------------------------------------------- models

def normalize_data(X_train: Any, X_test: Any = None) -> Tuple[Any, Any]:
    """Z-score with the training statistics (zero-variance columns unscaled).

    The engine's standardization (:func:`tools.statistics.standardize.standardize_rows`),
    so a model fitted on the result matches ``regress.py``'s final fit.
    DataFrames come back as DataFrames (same index and columns), arrays as arrays.
    """
    train = np.asarray(X_train, dtype=float)
    train_std, mean, scale = standardize_rows(train, np.arange(train.shape[0]))

    def like(X: Any, values: np.ndarray) -> Any:
        if isinstance(X, pd.DataFrame):
            return pd.DataFrame(values, index=X.index, columns=X.columns)
        return values

    test = None if X_test is None else like(
        X_test, (np.asarray(X_test, dtype=float) - mean) / scale)
    return like(X_train, train_std), test


def _arrays(X: Any, Y: Any, Z: Any) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """Genes, response and covariates of a compat call as arrays."""
    y = np.asarray(Y, dtype=float).ravel()
    return (np.asarray(X, dtype=float), y, None if Z is None else as_matrix(Z, y.size))


class ResidualizationRegressor(RegressorMixin, BaseEstimator):
    """A gene model fitted on the response with covariates regressed out.

    ``fit(X, Y, Z)`` fits the gene model with ``Z`` unpenalized: ``Y`` and the
    genes are residualized on ``[1, Z]`` by least squares (the residual genes
    re-standardized) and the gene model is fitted on the residuals
    (Frisch-Waugh-Lovell); the LMM instead takes ``Z`` as fixed effects of its
    tests. ``Z``'s coefficients (of the joint model) are available from
    :meth:`get_covariate_coefficients`, never among the gene coefficients.
    The fit is the registered model's (:meth:`StatisticalModel.fit_estimator`),
    the same as ``regress.py``'s. A scikit-learn estimator: parameters checked
    at ``fit``, ``get_params``/``set_params``, ``NotFittedError`` before ``fit``.

    Parameters
    ----------
    model_constructor : callable
        ``Lasso``, ``LMM`` or any scikit-learn-style regressor class.
    params : dict, optional
        Keyword arguments of the constructor.

    Attributes
    ----------
    fitted_ : FittedModel
        The fit (gene part, covariate part).
    regression_model_ : estimator
        The fitted gene model (``model_constructor(**params)``).
    n_features_in_ : int
    """

    _parameter_constraints: dict = {"model_constructor": [callable], "params": [dict, None]}

    def __init__(self, model_constructor: Callable[..., Any],
                 params: Optional[Dict[str, Any]] = None) -> None:
        self.model_constructor = model_constructor
        self.params = params

    @property
    def model(self) -> StatisticalModel:
        """The registered model of ``model_constructor`` (its fits are ``regress.py``'s)."""
        return model_for_constructor(self.model_constructor, dict(self.params or {}))

    @property
    def regression_model(self) -> Any:
        """The gene model: fitted after :meth:`fit`, a new unfitted one before."""
        if hasattr(self, "regression_model_"):
            return self.regression_model_
        return self.model_constructor(**dict(self.params or {}))

    @property
    def covariates(self) -> Optional[CovariateFit]:
        """The fit of ``[1, Z]`` (None before :meth:`fit`)."""
        fitted = getattr(self, "fitted_", None)
        return None if fitted is None else fitted.covariates

    def _fitted(self) -> FittedModel:
        check_is_fitted(self, "fitted_")
        return self.fitted_

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X: Any, Y: Any, Z: Any = None) -> "ResidualizationRegressor":
        """Fit the gene model with the covariates unpenalized (see the class docstring)."""
        X, y = validate_data(self, X, Y, dtype=np.float64, y_numeric=True)
        Z = None if Z is None else check_array(as_matrix(Z, y.size), input_name="Z")
        params = dict(self.params or {})
        self.regression_model_ = self.model_constructor(**params)
        self.fitted_ = model_for_constructor(self.model_constructor, params).fit_estimator(
            self.regression_model_, X, y, Z)
        return self

    def predict(self, X: Any, Z: Any = None) -> np.ndarray:
        """Covariate part plus gene part."""
        fitted = self._fitted()
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return fitted.predict(X, None if Z is None else as_matrix(Z, X.shape[0]))

    def get_coefficients(self) -> np.ndarray:
        """Gene coefficients (one per column of ``X``)."""
        return self._fitted().coef

    def get_covariate_coefficients(self) -> Dict[str, Any]:
        """``{"intercept": ..., "coefficients": [...]}`` of ``[1, Z]`` (as ``regress.py``
        reports them)."""
        joint = self._fitted().reported_covariates()
        return {"intercept": joint.intercept, "coefficients": [float(c) for c in joint.coef]}

    def get_p_values(self) -> Optional[np.ndarray]:
        """Per-gene p-values (LMM), or None for models without tests."""
        return self._fitted().p_value

    def get_corrected_p_values(self) -> Optional[np.ndarray]:
        """Benjamini-Hochberg corrected p-values (LMM), or None."""
        return self._fitted().corrected_p_value


def interpret_result(model: Any, var_names: Sequence[str], trait: str,
                     condition: Optional[str] = None, threshold: float = FDR_THRESHOLD,
                     print_output: bool = False) -> Dict[str, list]:
    """Significant genes of a fitted model, ranked (SPEC 2), as ``regress.py`` ranks them.

    ``model``: a fitted :class:`ResidualizationRegressor`, or a fitted
    estimator (``Lasso``, ``LMM``, a scikit-learn regressor). Models with
    p-values (LMM): genes with corrected p below ``threshold``, ranked by
    corrected p, with ``p_value`` and ``corrected_p_value`` lists. Otherwise:
    the non-zero coefficients ranked by absolute value.
    """
    if isinstance(model, ResidualizationRegressor):
        fitted = model._fitted()
    else:
        fitted = model_for_constructor(type(model)).wrap(model, None)
    result = fitted.ranked_genes([str(v) for v in var_names], threshold)
    if print_output:
        given = "" if condition in (None, NONE_LABEL) else f" given {condition}"
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


def _grid_cv(model: StatisticalModel, penalties: Sequence[Any], X: Any, Y: Any,
             var_names: Sequence[str], trait: str, gene_info_path: Optional[PathLike],
             Z: Any, k: int):
    X, y, Z = _arrays(X, Y, Z)
    return model.cross_validate(X, y, Z, [str(v) for v in var_names],
                                _reference(gene_info_path, trait, var_names), penalties,
                                make_folds(y, is_binary(y), k))


def cross_validation(model_constructor: Callable[..., Any], model_params: Dict[str, Any],
                     X: Any, Y: Any, var_names: Sequence[str], trait: str,
                     gene_info_path: Optional[PathLike], condition: Optional[str] = None,
                     Z: Any = None, k: int = 5) -> Dict[str, Dict[str, float]]:
    """k-fold CV of one model (SPEC 5.5): mean prediction and selection metrics.

    The registered model's cross-validation (the one ``regress.py`` runs)
    at the penalty of ``model_params`` (the constructor's default when absent).

    Returns
    -------
    dict
        ``{"prediction": {...}, "selection": {...}}``.
    """
    model = model_for_constructor(model_constructor, model_params)
    penalty = model.penalty_of(model_params)
    return _grid_cv(model, (penalty,), X, Y, var_names, trait, gene_info_path, Z, k).metrics(0)


def tune_hyperparameters(model_constructor: Callable[..., Any], param_values: Sequence[float],
                         X: Any, Y: Any, var_names: Sequence[str], trait: str,
                         gene_info_path: Optional[PathLike], condition: Optional[str] = None,
                         Z: Any = None, fixed_params: Optional[Dict[str, Any]] = None,
                         k: int = 5) -> Tuple[Dict[str, Any], Dict[str, Dict[str, float]]]:
    """Choose the penalty by CV (SPEC 5.5) and return it with its CV metrics.

    The penalty is the registered model's ``penalty_name`` (``alpha`` for
    ``Lasso``, ``lamda`` for ``LMM``, ``alpha`` for other constructors). For
    the project's ``Lasso`` the whole grid is solved per fold in one certified
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
    model = model_for_constructor(model_constructor, fixed)
    penalties = model.penalty_grid(list(param_values))
    grid = _grid_cv(model, penalties, X, Y, var_names, trait, gene_info_path, Z, k)
    best = grid.choose(FALLBACK_PENALTY)
    config = dict(fixed)
    if model.penalty_name is not None:
        config[model.penalty_name] = penalties[best]
    return config, grid.metrics(best)


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
    condition = None if condition in (None, NONE_LABEL) else condition
    path = result_path(output_root, Problem(normalize_trait(trait), condition))
    write_result(path, {"significant_genes": significant_genes, "cv_performance": performance})
    return path
