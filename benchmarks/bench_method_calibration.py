#!/usr/bin/env python
"""Calibration figures of the analysis method on the simulations of the calibration tests.

Prints, with replicate counts and Monte-Carlo standard errors, what
``tests/tools/statistics/test_method_calibration.py`` asserts within bounds,
on replicates *other* than the tests' (seeds from 10,000 on), at n = 120
samples and p = 400 genes (the designs of :mod:`genotex.testing.method_designs`):

1. LMM path, null designs (no gene acts on the trait; none, batch, hidden
   factor, a Gender-like covariate, batch and covariate): P(V >= 1), the share
   of replicates with a false gene, which Benjamini-Hochberg keeps at q = 0.05
   under the complete null; and the per-gene tail rates ``P(p < a) / a``
   pooled over genes and replicates, split by where the REML variance ratio
   lies (interior or a bound of its range);
2. LMM path, 10 planted genes: realised FDR (mean false-discovery proportion),
   power, and the power of an oracle that knows the confounders;
3. Lasso path (the engine's tuning, docs/statistics.md "Cross-validation and
   tuning"), null designs: genes listed
   (it has no error control, docs/statistics.md "Honest reporting") and,
   with the covariate, the condition's genes listed against the chance rate;
4. two-step problems whose step 1 predicts the condition more or less well
   (regressor shift 0.5, 0.75, 1.5): P(V >= 1) and condition genes listed by
   the LMM, the Lasso's condition genes against chance.

Usage::

    python benchmarks/bench_method_calibration.py               # ~2-3 min on one core
    python benchmarks/bench_method_calibration.py --replicates 300
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Dict, List, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from genotex.testing import method_designs as sim  # noqa: E402

SEED0 = 10_000
TAILS = np.array([0.05, 0.01, 1e-3, 1e-4])


def binomial_se(share: float, count: int) -> float:
    return float(np.sqrt(share * (1.0 - share) / max(count, 1)))


def lmm_null(replicates: int) -> None:
    print(f"\n1. LMM, null designs ({replicates} replicates each; q = {sim.Q})")
    print(f"{'design':18s} {'P(V>=1)':>8s} {'SE':>6s}   tail rate / nominal at "
          f"{', '.join(f'{a:g}' for a in TAILS)} (interior | bound fits)")
    for name, structure in sim.NULL_DESIGNS.items():
        hits, tails = 0, {"interior": np.zeros(TAILS.size), "bound": np.zeros(TAILS.size)}
        genes = {"interior": 0, "bound": 0}
        for seed in range(SEED0, SEED0 + replicates):
            fit = sim.lmm_fit(sim.simulate(seed, structure))
            hits += fit.selected(sim.Q).size > 0
            where = "interior" if fit.delta.at_bound is None else "bound"
            p_values = fit.tests.p_value
            tails[where] += (p_values[:, None] < TAILS).sum(axis=0)
            genes[where] += p_values.size
        share = hits / replicates
        ratios = " | ".join(
            f"{np.array2string(tails[k] / max(genes[k], 1) / TAILS, precision=2)} "
            f"({genes[k] // sim.P})" for k in tails)
        print(f"{name:18s} {share:8.3f} {binomial_se(share, replicates):6.3f}   {ratios}")


def lmm_planted(replicates: int) -> None:
    print(f"\n2. LMM, {sim.N_PLANTED} planted genes ({replicates} replicates each)")
    print(f"{'design':18s} {'FDR':>6s} {'SE':>6s} {'power':>6s} {'oracle':>6s}")
    for structure in [(), ("batch", "condition"), ("hidden", "condition")]:
        fdp, power, oracle = [], [], []
        for seed in range(SEED0, SEED0 + replicates):
            rep = sim.simulate(seed, structure, sim.N_PLANTED)
            selected = sim.lmm_selected(rep)
            fdp.append(np.setdiff1d(selected, rep.planted).size / max(selected.size, 1))
            power.append(np.isin(rep.planted, selected).mean())
            oracle.append(np.isin(rep.planted, sim.oracle_selected(rep)).mean())
        se = float(np.std(fdp) / np.sqrt(replicates))
        print(f"{'+'.join(structure) or 'none':18s} {np.mean(fdp):6.3f} {se:6.3f} "
              f"{np.mean(power):6.3f} {np.mean(oracle):6.3f}")


def lasso_null(replicates: int) -> None:
    print(f"\n3. Lasso (the engine's tuning), null designs ({replicates} replicates each)")
    for structure in [(), ("condition",)]:
        listed: List[int] = []
        condition, chance = 0, 0.0
        for seed in range(SEED0, SEED0 + replicates):
            rep = sim.simulate(seed, structure)
            selected = sim.engine_selected(sim.problem_of(rep), "lasso")
            listed.append(selected.size)
            condition += int(np.isin(selected, sim.CONDITION_GENES).sum())
            chance += selected.size * sim.CONDITION_GENES.size / sim.P
        line = (f"{'+'.join(structure) or 'none':18s} genes listed: mean {np.mean(listed):.1f} "
                f"of {sim.P} (min {min(listed)}, max {max(listed)})")
        if structure:
            line += f"; condition genes listed {condition} (chance {chance:.1f})"
        print(line)


def two_step(replicates: int, lasso_replicates: int, markers: Sequence[float]) -> None:
    print(f"\n4. Two-step, no planted gene: LMM {replicates}, Lasso {lasso_replicates} "
          "replicates per regressor shift")
    print(f"{'shift':>5s} {'corr':>6s} {'LMM P(V>=1)':>12s} {'SE':>6s} "
          f"{'cond. listed':>12s} {'Lasso cond./chance':>19s}")
    for marker in markers:
        hits, condition, corr = 0, 0, []
        lasso: Dict[str, float] = {"listed": 0.0, "chance": 0.0}
        for k, seed in enumerate(range(SEED0, SEED0 + replicates)):
            rep = sim.simulate_two_step(seed, marker=marker, n_planted=0)
            corr.append(rep.condition_correlation)
            selected = sim.get_model("lmm").final_fit(rep.data, None).estimator.fit_.selected(
                sim.Q)
            hits += selected.size > 0
            condition += bool(np.isin(selected, rep.condition_genes).any())
            if k < lasso_replicates:
                chosen = sim.engine_selected(rep.data, "lasso")
                lasso["listed"] += np.isin(chosen, rep.condition_genes).sum()
                lasso["chance"] += chosen.size * rep.condition_genes.size / rep.data.X.shape[1]
        share = hits / replicates
        print(f"{marker:5.2f} {np.mean(corr):6.3f} {share:12.3f} "
              f"{binomial_se(share, replicates):6.3f} {condition / replicates:12.3f} "
              f"{lasso['listed']:9.0f} / {lasso['chance']:6.1f}")


def main(argv: Sequence[str] = ()) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=1000,
                        help="replicates per LMM design (default 1000)")
    parser.add_argument("--two-step-replicates", type=int, default=600,
                        help="replicates per regressor shift of the two-step designs (LMM)")
    parser.add_argument("--lasso-replicates", type=int, default=60,
                        help="replicates per Lasso design (each runs the 5-fold tuning)")
    args = parser.parse_args(list(argv))
    start = time.perf_counter()
    with threadpool_limits(1):
        lmm_null(args.replicates)
        lmm_planted(args.replicates)
        lasso_null(args.lasso_replicates)
        two_step(args.two_step_replicates, args.lasso_replicates, (0.5, 0.75, 1.5))
    print(f"\n{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
