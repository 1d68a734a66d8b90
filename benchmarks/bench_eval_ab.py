#!/usr/bin/env python
"""The evaluator's preprocessing comparison, two checkouts side by side (issue 27).

Runs ``eval.py -t preprocessing`` of this checkout and of another one (``--before``,
e.g. ``git archive COMMIT | tar -x -C DIR``) on the same prediction and reference
trees, alternately, ``--repeat`` times each, every run a fresh child process.
Each run is measured by ``wait4``: wall time, CPU time (user + system, the child
and its worker processes) and peak resident memory; the load average is read
before and after. Throughput is the CSV bytes both trees hold (the figure
``eval.py`` reports as ``bytes_read``) per second of wall time and per second of
CPU: on a machine shared with other jobs the CPU figure moves far less. The
reports (``--report`` JSON and the printed summary) of every run must be
byte-identical; the script says so or exits with an error.

Usage::

    python benchmarks/bench_eval_ab.py --pred /tmp/pipe/run_pool/prediction \\
        --ref /tmp/pipe/bench/reference --before /tmp/before --jobs 1 --repeat 2
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List

REPO = Path(__file__).resolve().parent.parent


def run_eval(checkout: Path, pred: Path, ref: Path, jobs: int, out: Path) -> Dict[str, float]:
    """One ``eval.py -t preprocessing`` of ``checkout``; its costs and its outputs' digest."""
    report = out / "report.json"
    command = [sys.executable, str(checkout / "eval.py"), "-p", str(pred), "-r", str(ref),
               "-j", str(jobs), "-t", "preprocessing", "--no-progress", "--report", str(report)]
    load = os.getloadavg()[0]
    start = time.perf_counter()
    with open(out / "stdout.txt", "wb") as stdout:
        process = subprocess.Popen(command, cwd=checkout, stdout=stdout,
                                   stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed")
    digest = hashlib.sha256(report.read_bytes() + (out / "stdout.txt").read_bytes())
    data = json.loads(report.read_text())
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "user": usage.ru_utime,
            "system": usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024,
            "load_before": load, "load_after": os.getloadavg()[0],
            "bytes": float(data["preprocessing"]["bytes_read"]), "digest": digest.hexdigest()}


def main(argv: List[str] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("--pred", type=Path, required=True, help="prediction tree")
    parser.add_argument("--ref", type=Path, required=True, help="reference tree")
    parser.add_argument("--before", type=Path, required=True,
                        help="the other checkout (the code before the change)")
    parser.add_argument("--jobs", type=int, default=1, help="eval.py -j (default 1)")
    parser.add_argument("--repeat", type=int, default=2,
                        help="runs of each checkout, alternating (default 2)")
    parser.add_argument("--keep", type=Path,
                        help="folder (new) for every run's report and printed summary "
                             "(default: a temporary folder, removed)")
    args = parser.parse_args(argv)
    checkouts = {"before": args.before.resolve(), "after": REPO}
    runs: Dict[str, List[Dict[str, float]]] = {name: [] for name in checkouts}
    with tempfile.TemporaryDirectory() as temporary:
        scratch = args.keep or Path(temporary)
        for repeat in range(args.repeat):
            for name, checkout in checkouts.items():
                out = Path(scratch) / f"{name}-{repeat}"
                out.mkdir(parents=True)
                run = run_eval(checkout, args.pred, args.ref, args.jobs, out)
                runs[name].append(run)
                print(f"{name:6s} run {repeat + 1}: {run['bytes'] / 1e6:7.0f} MB  wall "
                      f"{run['wall']:6.1f} s  CPU {run['cpu']:6.1f} s (user {run['user']:.1f},"
                      f" system {run['system']:.1f})  peak {run['peak_mb']:6.0f} MB  "
                      f"{run['bytes'] / 1e6 / run['wall']:5.0f} MB/s  "
                      f"{run['bytes'] / 1e6 / run['cpu']:5.0f} MB per CPU-s  load "
                      f"{run['load_before']:.2f} -> {run['load_after']:.2f}", flush=True)
    for name, done in runs.items():
        best = min(done, key=lambda run: run["cpu"])
        print(f"{name:6s} best of {len(done)} by CPU: {best['bytes'] / 1e6 / best['cpu']:.0f} MB "
              f"per CPU-second, {best['bytes'] / 1e6 / best['wall']:.0f} MB/s of wall time")
    digests = {run["digest"] for done in runs.values() for run in done}
    if len(digests) != 1:
        raise SystemExit(f"the reports differ between runs ({len(digests)} versions)")
    print(f"reports (--report JSON and printed summary): identical in all "
          f"{sum(map(len, runs.values()))} runs")


if __name__ == "__main__":
    main()
