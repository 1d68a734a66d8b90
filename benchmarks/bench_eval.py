#!/usr/bin/env python
"""Speed of the evaluator (eval.py) on generated trees.

1. Analysis task over every problem of the real problem set
   (``../shared/data/opentargets/genomas_task_info.json``: 132 traits, 1,384
   problems) when present, else a generated one of the same shape: reference
   linked-table headers of ~18.5k genes, reference and predicted regression
   JSONs. Target: under 10 s.
2. Preprocessing comparison (gene, clinical and linked tables) of N full-width
   cohorts (18,500 genes x S samples); throughput in MB of CSV parsed per
   second (reference + prediction bytes). Target: >= 100 MB/s.
3. Hostile trees: a prediction whose two traits of a two-step problem hold N usable
   cohort_info records each (no tables behind them), every task evaluated.

Time and peak memory: each measured evaluation runs in a fresh process (spawned,
one worker: ``jobs=1`` except for the preprocessing throughput), which reports its
wall time and its peak resident memory (``ru_maxrss``) before and after.

Usage::

    python benchmarks/bench_eval.py                      # all, 50 cohorts x 100 samples
    python benchmarks/bench_eval.py --cohorts 60 --samples 167 --jobs 2
    python benchmarks/bench_eval.py --skip-preprocessing --hostile 1000 4000
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np
import pandas as pd

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from genotex.evaluation.evaluator import EvaluationSettings, Evaluator, default_jobs  # noqa: E402
from genotex.testing.eval_trees import TASK_INFO, write_hostile_tree, write_tree  # noqa: E402
from utils.problems import enumerate_problems, load_task_info  # noqa: E402

REAL_TASK_INFO = REPO_ROOT.parent / "shared" / "data" / "opentargets" / "genomas_task_info.json"
N_GENES = 18_500


def synthetic_task_info(rng: random.Random, n_traits: int = 132) -> Dict[str, dict]:
    """A problem set shaped like the real one (about 1,384 problems)."""
    traits = [f"Trait_{i:03d}" for i in range(n_traits)]
    info = {}
    for trait in traits:
        genes = [f"REL{rng.randrange(8000)}" for _ in range(rng.randrange(20, 400))]
        others = rng.sample([t for t in traits if t != trait], 8)
        info[trait] = {"related_genes": list(dict.fromkeys(genes)),
                       "conditions": ["Age", "Gender"] + others}
    return info


def gene_pool(task_info: Dict[str, dict], size: int) -> List[str]:
    """Related genes of every trait, padded with synthetic symbols to ``size``."""
    pool = list(dict.fromkeys(g for entry in task_info.values() for g in entry["related_genes"]))
    pool += [f"PADDING{i}" for i in range(max(0, size + 1000 - len(pool)))]  # no real symbol
    return pool


def write_analysis_trees(root: Path, task_info: Dict[str, dict], seed: int = 0) -> None:
    """Reference (cohort_info, linked headers, results) and predicted results."""
    rng = random.Random(seed)
    pool = gene_pool(task_info, N_GENES)
    for trait in sorted(task_info):
        folder = root / "ref" / "preprocess" / trait
        folder.mkdir(parents=True)
        info = {}
        for k in range(3):
            cohort = f"GSE{rng.randrange(10**5, 10**6)}"
            genes = rng.sample(pool, N_GENES)
            size = rng.randrange(30, 300)
            info[cohort] = {"is_usable": True, "is_gene_available": True,
                            "is_trait_available": True, "is_available": True,
                            "is_biased": False, "has_age": rng.random() < 0.7,
                            "has_gender": rng.random() < 0.7, "sample_size": size, "note": ""}
            header = ",".join(["", trait, "Age", "Gender", *genes])
            row = ",".join(["GSM1", "1", "50", "0", *["1.0"] * len(genes)])
            (folder / f"{cohort}.csv").write_text(f"{header}\n{row}\n")
        (folder / "cohort_info.json").write_text(json.dumps(info))
    for problem in enumerate_problems(task_info):
        reference = rng.sample(pool[:N_GENES], rng.randrange(0, 300))
        kept = [g for g in reference if rng.random() < 0.5]
        predicted = kept + rng.sample(pool, rng.randrange(0, 200))
        rng.shuffle(predicted)
        for side, genes in (("ref", reference), ("pred", predicted)):
            if side == "pred" and rng.random() < 0.03:
                continue  # a few missing predictions
            path = root / side / "regress" / problem.trait / problem.result_name
            path.parent.mkdir(parents=True, exist_ok=True)
            coefficients = [1.0 / (i + 1) for i in range(len(genes))]
            path.write_text(json.dumps({
                "significant_genes": {"Variable": genes, "Coefficient": coefficients,
                                      "Absolute Coefficient": coefficients},
                "cv_performance": {"prediction": {"accuracy": rng.uniform(50, 100),
                                                  "f1": rng.uniform(0, 100)},
                                   "selection": {}}}))


def peak_rss_mib() -> float:
    """Peak resident memory of this process image, in MiB.

    ``VmHWM`` of ``/proc/self/status`` (Linux) belongs to the current image, whereas
    ``ru_maxrss`` also carries the peak of the process it was forked from.
    """
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _evaluate_measured(pred: str, ref: str, task_info: Dict[str, Any],
                       tasks: Tuple[str, ...]) -> Dict[str, Any]:
    """Run one evaluation in this (fresh) process; time, peak memory and the report."""
    base = peak_rss_mib()
    start = time.perf_counter()
    report = Evaluator(pred, ref, task_info, EvaluationSettings(tasks=tasks, jobs=1)).run()
    elapsed = time.perf_counter() - start
    return {"seconds": elapsed, "base_mib": base, "peak_mib": peak_rss_mib(),
            "report": report}


def measured(pred: Path, ref: Path, task_info: Dict[str, Any], tasks: Tuple[str, ...]
             ) -> Dict[str, Any]:
    """:func:`_evaluate_measured` in a new spawned process (its own peak memory)."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(_evaluate_measured, str(pred), str(ref), task_info, tasks).result()


def _memory(result: Dict[str, Any]) -> str:
    return (f"peak RSS {result['peak_mib']:.0f} MiB ({result['base_mib']:.0f} MiB after "
            f"imports, +{result['peak_mib'] - result['base_mib']:.0f} MiB)")


def bench_analysis(workdir: Path, repeats: int) -> None:
    if REAL_TASK_INFO.exists():
        task_info, source = load_task_info(REAL_TASK_INFO), "real problem set"
    else:
        task_info, source = synthetic_task_info(random.Random(1)), "generated problem set"
    n_problems = len(enumerate_problems(task_info))
    root = workdir / "analysis"
    shutil.rmtree(root, ignore_errors=True)
    start = time.perf_counter()
    write_analysis_trees(root, task_info)
    print(f"analysis: {n_problems} problems ({source}); trees written in "
          f"{time.perf_counter() - start:.1f} s")
    settings = EvaluationSettings(tasks=("analysis",), jobs=1)
    for run in range(repeats):
        start = time.perf_counter()
        report = Evaluator(root / "pred", root / "ref", task_info, settings).run()
        elapsed = time.perf_counter() - start
        overall = report["analysis"]["summary"]["overall"]
        print(f"  run {run + 1}: analysis task {elapsed:.2f} s "
              f"({overall['problems']} problems scored, success {overall['success_rate']:.1f} %,"
              f" F1 {overall['f1']['mean']:.1f}, AUROC {overall['auroc']['mean']:.3f})")
    settings = EvaluationSettings(tasks=("selection",), jobs=1)
    start = time.perf_counter()
    Evaluator(root / "ref", root / "ref", task_info, settings).run()
    print(f"  selection task (same tree, {n_problems} problems): "
          f"{time.perf_counter() - start:.2f} s")
    for run in range(repeats):
        result = measured(root / "pred", root / "ref", task_info, ("selection", "analysis"))
        print(f"  fresh process, selection + analysis: {result['seconds']:.2f} s, "
              f"{_memory(result)}")


def bench_hostile(workdir: Path, sizes: List[int], repeats: int) -> None:
    """Every task on predictions whose two-step traits hold ``n`` records each."""
    root = workdir / "hostile"
    shutil.rmtree(root, ignore_errors=True)
    reference = write_tree(root / "ref")
    baseline = measured(reference, reference, TASK_INFO,
                        ("selection", "preprocessing", "analysis"))
    print(f"hostile trees (reference: genotex/testing/eval_trees.py, 6 problems); reference "
          f"against itself: {baseline['seconds']:.2f} s, {_memory(baseline)}")
    for n_records in sizes:
        for tables in (False, True):
            pred = write_hostile_tree(reference, root / f"pred_{n_records}_{tables}",
                                      n_records, tables)
            size = (pred / "preprocess/Trait_A/cohort_info.json").stat().st_size
            what = "a linked table each, no pair works" if tables else "no tables"
            for run in range(repeats):
                result = measured(pred, reference, TASK_INFO,
                                  ("selection", "preprocessing", "analysis"))
                pair = [i for i in result["report"]["selection"]["dataset_selection"][
                    "problems"] if i["category"] == "two-step"][0]
                print(f"  {n_records} records per trait ({size / 1024:.0f} KiB each, "
                      f"{n_records ** 2:,} pairs; {what}): all tasks "
                      f"{result['seconds']:.2f} s, {_memory(result)}; two-step status "
                      f"{pair['status']}")


def template_tables(rng: np.random.Generator, n_samples: int, trait: str
                    ) -> Dict[str, Dict[str, pd.DataFrame]]:
    """Reference and predicted gene / clinical / linked tables of one cohort."""
    genes = [f"G{i}" for i in range(N_GENES)]
    samples = [f"GSM{i:07d}" for i in range(n_samples)]
    ref_gene = pd.DataFrame(rng.normal(7, 2, (N_GENES, n_samples)).round(6),
                            index=pd.Index(genes, name="Gene"), columns=samples)
    clinical = pd.DataFrame({trait: rng.integers(0, 2, n_samples).astype(float),
                             "Age": rng.integers(20, 90, n_samples).astype(float),
                             "Gender": rng.integers(0, 2, n_samples).astype(float)},
                            index=samples).T
    pred_gene = (ref_gene + rng.normal(0, 0.5, ref_gene.shape)).round(6)
    pred_gene = pred_gene.iloc[: N_GENES - 300, : n_samples - 2]  # a few genes/samples lost
    tables = {}
    for side, gene in (("ref", ref_gene), ("pred", pred_gene)):
        clin = clinical.loc[:, gene.columns]
        linked = pd.concat([clin.T, gene.T], axis=1)
        tables[side] = {"gene": gene, "clinical": clin, "linked": linked}
    return tables


def write_preprocessing_trees(root: Path, n_cohorts: int, n_samples: int,
                              n_templates: int = 4) -> int:
    """Write ``n_cohorts`` cohorts per tree (distinct files, from a few templates)."""
    rng = np.random.default_rng(0)
    trait = "Trait"
    files: Dict[str, List[Path]] = {}
    for t in range(n_templates):
        tables = template_tables(rng, n_samples, trait)
        for side in ("ref", "pred"):
            for kind, table in tables[side].items():
                path = root / "templates" / f"{side}_{kind}_{t}.csv"
                path.parent.mkdir(parents=True, exist_ok=True)
                table.to_csv(path)
                files.setdefault(f"{side}_{kind}", []).append(path)
    total = 0
    for side in ("ref", "pred"):
        base = root / side / "preprocess" / trait
        (base / "gene_data").mkdir(parents=True)
        (base / "clinical_data").mkdir(parents=True)
        info = {}
        for c in range(n_cohorts):
            cohort = f"GSE{100000 + c}"
            t = c % n_templates
            targets = {"gene": base / "gene_data" / f"{cohort}.csv",
                       "clinical": base / "clinical_data" / f"{cohort}.csv",
                       "linked": base / f"{cohort}.csv"}
            for kind, target in targets.items():
                shutil.copyfile(files[f"{side}_{kind}"][t], target)
                total += target.stat().st_size
            info[cohort] = {"is_usable": True, "sample_size": n_samples}
        (base / "cohort_info.json").write_text(json.dumps(info))
    shutil.rmtree(root / "templates")
    return total


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (worker processes)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def bench_preprocessing(workdir: Path, n_cohorts: int, n_samples: int, jobs: List[int],
                        repeats: int) -> None:
    root = workdir / "preprocessing"
    marker = root / "params.json"
    params = {"cohorts": n_cohorts, "samples": n_samples, "genes": N_GENES}
    start = time.perf_counter()
    if marker.exists() and json.loads(marker.read_text()) == params:
        total = sum(p.stat().st_size for p in root.rglob("*.csv"))
        how = "reused from --workdir"
    else:
        shutil.rmtree(root, ignore_errors=True)
        total = write_preprocessing_trees(root, n_cohorts, n_samples)
        marker.write_text(json.dumps(params))
        how = f"written in {time.perf_counter() - start:.0f} s"
    print(f"preprocessing: {n_cohorts} cohorts x {N_GENES} genes x {n_samples} samples, "
          f"{total / 1e6:.0f} MB of CSV in both trees ({how}; files are in the page cache)")
    for n_jobs in jobs:
        for run in range(repeats):
            settings = EvaluationSettings(tasks=("preprocessing",), jobs=n_jobs)
            cpu_before = _cpu_seconds()
            start = time.perf_counter()
            report = Evaluator(root / "pred", root / "ref", {}, settings).run()
            elapsed = time.perf_counter() - start
            cpu = _cpu_seconds() - cpu_before
            megabytes = report["preprocessing"]["bytes_read"] / 1e6
            csc = {s: report["preprocessing"][s]["summary"]["csc"]["mean"]
                   for s in ("gene", "clinical", "linked")}
            print(f"  jobs={n_jobs} run {run + 1}: {megabytes:.0f} MB in {elapsed:.1f} s "
                  f"= {megabytes / elapsed:.0f} MB/s wall; {cpu:.1f} CPU-s = "
                  f"{megabytes / cpu:.0f} MB per CPU-second  (CSC gene {csc['gene']:.1f}, "
                  f"clinical {csc['clinical']:.1f}, linked {csc['linked']:.1f}; load "
                  f"{os.getloadavg()[0]:.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cohorts", type=int, default=50, help="cohorts per tree (default 50)")
    parser.add_argument("--samples", type=int, default=100,
                        help="samples per cohort (default 100)")
    parser.add_argument("--jobs", type=int, nargs="+", default=None,
                        help="worker counts to time (default: 1 and the available cores)")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs of each setting")
    parser.add_argument("--workdir", default=None,
                        help="folder for the generated trees (default: a temp folder, removed)")
    parser.add_argument("--hostile", type=int, nargs="*", default=[1000, 4000],
                        metavar="N", help="records per trait of the hostile trees "
                                          "(default: 1000 4000; none: skip)")
    parser.add_argument("--skip-analysis", action="store_true")
    parser.add_argument("--skip-preprocessing", action="store_true")
    args = parser.parse_args()
    jobs = args.jobs or sorted({1, default_jobs()})
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="bench_eval_"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        if args.hostile:
            bench_hostile(workdir, args.hostile, args.repeats)
        if not args.skip_analysis:
            bench_analysis(workdir, args.repeats)
        if not args.skip_preprocessing:
            bench_preprocessing(workdir, args.cohorts, args.samples, jobs, args.repeats)
    finally:
        if not args.workdir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
