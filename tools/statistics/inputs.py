"""What a statistical model receives: the analysis constants and one problem's matrices.

:class:`AnalysisConfig` holds every constant of the analysis (it enters each
result's fingerprint); :class:`ProblemData` the matrices of one problem, built
by :func:`tools.statistics.engine.problem_data`. Both live below the engine so
that the models of :mod:`tools.statistics.models` can use them without
importing it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Annotated, Any, Dict, List, Optional, Tuple

import numpy as np
from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass as validated_dataclass

from tools.statistics.batch import GAP_NUMERATOR
from tools.statistics.crossval import FALLBACK_PENALTY, N_FOLDS, PENALTY_GRID
from tools.statistics.lmm import FDR_THRESHOLD
from utils.problems import Problem
from utils.runtime import SEED

AUTO = "auto"
Positive = Annotated[float, Field(gt=0)]


@validated_dataclass(frozen=True, config=ConfigDict(extra="forbid", allow_inf_nan=False))
class AnalysisConfig:
    """Every constant of the analysis (part of each result's fingerprint).

    A frozen pydantic dataclass: the fields are checked when the configuration
    is built, and a bad value raises ``pydantic.ValidationError`` naming the
    field (e.g. ``n_folds``: at least 2; ``fdr_threshold`` in ``(0, 1]``).

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

    penalties: Annotated[Tuple[Positive, ...], Field(min_length=1)] = PENALTY_GRID
    n_folds: Annotated[int, Field(ge=2)] = N_FOLDS
    seed: Annotated[int, Field(ge=0)] = SEED
    fdr_threshold: Annotated[float, Field(gt=0, le=1)] = FDR_THRESHOLD
    batch_gap_numerator: Annotated[float, Field(ge=0)] = GAP_NUMERATOR  # 0: always a batch
    fallback_penalty: Positive = FALLBACK_PENALTY
    model: Annotated[str, Field(pattern=r"^[a-z0-9_.-]+$")] = AUTO

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
