"""The Lasso path of SPEC 5.4 (``"lasso"``): certified solutions, tuned penalty.

The genes are standardized; with covariates, the genes and the response are
residualized on ``[1, Z]`` and the residual genes re-standardized (``Z``
unpenalized, :mod:`tools.statistics.adjust`); selected genes are the non-zero
coefficients. The penalty is tuned on the trait's known genes (SPEC 5.5), so
the path has no error control: it selects, it does not test. The whole
penalty grid is cross-validated at once, one certified path per fold
(:func:`tools.statistics.crossval.cross_validate_lasso_grid`); the final fit
reuses the folds' support as its initial working set (speed only: a certified
solution is the exact one). The numerics are in :mod:`tools.statistics.lasso`.
"""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from tools.statistics.crossval import GridCV, cross_validate_lasso_grid
from tools.statistics.design import StandardizedDesign, problem_designs
from tools.statistics.inputs import ProblemData
from tools.statistics.lasso import Lasso, lasso_grid_path
from tools.statistics.models.base import LinearFit, StatisticalModel
from tools.statistics.residualize import residualize


class LassoModel(StatisticalModel):
    """Lasso with its penalty tuned by SPEC 5.5 (the default without batch effect)."""

    name = "lasso"
    label = "Lasso"
    compat_constructor = Lasso
    penalty_name = "alpha"
    cv_prediction = "the Lasso at each penalty, fitted on the training folds"

    def cross_validate(self, X: np.ndarray, y: np.ndarray, Z: Optional[np.ndarray],
                       gene_names: Sequence[str], reference: Sequence[str],
                       penalties: Sequence[Optional[float]], folds: List[np.ndarray],
                       executor: Optional[Executor] = None, XT: Optional[np.ndarray] = None,
                       designs: Optional[Sequence[StandardizedDesign]] = None) -> GridCV:
        """The whole grid per fold in one certified path (the folds' paths side by
        side, their checks' products shared). ``XT``, ``designs``: see
        :func:`~tools.statistics.crossval.cross_validate_lasso_grid`."""
        return cross_validate_lasso_grid(X, y, Z, gene_names, reference, penalties, folds,
                                         XT=XT, designs=designs)

    def analyse(self, data: ProblemData, folds: List[np.ndarray], workers: int = 1
                ) -> Dict[str, Any]:
        """Grid CV and the final fit, their designs from one pass over one transposed
        copy of the genes (:func:`~tools.statistics.design.problem_designs`)."""
        XT = np.array(np.asarray(data.X, dtype=float).T, order="C")
        design, fold_designs = problem_designs(XT, data.Z, folds)
        penalties = self.penalty_grid(self.config.penalties)
        cv = self.cross_validate(data.X, data.y, data.Z, data.gene_names, data.reference,
                                 penalties, folds, XT=XT, designs=fold_designs)
        chosen = cv.choose(self.config.fallback_penalty)
        residual, covariates = residualize(data.y, data.Z)
        path = lasso_grid_path(design, residual, [penalties[chosen]],
                               candidates=cv.support_down_to(chosen))
        return self.outcome(data, cv, chosen, LinearFit(path.coefs[0], covariates,
                                                        adjustment=design.adjustment))
