"""What a statistical model receives: the analysis constants and one problem's matrices.

:class:`AnalysisConfig` holds every constant of the analysis (it enters each
result's fingerprint); :class:`ProblemData` the matrices of one problem, built
by :func:`tools.statistics.engine.problem_data`. Both live below the engine so
that the models of :mod:`tools.statistics.models` can use them without
importing it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from tools.statistics.batch import GAP_NUMERATOR
from tools.statistics.crossval import FALLBACK_PENALTY, N_FOLDS, PENALTY_GRID
from tools.statistics.lmm import FDR_THRESHOLD
from utils.problems import Problem
from utils.runtime import SEED

AUTO = "auto"


@dataclass(frozen=True)
class AnalysisConfig:
    """Every constant of the analysis (part of each result's fingerprint).

    Attributes
    ----------
    penalties : tuple of float
        The penalty grid of SPEC 5.5.
    n_folds, seed : int
        Cross-validation folds and the seed of their shuffle.
    fdr_threshold : float
        Level of the Benjamini-Hochberg selection (models with p-values).
    batch_gap_numerator : float
        SPEC 5.3's threshold is ``batch_gap_numerator / n_samples``.
    fallback_penalty : float
        The penalty chosen when no penalty ever selects a known gene.
    model : str
        A registered model name (:mod:`tools.statistics.models`), or ``"auto"``:
        SPEC 5.3's rule (batch effect -> ``lmm``, else ``lasso``).
    """

    penalties: Tuple[float, ...] = PENALTY_GRID
    n_folds: int = N_FOLDS
    seed: int = SEED
    fdr_threshold: float = FDR_THRESHOLD
    batch_gap_numerator: float = GAP_NUMERATOR
    fallback_penalty: float = FALLBACK_PENALTY
    model: str = AUTO

    def as_dict(self) -> Dict[str, Any]:
        """JSON-ready parameters.

        ``model`` is left out when it is ``"auto"``, so results of the default
        rule keep the fingerprints they had before models could be chosen.
        """
        values = asdict(self)
        values["penalties"] = list(self.penalties)
        if self.model == AUTO:
            del values["model"]
        return values


@dataclass
class ProblemData:
    """The matrices of one problem.

    Attributes
    ----------
    X : (n, p) raw genes; y : (n,) trait; Z : (n, k) covariates or None.
    gene_names, covariate_names : column names.
    reference : the trait's known genes present in ``gene_names`` (task order).
    cohorts, regressors : from the selection.
    condition_model : step-1 summary of a two-step problem.
    """

    problem: Problem
    X: np.ndarray
    y: np.ndarray
    Z: Optional[np.ndarray]
    gene_names: List[str]
    covariate_names: List[str]
    reference: List[str]
    cohorts: Tuple[str, ...]
    regressors: List[str] = field(default_factory=list)
    condition_model: Optional[Dict[str, Any]] = None
