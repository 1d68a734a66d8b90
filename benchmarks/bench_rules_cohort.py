#!/usr/bin/env python
"""One full-size GEO cohort preprocessed by the ``rules`` method, in a fresh process.

The cohort is a series of the ``full-size`` preset (``--platform``: the 54,675-probe
Affymetrix-style platform by default) with ``--samples`` samples, log2 values, the
trait, Age and Gender in the characteristics; generated once into ``--workdir``.
Each repeat runs the method's per-cohort step (read the series matrix and the
family SOFT, infer the clinical rows, map probes to genes, normalize symbols,
link, handle missing values, judge bias, write the gene, clinical and linked
tables and the cohort record) in a fresh child process, pinned to ``--cpus``
CPUs, and reports wall time, CPU time and the growth of the peak resident
memory over the process's memory before the call (``VmHWM`` reset first),
against the expression table's size in memory (float64).

``--before DIR`` times another checkout of this repository on the same cohort
(e.g. ``git archive <commit> | tar -x -C DIR``) and compares the tables it writes
with this checkout's, byte for byte. ``--profile`` prints where this checkout's
time goes.

Run::

    python benchmarks/bench_rules_cohort.py --workdir /tmp/rc --gene-synonyms MAP \\
        [--samples 250] [--cpus 1] [--repeat 3] [--before /tmp/old_checkout] [--profile]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

CHILD = r"""
import json, os, sys, time
from pathlib import Path
checkout, cohort_dir, out, cpus, profile = sys.argv[1:6]
sys.path.insert(0, checkout)
if int(cpus):
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:int(cpus)])
from genotex.methods.base import CohortTask
from genotex.methods.rules.cohorts import preprocess_geo
from utils.symbols import load_synonym_map
bench = Path(cohort_dir)
synonym_path = bench / "metadata" / "gene_synonym.json"
synonyms = load_synonym_map(synonym_path)
folder = next((bench / "input" / "GEO").glob("*/*"))
task = CohortTask(folder.parent.name, folder.name, "GEO", folder)
def memory():
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return int(fields["VmHWM"].split()[0]) * 1024, int(fields["VmRSS"].split()[0]) * 1024
Path("/proc/self/clear_refs").write_text("5")
rss = memory()[1]
start, cpu = time.perf_counter(), time.process_time()
if profile == "1":
    import cProfile, pstats
    profiler = cProfile.Profile()
    decisions = profiler.runcall(preprocess_geo, task, Path(out) / task.trait, synonym_path, synonyms)
    pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(18)
else:
    decisions = preprocess_geo(task, Path(out) / task.trait, synonym_path, synonyms)
wall, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"wall": wall, "cpu": cpu, "peak_growth": memory()[0] - rss,
                  "genes": decisions["genes"].get("genes"), "usable": decisions.get("usable")}))
"""


def make_cohort(workdir: Path, samples: int, platform: str, synonym_path: Path) -> Path:
    """Generate the preset cohort once (``<workdir>/cohort_<platform>_<samples>``)."""
    from genotex.synthetic.benchmark import restrict_task_info
    from genotex.synthetic.files import FAST_COMPRESSION
    from genotex.synthetic.generate import Sources, generate
    from genotex.synthetic.presets import FULL_SIZE, generated_task_info, preset_plan
    from utils.schemas.task_info import write_task_info
    from utils.symbols import ENTREZ_MAP_NAME, companion_map_path, load_gene_map

    folder = workdir / f"cohort_{platform}_{samples}"
    if (folder / "truth.json").is_file():
        return folder
    synonyms = load_gene_map(synonym_path)
    entrez_path = companion_map_path(ENTREZ_MAP_NAME, synonym_path)
    entrez = load_gene_map(entrez_path) if entrez_path.is_file() else None
    task_info = generated_task_info(FULL_SIZE, synonyms, 0)
    plan = preset_plan(FULL_SIZE, synonyms, task_info, 0, generated=True)
    cohort = next(c for c in plan.cohorts if c.source == "geo" and c.platform == platform
                  and c.has_trait and c.has_age and c.has_gender and c.scale != "linear"
                  and c.trait_field == "characteristics" and not c.missing_genes)
    cohort = dataclasses.replace(cohort, n_samples=samples, batch=False)
    plan = dataclasses.replace(plan, cohorts=(cohort,))
    (folder / "metadata").mkdir(parents=True, exist_ok=True)
    (folder / "metadata" / "gene_synonym.json").write_bytes(synonym_path.read_bytes())
    if entrez_path.is_file():
        (folder / "metadata" / ENTREZ_MAP_NAME).write_bytes(entrez_path.read_bytes())
    write_task_info(folder / "metadata" / "task_info.json", restrict_task_info(task_info, plan))
    generate(plan, Sources(synonyms, task_info, entrez), folder / "input", folder / "truth.json",
             compression=FAST_COMPRESSION)
    return folder


def run_checkout(checkout: Path, cohort: Path, out: Path, cpus: int, profile: bool
                 ) -> Dict[str, Any]:
    import shutil

    shutil.rmtree(out, ignore_errors=True)
    done = subprocess.run([sys.executable, "-c", CHILD, str(checkout), str(cohort), str(out),
                           str(cpus), "1" if profile else "0"], check=True,
                          capture_output=True, text=True)
    if profile:
        print(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def tree_files(root: Path) -> Dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", required=True, help="folder outside the checkout")
    parser.add_argument("--gene-synonyms", required=True, help="the full gene synonym map")
    parser.add_argument("--samples", type=int, default=250)
    parser.add_argument("--platform", default="GPL9500570")
    parser.add_argument("--cpus", type=int, default=1, help="CPUs of the child (0: all)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", metavar="DIR", help="another checkout to time alike")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    workdir = Path(args.workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    cohort = make_cohort(workdir, args.samples, args.platform, Path(args.gene_synonyms))
    truth = json.loads((cohort / "truth.json").read_text())
    record = next(iter(next(iter(truth["cohorts"].values())).values()))
    probes = record["geo"]["platforms"][0]["n_probes"]
    table_mb = probes * args.samples * 8 / 1e6
    print(f"cohort {record['trait']}/{record['cohort']}: {probes:,} probes x {args.samples} "
          f"samples (table {table_mb:.0f} MB as float64), CPUs {args.cpus or 'all'}")
    checkouts = [("this checkout", REPO)] + ([("before", Path(args.before))] if args.before
                                              else [])
    outputs = {}
    for label, checkout in checkouts:
        runs = []
        for _ in range(args.repeat):
            load = os.getloadavg()[0]
            runs.append({**run_checkout(checkout, cohort, workdir / f"out_{len(outputs)}",
                                        args.cpus, False), "load": load})
        best = min(runs, key=lambda r: r["wall"])
        walls = ", ".join(f"{r['wall']:.2f}" for r in runs)
        print(f"{label:14s} wall {best['wall']:6.2f} s (all: {walls}), CPU "
              f"{best['cpu']:6.2f} s, peak "
              f"growth {best['peak_growth'] / 1e6:5.0f} MB = "
              f"{best['peak_growth'] / 1e6 / table_mb:.2f} x the table; load "
              f"{min(r['load'] for r in runs):.2f}-{max(r['load'] for r in runs):.2f}; "
              f"{best['genes']} genes, usable {best['usable']}", flush=True)
        outputs[label] = tree_files(workdir / f"out_{len(outputs)}")
    if len(outputs) == 2:
        first, second = outputs.values()
        print(f"tables and record identical between the checkouts: {first == second} "
              f"({len(first)} files)")
    if args.profile:
        run_checkout(REPO, cohort, workdir / "out_profile", args.cpus, True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
