#!/usr/bin/env python
"""The whole pipeline at full size: preset cohorts -> rules -> statistics -> eval.

Steps (each a child process, timed with its peak resident memory, ``wait4``):

1. ``generate_synthetic.py --preset full-size --cohorts N -j J`` into
   ``<workdir>/bench`` (reused when the same parameters made it before);
2. the reference's statistics: ``regress.py -j J`` over ``bench/reference``;
3. the ``rules`` method:

   * ``pool`` (default): the cohorts preprocessed by J worker processes, each
     calling the rules method's own per-cohort step, then the statistics with
     ``run_problems(jobs=J)`` (``run_agent.py`` has no ``-j`` yet);
   * ``run-agent``: ``run_agent.py --method rules`` as it is (one process);

   with both, their prediction trees are compared file by file;
4. ``eval.py -j J`` of the prediction against the reference: the preprocessing
   task alone (MB/s: reference + prediction CSV bytes per second), then every task.

Printed: each step's time, peak memory and the load average; seconds per cohort
by size and per problem; the extrapolation to the whole preset (911 cohorts,
1,384 problems) from a least-squares fit of cohort seconds on table cells, with
the preset's full list of cohorts (computed from its plan, not generated).

Usage::

    python benchmarks/bench_pipeline.py --workdir /tmp/pipe --cohorts 60 --jobs 2 \\
        --gene-synonyms /tmp/maps/gene_synonym.json
    python benchmarks/bench_pipeline.py --workdir /tmp/pipe --cohorts 4   # a quick check

Without ``--gene-synonyms`` the full gene maps are built from
``../shared/data/genes/Homo_sapiens.gene_info.gz`` (or ``--gene-info``) into
``<workdir>/maps``. ``--task-info`` names a task_info.json whose traits to use
(e.g. the real one; read at generation time only); generated traits otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from genotex.synthetic.benchmark import BenchmarkFolder, folder_bytes  # noqa: E402
from genotex.synthetic.presets import (FULL_SIZE, generated_task_info, plan_statistics,  # noqa: E402
                                       preset_plan)
from utils.problems import enumerate_problems, load_task_info  # noqa: E402

SHARED_GENE_INFO = REPO.parent / "shared" / "data" / "genes" / "Homo_sapiens.gene_info.gz"
PYTHON = sys.executable


@dataclass
class Step:
    """One timed child process (CPU: its own and its children's)."""

    name: str
    seconds: float
    cpu: float
    peak_mb: float
    load: Tuple[float, float]

    def line(self) -> str:
        return (f"{self.name:50s} {self.seconds:8.1f} s  CPU {self.cpu:8.1f} s  peak "
                f"{self.peak_mb:7.0f} MB  load {self.load[0]:.2f} -> {self.load[1]:.2f}")


def run_step(name: str, command: Sequence[str], cwd: Path = REPO) -> Step:
    """Run ``command``; its wall time and the largest peak RSS of it and its children."""
    load = os.getloadavg()[0]
    start = time.perf_counter()
    process = subprocess.Popen([str(c) for c in command], cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):  # 1: some task failed (reported, not fatal)
        raise SystemExit(f"{name}: {' '.join(map(str, command))} exited {process.returncode}")
    step = Step(name, seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                (load, os.getloadavg()[0]))
    print(step.line(), flush=True)
    return step


# --------------------------------------------------------------------------- inputs

def gene_maps(work: Path, args: argparse.Namespace) -> Path:
    """The full synonym map (built from gene_info into ``<work>/maps`` when not given)."""
    if args.gene_synonyms:
        return Path(args.gene_synonyms)
    maps = work / "maps"
    if not (maps / "gene_synonym.json").is_file():
        gene_info = Path(args.gene_info) if args.gene_info else SHARED_GENE_INFO
        if not gene_info.is_file():
            raise SystemExit(f"{gene_info}: not found; give --gene-synonyms or --gene-info")
        run_step("gene maps", [PYTHON, REPO / "download" / "get_gene_synonyms.py",
                               "--gene-info", gene_info, "--output-dir", maps])
    return maps / "gene_synonym.json"


def benchmark_folder(work: Path, args: argparse.Namespace, synonyms: Path
                     ) -> Tuple[BenchmarkFolder, Optional[Step]]:
    """The preset subset, generated unless the same parameters made it already."""
    folder = BenchmarkFolder(work / "bench")
    stamp = work / "bench.json"
    params = {"cohorts": args.cohorts, "seed": args.seed, "task_info": args.task_info,
              "synonyms": str(synonyms)}
    if stamp.is_file() and json.loads(stamp.read_text()) == params and folder.truth.is_file():
        print(f"reusing {folder.root}")
        return folder, None
    command = [PYTHON, REPO / "generate_synthetic.py", "--preset", "full-size", "--out",
               folder.root, "--cohorts", args.cohorts, "-j", args.jobs, "--seed", args.seed,
               "--gene-synonyms", synonyms]
    if args.task_info:
        command += ["--task-info", args.task_info]
    if folder.root.exists():
        import shutil

        shutil.rmtree(folder.root)
    step = run_step(f"generate {args.cohorts} cohorts (-j {args.jobs})", command)
    stamp.write_text(json.dumps(params))
    return folder, step


# --------------------------------------------------------------------------- rules in a pool

_AGENT = None


def _start(synonym_path: str, input_dir: str, metadata: str, task_info: str, tree: str) -> None:
    global _AGENT  # one rules agent per worker process
    from genotex.methods.rules.method import RulesAgent
    from utils.paths import resolve_paths
    from utils.symbols import load_synonym_map

    paths = resolve_paths(input_dir=input_dir, metadata_dir=metadata, task_info=task_info,
                          gene_synonyms=synonym_path)
    _AGENT = (RulesAgent(paths, load_synonym_map(paths.gene_synonyms)), paths, Path(tree))


def _cohort(task) -> Dict[str, Any]:
    from genotex.methods.base import RunContext

    agent, paths, tree = _AGENT
    log = _NullLog()
    ctx = RunContext(paths=paths, run_dir=tree.parent, tree=tree, task_info={}, log=log,
                     time_limit=0.0, progress=False)
    start = time.perf_counter()
    cpu = time.process_time()
    outcome = agent.preprocess_cohort(task, ctx)
    return {"key": task.key, "status": outcome.status, "seconds": time.perf_counter() - start,
            "cpu": time.process_time() - cpu, "decisions": log.decisions}


class _NullLog:
    """Keeps the decisions of one cohort (the run log of a real run)."""

    def __init__(self) -> None:
        self.decisions: Dict[str, Any] = {}

    def write(self, kind: str, **fields: Any) -> None:
        if kind == "decisions":
            self.decisions = {k: v for k, v in fields.items() if k in ("genes", "usable")}


def pool_run(bench: Path, run: Path, jobs: int) -> None:
    """The rules method with ``jobs`` processes: cohorts in a pool, then the statistics."""
    from genotex.methods.inputs import cohort_tasks, traits_of
    from genotex.regress.runner import RunSettings, run_problems
    from utils.paths import resolve_paths

    folder = BenchmarkFolder(bench)
    paths = resolve_paths(input_dir=folder.input, metadata_dir=folder.metadata)
    problems = enumerate_problems(load_task_info(paths.task_info))
    tasks = cohort_tasks(paths, traits_of(problems))
    tree = run / "prediction"
    (tree / "preprocess").mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    cpu_start = cpu_seconds()
    init = (str(paths.gene_synonyms), str(folder.input), str(folder.metadata),
            str(paths.task_info), str(tree))
    with ProcessPoolExecutor(jobs, initializer=_start, initargs=init) as pool:
        cohorts = list(pool.map(_cohort, tasks, chunksize=1))
    middle = time.perf_counter()
    cpu_middle = cpu_seconds()
    settings = RunSettings(tree / "preprocess", tree / "regress", paths.task_info,
                           remove_stale=True)
    summary = run_problems(problems, settings, jobs=jobs, progress=False)
    end = time.perf_counter()
    cpu_end = cpu_seconds()
    outcomes = [{"key": str(o.problem), "status": o.status, "seconds": o.seconds or 0.0}
                for o in summary.outcomes]
    (run / "timings.json").write_text(json.dumps(
        {"cohorts": cohorts, "problems": outcomes, "cohort_seconds": middle - start,
         "problem_seconds": end - middle, "cohort_cpu": cpu_middle - cpu_start,
         "problem_cpu": cpu_end - cpu_middle}, indent=1))


def cpu_seconds() -> float:
    """CPU seconds of this process and of its finished children."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


# --------------------------------------------------------------------------- reporting

def cohort_cells(bench: BenchmarkFolder) -> Dict[str, Tuple[int, int, str]]:
    """``{Trait/cohort: (rows of its expression file, samples, kind)}`` from the truth."""
    truth = json.loads(bench.truth.read_text())
    out = {}
    for trait, cohorts in truth["cohorts"].items():
        for cohort, record in cohorts.items():
            kind = "TCGA" if record["source"] == "tcga" else record["geo"]["scale"]
            rows = record["n_genes"] if kind in ("TCGA", "counts") else \
                record["geo"]["platforms"][0]["n_probes"]
            if kind not in ("TCGA", "counts"):
                kind = record["geo"]["platforms"][0]["id"]
            out[f"{trait}/{cohort}"] = (rows, record["n_samples"], kind)
    return out


def full_preset_cells(args: argparse.Namespace, synonyms: Path) -> List[Tuple[int, int]]:
    """(rows, samples) of every cohort of the whole preset (from its plan)."""
    from utils.symbols import load_gene_map

    syn = load_gene_map(synonyms)
    task_info = load_task_info(args.task_info) if args.task_info else \
        generated_task_info(FULL_SIZE, syn, args.seed)
    plan = preset_plan(FULL_SIZE, syn, task_info, args.seed, args.task_info is None)
    rows = {p.id: (p.probes or p.genes) for p in FULL_SIZE.platforms}
    print("whole preset:", json.dumps(plan_statistics(plan)))
    return [(FULL_SIZE.tcga_genes if c.source == "tcga" else rows[c.platform], c.n_samples)
            for c in plan.cohorts]


def report(work: Path, bench: BenchmarkFolder, args: argparse.Namespace, synonyms: Path,
           pool_step: Step, eval_pre: Step) -> None:
    timings = json.loads((work / "run_pool" / "timings.json").read_text())
    cells = cohort_cells(bench)
    rows = []
    for item in timings["cohorts"]:
        n_rows, n, kind = cells[item["key"]]
        rows.append((item["key"], kind, n_rows, n, item["seconds"], item["cpu"]))
    rows.sort(key=lambda r: r[2] * r[3])
    print("\nper cohort (in its worker): kind, rows x samples, seconds (CPU)")
    for key, kind, n_rows, n, seconds, cpu in rows:
        print(f"  {key:40s} {kind:11s} {n_rows:6d} x {n:5d}  {seconds:6.2f} s ({cpu:5.2f})")
    x = np.array([r[2] * r[3] for r in rows], dtype=float)
    y = np.array([r[4] for r in rows])
    y_cpu = np.array([r[5] for r in rows])
    slope, intercept = np.polyfit(x, y, 1)
    cpu_slope, cpu_intercept = np.polyfit(x, y_cpu, 1)
    print(f"fit (wall in worker): seconds = {intercept:.3f} + {slope * 1e6:.4f} x million cells;"
          f" CPU: {cpu_intercept:.3f} + {cpu_slope * 1e6:.4f} x million cells")
    for lo, hi in ((0, 50), (50, 150), (150, 400), (400, 10**6)):
        sel = [r for r in rows if lo <= r[3] < hi]
        if sel:
            print(f"  {lo}-{hi if hi < 10**6 else ''} samples: {len(sel)} cohorts, median "
                  f"{np.median([r[4] for r in sel]):.2f} s (CPU {np.median([r[5] for r in sel]):.2f})")
    problems = [p for p in timings["problems"] if p["status"] in ("done", "up-to-date")]
    per_problem = [p["seconds"] for p in problems]
    n_jobs = args.jobs
    cohort_wall, problem_wall = timings["cohort_seconds"], timings["problem_seconds"]
    efficiency_c = y.sum() / n_jobs / cohort_wall
    efficiency_p = sum(per_problem) / n_jobs / problem_wall if problem_wall else 1.0
    print(f"\ncohorts: {len(rows)} in {cohort_wall:.1f} s wall with {n_jobs} processes, CPU "
          f"{timings['cohort_cpu']:.1f} s (sum in workers {y.sum():.1f} s wall, "
          f"{y_cpu.sum():.1f} s CPU)")
    print(f"problems: {len(problems)} done of {len(timings['problems'])} in {problem_wall:.1f} s "
          f"wall, CPU {timings['problem_cpu']:.1f} s; per problem in its worker: median "
          f"{np.median(per_problem):.2f} s, mean {np.mean(per_problem):.2f} s")
    full = full_preset_cells(args, synonyms)
    cells = np.array([r * n for r, n in full], dtype=float)
    wall_cohorts = (intercept * cells.size + slope * cells.sum()) / n_jobs / efficiency_c
    wall_problems = np.mean(per_problem) * 1384 / n_jobs / efficiency_p
    cpu_cohorts = (cpu_intercept * cells.size + cpu_slope * cells.sum()) * \
        timings["cohort_cpu"] / max(y_cpu.sum(), 1e-9)
    cpu_problems = timings["problem_cpu"] / max(len(problems), 1) * 1384
    print(f"extrapolated to the whole preset ({len(full)} cohorts, 1,384 problems):")
    print(f"  at this run's wall times ({n_jobs} processes, this load): cohorts "
          f"{wall_cohorts / 60:.1f} min + problems {wall_problems / 60:.1f} min = "
          f"{(wall_cohorts + wall_problems) / 60:.1f} min")
    print(f"  from CPU time on {n_jobs} otherwise idle cores: cohorts {cpu_cohorts / 60 / n_jobs:.1f}"
          f" min + problems {cpu_problems / 60 / n_jobs:.1f} min = "
          f"{(cpu_cohorts + cpu_problems) / 60 / n_jobs:.1f} min")
    pre_bytes = folder_bytes(bench.reference / "preprocess") + \
        folder_bytes(work / "run_pool" / "prediction" / "preprocess")
    print(f"eval preprocessing: {pre_bytes / 1e6:.0f} MB of both trees in "
          f"{eval_pre.seconds:.1f} s = {pre_bytes / 1e6 / eval_pre.seconds:.0f} MB/s (CPU "
          f"{eval_pre.cpu:.1f} s = {pre_bytes / 1e6 / eval_pre.cpu:.0f} MB per CPU-second)")


def compare_trees(first: Path, second: Path) -> None:
    """File-by-file comparison of two prediction trees (cohort_info.json as JSON)."""
    names = sorted({p.relative_to(first) for p in first.rglob("*") if p.is_file()}
                   | {p.relative_to(second) for p in second.rglob("*") if p.is_file()})
    different = []
    for name in names:
        a, b = first / name, second / name
        if not (a.is_file() and b.is_file()):
            different.append(str(name))
        elif name.name == "cohort_info.json":
            if json.loads(a.read_text()) != json.loads(b.read_text()):
                different.append(str(name))
        elif a.read_bytes() != b.read_bytes():
            different.append(str(name))
    print(f"run_agent.py and pool trees: {len(names) - len(different)} of {len(names)} files "
          f"identical" + (f"; different: {different[:5]}" if different else ""))


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--workdir", required=True, metavar="DIR",
                        help="folder for the benchmark, runs and reports (outside the checkout)")
    parser.add_argument("--cohorts", type=int, default=60, help="preset cohorts (default 60)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="preset seed (default 0)")
    parser.add_argument("--gene-synonyms", metavar="PATH", help="full gene synonym map")
    parser.add_argument("--gene-info", metavar="PATH", help="NCBI gene_info to build it from")
    parser.add_argument("--task-info", metavar="PATH",
                        help="task_info.json whose traits to use (default: generated)")
    parser.add_argument("--mode", choices=("pool", "run-agent", "both"), default="pool",
                        help="how the rules method runs (see above; default pool)")
    parser.add_argument("--pool-run", nargs=2, metavar=("BENCH", "RUN"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.pool_run:
        pool_run(Path(args.pool_run[0]), Path(args.pool_run[1]), args.jobs)
        return 0
    work = Path(args.workdir).resolve()
    if work == REPO or REPO in work.parents:
        raise SystemExit("--workdir must be outside the checkout")
    work.mkdir(parents=True, exist_ok=True)
    print(f"cpus {os.cpu_count()}, load {os.getloadavg()}")
    synonyms = gene_maps(work, args)
    bench, _ = benchmark_folder(work, args, synonyms)
    print(f"benchmark: input {folder_bytes(bench.input) / 1e9:.2f} GB, reference preprocess "
          f"{folder_bytes(bench.reference / 'preprocess') / 1e9:.2f} GB")
    common = ["--task-info", bench.metadata / "task_info.json"]
    if not (bench.reference / "regress").is_dir():
        run_step("reference statistics (regress.py)",
                 [PYTHON, REPO / "regress.py", "-j", args.jobs, "--preprocess-dir",
                  bench.reference / "preprocess", "--regress-dir", bench.reference / "regress",
                  "--no-progress", *common])
    import shutil

    pool_step = None
    if args.mode in ("pool", "both"):
        shutil.rmtree(work / "run_pool", ignore_errors=True)
        pool_step = run_step(f"rules, {args.jobs} processes (cohort pool + regress)",
                             [PYTHON, Path(__file__).resolve(), "--workdir", work, "--jobs",
                              args.jobs, "--pool-run", bench.root, work / "run_pool"])
    if args.mode in ("run-agent", "both"):
        run_step("run_agent.py --method rules (one process)",
                 [PYTHON, REPO / "run_agent.py", "--method", "rules", "--input-dir",
                  bench.input, "--metadata-dir", bench.metadata, "--run-dir",
                  work / "run_agent", "--force", "--no-progress"])
    if args.mode == "both":
        compare_trees(work / "run_agent" / "prediction", work / "run_pool" / "prediction")
    prediction = work / ("run_pool" if pool_step else "run_agent") / "prediction"
    evaluate = [PYTHON, REPO / "eval.py", "-p", prediction, "-r", bench.reference, "-j",
                args.jobs, "-g", bench.metadata / "gene_synonym.json", "--no-progress",
                *common]
    eval_pre = run_step("eval.py -t preprocessing", evaluate + ["-t", "preprocessing"])
    run_step("eval.py (every task)", evaluate + ["--report", work / "eval_report.json"])
    if pool_step:
        report(work, bench, args, synonyms, pool_step, eval_pre)
    return 0


if __name__ == "__main__":
    sys.exit(main())
