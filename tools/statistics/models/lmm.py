"""The linear mixed model path of SPEC 5.4 (``"lmm"``): per-gene tests, FDR selection.

``[1, Z]`` and the top principal components are fixed effects of the tests,
each gene is tested with itself left out of the kinship, ``delta`` is the
REML estimate (:mod:`tools.statistics.lmm`); selected genes are those with
Benjamini-Hochberg corrected p below the FDR level, ranked by corrected p.
Nothing is tuned (the tests have no penalty; upstream's ``lamda`` is accepted
and ignored). The cross-validated prediction metrics are those of a
least-squares refit of each fold's selected genes (not a BLUP over every
gene). The folds run their large products in float32 (their p-values only
decide which genes pass); the reported final fit is float64. With ``workers > 1``
the five fold fits and the final fit run side by side in threads, each with
the same arithmetic. The numerics are in :mod:`tools.statistics.lmm`,
:mod:`tools.statistics.gls` and :mod:`tools.statistics.fdr`.
"""

from __future__ import annotations

from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from tools.statistics.crossval import GridCV
from tools.statistics.inputs import ProblemData
from tools.statistics.lmm import LMM
from tools.statistics.lmm_cv import cross_validate_lmm
from tools.statistics.models.base import EstimatorFit, FittedModel, StatisticalModel
from tools.statistics.ranking import gene_table


class LMMFit(EstimatorFit):
    """A fitted :class:`~tools.statistics.lmm.LMM`: refit predictions, screened FDR selection.

    The selected genes come from the tests of the genes that can pass
    (:meth:`tools.statistics.gls.GeneTests.significant`), bit for bit those of
    the full computation; arrays over every gene are computed on request.
    """

    def ranked_genes(self, gene_names: Sequence[str], threshold: float) -> Dict[str, list]:
        hits = self.estimator.fit_.tests.significant(threshold)
        return gene_table([gene_names[i] for i in hits.indices], hits.coef, hits.p_value,
                          hits.corrected_p_value)

    def details(self) -> Dict[str, Any]:
        fit = self.estimator.fit_
        location = "interior" if fit.delta.at_bound is None else f"{fit.delta.at_bound} bound"
        return {"delta": fit.delta.delta, "delta_location": location, "n_pcs": int(fit.n_pcs)}


class LinearMixedModel(StatisticalModel):
    """Mixed-model gene tests (the default when a batch effect is detected)."""

    name = "lmm"
    label = "LMM"
    compat_constructor = LMM
    penalty_name = "lamda"
    tunes_penalty = False
    fold_dtype = np.float32
    cv_prediction = ("least squares on [1, Z] and the fold's selected genes "
                     "(at most a third of the training samples, by corrected p)")

    def make_estimator(self, penalty: Any) -> Any:
        """An :class:`~tools.statistics.lmm.LMM` at the configured FDR level."""
        estimator = super().make_estimator(penalty)
        if "threshold" not in self.params:
            estimator.threshold = self.config.fdr_threshold
        return estimator

    def wrap(self, estimator: Any, covariates: Any) -> FittedModel:
        return LMMFit(estimator, covariates)

    def fit_covariate_estimator(self, estimator: Any, X_std: np.ndarray, y: np.ndarray,
                                Z: Any, standardized: bool) -> None:
        """The engine's genes are standardized: the tests' screen takes their
        norms as known (:func:`tools.statistics.gls.screen`)."""
        if standardized and isinstance(estimator, LMM):
            estimator._fit(X_std, y, Z, standardized=True)
        else:
            estimator.fit(X_std, y, Z)

    def cross_validate(self, X: np.ndarray, y: np.ndarray, Z: Any, gene_names: Sequence[str],
                       reference: Sequence[str], penalties: Sequence[Any],
                       folds: List[np.ndarray], executor: Optional[Executor] = None) -> GridCV:
        """The generic loop's results (:func:`tools.statistics.lmm_cv.cross_validate_lmm`:
        only the held-out genes the refit predictions read are standardized)."""
        if not issubclass(self.constructor, LMM):
            return super().cross_validate(X, y, Z, gene_names, reference, penalties, folds,
                                          executor)
        return cross_validate_lmm(self.fit, X, y, Z, gene_names, reference, penalties, folds,
                                  self.config.fdr_threshold, self.fold_dtype, executor)

    def analyse(self, data: ProblemData, folds: List[np.ndarray], workers: int = 1
                ) -> Dict[str, Any]:
        """CV of the refit predictions and FDR selection, and the final fit (threads when
        ``workers > 1``)."""
        penalties = self.penalty_grid(())
        arrays = (data.X, data.y, data.Z, data.gene_names, data.reference, penalties, folds)
        if workers > 1:
            # the final fit (the longest task, its tests included) and the folds
            # run side by side
            with ThreadPoolExecutor(workers) as pool:
                final = pool.submit(self._tested_final_fit, data)
                cv = self.cross_validate(*arrays, executor=pool)
                fitted = final.result()
        else:
            cv = self.cross_validate(*arrays)
            fitted = self.final_fit(data, None)
        return self.outcome(data, cv, 0, fitted)

    def _tested_final_fit(self, data: ProblemData) -> FittedModel:
        """The final fit with its selected genes already found (the tests' results
        are cached per FDR level, so the outcome reuses them)."""
        fitted = self.final_fit(data, None)
        fitted.estimator.fit_.tests.significant(self.config.fdr_threshold)
        return fitted

    def describe(self, cv: GridCV, chosen: int, fitted: FittedModel) -> Dict[str, Any]:
        return {**super().describe(cv, chosen, fitted),
                "fdr_threshold": self.config.fdr_threshold}
