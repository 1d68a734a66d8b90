#!/usr/bin/env python
"""Calibration of the two analysis paths (issue 12): false discoveries and power, before/after.

Null designs (no gene acts on the trait) and planted designs (10 genes act on
it) under three structures (none, a batch confounded with the trait, a hidden
factor confounded with the trait; ``--full`` adds three harder ones) and one
design with a covariate (Gender, the condition, with sex-linked genes), with a
binary and a continuous trait. For each path, the method of this checkout
("after") and the method at the branch's start commit ``a3592e7`` ("before",
reimplemented here from the library's unchanged parts; ``--check-before``
runs that commit's own code on the same data and compares) select genes on
the same replicates. Printed per design: P(V >= 1) (the chance of at least
one false gene) with its Monte-Carlo standard error, the mean number of false
genes, power and the FDR. A third table reports where the REML variance ratio
lies (interior or a bound) at full size (n = 167, p = 18,530).

Paths
-----
* **LMM after**: :func:`tools.statistics.lmm.fit_lmm` on the standardized genes
  (top PCs as fixed effects, REML delta, tested gene left out of the kinship),
  genes with BH-corrected p < 0.05.
* **LMM before**: kinship of all genes, ``C = [1]``, REML delta (grid of 100 over
  ``ln delta in [-10, 10]`` and the score's root between the best point's
  neighbours), GLS t tests, BH < 0.05.
* **Lasso after / before**: the engine's Lasso path (5-fold CV over the 7
  penalties, the penalty with the best mean selection precision against the
  known genes, final fit); "before" standardizes with the old zero-variance
  rule and residualizes y alone, "after" residualizes y and the genes on
  ``[1, Z]`` (Z unpenalized). Without a covariate the two coincide (the
  variance floor does not touch these data); neither controls false
  discoveries. The
  known genes (the tuning reference) are the planted genes plus random genes,
  50 in all.

Generative model (:func:`simulate`; one NumPy generator per replicate, seeded
with ``SeedSequence([2024, n, p, design, replicate])``)
-----------------------------------------------------------------------
Genes: co-expression blocks left to right, a singleton with probability 0.3,
else a block of ``round(exp(U(ln 5, ln 100)))`` genes with correlation
``rho ~ U(0.2, 0.6)``: ``x0 = sqrt(rho) f + sqrt(1 - rho) e``. Structures:

* ``none``;
* ``batch``: two batches of n/2 (``b = +-1``); half the genes shifted by
  ``gamma b / 2``, ``gamma ~ N(0, 1.5^2)``; the trait's liability gets ``0.8 b``;
* ``hidden``: a factor ``h ~ N(0, 1)``; half the genes get ``l h``,
  ``l ~ N(0, 0.8^2)``; the liability gets ``0.8 h``;
* ``gender`` (Gender is the condition ``Z``): half the samples male; 20
  sex-linked genes get ``2 (2 g - 1)`` (Gender explains 80 % of their
  variance); the liability gets ``0.8 (2 g - 1)``; 3 of the 10 planted genes
  are sex-linked and act through their *within-sex* variation. Sex-linked
  genes that are not planted are false discoveries (they follow the trait
  only through Gender);
* ``--full`` adds ``both`` (batch and hidden factor), ``batch3`` (three batches
  each shifting its own half of the genes by ``N(0, 0.75^2)``, liability
  ``0.8 sqrt(1.5) (-1, 0, 1)``) and ``unequal`` (a batch with shift SD 2.5 and a
  weaker hidden factor with loading SD 0.4: the second confounder is below the
  largest eigenvalue gap).

Raw genes ``m_j + s_j x0``, ``m_j ~ 7 + N(0, 1)``, ``s_j = exp(N(0, 0.3^2))``.
Liability = structure terms + ``0.45 sum_k sign_k z_k`` over the planted genes
(standardized, from 10 distinct blocks) + ``N(0, 1)``; a continuous trait is
the liability, a binary trait the liability above its median.

Counting: a selected planted gene is *true*; a non-planted gene in a planted
gene's block is *linked* (correlated with a causal gene, so associated with
the trait: neither false nor counted in power); any other is *false*. V =
false genes, FDR = mean of V / max(selected, 1), power = true / 10.

Usage::

    python benchmarks/bench_calibration.py              # default: n = 150, p = 2,000 (~2 min)
    python benchmarks/bench_calibration.py --full       # n = 250, 7 structures, 200 null reps (~13 min)
    python benchmarks/bench_calibration.py --check-before a3592e7 --check-reps 5
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from scipy import optimize, special
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parent.parent
if __name__ == "__main__":
    sys.path.insert(0, str(REPO))

BEFORE_COMMIT = "a3592e7"
STRUCTURES = ("none", "batch", "hidden", "gender")
MORE_STRUCTURES = ("both", "batch3", "unequal")
TRAITS = ("binary", "continuous")
N_PLANTED = 10
N_REFERENCE = 50
FDR_Q = 0.05


# --------------------------------------------------------------------------- data

@dataclass(frozen=True)
class Design:
    """One cell of the benchmark."""

    structure: str
    trait: str
    planted: int

    @property
    def index(self) -> int:
        every = STRUCTURES + MORE_STRUCTURES
        return every.index(self.structure) * 4 + TRAITS.index(self.trait) * 2 + (self.planted > 0)

    def label(self) -> str:
        return f"{self.structure} / {self.trait}"


@dataclass
class Replicate:
    """One simulated data set."""

    X: np.ndarray
    y: np.ndarray
    planted: np.ndarray
    linked: np.ndarray
    reference: np.ndarray
    Z: Optional[np.ndarray] = None


def simulate(design: Design, n: int, p: int, replicate: int) -> Replicate:
    """One data set of a design (see the module docstring)."""
    rng = np.random.default_rng(np.random.SeedSequence([2024, n, p, design.index, replicate]))
    block = np.empty(p, dtype=int)
    start, b = 0, 0
    while start < p:
        size = 1 if rng.random() < 0.3 else int(round(np.exp(rng.uniform(np.log(5),
                                                                            np.log(100)))))
        block[start:start + size] = b
        start += size
        b += 1
    sizes = np.bincount(block)
    rho = np.where(sizes > 1, rng.uniform(0.2, 0.6, size=sizes.size), 0.0)[block]
    X0 = np.sqrt(rho) * rng.normal(size=(n, sizes.size))[:, block] \
        + np.sqrt(1.0 - rho) * rng.normal(size=(n, p))
    liability = rng.normal(size=n)
    s = design.structure
    if s in ("batch", "both", "unequal"):
        batch = np.where(rng.permutation(n) < n // 2, 1.0, -1.0)
        genes = rng.random(p) < 0.5
        shift = 1.5 * (5.0 / 3.0 if s == "unequal" else 1.0)
        X0 += 0.5 * batch[:, None] * (rng.normal(scale=shift, size=p) * genes)[None, :]
        liability += 0.8 * batch
    if s == "batch3":
        group = rng.permutation(n) % 3
        for g in range(3):
            genes = rng.random(p) < 0.5
            X0[group == g] += (rng.normal(scale=0.75, size=p) * genes)[None, :]
        liability += 0.8 * np.sqrt(1.5) * np.array([-1.0, 0.0, 1.0])[group]
    if s in ("hidden", "both", "unequal"):
        hidden = rng.normal(size=n)
        genes = rng.random(p) < 0.5
        load = rng.normal(scale=0.8 * (0.5 if s == "unequal" else 1.0), size=p) * genes
        X0 += hidden[:, None] * load[None, :]
        liability += 0.8 * hidden
    effect_source = X0.copy()          # what a planted gene acts through
    Z = None
    if s == "gender":
        male = (rng.permutation(n) < n // 2).astype(float)
        sex_linked = rng.choice(p, size=20, replace=False)
        X0[:, sex_linked] += 2.0 * (2.0 * male - 1.0)[:, None]
        liability += 0.8 * (2.0 * male - 1.0)
        Z = male[:, None]
    planted = np.zeros(0, dtype=int)
    if design.planted:
        blocks = rng.choice(sizes.size, size=design.planted, replace=False)
        planted = np.array([rng.choice(np.flatnonzero(block == k)) for k in blocks])
        if s == "gender":   # 3 sex-linked genes act through their within-sex variation
            planted[:3] = sex_linked[:3]
        z = effect_source[:, planted]
        liability += 0.45 * ((z - z.mean(0)) / z.std(0)) @ rng.choice([-1.0, 1.0],
                                                                        size=design.planted)
    X = rng.normal(7.0, 1.0, size=p) + np.exp(rng.normal(0.0, 0.3, size=p)) * X0
    y = (liability > np.median(liability)).astype(float) if design.trait == "binary" \
        else liability
    linked = np.setdiff1d(np.flatnonzero(np.isin(block, block[planted])), planted)
    others = rng.choice(np.setdiff1d(np.arange(p), planted), size=N_REFERENCE - planted.size,
                        replace=False)
    return Replicate(X, y, planted, linked, np.concatenate([planted, others]), Z)


# --------------------------------------------------------------------------- paths

def gene_names(p: int) -> List[str]:
    return [f"G{j:05d}" for j in range(p)]


def lmm_after(data: Replicate) -> Tuple[np.ndarray, dict]:
    """This checkout's LMM path: selected genes, delta's location, number of PCs."""
    from tools.statistics.lmm import fit_lmm
    from tools.statistics.standardize import Standardizer

    fit = fit_lmm(Standardizer.fit(data.X).transform(data.X), data.y, data.Z)
    return fit.selected(FDR_Q), {"bound": fit.delta.at_bound, "k": fit.n_pcs}


def _old_standardize(X: np.ndarray) -> np.ndarray:
    """Standardization at the start commit: a constant column is centred, scale 1."""
    mean, std = X.mean(axis=0), X.std(axis=0)
    return (X - mean) / np.where(std > 1e-12 * np.maximum(1.0, np.abs(mean)), std, 1.0)


def _restricted(X_std: np.ndarray, C: np.ndarray):
    """Restricted eigenbasis of the kinship of all genes for fixed effects C."""
    from tools.statistics.reml import split_basis

    K = X_std @ X_std.T / X_std.shape[1]
    QC, B = split_basis(C)
    mu, W = np.linalg.eigh(B.T @ K @ B)
    return np.clip(mu, 0.0, None), B @ W, QC.shape[1]


def before_delta(mu: np.ndarray, yt: np.ndarray) -> Tuple[float, Optional[str]]:
    """The start commit's REML search: the best of 100 grid points on [-10, 10], then
    the score's root between its neighbours (the likelihood and score are the same
    functions as now, in the restricted basis)."""
    from tools.statistics.reml import reml_log_likelihood, reml_score

    grid = np.linspace(-10.0, 10.0, 100)
    best = int(np.argmax(reml_log_likelihood(grid, mu, yt)))
    if 0 < best < 99:
        low, high = grid[best - 1], grid[best + 1]

        def score(value: float) -> float:
            return float(reml_score(np.array([value]), mu, yt)[0])

        if score(low) > 0.0 > score(high):
            return float(np.exp(optimize.brentq(score, low, high, xtol=1e-13,
                                                rtol=4 * np.finfo(float).eps))), None
        return float(np.exp(grid[best])), None
    return float(np.exp(grid[best])), "lower" if best == 0 else "upper"


def lmm_before(data: Replicate) -> Tuple[np.ndarray, dict]:
    """The start commit's LMM path: C = [1, Z], kinship of all genes, REML delta, GLS t."""
    from tools.statistics.fdr import benjamini_hochberg
    from tools.statistics.lmm import design

    X_std = _old_standardize(data.X)
    n = data.y.size
    mu, E, rank = _restricted(X_std, design(data.Z, n))
    yt = E.T @ data.y
    delta, bound = before_delta(mu, yt)
    w = 1.0 / (mu + delta)
    Xt = E.T @ X_std
    sxx, sxy, syy = w @ (Xt * Xt), (w * yt) @ Xt, float(w @ (yt * yt))
    df = n - rank - 1
    valid = (Xt * Xt).sum(axis=0) > 1e-10 * np.maximum((X_std * X_std).sum(axis=0), 1e-300)
    rho2 = np.clip(sxy ** 2 / np.where(valid, sxx, 1.0) / syy, 0.0, 1.0 - 1e-16)
    p_value = np.where(valid, 2.0 * special.stdtr(df, -np.sqrt(df * rho2 / (1.0 - rho2))), 1.0)
    return np.flatnonzero(benjamini_hochberg(p_value) < FDR_Q), {"bound": bound, "k": 0}


def lasso_after(data: Replicate) -> np.ndarray:
    """This checkout's Lasso path (SPEC 5.5 tuning, final fit): selected gene indices."""
    from tools.statistics.crossval import make_folds
    from tools.statistics.inputs import ProblemData
    from tools.statistics.models.lasso import LassoModel
    from utils.columns import is_binary
    from utils.problems import Problem

    names = gene_names(data.X.shape[1])
    problem = ProblemData(Problem("Sim"), data.X, data.y, data.Z, names,
                          [] if data.Z is None else ["Gender"],
                          [names[j] for j in data.reference], ("S",))
    outcome = LassoModel().analyse(problem, make_folds(data.y, is_binary(data.y)))
    return np.array([int(v[1:]) for v in outcome["genes"]["Variable"]], dtype=int)


def lasso_before(data: Replicate) -> np.ndarray:
    """The start commit's Lasso path: old standardization, y residualized alone (the
    certified path, penalty choice and metrics are unchanged library parts)."""
    from tools.statistics.crossval import (PENALTY_GRID, choose_penalty, make_folds,
                                           selection_metrics, train_indices)
    from tools.statistics.lasso import lasso_grid_path
    from tools.statistics.residualize import residualize
    from utils.columns import is_binary

    X, y, Z = data.X, data.y, data.Z
    names = np.asarray(gene_names(X.shape[1]), dtype=object)
    reference = [names[j] for j in data.reference]
    precision = np.zeros(len(PENALTY_GRID))
    hits = [False] * len(PENALTY_GRID)
    folds = make_folds(y, is_binary(y))
    candidates, support = None, np.zeros(0, dtype=int)
    for test in folds:
        train = train_indices(y.size, test)
        XT = np.ascontiguousarray(_old_standardize(X[train]).T)
        residual, _ = residualize(y[train], None if Z is None else Z[train])
        path = lasso_grid_path(XT, residual, PENALTY_GRID, candidates=candidates)
        candidates = np.flatnonzero(np.any(path.coefs != 0, axis=0))
        support = np.union1d(support, candidates)
        for i in range(len(PENALTY_GRID)):
            chosen = names[path.coefs[i] != 0]
            precision[i] += selection_metrics(chosen, reference)["precision"] / len(folds)
            hits[i] = hits[i] or bool(set(reference).intersection(chosen))
    chosen = choose_penalty(PENALTY_GRID, list(precision), hits)
    XT = np.ascontiguousarray(_old_standardize(X).T)
    path = lasso_grid_path(XT, residualize(y, Z)[0], [PENALTY_GRID[chosen]], candidates=support)
    return np.flatnonzero(path.coefs[0])


# --------------------------------------------------------------------------- scoring

def score(selected: np.ndarray, data: Replicate) -> Dict[str, float]:
    """False, true and linked genes of one selection."""
    selected = np.asarray(selected, dtype=int)
    true = int(np.isin(selected, data.planted).sum())
    linked = int(np.isin(selected, data.linked).sum())
    false = int(selected.size - true - linked)
    return {"V": false, "S": true, "R": int(selected.size),
            "fdp": false / max(selected.size, 1)}


def summarize(rows: Sequence[Dict[str, float]], planted: int) -> Dict[str, float]:
    """P(V >= 1) and its standard error, mean V, power and FDR of a design."""
    V = np.array([r["V"] for r in rows])
    p_any = float(np.mean(V >= 1))
    return {"reps": len(rows), "p_any": p_any,
            "se": float(np.sqrt(max(p_any, 0.05) * (1 - max(p_any, 0.05)) / len(rows))),
            "mean_V": float(V.mean()),
            "power": float(np.mean([r["S"] for r in rows]) / planted) if planted else np.nan,
            "fdr": float(np.mean([r["fdp"] for r in rows]))}


PathFunction = Callable[[Replicate], np.ndarray]


def run_path(designs: Sequence[Design], reps: Dict[int, int], n: int, p: int,
             before: PathFunction, after: PathFunction) -> Dict[Design, Dict[str, dict]]:
    """Both versions of one path on every design's replicates."""
    out: Dict[Design, Dict[str, dict]] = {}
    for design in designs:
        rows: Dict[str, List[Dict[str, float]]] = {"before": [], "after": []}
        extra: Dict[str, List[dict]] = {"before": [], "after": []}
        for replicate in range(reps[design.planted > 0]):
            data = simulate(design, n, p, replicate)
            for name, function in (("before", before), ("after", after)):
                selected = function(data)
                if isinstance(selected, tuple):
                    selected, details = selected
                    extra[name].append(details)
                rows[name].append(score(selected, data))
        out[design] = {}
        for name in ("before", "after"):
            summary = summarize(rows[name], design.planted)
            if extra[name]:
                summary["interior"] = float(np.mean([e["bound"] is None for e in extra[name]]))
                summary["k"] = float(np.mean([e["k"] for e in extra[name]]))
            out[design][name] = summary
    return out


def print_table(title: str, results: Dict[Design, Dict[str, dict]], lmm: bool) -> None:
    print(f"\n### {title}\n")
    extra = " | delta interior before / after | PCs after" if lmm else ""
    print("| design | reps | P(V>=1) before | P(V>=1) after | mean false before / after "
          f"| power before / after | FDR before / after{extra} |")
    print("|---|---:|---:|---:|---:|---:|---:" + ("|---:|---:|" if lmm else "|"))
    for design in sorted(results, key=lambda d: (d.planted, d.index)):
        b, a = results[design]["before"], results[design]["after"]
        kind = "planted" if design.planted else "null"
        power = (f"{b['power']:.3f} / {a['power']:.3f}" if design.planted else "-")
        row = (f"| {kind} {design.label()} | {a['reps']} | {b['p_any']:.3f} ± {b['se']:.3f} "
               f"| {a['p_any']:.3f} ± {a['se']:.3f} | {b['mean_V']:.2f} / {a['mean_V']:.2f} "
               f"| {power} | {b['fdr']:.3f} / {a['fdr']:.3f}")
        if lmm:
            row += f" | {b['interior']:.2f} / {a['interior']:.2f} | {a['k']:.1f}"
        print(row + " |")
    sys.stdout.flush()


# --------------------------------------------------------------------------- delta at full size

def ml_delta_bound(X_std: np.ndarray, y: np.ndarray) -> Optional[str]:
    """Where the ML estimate of issue 12 (profile likelihood, C = [1], 100 grid points on
    ln delta in [-5, 5], bounded Brent between the best point's neighbours) lies."""
    n = y.size
    values, vectors = np.linalg.eigh(X_std @ X_std.T / X_std.shape[1])
    values = np.clip(values, 0.0, None)
    Cr, yr = vectors.T @ np.ones(n), vectors.T @ y

    def log_likelihood(log_delta: float) -> float:
        w = 1.0 / (values + np.exp(log_delta))
        beta = (w * Cr) @ yr / ((w * Cr) @ Cr)
        rss = max(float(w @ (yr - beta * Cr) ** 2), 1e-300)
        return -0.5 * (np.sum(np.log(values + np.exp(log_delta))) + n * np.log(rss / n))

    grid = np.linspace(-5.0, 5.0, 100)
    best = int(np.argmax([log_likelihood(v) for v in grid]))
    found = optimize.minimize_scalar(lambda v: -log_likelihood(v), method="bounded",
                                     bounds=(grid[max(best - 1, 0)], grid[min(best + 1, 99)]),
                                     options={"xatol": 1e-6}).x
    if found <= -5.0 + 1e-5:
        return "lower"
    return "upper" if found >= 5.0 - 1e-5 else None


def delta_study(reps: int, n: int = 167, p: int = 18_530) -> None:
    """Where the variance ratio lies on full-size data: ML (issue 12), before, after."""
    from tools.statistics.lmm import fit_lmm
    from tools.statistics.standardize import Standardizer

    counts = {name: {"interior": 0, "lower": 0, "upper": 0} for name in ("ml", "before",
                                                                          "after")}
    total = 0
    for structure in ("none", "batch", "hidden"):
        for planted in (0, N_PLANTED):
            for replicate in range(reps):
                data = simulate(Design(structure, "continuous", planted), n, p, replicate)
                X_std = Standardizer.fit(data.X).transform(data.X)
                counts["ml"][ml_delta_bound(X_std, data.y) or "interior"] += 1
                mu, E, _ = _restricted(X_std, np.ones((n, 1)))
                _, bound = before_delta(mu, E.T @ data.y)
                counts["before"][bound or "interior"] += 1
                fit = fit_lmm(X_std, data.y)
                counts["after"][fit.delta.at_bound or "interior"] += 1
                total += 1
    print(f"\n### Where delta lies, n = {n}, p = {p:,} ({total} fits: 3 structures x "
          f"null/planted x {reps} replicates, continuous trait)\n")
    print("| method | interior | lower bound | upper bound |")
    print("|---|---:|---:|---:|")
    for name, label in (("ml", "ML, C = [1] (the method issue 12 describes)"),
                        ("before", f"before ({BEFORE_COMMIT}): REML, C = [1]"),
                        ("after", "after: REML, C = [1, PCs]")):
        c = counts[name]
        print(f"| {label} | {c['interior']}/{total} | {c['lower']}/{total} | "
              f"{c['upper']}/{total} |")


# --------------------------------------------------------------------------- --check-before

CHECK_SCRIPT = """
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from tools.statistics.lmm import fit_lmm, selected_genes
from tools.statistics.standardize import Standardizer
from tools.statistics.crossval import make_folds
from tools.statistics.inputs import ProblemData
from tools.statistics.models.lasso import LassoModel
from utils.columns import is_binary
from utils.problems import Problem
out = []
for path in sys.argv[2:]:
    d = np.load(path)
    X, y, ref = d["X"], d["y"], d["reference"]
    Z = d["Z"] if d["Z"].size else None
    fit = fit_lmm(Standardizer.fit(X).transform(X), y, Z)
    names = [f"G{j:05d}" for j in range(X.shape[1])]
    data = ProblemData(Problem("Sim"), X, y, Z, names, [] if Z is None else ["Gender"],
                       [names[j] for j in ref], ("S",))
    genes = LassoModel().analyse(data, make_folds(y, is_binary(y)))["genes"]["Variable"]
    out.append({"lmm": sorted(int(i) for i in selected_genes(fit.tests)), "delta": fit.delta,
                "lasso": sorted(int(v[1:]) for v in genes)})
print(json.dumps(out))
"""


def design_matrix(Z: Optional[np.ndarray], n: int) -> np.ndarray:
    """``[1, Z]``."""
    from tools.statistics.lmm import design

    return design(Z, n)


def check_before(revision: str, designs: Sequence[Design], reps: int, n: int, p: int) -> None:
    """Run the start commit's own code on the first replicates and compare with "before"."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, "tools", "utils"],
                             capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        files, expected = [], []
        for design in designs:
            for replicate in range(reps):
                data = simulate(design, n, p, replicate)
                path = os.path.join(folder, f"{design.index}_{replicate}.npz")
                np.savez(path, X=data.X, y=data.y, reference=data.reference,
                         Z=np.zeros(0) if data.Z is None else data.Z)
                files.append(path)
                mu, E, _ = _restricted(_old_standardize(data.X), design_matrix(data.Z, n))
                expected.append({"lmm": sorted(lmm_before(data)[0].tolist()),
                                 "delta": before_delta(mu, E.T @ data.y)[0],
                                 "lasso": sorted(lasso_before(data).tolist())})
        done = subprocess.run([sys.executable, "-c", CHECK_SCRIPT, folder, *files],
                              capture_output=True, text=True, check=True,
                              env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    theirs = json.loads(done.stdout)
    same_lmm = sum(a["lmm"] == b["lmm"] for a, b in zip(expected, theirs))
    same_lasso = sum(a["lasso"] == b["lasso"] for a, b in zip(expected, theirs))
    worst = max(abs(np.log(a["delta"] / b["delta"])) for a, b in zip(expected, theirs))
    print(f"\n--check-before {revision}: {len(files)} replicates; identical LMM gene sets "
          f"{same_lmm}/{len(files)}, identical Lasso gene sets {same_lasso}/{len(files)}, "
          f"largest |ln delta difference| {worst:.1e}")


# --------------------------------------------------------------------------- main

def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=150, help="samples (default 150)")
    parser.add_argument("--p", type=int, default=2000, help="genes (default 2,000)")
    parser.add_argument("--null-reps", type=int, default=100,
                        help="LMM replicates per null design (default 100)")
    parser.add_argument("--planted-reps", type=int, default=40,
                        help="LMM replicates per planted design (default 40)")
    parser.add_argument("--lasso-reps", type=int, default=20,
                        help="Lasso replicates per design (default 20)")
    parser.add_argument("--delta-reps", type=int, default=2,
                        help="full-size replicates per design of the delta study (0: skip)")
    parser.add_argument("--full", action="store_true",
                        help="n = 250, six structures, 200 null / 100 planted LMM replicates")
    parser.add_argument("--check-before", metavar="REVISION", default=None,
                        help=f"compare 'before' with that commit's code (e.g. {BEFORE_COMMIT})")
    parser.add_argument("--check-reps", type=int, default=3)
    args = parser.parse_args(argv)
    structures = STRUCTURES + (MORE_STRUCTURES if args.full else ())
    if args.full:
        args.n, args.null_reps, args.planted_reps = 250, 200, 100
    designs = [Design(s, t, k) for s in structures for t in TRAITS for k in (0, N_PLANTED)]
    print(f"bench_calibration: n = {args.n}, p = {args.p}, load average at start "
          f"{os.getloadavg()[0]:.2f}, {os.cpu_count()} cores; before = {BEFORE_COMMIT}")
    started = time.perf_counter()
    with threadpool_limits(1):
        if args.check_before:
            check_before(args.check_before, designs, args.check_reps, args.n, args.p)
        if args.null_reps and args.planted_reps:
            lmm = run_path(designs, {False: args.null_reps, True: args.planted_reps}, args.n,
                           args.p, lmm_before, lmm_after)
            print_table(f"LMM path (n = {args.n}, p = {args.p:,})", lmm, lmm=True)
        if args.lasso_reps:
            lasso = run_path(designs, {False: args.lasso_reps, True: args.lasso_reps},
                             args.n, args.p, lasso_before, lasso_after)
            print_table(f"Lasso path (n = {args.n}, p = {args.p:,})", lasso, lmm=False)
        if args.delta_reps:
            delta_study(args.delta_reps)
    print(f"\n{time.perf_counter() - started:.0f} s; load average at end "
          f"{os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
