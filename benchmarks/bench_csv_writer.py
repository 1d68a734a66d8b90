#!/usr/bin/env python
"""Speed of writing numeric tables: pandas ``to_csv`` against the bulk writer.

Tables: a gene table of ``--genes`` x ``--samples`` whose values are means of one
to three 4-decimal probe values (as a probe -> gene mapping leaves them: many
cells end next to a half-way point at 6 significant digits), the same table
transposed (a linked table), 5 % of the cells missing; and the demo's committed
tables (``output/preprocess``). For each: MB of CSV per second of wall time and
of CPU time (best of ``--repeat``), written to memory, and whether the bytes are
identical. ``atomic_to_csv`` (temporary file, fsync, rename) is timed beside it
on the gene table. One CPU with ``--cpus 1``.

Run::

    python benchmarks/bench_csv_writer.py [--genes 20000] [--samples 250] [--cpus 1]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from utils.io.csv_writer import csv_chunks  # noqa: E402
from utils.io import atomic_to_csv  # noqa: E402

FLOAT_FORMAT = "%.6g"


def gene_table(genes: int, samples: int, seed: int = 0) -> pd.DataFrame:
    """Means of 1-3 four-decimal probe values per gene, 5 % missing."""
    rng = np.random.default_rng(seed)
    probes = rng.integers(1, 4, genes)
    base = rng.normal(7.5, 2.0, (genes, 1))
    total = np.zeros((genes, samples))
    for k in range(3):
        probe = np.round(base + rng.normal(0, 0.5, (genes, samples)), 4)
        total += np.where(k < probes[:, None], probe, 0.0)
    values = total / probes[:, None]
    values[rng.random(values.shape) < 0.05] = np.nan
    return pd.DataFrame(values, index=[f"GENE{k}" for k in range(genes)],
                        columns=[f"GSM{9000000 + k}" for k in range(samples)])


def best(func, repeat: int):
    wall = cpu = float("inf")
    result = None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = func()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return result, wall, cpu


def compare(name: str, frame: pd.DataFrame, repeat: int) -> None:
    text, pandas_wall, pandas_cpu = best(
        lambda: frame.to_csv(float_format=FLOAT_FORMAT).encode(), max(1, repeat // 2))
    bulk, bulk_wall, bulk_cpu = best(
        lambda: b"".join(csv_chunks(frame, float_format=FLOAT_FORMAT)), repeat)
    mb = len(text) / 1e6
    print(f"{name:34s} {mb:7.1f} MB  pandas {mb / pandas_wall:6.1f} MB/s ({mb / pandas_cpu:6.1f} "
          f"CPU)  bulk {mb / bulk_wall:6.1f} MB/s ({mb / bulk_cpu:6.1f} CPU)  "
          f"{pandas_wall / bulk_wall:5.1f}x  identical: {text == bulk}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--genes", type=int, default=20000)
    parser.add_argument("--samples", type=int, default=250)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cpus", type=int, default=0, help="pin to this many CPUs")
    args = parser.parse_args()
    if args.cpus:
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:args.cpus])
    print(f"load {os.getloadavg()[0]:.2f}, CPUs {sorted(os.sched_getaffinity(0))}")
    genes = gene_table(args.genes, args.samples)
    compare(f"gene table {args.genes} x {args.samples}", genes, args.repeat)
    compare(f"linked table {args.samples} x {args.genes}", genes.T, args.repeat)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "t.csv"
        _, wall, cpu = best(lambda: atomic_to_csv(genes, path, float_format=FLOAT_FORMAT),
                            args.repeat)
        mb = path.stat().st_size / 1e6
        print(f"{'atomic_to_csv, gene table':34s} {mb:7.1f} MB  {mb / wall:6.1f} MB/s "
              f"({mb / cpu:6.1f} CPU; temporary file, fsync, rename)")
    demo = sorted((REPO / "output" / "preprocess").rglob("*.csv"))
    if demo:
        frames = [pd.read_csv(p, index_col=0).astype(float) for p in demo]
        start = time.perf_counter()
        same = all(b"".join(csv_chunks(f, float_format=FLOAT_FORMAT)) == p.read_bytes()
                   for f, p in zip(frames, demo))
        seconds = time.perf_counter() - start
        size = sum(p.stat().st_size for p in demo) / 1e6
        print(f"{'demo tables (' + str(len(demo)) + ' files)':34s} {size:7.1f} MB  bulk "
              f"{size / seconds:6.1f} MB/s  identical to the committed files: {same}")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
