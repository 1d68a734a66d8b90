"""Simulated designs of the calibration of the analysis method (n = 120, p = 400).

Shared by ``tests/tools/statistics/test_method_calibration.py`` (bounds on the
method's false discoveries and power) and ``benchmarks/bench_method_calibration.py``
(the same figures on more replicates). Each replicate is built from its own seeded
generator, and the engine's own fits analyse it: :func:`lmm_fit` (the LMM path's
final fit), :func:`engine_selected` (``regress.py``'s analysis of a problem).

Generative model (:func:`simulate`): genes ``N(0, 1)``; a structure adds a
confounder ``u`` to the trait's liability (``0.8 u``) and to a set of genes:

* ``batch``: ``u = +-1`` (two batches of n / 2), genes 0-199 shifted by
  ``g u / 2``, ``g ~ N(0, 1.5^2)``;
* ``hidden``: ``u ~ N(0, 1)``, genes 0-199 get ``l u``, ``l ~ N(0, 0.8^2)``;
* ``condition``: ``u = 2 s - 1``, ``s`` a 0/1 covariate (Gender-like, given to
  the method as ``Z``), genes 200-204 get ``2 u``: too few to make a principal
  component, so only ``Z`` can remove them.

Planted genes (the last 10) add ``0.45 z_k`` (standardized, random signs) to
the liability, plus ``N(0, 1)`` noise. Raw genes are ``m + s x`` with
``m ~ 7 + N(0, 1)``, ``s = exp(N(0, 0.3^2))`` (the engine standardizes).

Two-step problems (:func:`simulate_two_step`): see its docstring.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np
from scipy import stats

from tools.statistics.engine import analyze
from tools.statistics.fdr import benjamini_hochberg
from tools.statistics.inputs import AnalysisConfig, ProblemData
from tools.statistics.lmm import FDR_THRESHOLD, LMMFit
from tools.statistics.models import get_model
from tools.statistics.two_step import (fit_condition_model, predict_condition,
                                       without_regressors)
from utils.problems import Problem

N, P = 120, 400
Q = FDR_THRESHOLD             # the FDR level (AnalysisConfig.fdr_threshold)
N_PLANTED = 10
N_REFERENCE = 20              # known genes for the Lasso's tuning: the planted + random
STRUCTURED = np.arange(P // 2)                 # genes a batch / hidden factor moves
CONDITION_GENES = np.arange(P // 2, P // 2 + 5)  # genes the condition moves
PLANTED = np.arange(P - N_PLANTED, P)
NULL_DESIGNS = {"none": (), "batch": ("batch",), "hidden": ("hidden",),
                "condition": ("condition",), "batch+condition": ("batch", "condition")}


# --------------------------------------------------------------------------- one-step

@dataclass(frozen=True)
class Replicate:
    """One simulated data set: raw genes, trait, covariate and the truth."""

    X: np.ndarray
    y: np.ndarray
    Z: Optional[np.ndarray]
    confounders: np.ndarray      # (n, k) the true confounders (for the oracle)
    planted: np.ndarray
    confounded: np.ndarray       # genes associated with the trait only through a confounder
    reference: np.ndarray        # the "known genes" of the Lasso's tuning


def simulate(seed: int, structure: Sequence[str] = (), n_planted: int = 0,
             n: int = N, p: int = P) -> Replicate:
    """One replicate of a design (module docstring)."""
    rng = np.random.default_rng(np.random.SeedSequence([32, seed, n_planted]
                                                       + [len(s) for s in structure]))
    X = rng.normal(size=(n, p))
    liability = rng.normal(size=n)
    confounders, confounded, Z = [], [np.zeros(0, dtype=int)], None
    if "batch" in structure:
        u = np.where(rng.permutation(n) < n // 2, 1.0, -1.0)
        X[:, STRUCTURED] += 0.5 * u[:, None] * rng.normal(scale=1.5, size=STRUCTURED.size)
        confounders.append(u)
        confounded.append(STRUCTURED)
    if "hidden" in structure:
        u = rng.normal(size=n)
        X[:, STRUCTURED] += u[:, None] * rng.normal(scale=0.8, size=STRUCTURED.size)
        confounders.append(u)
        confounded.append(STRUCTURED)
    if "condition" in structure:
        s = (rng.permutation(n) < n // 2).astype(float)
        u = 2.0 * s - 1.0
        X[:, CONDITION_GENES] += 2.0 * u[:, None]
        confounders.append(u)
        confounded.append(CONDITION_GENES)
        Z = s[:, None]
    for u in confounders:
        liability += 0.8 * u
    planted = PLANTED[PLANTED.size - n_planted:] if n_planted else np.zeros(0, dtype=int)
    if n_planted:
        z = X[:, planted]
        liability += 0.45 * ((z - z.mean(0)) / z.std(0)) @ rng.choice([-1.0, 1.0], n_planted)
    raw = rng.normal(7.0, 1.0, size=p) + np.exp(rng.normal(0.0, 0.3, size=p)) * X
    others = rng.choice(np.setdiff1d(np.arange(p), planted), N_REFERENCE - planted.size,
                        replace=False)
    return Replicate(raw, liability, Z,
                     np.column_stack(confounders) if confounders else np.zeros((n, 0)),
                     planted, np.unique(np.concatenate(confounded)),
                     np.concatenate([planted, others]))


def names(p: int) -> List[str]:
    return [f"G{j}" for j in range(p)]


def problem_of(rep: Replicate) -> ProblemData:
    """A one-step problem (``Z``, if any, is the Gender-like condition)."""
    condition = "Gender" if rep.Z is not None else None
    genes = names(rep.X.shape[1])
    return ProblemData(Problem("Trait", condition), rep.X, rep.y, rep.Z, genes,
                       [condition] if condition else [], [genes[j] for j in rep.reference],
                       ("GSE1",))


def lmm_fit(rep: Replicate) -> LMMFit:
    """The LMM path's final fit, as the engine makes it (all samples, standardized genes)."""
    return get_model("lmm").final_fit(problem_of(rep), None).estimator.fit_


def lmm_selected(rep: Replicate) -> np.ndarray:
    return lmm_fit(rep).selected(Q)


def oracle_selected(rep: Replicate) -> np.ndarray:
    """Least-squares t tests of ``y`` on ``[1, u, x_j]`` with the *true* confounders
    ``u``, Benjamini-Hochberg at ``q``: the power the LMM could have if it knew them."""
    n = rep.y.size
    C = np.column_stack([np.ones(n), rep.confounders])
    Qc, _ = np.linalg.qr(C)
    ry = rep.y - Qc @ (Qc.T @ rep.y)
    RX = rep.X - Qc @ (Qc.T @ rep.X)
    r = (RX.T @ ry) / (np.linalg.norm(RX, axis=0) * np.linalg.norm(ry))
    df = n - C.shape[1] - 1
    t = r * np.sqrt(df / (1.0 - r ** 2))
    corrected = benjamini_hochberg(2.0 * stats.t.sf(np.abs(t), df))
    return np.flatnonzero(corrected < Q)


# --------------------------------------------------------------------------- two-step

N_CONDITION_COHORT = 100
N_REGRESSORS = 10


@dataclass(frozen=True)
class TwoStepReplicate:
    data: ProblemData            # the trait cohort's problem, as the engine builds it
    planted: np.ndarray
    condition_genes: np.ndarray
    condition_correlation: float  # corr(predicted condition, true condition)


def simulate_two_step(seed: int, marker: float = 1.5, n_planted: int = N_PLANTED
                      ) -> TwoStepReplicate:
    """A trait cohort and a condition cohort sharing 10 regressor genes.

    A binary condition ``c`` (half the samples of each cohort) shifts every
    regressor by ``marker (2c - 1)`` (in both cohorts) and genes 200-204 of the
    trait cohort by ``2 (2c - 1)``; the trait's liability gets ``0.8 (2c - 1)``
    plus the planted genes (as :func:`simulate`). ``c`` is not observed in the
    trait cohort: step 1 (:func:`fit_condition_model`) learns it from the
    condition cohort's regressors, step 2 predicts it and removes the
    regressors (:func:`tools.statistics.engine.problem_data`'s sequence).
    """
    rng = np.random.default_rng(np.random.SeedSequence([3232, seed, n_planted]))

    def regressors(m: int) -> Tuple[np.ndarray, np.ndarray]:
        c = (rng.permutation(m) < m // 2).astype(float)
        return c, rng.normal(size=(m, N_REGRESSORS)) + marker * (2.0 * c - 1.0)[:, None]

    c_condition, R_condition = regressors(N_CONDITION_COHORT)
    c, R = regressors(N)
    X = rng.normal(size=(N, P))
    X[:, CONDITION_GENES] += 2.0 * (2.0 * c - 1.0)[:, None]
    liability = 0.8 * (2.0 * c - 1.0) + rng.normal(size=N)
    planted = PLANTED[PLANTED.size - n_planted:] if n_planted else np.zeros(0, dtype=int)
    if n_planted:
        z = X[:, planted]
        liability += 0.45 * ((z - z.mean(0)) / z.std(0)) @ rng.choice([-1.0, 1.0], n_planted)
    reference = np.concatenate([planted, rng.choice(np.setdiff1d(np.arange(P), planted),
                                                    N_REFERENCE - planted.size, replace=False)])
    model = fit_condition_model(R_condition, c_condition)
    Z = predict_condition(model, R)[:, None]
    regressor_names = [f"R{k}" for k in range(N_REGRESSORS)]
    genes, kept = without_regressors(names(P) + regressor_names, regressor_names)
    data = ProblemData(Problem("Trait", "Condition"), np.hstack([X, R])[:, kept], liability,
                       Z, genes, ["Condition"], [f"G{j}" for j in reference],
                       ("GSE1", "GSE2"), regressor_names, model.describe())
    return TwoStepReplicate(data, planted, CONDITION_GENES,
                            float(np.corrcoef(Z[:, 0], c)[0, 1]))


def engine_selected(data: ProblemData, model: str) -> np.ndarray:
    """Column indices of the genes ``regress.py``'s analysis reports."""
    document = analyze(data, AnalysisConfig(model=model))
    index = {name: j for j, name in enumerate(data.gene_names)}
    return np.array([index[g] for g in document["significant_genes"]["Variable"]], dtype=int)
