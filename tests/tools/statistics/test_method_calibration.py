"""Calibration of the analysis method by simulation (docs/statistics.md).

An independent check of the *method*, not of its arithmetic: data simulated
(:mod:`genotex.testing.method_designs`; fixed seeds, n = 120 samples, p = 400 genes) go through the engine's own
fits, and the tests assert what docs/statistics.md claims, within bounds
derived from the Monte-Carlo error written next to each assertion:

* the LMM path keeps false discoveries at the FDR level when no gene acts on
  the trait, with or without a covariate, a batch or a hidden factor that
  drives both the trait and half of the genes (its principal components and
  kinship, and ``Z`` as a fixed effect);
* with planted genes its realised false-discovery proportion averages at most
  ``q``, and its power is close to that of an oracle that knows the confounders;
* the covariate of a two-step problem (the predicted condition) is removed
  from the genes and the trait (Frisch-Waugh-Lovell, both paths): genes that
  follow the trait only through the condition are reported at the rate of
  any unrelated gene, while planted genes are recovered.

Each property is also checked against a deliberately broken method (the PCs
dropped, the kinship ignored, the covariate skipped), so the bounds are tight
enough to notice: ``test_*_detects_*`` run the same statistic on the broken
method and assert that it leaves the bound.

The Lasso path has no error control (docs/statistics.md, "Honest reporting":
on null data it lists about a fifth of the genes here, ~75-90 of 400), so only
*which* genes it lists is tested: not the condition's.

`benchmarks/bench_method_calibration.py` prints the same figures on more replicates.
"""

from __future__ import annotations

from typing import Sequence, Tuple

import numpy as np
import pytest
from scipy import stats
from threadpoolctl import threadpool_limits

import tools.statistics.lmm as lmm_module
import tools.statistics.models.lasso as lasso_model_module
from genotex.testing.method_designs import (CONDITION_GENES, N_PLANTED, NULL_DESIGNS, Q,
                                            engine_selected, lmm_fit, lmm_selected,
                                            oracle_selected, simulate, simulate_two_step)
from tools.statistics.design import problem_designs
from tools.statistics.reml import LOG_DELTA_BOUNDS, DeltaFit
from tools.statistics.residualize import residualize


@pytest.fixture(autouse=True)
def single_threaded_blas():
    """Small products in many replicates: one BLAS thread each, as every problem of
    ``regress.py`` runs (threads only add overhead here, and last-bit differences)."""
    with threadpool_limits(1):
        yield


# Null replicates per design. Under the complete null Benjamini-Hochberg keeps
# P(V >= 1) <= q (it is then the family-wise error rate); the count of
# replicates with a false gene is Binomial(300, 0.05) (mean 15, SD 3.8) and
# P(count >= 29) = 6.1e-4 (scipy.stats.binom.sf(28, 300, 0.05)), so at most
# 28 (9.3 %). A method at 15 % (what dropping the PCs gives) would pass with
# probability binom.cdf(28, 300, 0.15) = 2.5e-3.
NULL_REPLICATES = 300
NULL_MAX_WITH_FALSE = 28


# --------------------------------------------------------------------------- LMM, null

def count_null_replicates_with_false_genes(structure: Sequence[str]) -> Tuple[int, np.ndarray]:
    """Null replicates (no planted gene) whose LMM selection is not empty, and the
    p-value of the first confounded gene (or gene 0) in every replicate."""
    with_false, tracked = 0, []
    for seed in range(NULL_REPLICATES):
        rep = simulate(seed, structure)
        fit = lmm_fit(rep)
        with_false += fit.selected(Q).size > 0
        gene = rep.confounded[0] if rep.confounded.size else 0
        tracked.append(fit.tests.p_value[gene])
    return with_false, np.array(tracked)


def without_principal_components(monkeypatch) -> None:
    monkeypatch.setattr(lmm_module, "n_pcs", lambda *args, **kwargs: 0)


def without_kinship(monkeypatch) -> None:
    """No PCs and no kinship variance: least squares on ``[1, Z]`` alone."""
    without_principal_components(monkeypatch)
    monkeypatch.setattr(lmm_module, "fit_delta", lambda *args, **kwargs: DeltaFit(
        float(np.exp(LOG_DELTA_BOUNDS[1])), "upper"))


def without_covariates_in_the_lmm(monkeypatch) -> None:
    """The tests' fixed effects without ``Z`` (the refit predictions keep it)."""
    fit_lmm = lmm_module.fit_lmm
    monkeypatch.setattr(lmm_module, "fit_lmm", lambda X, y, Z=None, standardized=False:
                        fit_lmm(X, y, None, standardized))


@pytest.mark.parametrize("design", list(NULL_DESIGNS))
def test_lmm_null_selects_a_gene_in_at_most_q_of_replicates(design):
    with_false, tracked = count_null_replicates_with_false_genes(NULL_DESIGNS[design])
    # measured 18, 19, 18, 17, 11 of 300 (none, batch, hidden, condition, both)
    assert with_false <= NULL_MAX_WITH_FALSE, with_false
    # The p-value of one gene (a confounded one when there are) is uniform across
    # replicates (independent draws): Kolmogorov-Smirnov at level 1e-3. Ignoring the
    # kinship moves the batch gene's p-values to ~0 in most replicates (KS p ~ 1e-60).
    assert stats.kstest(tracked, "uniform").pvalue > 1e-3


def test_null_calibration_detects_dropped_principal_components(monkeypatch):
    # docs/statistics.md, LMM item 2: the kinship only down-weights a batch
    # direction; without the PCs as fixed effects the batch genes leak.
    without_principal_components(monkeypatch)
    with_false, _ = count_null_replicates_with_false_genes(NULL_DESIGNS["batch"])
    assert with_false > NULL_MAX_WITH_FALSE                   # measured 58 of 300


def test_null_calibration_detects_an_ignored_kinship(monkeypatch):
    without_kinship(monkeypatch)
    with_false, tracked = count_null_replicates_with_false_genes(NULL_DESIGNS["hidden"])
    assert with_false > NULL_MAX_WITH_FALSE                   # measured 300 of 300
    assert stats.kstest(tracked, "uniform").pvalue < 1e-3


def test_null_calibration_detects_a_skipped_covariate(monkeypatch):
    without_covariates_in_the_lmm(monkeypatch)
    with_false, tracked = count_null_replicates_with_false_genes(NULL_DESIGNS["condition"])
    assert with_false > NULL_MAX_WITH_FALSE                   # measured 136 of 300
    assert stats.kstest(tracked, "uniform").pvalue < 1e-3


# --------------------------------------------------------------------------- LMM, planted

# Planted designs: 300 replicates; the false-discovery proportion lies in [0, 1],
# so at a mean of q its SD is at most sqrt(q (1 - q)) = 0.218 and the Monte-Carlo
# SE of the mean at most 0.0126: FDR <= q + 3.1 SE = 0.089 (one-sided 1e-3).
PLANTED_REPLICATES = 300
PLANTED_MAX_FDR = 0.089
# The 5 condition genes are null genes; ~0.26 false genes per replicate among 390
# null genes (measured) makes ~1.0 expected selections of them in 300 replicates:
# Poisson(1) gives P(>= 6) = 5.9e-4, so at most 5 (skipping Z: 25 measured).
PLANTED_MAX_CONDITION_GENES = 5


def planted_lmm_figures(structure: Sequence[str]) -> Tuple[float, float, float, int]:
    """LMM FDR and power, the oracle's power, and selections of condition genes."""
    fdp, power, oracle, condition = [], [], [], 0
    for seed in range(PLANTED_REPLICATES):
        rep = simulate(seed, structure, N_PLANTED)
        selected = lmm_selected(rep)
        fdp.append(np.setdiff1d(selected, rep.planted).size / max(selected.size, 1))
        power.append(np.isin(rep.planted, selected).mean())
        oracle.append(np.isin(rep.planted, oracle_selected(rep)).mean())
        condition += int(np.isin(selected, CONDITION_GENES).sum())
    return float(np.mean(fdp)), float(np.mean(power)), float(np.mean(oracle)), condition


@pytest.mark.parametrize("structure", [("batch", "condition"), ("hidden", "condition")])
def test_lmm_fdr_and_power_with_planted_genes(structure):
    fdr, power, oracle, condition = planted_lmm_figures(structure)
    assert fdr <= PLANTED_MAX_FDR, fdr                       # measured 0.056 / 0.058
    assert condition <= PLANTED_MAX_CONDITION_GENES, condition   # measured 1 / 2
    # Power: the oracle tests each gene by least squares with the true confounders
    # (measured 0.24 / 0.23); the LMM measured 0.30 / 0.29 (its kinship absorbs the
    # other planted genes' effects). Each figure averages 3,000 Bernoulli outcomes
    # (SE <= 0.009, more with the correlation within replicates), so 0.9 x oracle
    # leaves room for Monte-Carlo error, not for a method that lost its power.
    assert power >= 0.9 * oracle, (power, oracle)


def test_planted_fdr_detects_an_ignored_kinship(monkeypatch):
    without_kinship(monkeypatch)
    fdr, _, _, _ = planted_lmm_figures(("batch", "condition"))
    assert fdr > PLANTED_MAX_FDR                              # measured 0.91


def test_planted_condition_genes_detect_a_skipped_covariate(monkeypatch):
    without_covariates_in_the_lmm(monkeypatch)
    _, _, _, condition = planted_lmm_figures(("batch", "condition"))
    assert condition > PLANTED_MAX_CONDITION_GENES          # measured 25


# --------------------------------------------------------------------------- two-step

LASSO_TWO_STEP_REPLICATES = 40
LMM_TWO_STEP_REPLICATES = 100


def lasso_two_step_figures() -> Tuple[int, float, float]:
    """Condition genes the Lasso lists, their number at chance, planted recall."""
    listed, chance, recall = 0, 0.0, []
    for seed in range(LASSO_TWO_STEP_REPLICATES):
        rep = simulate_two_step(seed)
        assert rep.condition_correlation > 0.95    # step 1 predicts the condition well
        selected = engine_selected(rep.data, "lasso")
        listed += int(np.isin(selected, rep.condition_genes).sum())
        chance += selected.size * rep.condition_genes.size / rep.data.X.shape[1]
        recall.append(np.isin(rep.planted, selected).mean())
    return listed, chance, float(np.mean(recall))


def lasso_chance_bound(chance: float) -> float:
    # Genes drawn at random: each replicate's count of the 5 condition genes among
    # its k listed genes is hypergeometric (mean 5k/400, variance below the mean),
    # so the total has mean `chance` and SD <= sqrt(chance); 3.1 SD above it is the
    # one-sided 1e-3 bound (normal approximation, ~27 expected here).
    return chance + 3.1 * np.sqrt(chance)


def test_two_step_lasso_lists_condition_genes_at_chance_and_finds_planted_genes():
    listed, chance, recall = lasso_two_step_figures()
    # measured: 25 listed for 27.3 expected at chance (the Lasso lists ~55 of
    # 400 genes; it has no error control), 124 with the residualization skipped
    assert listed <= lasso_chance_bound(chance), (listed, chance)
    assert recall >= 0.9, recall     # measured 0.98 (400 planted gene-replicates)


def test_two_step_lasso_detects_a_skipped_residualization(monkeypatch):
    # The final fit's genes and response are no longer residualized on the
    # predicted condition (the penalty is still tuned with it).
    monkeypatch.setattr(lasso_model_module, "residualize", lambda y, Z: residualize(y, None))
    monkeypatch.setattr(lasso_model_module, "problem_designs",
                        lambda XT, Z, folds: problem_designs(XT, None, folds))
    listed, chance, _ = lasso_two_step_figures()
    assert listed > lasso_chance_bound(chance), (listed, chance)


def lmm_two_step_condition_genes() -> Tuple[int, float]:
    """Selections of condition genes by the LMM path, and its mean power."""
    listed, power = 0, []
    for seed in range(LMM_TWO_STEP_REPLICATES):
        rep = simulate_two_step(seed)
        selected = engine_selected(rep.data, "lmm")
        listed += int(np.isin(selected, rep.condition_genes).sum())
        power.append(np.isin(rep.planted, selected).mean())
    return listed, float(np.mean(power))


# As PLANTED_MAX_CONDITION_GENES: ~0.33 selections expected in 100 replicates;
# Poisson(0.33) gives P(>= 4) = 3.2e-4, so at most 3.
LMM_TWO_STEP_MAX_CONDITION_GENES = 3


def test_two_step_lmm_removes_condition_genes():
    listed, power = lmm_two_step_condition_genes()
    assert listed <= LMM_TWO_STEP_MAX_CONDITION_GENES, listed    # measured 1
    assert power >= 0.15, power       # measured 0.25 (1,000 planted gene-replicates)


def test_two_step_lmm_detects_a_skipped_covariate(monkeypatch):
    without_covariates_in_the_lmm(monkeypatch)
    listed, _ = lmm_two_step_condition_genes()
    assert listed > LMM_TWO_STEP_MAX_CONDITION_GENES               # measured 21
