"""The protocol of a statistical model, and its generic implementation.

A model turns one problem's data (:class:`~tools.statistics.inputs.ProblemData`)
into the parts of its result document. :class:`StatisticalModel` gives every
step a default, so a new model implements only what differs:

``fit(X_std, y, Z, penalty) -> FittedModel``
    One fit on standardized genes (training statistics), the trait and the
    covariates ``Z`` (or None). The default builds ``compat_constructor``
    with ``params`` and the penalty (keyword ``penalty_name``) and fits it with
    :meth:`StatisticalModel.fit_estimator`: with ``Z`` unpenalized
    (Frisch-Waugh-Lovell, :mod:`tools.statistics.adjust`: ``y`` and the genes
    residualized on ``[1, Z]``, the residual genes re-standardized), or on
    ``(X, y, Z)`` when the estimator has ``accepts_covariates = True``.
``cross_validate(X, y, Z, gene_names, reference, penalties, folds) -> GridCV``
    SPEC 5.5 for each penalty; the default is the generic loop
    :func:`tools.statistics.crossval.cross_validate_fits` (one fit per fold and
    penalty). Models override it with a faster equivalent (the Lasso solves
    the whole grid per fold in one path).
``final_fit(data, penalty) -> FittedModel``
    The fit on all samples (genes standardized with their own statistics).
``analyse(data, folds, workers) -> dict``
    Cross-validation, the penalty choice of SPEC 5.5, the final fit, and the
    result parts (:meth:`StatisticalModel.outcome`): ``genes`` (the
    ``significant_genes`` lists), ``cv`` (``cv_performance``), ``model`` (the
    model's keys of ``analysis``: ``model``, ``penalty``, ``tuning`` and any
    :meth:`StatisticalModel.describe` adds) and ``covariates``.

A :class:`FittedModel` predicts (covariate part included), ranks its selected
genes (:func:`tools.statistics.ranking.ranked_genes`: non-zero coefficients,
or corrected p below the FDR level when the fit has p-values) and reports its
gene and covariate coefficients.

Class attributes declare the rest: ``label`` (written as ``analysis.model``),
``penalty_name`` (the constructor keyword the grid values go to; None: no
penalty), ``tunes_penalty`` (False: the penalty has no effect and is not
tuned), ``compat_constructor`` (the class the compatibility names accept,
e.g. ``Lasso``), ``fold_dtype`` (precision of the fold matrices) and
``cv_prediction`` (what the cross-validated prediction metrics measure,
written as ``analysis.cv_prediction``).
"""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Any, Callable, ClassVar, Dict, List, Mapping, Optional, Sequence

import numpy as np

from tools.statistics.adjust import GeneAdjustment, adjust_rows
from tools.statistics.crossval import GridCV, cross_validate_fits
from tools.statistics.fdr import benjamini_hochberg
from tools.statistics.inputs import AnalysisConfig, ProblemData
from tools.statistics.ranking import ranked_genes
from tools.statistics.residualize import CovariateFit, as_matrix, residualize
from tools.statistics.standardize import standardize_rows

DEFAULT_PENALTY_NAME = "alpha"  # scikit-learn's keyword, for constructors not registered


def covariate_lists(covariates: CovariateFit) -> Dict[str, Any]:
    """``{"intercept": ..., "coefficients": [...]}`` of a covariate fit (JSON-ready)."""
    return {"intercept": float(covariates.intercept),
            "coefficients": [float(c) for c in covariates.coef]}


class FittedModel:
    """A fit of a gene model: ``y ~ [1, Z] covariates + genes``.

    Subclasses provide :attr:`coef` (and, for models with tests,
    :attr:`p_value` and :attr:`corrected_p_value`) and the genes' part of the
    prediction; ranking and the covariate part are shared.

    Attributes
    ----------
    covariates : CovariateFit or None
        Intercept and coefficients of ``Z`` in the residualization of ``y``
        (None for an estimator fitted outside a model: it ranks genes but
        cannot predict).
    adjustment : GeneAdjustment or None
        The genes' residualization on ``[1, Z]`` the gene part was fitted on
        (None: the genes are used as given).
    """

    covariates: Optional[CovariateFit] = None
    adjustment: Optional[GeneAdjustment] = None

    @property
    def coef(self) -> np.ndarray:
        """One coefficient per gene (standardized scale)."""
        raise NotImplementedError

    @property
    def p_value(self) -> Optional[np.ndarray]:
        """Per-gene p-values, or None for a model without tests."""
        return None

    @property
    def corrected_p_value(self) -> Optional[np.ndarray]:
        """Benjamini-Hochberg corrected p-values, or None."""
        return None

    def genes_part(self, X_std: np.ndarray) -> np.ndarray:
        """The genes' contribution to the prediction."""
        raise NotImplementedError

    def predict(self, X_std: np.ndarray, Z: Optional[np.ndarray]) -> np.ndarray:
        """Predicted trait of samples (genes standardized with the training statistics)."""
        if self.covariates is None:
            raise RuntimeError("this fit has no covariate model and cannot predict")
        X_std = np.asarray(X_std)
        genes = X_std if self.adjustment is None else self.adjustment.rows(X_std, Z)
        return self.covariates.predict(Z, X_std.shape[0]) + self.genes_part(genes)

    def reported_covariates(self) -> CovariateFit:
        """Intercept and ``Z`` coefficients of the joint model on the standardized genes."""
        if self.covariates is None:
            raise RuntimeError("this fit has no covariate model")
        if self.adjustment is None:
            return self.covariates
        return self.adjustment.joint(self.covariates, self.coef)

    def ranked_genes(self, gene_names: Sequence[str], threshold: float) -> Dict[str, list]:
        """The selected genes, ranked, as the result document's ``significant_genes`` lists."""
        return ranked_genes(gene_names, self.coef, threshold, self.p_value,
                            self.corrected_p_value)

    def details(self) -> Dict[str, Any]:
        """Keys this fit adds to the result's ``analysis`` (none by default)."""
        return {}


class LinearFit(FittedModel):
    """A linear gene part: ``X_std @ coef + intercept``.

    Parameters
    ----------
    coef : numpy.ndarray
    covariates : CovariateFit
    intercept : float
        The gene part's own intercept (0 on a residualized, centred response).
    adjustment : GeneAdjustment, optional
        The genes' residualization on ``[1, Z]`` (:mod:`tools.statistics.adjust`).
    """

    def __init__(self, coef: np.ndarray, covariates: Optional[CovariateFit],
                 intercept: float = 0.0, adjustment: Optional[GeneAdjustment] = None) -> None:
        self._coef = np.asarray(coef, dtype=float)
        self.covariates = covariates
        self.intercept = float(intercept)
        self.adjustment = adjustment

    @property
    def coef(self) -> np.ndarray:
        return self._coef

    def genes_part(self, X_std: np.ndarray) -> np.ndarray:
        return np.asarray(X_std, dtype=float) @ self._coef + self.intercept


class EstimatorFit(FittedModel):
    """A fitted scikit-learn-style estimator (``fit``, ``predict``, ``coef_``).

    Read lazily: ``coef_``, and ``p_values_`` when the estimator has them
    (``corrected_p_values_`` too, else they are corrected here by
    Benjamini-Hochberg), which make it rank by significance. An estimator
    with ``accepts_covariates`` predicts with ``predict(X, Z)`` itself.
    """

    def __init__(self, estimator: Any, covariates: Optional[CovariateFit]) -> None:
        self.estimator = estimator
        self.covariates = covariates

    @property
    def takes_covariates(self) -> bool:
        """Whether the estimator models ``Z`` itself."""
        return bool(getattr(self.estimator, "accepts_covariates", False))

    @property
    def coef(self) -> np.ndarray:
        return np.ravel(np.asarray(self.estimator.coef_, dtype=float))

    @property
    def p_value(self) -> Optional[np.ndarray]:
        values = getattr(self.estimator, "p_values_", None)
        return None if values is None else np.ravel(np.asarray(values, dtype=float))

    @property
    def corrected_p_value(self) -> Optional[np.ndarray]:
        values = getattr(self.estimator, "corrected_p_values_", None)
        if values is not None:
            return np.ravel(np.asarray(values, dtype=float))
        p_value = self.p_value
        return None if p_value is None else benjamini_hochberg(p_value)

    def predict(self, X_std: np.ndarray, Z: Optional[np.ndarray]) -> np.ndarray:
        if self.takes_covariates:
            return np.ravel(self.estimator.predict(X_std, Z))
        return super().predict(X_std, Z)

    def genes_part(self, X_std: np.ndarray) -> np.ndarray:
        return np.ravel(self.estimator.predict(X_std))


class StatisticalModel:
    """A statistical model of the engine (see the module docstring for the protocol).

    Parameters
    ----------
    config : AnalysisConfig
        The analysis constants (penalty grid, FDR level, fallback penalty).
    params : mapping, optional
        Keyword arguments of the estimator (``compat_constructor``), besides
        the penalty.
    """

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    compat_constructor: ClassVar[Optional[Callable[..., Any]]] = None
    penalty_name: ClassVar[Optional[str]] = None
    tunes_penalty: ClassVar[bool] = True
    fold_dtype: ClassVar[type] = np.float64
    cv_prediction: ClassVar[str] = "the model fitted on the training folds"

    def __init__(self, config: AnalysisConfig = AnalysisConfig(),
                 params: Optional[Mapping[str, Any]] = None) -> None:
        self.config = config
        self.params = dict(params or {})

    # ------------------------------------------------------------ one fit
    @property
    def constructor(self) -> Callable[..., Any]:
        """The estimator class a fit builds."""
        if self.compat_constructor is None:
            raise NotImplementedError(f"{type(self).__name__} has no estimator: override fit()")
        return self.compat_constructor

    @property
    def tuned(self) -> bool:
        """Whether the penalty is chosen by cross-validation."""
        return self.penalty_name is not None and self.tunes_penalty

    def make_estimator(self, penalty: Optional[float]) -> Any:
        """A new estimator with ``params`` and the penalty (when given)."""
        kwargs = dict(self.params)
        if self.penalty_name is not None and penalty is not None:
            kwargs[self.penalty_name] = penalty
        return self.constructor(**kwargs)

    def penalty_of(self, params: Mapping[str, Any]) -> Optional[float]:
        """The penalty in constructor keyword arguments (the constructor's default if absent)."""
        if self.penalty_name is None:
            return None
        if self.penalty_name in params:
            return params[self.penalty_name]
        return getattr(self.make_estimator(None), self.penalty_name, None)

    def wrap(self, estimator: Any, covariates: Optional[CovariateFit]) -> FittedModel:
        """A fitted estimator as a :class:`FittedModel`."""
        return EstimatorFit(estimator, covariates)

    def fit_estimator(self, estimator: Any, X_std: Any, y: Any, Z: Any = None,
                      standardized: bool = False) -> FittedModel:
        """Fit ``estimator`` with ``Z`` unpenalized, or on ``(X, y, Z)``.

        An estimator with ``accepts_covariates = True`` takes ``Z`` as fixed
        effects (and reports their coefficients as ``covariate_coef_``);
        any other is fitted on the genes and the response both residualized
        on ``[1, Z]``, the residual genes re-standardized (Frisch-Waugh-Lovell,
        SPEC 5.4, :mod:`tools.statistics.adjust`). ``standardized``: ``X_std``
        comes from the engine's standardization (:meth:`fit`), which
        :meth:`fit_covariate_estimator` may use.
        """
        X_std = np.asarray(X_std)
        if X_std.dtype not in (np.float32, np.float64):
            X_std = X_std.astype(float)
        y = np.asarray(y, dtype=float).ravel()
        Z = None if Z is None else as_matrix(Z, y.size)
        if getattr(estimator, "accepts_covariates", False):
            self.fit_covariate_estimator(estimator, X_std, y, Z, standardized)
            coef = np.asarray(estimator.covariate_coef_, dtype=float)
            return self.wrap(estimator, CovariateFit(float(coef[0]), coef[1:]))
        X_adjusted, adjustment = adjust_rows(X_std, Z)
        residual, covariates = residualize(y, Z)
        estimator.fit(X_adjusted, residual)
        fitted = self.wrap(estimator, covariates)
        fitted.adjustment = adjustment
        return fitted

    def fit_covariate_estimator(self, estimator: Any, X_std: np.ndarray, y: np.ndarray,
                                Z: Optional[np.ndarray], standardized: bool) -> None:
        """``estimator.fit(X_std, y, Z)`` (an estimator taking ``Z`` itself);
        ``standardized``: see :meth:`fit_estimator`."""
        estimator.fit(X_std, y, Z)

    def fit(self, X_std: np.ndarray, y: np.ndarray, Z: Optional[np.ndarray],
            penalty: Optional[float]) -> FittedModel:
        """One fit at ``penalty`` on genes standardized by the engine
        (:func:`~tools.statistics.standardize.standardize_rows`, from
        :meth:`cross_validate` and :meth:`final_fit`)."""
        return self.fit_estimator(self.make_estimator(penalty), X_std, y, Z, standardized=True)

    # ------------------------------------------------------------ SPEC 5.5
    def penalty_grid(self, values: Sequence[float]) -> tuple:
        """The penalties to cross-validate: ``values`` when tuned, else one value.

        A model whose penalty has no effect keeps the first value given (the
        compatibility names return it); a model without penalty gets ``(None,)``.
        """
        if self.tuned:
            return tuple(float(v) for v in values)
        if self.penalty_name is not None and len(values):
            return (None if values[0] is None else float(values[0]),)
        return (None,)

    def cross_validate(self, X: np.ndarray, y: np.ndarray, Z: Optional[np.ndarray],
                       gene_names: Sequence[str], reference: Sequence[str],
                       penalties: Sequence[Optional[float]], folds: List[np.ndarray],
                       executor: Optional[Executor] = None) -> GridCV:
        """Cross-validated metrics at each penalty (raw genes in, folds standardized here)."""
        return cross_validate_fits(self.fit, X, y, Z, gene_names, reference, penalties, folds,
                                   self.config.fdr_threshold, self.fold_dtype, executor)

    def final_fit(self, data: ProblemData, penalty: Optional[float]) -> FittedModel:
        """The fit on all samples, genes standardized with their own statistics."""
        X_std, _, _ = standardize_rows(data.X, np.arange(data.X.shape[0]))
        return self.fit(X_std, data.y, data.Z, penalty)

    def analyse(self, data: ProblemData, folds: List[np.ndarray], workers: int = 1
                ) -> Dict[str, Any]:
        """Cross-validate, choose the penalty, fit on all samples (``workers``: unused here)."""
        penalties = self.penalty_grid(self.config.penalties if self.tuned else ())
        cv = self.cross_validate(data.X, data.y, data.Z, data.gene_names, data.reference,
                                 penalties, folds)
        chosen = cv.choose(self.config.fallback_penalty)
        return self.outcome(data, cv, chosen, self.final_fit(data, penalties[chosen]))

    # ------------------------------------------------------------ result parts
    def describe(self, cv: GridCV, chosen: int, fitted: FittedModel) -> Dict[str, Any]:
        """The model's keys of the result's ``analysis``."""
        described: Dict[str, Any] = {"model": self.label or type(self).__name__,
                                     "penalty": (float(cv.penalties[chosen]) if self.tuned
                                                 else None),
                                     "cv_prediction": self.cv_prediction}
        if self.tuned:
            described["tuning"] = cv.tuning()
        described.update(fitted.details())
        return described

    def outcome(self, data: ProblemData, cv: GridCV, chosen: int, fitted: FittedModel
                ) -> Dict[str, Any]:
        """The parts of the result document (``genes``, ``cv``, ``model``, ``covariates``)."""
        if fitted.covariates is None:
            raise RuntimeError("the final fit has no covariate model")
        return {"genes": fitted.ranked_genes(data.gene_names, self.config.fdr_threshold),
                "cv": cv.metrics(chosen),
                "model": self.describe(cv, chosen, fitted),
                "covariates": covariate_lists(fitted.reported_covariates())}


class EstimatorModel(StatisticalModel):
    """The generic model of any scikit-learn-style constructor not registered.

    The penalty goes to the keyword ``alpha``; the estimator is fitted on the
    response residualized on ``[1, Z]`` (unless it has ``accepts_covariates``),
    predicts with ``predict(X)``; its genes are ranked by ``coef_`` (by
    significance when it has ``p_values_`` and ``corrected_p_values_``).
    """

    penalty_name = DEFAULT_PENALTY_NAME

    def __init__(self, config: AnalysisConfig = AnalysisConfig(),
                 params: Optional[Mapping[str, Any]] = None,
                 constructor: Optional[Callable[..., Any]] = None) -> None:
        super().__init__(config, params)
        if constructor is None:
            raise ValueError("EstimatorModel needs a constructor")
        self._constructor = constructor

    @property
    def constructor(self) -> Callable[..., Any]:
        return self._constructor

    def describe(self, cv: GridCV, chosen: int, fitted: FittedModel) -> Dict[str, Any]:
        described = super().describe(cv, chosen, fitted)
        described["model"] = getattr(self._constructor, "__name__", str(self._constructor))
        return described
