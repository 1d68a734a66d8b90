#!/usr/bin/env python
"""Benchmark of the statistical analysis engine (issues 3, 16 and 27, "Performance").

1. Full-size problems (n = 167 samples, p = 18,530 genes, generated): the
   complete analysis of a problem (batch detection, 5 folds x 7 penalties,
   tuning, final fit) on the Lasso path and on the LMM path, single-threaded
   BLAS, best of ``--repeats`` per problem, median over problems. Each path
   is timed with one thread and with the threads ``regress.py -j 1`` gives a
   problem on this machine (:func:`genotex.regress.runner.threads_per_problem`: the
   LMM's fold fits and final fit run side by side; the Lasso path stays
   sequential). Every time is also given in **gemv units**: the time divided
   by that of one single-threaded float64 matrix-vector product ``v @ X`` with
   the problem's own ``167 x 18,530`` gene matrix, measured in the same
   process just before each run of the problem (median of 50), so the unit
   follows the machine's state (other jobs, clock, cache) and the figure is
   comparable between machines.

   With ``--before REF`` the same problems are also run by the code of the git
   revision ``REF`` (``git archive`` into a temporary folder), side by side:
   one worker process per code version, the problems handed to them
   alternately (before, after, before, ...), each worker measuring its own
   gemv unit; the result documents of both are compared byte for byte.
2. The naive baseline on the same data: scikit-learn ``Lasso`` fitted cold for
   every penalty and fold plus the final fit (upstream's way), its time, the
   speed-up and the Jaccard agreement of the genes selected at the chosen
   penalty.
3. The real problem set (``../shared/data/opentargets/genomas_task_info.json``:
   132 traits, 1,384 problems) over a generated preprocess tree of full-size
   cohorts (``--genes``, default 18,530; 60-400 samples, log-uniform; two
   batches and 240-400 samples for every 10th trait, so the LMM path runs),
   run by :func:`genotex.regress.runner.run_problems`; prints total time,
   problems/s, the peak memory of each worker and the machine state. With
   ``--workdir`` the tree is kept and reused, and ``--regress-name`` lets two
   versions of the code write side by side for
   ``benchmarks/compare_regress.py``.

Targets (issue 16): Lasso <= 0.25 s and LMM <= 0.15 s per problem on one
core, >= 50x the naive loop, the whole set in <= 5 minutes with ``-j 2``.
Targets (issue 27, machine-independent): Lasso <= 200 gemv and LMM <= 100
gemv per problem, with identical result documents.

Usage::

    python benchmarks/bench_regress.py                 # everything
    python benchmarks/bench_regress.py --skip-full-set # parts 1-2 only
    python benchmarks/bench_regress.py --skip-full-set --no-naive --before main
    python benchmarks/bench_regress.py --full-set-only --jobs 2
    python benchmarks/bench_regress.py --full-set-only --every-trait 4 --workdir W \
        --regress-name regress_after     # a quarter of the traits, for compare_regress.py
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd
import psutil
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso as SkLasso
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parent.parent
# the code under test: this checkout, or (a worker of ``--before``) another tree
CODE_ENV = "GENOTEX_BENCH_CODE"
sys.path.insert(0, os.environ.get(CODE_ENV, str(REPO)))

from genotex.regress.runner import RunSettings, run_problems, threads_per_problem  # noqa: E402
from tools.statistics.crossval import PENALTY_GRID, make_folds, train_indices  # noqa: E402
from tools.statistics.engine import AnalysisConfig, ProblemData, analyze  # noqa: E402
from tools.statistics.residualize import residualize  # noqa: E402
from tools.statistics.standardize import Standardizer  # noqa: E402
from utils.problems import Problem, enumerate_problems, load_task_info  # noqa: E402
from utils.runtime import SEED  # noqa: E402

N_SAMPLES, N_GENES = 167, 18_530
MIN_SAMPLES, MAX_SAMPLES = 60, 400
TASK_INFO = REPO.parent / "shared" / "data" / "opentargets" / "genomas_task_info.json"


def full_size_problem(seed: int, n: int = N_SAMPLES, p: int = N_GENES) -> ProblemData:
    """A binary trait over correlated genes (20 shared factors), 10 planted genes."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 20)) @ (0.5 * rng.normal(size=(20, p)))
    X += rng.normal(size=(n, p)) + 7.0
    names = [f"GENE{j:05d}" for j in range(p)]
    X_std = (X - X.mean(0)) / X.std(0)
    score = X_std[:, :10] @ np.full(10, 0.6) + rng.normal(size=n)
    y = (score > np.median(score)).astype(float)
    reference = names[:10] + names[5000:5040]
    return ProblemData(Problem("Bench_Trait"), X, y, None, names, [], reference, ("GSE0",))


def gemv_seconds(matrix: np.ndarray, runs: int = 50) -> float:
    """Median time of one single-threaded float64 ``v @ matrix`` (the gemv unit)."""
    vector = np.random.default_rng(0).normal(size=matrix.shape[0])
    times = []
    with threadpool_limits(1):
        for _ in range(runs):
            start = time.perf_counter()
            vector @ matrix
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def machine_state() -> str:
    """Load average and the median time of a 167 x 18,530 float64 gemv (one thread)."""
    matrix = np.random.default_rng(0).normal(size=(N_SAMPLES, N_GENES))
    return (f"load average {os.getloadavg()[0]:.2f}, "
            f"gemv {N_SAMPLES}x{N_GENES} {1e3 * gemv_seconds(matrix, 200):.2f} ms")


def document_digest(document: dict) -> str:
    """SHA-256 of a result document's JSON (the bytes ``regress.py`` would write)."""
    return hashlib.sha256(json.dumps(document, indent=4).encode("utf-8")).hexdigest()


def time_analysis(data: ProblemData, config: AnalysisConfig, repeats: int, workers: int = 1
                  ) -> Dict[str, Any]:
    """Best wall and CPU time of ``analyze`` over ``repeats`` runs, each preceded by a
    gemv of the problem's matrix (the unit: median over the runs)."""
    best, best_cpu, units, document = np.inf, np.inf, [], {}
    matrix = np.ascontiguousarray(data.X, dtype=float)
    for _ in range(repeats):
        units.append(gemv_seconds(matrix))
        start, start_cpu = time.perf_counter(), time.process_time()
        document = analyze(data, config, workers=workers)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    gemv = statistics.median(units)
    return {"seconds": best, "cpu": best_cpu, "gemv": gemv, "units": best / gemv,
            "cpu_units": best_cpu / gemv,
            "genes": len(document["significant_genes"]["Variable"]),
            "digest": document_digest(document), "document": document}


MODELS = {"Lasso": {}, "LMM": {"batch_gap_numerator": 0.0}}   # any spectrum gap -> LMM path


def run_request(request: Dict[str, Any], problems: Dict[int, ProblemData]) -> Dict[str, Any]:
    """Time one (problem, model, threads) of part 1 in this process."""
    seed = int(request["seed"])
    if seed not in problems:
        problems[seed] = full_size_problem(seed)
    config = AnalysisConfig(**MODELS[request["model"]])
    with threadpool_limits(1):
        return time_analysis(problems[seed], config, int(request["repeats"]),
                             int(request["threads"]))


def serve_requests() -> None:
    """``--timing-worker``: answer timing requests (JSON lines on stdin) of the parent.

    The code timed is that of the folder named by ``GENOTEX_BENCH_CODE``
    (this checkout by default); the replies leave the document out (its
    digest stays).
    """
    problems: Dict[int, ProblemData] = {}
    for line in sys.stdin:
        reply = run_request(json.loads(line), problems)
        reply.pop("document")
        print(json.dumps(reply), flush=True)


class TimingWorker:
    """A worker process timing problems with the code of ``root``."""

    def __init__(self, root: Path) -> None:
        env = dict(os.environ, **{CODE_ENV: str(root)})
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--timing-worker"], env=env,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, request: Dict[str, Any]) -> Dict[str, Any]:
        """Send one request and wait for its reply."""
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"timing worker exited with {self.process.wait()}")
        return json.loads(line)

    def close(self) -> None:
        """End the worker (its stdin closes)."""
        self.process.stdin.close()
        self.process.wait()


def export_revision(ref: str, folder: Path) -> Path:
    """The files of git revision ``ref`` of this checkout, written under ``folder``."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref], check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder


def describe(result: Dict[str, Any], threads: int) -> str:
    """``0.204 s (290 gemv; CPU 280)``: wall time, and with one thread the CPU time too
    (which other jobs' time slices leave out), in gemv units."""
    cpu = f"; CPU {result['cpu_units']:.0f}" if threads == 1 else ""
    return f"{result['seconds']:.3f} s ({result['units']:.0f} gemv{cpu})"


def part_full_size(n_problems: int, repeats: int, naive: bool, before: Optional[str] = None
                   ) -> None:
    """Parts 1 and 2 (side by side with revision ``before`` when given)."""
    workers = threads_per_problem(1)
    targets = {"Lasso": (0.25, 200), "LMM": (0.15, 100)}  # issues 16 (s) and 27 (gemv)
    runs = [(model, threads) for model in MODELS for threads in sorted({1, workers})]
    results: Dict[Tuple[str, str, int], List[Dict[str, Any]]] = {}
    first: Dict[str, Any] = {}
    print(f"before: {machine_state()}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        versions: Dict[str, Optional[TimingWorker]] = {"after": None}
        if before:
            old = export_revision(before, Path(folder))
            versions = {"before": TimingWorker(old), "after": TimingWorker(REPO)}
        problems: Dict[int, ProblemData] = {}
        for seed in range(n_problems):
            line = []
            for model, threads in runs:
                request = {"seed": seed, "model": model, "threads": threads, "repeats": repeats}
                parts, digests = [], set()
                for version, worker in versions.items():
                    result = worker.run(request) if worker else run_request(request, problems)
                    results.setdefault((version, model, threads), []).append(result)
                    digests.add(result["digest"])
                    parts.append((f"{version} " if before else "") + describe(result, threads))
                    if model == "Lasso" and threads == 1 and seed == 0 and not worker:
                        first = {"data": problems[seed], "result": result}
                same = "" if not before else (", same document" if len(digests) == 1
                                              else ", DOCUMENTS DIFFER")
                line.append(f"{model} {threads}t " + " / ".join(parts) + same)
            genes = results[("after", "LMM", 1)][-1]["genes"]
            print(f"problem {seed}: " + "; ".join(line)
                  + f" ({results[('after', 'Lasso', 1)][-1]['genes']} / {genes} genes)",
                  flush=True)
        for worker in versions.values():
            if worker:
                worker.close()
    for (version, model, threads), values in results.items():
        seconds = statistics.median(r["seconds"] for r in values)
        units = statistics.median(r["units"] for r in values)
        gemv = statistics.median(r["gemv"] for r in values)
        limit, limit_units = targets[model]
        label = "1 thread" if threads == 1 else f"{threads} threads (regress.py -j 1 here)"
        verdict = (f"{'meets' if seconds <= limit else 'MISSES'} <= {limit} s, "
                   f"{'meets' if units <= limit_units else 'MISSES'} <= {limit_units} gemv")
        cpu = ""
        if threads == 1:
            cpu = (f"; CPU {statistics.median(r['cpu'] for r in values):.3f} s = "
                   f"{statistics.median(r['cpu_units'] for r in values):.0f} gemv")
        print(f"median per {model} problem, {label}" + (f", {version}" if before else "")
              + f": {seconds:.3f} s = {units:.0f} gemv{cpu} (gemv {1e3 * gemv:.3f} ms) "
              f"-> {verdict}")
    print(f"after: {machine_state()} (2 cores; other jobs slow every figure)")
    if naive:
        if not first:
            first = {"data": full_size_problem(0)}
            with threadpool_limits(1):
                first["result"] = time_analysis(first["data"], AnalysisConfig(), 1)
        data, document = first["data"], first["result"]["document"]
        penalty = document["analysis"]["penalty"]
        seconds, naive_genes = naive_baseline(data, penalty)
        ours = set(document["significant_genes"]["Variable"])
        union = ours | naive_genes
        jaccard = len(ours & naive_genes) / len(union) if union else 1.0
        print(f"naive baseline (cold scikit-learn Lasso, 7 penalties x 5 folds + final): "
              f"{seconds:.1f} s; speed-up {seconds / first['result']['seconds']:.0f}x "
              f"(target >= 50x)")
        print(f"selected genes at the chosen penalty {penalty}: ours {len(ours)}, "
              f"naive {len(naive_genes)}, Jaccard {jaccard:.3f}")


def naive_baseline(data: ProblemData, penalty: float) -> Tuple[float, set]:
    """Cold scikit-learn Lasso for every penalty and fold, then the final fit."""
    folds = make_folds(data.y, True)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for test in folds:
            train = train_indices(data.y.size, test)
            X_train = Standardizer.fit(data.X[train]).transform(data.X[train])
            residual, _ = residualize(data.y[train])
            for alpha in PENALTY_GRID:
                SkLasso(alpha=alpha, random_state=SEED).fit(X_train, residual)
        X_std = Standardizer.fit(data.X).transform(data.X)
        final = SkLasso(alpha=penalty, random_state=SEED).fit(X_std, residual_of(data.y))
    seconds = time.perf_counter() - start
    return seconds, {data.gene_names[j] for j in np.flatnonzero(final.coef_)}


def residual_of(y: np.ndarray) -> np.ndarray:
    """``y`` minus its mean."""
    return y - y.mean()


# --------------------------------------------------------------------------- part 3

def write_cohort(folder: Path, cohort: str, trait: str, genes: List[str], n: int,
                 rng: np.random.Generator, binary: bool, planted: List[str],
                 batches: bool) -> Dict[str, object]:
    """One linked table and its cohort_info record."""
    X = rng.normal(size=(n, len(genes))) + 8.0
    if batches:
        X[: n // 2] += 2.0
    frame = pd.DataFrame(X, columns=genes, index=[f"{cohort}_S{i}" for i in range(n)])
    score = rng.normal(size=n)
    for gene in planted:
        column = frame[gene].to_numpy()
        score += 0.7 * (column - column.mean()) / column.std()
    y = (score > np.median(score)).astype(float) if binary else score
    head = pd.DataFrame({trait: y, "Age": rng.uniform(20, 80, n).round(1),
                         "Gender": rng.integers(0, 2, n).astype(float)}, index=frame.index)
    pd.concat([head, frame.round(4)], axis=1).to_csv(folder / f"{cohort}.csv")
    return {"is_usable": True, "is_gene_available": True, "is_trait_available": True,
            "is_available": True, "is_biased": False, "has_age": True, "has_gender": True,
            "sample_size": n, "note": "benchmark"}


def cohort_size(rng: np.random.Generator, batches: bool) -> int:
    """Samples of a generated cohort: log-uniform over 60-400 (median 155), like GEO's
    skewed cohort sizes; cohorts with two batches (the LMM path) 240-400."""
    if batches:
        return int(rng.integers(240, 401))
    return int(round(np.exp(rng.uniform(np.log(MIN_SAMPLES), np.log(MAX_SAMPLES)))))


def _write_trait(task: Tuple[Path, int, str, List[str], List[str], int, int]) -> None:
    """The cohorts of one trait (its own random stream, so workers need no order)."""
    preprocess, i, trait, related, universe, n_genes, seed = task
    rng = np.random.default_rng([seed, i])
    folder = preprocess / trait
    folder.mkdir(parents=True, exist_ok=True)
    records = {}
    for c in range(2 if i % 7 == 0 else 1):
        picked = set(related[:50]) | set(rng.choice(universe, n_genes, replace=False))
        genes = sorted(picked)
        planted = [g for g in related[:5] if g in picked]
        large = i % 10 == 3 and c == 0
        cohort = f"GSE{9000 + 10 * i + c}"
        records[cohort] = write_cohort(folder, cohort, trait, genes, cohort_size(rng, large),
                                       rng, i % 5 != 4, planted, large)
    (folder / "cohort_info.json").write_text(json.dumps(records, indent=4))


def generate_tree(root: Path, task_info: dict, n_genes: int, seed: int = 0,
                  jobs: int = 1) -> Path:
    """One cohort per trait (a second for every 7th trait), shared gene universe,
    written by ``jobs`` processes."""
    known = sorted({g for entry in task_info.values() for g in entry["related_genes"]})
    universe = known + [f"FILL{i:05d}" for i in range(max(0, n_genes - len(known)) + 2000)]
    preprocess = root / "preprocess"
    tasks = [(preprocess, i, trait, list(task_info[trait]["related_genes"])[:200], universe,
              n_genes, seed) for i, trait in enumerate(sorted(task_info))]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(_write_trait, tasks))
    return preprocess


class WorkerMemory:
    """Peak resident memory of each child process, sampled in a thread."""

    interval = 0.2

    def __init__(self) -> None:
        self.peaks: Dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.wait(self.interval):
            for child in me.children(recursive=True):
                try:
                    rss = child.memory_info().rss
                except psutil.Error:
                    continue
                self.peaks[child.pid] = max(self.peaks.get(child.pid, 0), rss)

    def peaks_mb(self) -> List[float]:
        """Peaks of the children seen, largest first, in MB."""
        return sorted((rss / 2 ** 20 for rss in self.peaks.values()), reverse=True)

    def __enter__(self) -> "WorkerMemory":
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()


def every_trait(problems: List[Problem], every: int = 1, offset: int = 0) -> List[Problem]:
    """The problems of every ``every``-th trait (sorted by name) from the ``offset``-th on:
    a subset of part 3 that keeps each trait's problems together."""
    traits = sorted({problem.trait for problem in problems})
    chosen = set(traits[offset::every])
    return [problem for problem in problems if problem.trait in chosen]


def part_full_set(jobs: int, n_genes: int, workdir: Path, regress_name: str = "regress",
                  every: int = 1, offset: int = 0) -> None:
    """Part 3 (on every ``every``-th trait's problems, :func:`every_trait`)."""
    if not TASK_INFO.exists():
        print(f"skipping the full problem set: {TASK_INFO} not found")
        return
    task_info = load_task_info(TASK_INFO)
    problems = every_trait(enumerate_problems(task_info), every, offset)
    start = time.perf_counter()
    preprocess = workdir / "preprocess"
    if (workdir / "generated.ok").exists():
        print(f"reusing the generated tree in {workdir}")
    else:
        generate_tree(workdir, task_info, n_genes, jobs=jobs)
        (workdir / "generated.ok").write_text("ok\n")
        print(f"generated {len(task_info)} traits' cohorts ({n_genes} genes) in "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    settings = RunSettings(preprocess, workdir / regress_name, TASK_INFO, force=True)
    print(f"start: {machine_state()}", flush=True)
    with WorkerMemory() as memory:
        summary = run_problems(problems, settings, jobs=jobs, progress=False)
    print(f"end: {machine_state()}")
    counts = summary.counts()
    peak_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peak_child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    models = {"Lasso": 0, "LMM": 0}
    for path in (workdir / regress_name).rglob("*.json"):
        models[json.loads(path.read_text())["analysis"]["model"]] += 1
    print(f"{len(problems)} problems with -j {jobs}: {summary.seconds:.0f} s, "
          f"{len(problems) / summary.seconds:.2f} problems/s; {counts}; models {models}")
    print(f"peak memory: main process {peak_self:.0f} MB, largest worker {peak_child:.0f} MB "
          f"(ru_maxrss); the {jobs} workers, sampled every {memory.interval} s: "
          + ", ".join(f"{mb:.0f} MB" for mb in memory.peaks_mb()[:jobs]))
    by_category: Dict[str, List[float]] = {}
    for problem, outcome in zip(problems, summary.outcomes):
        if outcome.status == "done":
            by_category.setdefault(problem.category, []).append(outcome.seconds)
    for category, seconds in by_category.items():
        print(f"  {category}: {len(seconds)} problems, median {statistics.median(seconds):.2f} s,"
              f" max {max(seconds):.2f} s (per problem, in its worker)")
    failed = [o for o in summary.outcomes if o.status == "failed"]
    for outcome in failed[:5]:
        print(f"  failed {outcome.problem}: {outcome.reason}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", type=int, default=5, help="full-size problems to time")
    parser.add_argument("--repeats", type=int, default=3, help="runs per problem (best kept)")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive baseline")
    parser.add_argument("--skip-full-set", action="store_true", help="skip part 3")
    parser.add_argument("--full-set-only", action="store_true", help="only part 3")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for part 3")
    parser.add_argument("--genes", type=int, default=N_GENES,
                        help="genes per generated cohort in part 3")
    parser.add_argument("--workdir", type=Path, help="keep part 3's tree here")
    parser.add_argument("--regress-name", default="regress",
                        help="part 3 writes its results to WORKDIR/REGRESS_NAME")
    parser.add_argument("--every-trait", type=int, default=1, metavar="K",
                        help="part 3 runs only the problems of every K-th trait (sorted by "
                             "name; the whole tree is still generated)")
    parser.add_argument("--trait-offset", type=int, default=0, metavar="J",
                        help="with --every-trait: start from the J-th trait")
    parser.add_argument("--before", metavar="REF",
                        help="also time parts 1 with the code of git revision REF, side by "
                             "side (worker processes, problems handed out alternately)")
    parser.add_argument("--timing-worker", action="store_true",
                        help="internal: serve part 1's timing requests on stdin")
    args = parser.parse_args()
    if args.timing_worker:
        serve_requests()
        return
    if not args.full_set_only:
        part_full_size(args.problems, args.repeats, not args.no_naive, args.before)
    if not args.skip_full_set:
        if args.workdir:
            args.workdir.mkdir(parents=True, exist_ok=True)
            part_full_set(args.jobs, args.genes, args.workdir, args.regress_name,
                          args.every_trait, args.trait_offset)
        else:
            with tempfile.TemporaryDirectory() as folder:
                part_full_set(args.jobs, args.genes, Path(folder), every=args.every_trait,
                              offset=args.trait_offset)


if __name__ == "__main__":
    main()
