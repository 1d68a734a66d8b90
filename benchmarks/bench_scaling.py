#!/usr/bin/env python
"""How the time of one problem grows with the samples ``n`` and the genes ``p``.

Generated problems as in ``bench_regress.py`` (a binary trait over genes with
20 shared factors, 10 planted genes): the complete analysis of one problem on
the Lasso path and on the LMM path (the model forced, one thread, BLAS
single-threaded), best of ``--repeats`` runs, for

* ``n`` = 100, 200, 400, 700, 1,000 samples at ``p`` = 18,530 genes, and
* ``p`` = 5,000, 10,000, 20,000, 40,000 genes at ``n`` = 167 samples.

For each series it prints the times and the fitted exponent ``b`` of
``time ~ a size^b`` (least squares on the logarithms, over the whole range and
over its upper half, where fixed costs weigh least).

Usage::

    python benchmarks/bench_scaling.py              # both series
    python benchmarks/bench_scaling.py --repeats 1  # quicker
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Dict, List, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parent
sys.path.insert(0, str(REPO.parent))
sys.path.insert(0, str(REPO))

from bench_regress import N_GENES, N_SAMPLES, full_size_problem, machine_state, time_analysis  # noqa: E402
from tools.statistics.engine import AnalysisConfig  # noqa: E402

SAMPLE_SIZES = (100, 200, 400, 700, 1000)
GENE_COUNTS = (5_000, 10_000, 20_000, 40_000)
MODELS = {"Lasso": AnalysisConfig(model="lasso"), "LMM": AnalysisConfig(model="lmm")}


def exponent(sizes: Sequence[int], seconds: Sequence[float]) -> float:
    """Slope of ``log(seconds)`` against ``log(size)`` (least squares).

    Examples
    --------
    >>> round(exponent([1, 2, 4], [3.0, 12.0, 48.0]), 6)
    2.0
    """
    slope, _ = np.polyfit(np.log(np.asarray(sizes, float)), np.log(np.asarray(seconds)), 1)
    return float(slope)


def series(label: str, sizes: Sequence[int], make, repeats: int) -> None:
    """Time both paths over ``sizes`` (``make(size)`` builds the problem) and print."""
    times: Dict[str, List[float]] = {model: [] for model in MODELS}
    for size in sizes:
        data = make(size)
        line = []
        for model, config in MODELS.items():
            seconds, _, _ = time_analysis(data, config, repeats)
            times[model].append(seconds)
            line.append(f"{model} {seconds:.3f} s")
        print(f"{label} = {size}: " + ", ".join(line), flush=True)
    half = len(sizes) // 2
    for model, seconds in times.items():
        print(f"  {model}: time ~ {label}^{exponent(sizes, seconds):.2f} over "
              f"{sizes[0]}-{sizes[-1]}; ^{exponent(sizes[half:], seconds[half:]):.2f} over "
              f"{sizes[half]}-{sizes[-1]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=2, help="runs per size (best kept)")
    parser.add_argument("--only", choices=("n", "p"), help="run one series only")
    args = parser.parse_args()
    print(f"before: {machine_state()}", flush=True)
    with threadpool_limits(1):
        if args.only in (None, "n"):
            series("n", SAMPLE_SIZES, lambda n: full_size_problem(0, n=n, p=N_GENES),
                   args.repeats)
        if args.only in (None, "p"):
            series("p", GENE_COUNTS, lambda p: full_size_problem(0, n=N_SAMPLES, p=p),
                   args.repeats)
    print(f"after: {machine_state()}")


if __name__ == "__main__":
    main()
