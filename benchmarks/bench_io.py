#!/usr/bin/env python
"""Speed of the readers issue 26 changed: linked tables, header reads, family SOFT files.

1. A full-size linked table (167 samples x 18,530 genes + trait, age, gender; values
   rounded to 4 decimals, as the demo writes them), plain and gzip: a fresh
   :class:`tools.statistics.cohort_cache.CohortCache` loading it (the regression
   runner's read: guarded read, SHA-256, parse), and the evaluator's
   :func:`genotex.evaluation.numeric_csv.parse_numeric_csv` on its bytes.
2. Readers that stop early, on gzip files: the header of a generated series matrix
   (``--size-mb`` MB of text; :func:`tools.preprocess.geo.get_background_and_clinical_data`)
   and the platform table of a family SOFT file whose sample tables come after it
   (:func:`tools.preprocess.soft.get_gene_annotation`). Since issue 26 they inflate the
   rest of the stream to check it is whole, which costs the time of decompressing it.

Only functions that exist before and after issue 26 are called, so the script can be
copied into an older checkout and run there for a side-by-side comparison. Best of
``--repeat`` runs in this process; each figure is printed with the load average.

Usage::

    python benchmarks/bench_io.py                  # 100 MB matrix, 3 repeats
    python benchmarks/bench_io.py --size-mb 20 --repeat 5
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import tempfile
import timeit
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

REPO_ROOT = Path(__file__).resolve().parent.parent
N_SAMPLES, N_GENES = 167, 18_530


def _load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def best_of(step: Callable[[], object], repeat: int) -> float:
    """Best wall time of ``repeat`` calls, seconds."""
    return min(timeit.repeat(step, number=1, repeat=repeat))


def write_linked_table(path: Path, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    values = np.column_stack([rng.integers(0, 2, N_SAMPLES), rng.integers(20, 80, N_SAMPLES),
                              rng.integers(0, 2, N_SAMPLES),
                              rng.lognormal(2, 1, (N_SAMPLES, N_GENES)).round(4)])
    frame = pd.DataFrame(values, index=[f"GSM{1000 + i}" for i in range(N_SAMPLES)],
                         columns=["Trait", "Age", "Gender"]
                         + [f"G{j}" for j in range(N_GENES)])
    frame.to_csv(path)


def write_series_matrix(path: Path, size_mb: float, seed: int = 0) -> None:
    """A gzip series matrix of about ``size_mb`` MB of text (54,675 probes)."""
    rng = np.random.default_rng(seed)
    n_probes = 54_675
    n_samples = max(2, int(size_mb * 1e6 / (n_probes * 8)))
    samples = "\t".join(f'"GSM{1000000 + i}"' for i in range(n_samples))
    lines = ['!Series_title\t"Generated"', f"!Sample_geo_accession\t{samples}",
             "!Sample_characteristics_ch1\t" + "\t".join('"disease: case"'
                                                         for _ in range(n_samples)),
             "!series_matrix_table_begin", f'"ID_REF"\t{samples}']
    values = rng.lognormal(2.0, 1.0, size=(n_probes, n_samples))
    body = pd.DataFrame(values, index=[f'"P{i}_at"' for i in range(n_probes)]).to_csv(
        sep="\t", header=False, float_format="%.6g", quoting=3, lineterminator="\n")
    text = "\n".join(lines) + "\n" + body + "!series_matrix_table_end\n"
    path.write_bytes(gzip.compress(text.encode(), compresslevel=6))


def write_family_soft(path: Path, n_samples: int, seed: int = 0) -> int:
    """A gzip family SOFT: a 22,283-probe platform table, then ``n_samples`` sample tables."""
    rng = np.random.default_rng(seed)
    probes = [f"{200000 + i}_at" for i in range(22_283)]
    lines = ["^SERIES = GSE1", "^PLATFORM = GPL1", "!platform_table_begin",
             "ID\tGene Symbol\tGene Title"]
    lines += [f"{p}\tG{i % 9000}\tgene {i}" for i, p in enumerate(probes)]
    lines.append("!platform_table_end")
    for s in range(n_samples):
        values = rng.lognormal(2.0, 1.0, len(probes))
        lines += [f"^SAMPLE = GSM{s}", "!sample_table_begin", "ID_REF\tVALUE"]
        lines += [f"{p}\t{v:.4f}" for p, v in zip(probes, values)]
        lines.append("!sample_table_end")
    text = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(text, compresslevel=6))
    return len(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=100.0,
                        help="text size of the generated series matrix (default 100)")
    parser.add_argument("--soft-samples", type=int, default=100,
                        help="sample tables after the platform table (default 100)")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions (best is reported)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO_ROOT))
    from genotex.evaluation.numeric_csv import parse_numeric_csv
    from tools.preprocess.geo import get_background_and_clinical_data
    from tools.preprocess.soft import get_gene_annotation
    from tools.statistics.cohort_cache import CohortCache

    print(f"code: {REPO_ROOT}")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        plain = work / "GSE1.csv"
        write_linked_table(plain)
        packed = work / "GSE2.csv"
        packed.write_bytes(gzip.compress(plain.read_bytes(), compresslevel=6))
        size = plain.stat().st_size / 1e6
        print(f"linked table {N_SAMPLES} x {N_GENES + 3}, {size:.1f} MB text")
        for label, path in (("plain", plain), ("gzip", packed)):
            seconds = best_of(lambda: CohortCache().load(path), args.repeat)
            print(f"  CohortCache().load, {label}: {seconds:.3f} s = {size / seconds:.0f} MB/s; "
                  f"{_load()}")
        data = plain.read_bytes()
        seconds = best_of(lambda: parse_numeric_csv(data, plain), args.repeat)
        print(f"  parse_numeric_csv (evaluator): {seconds:.3f} s = {size / seconds:.0f} MB/s; "
              f"{_load()}")

        matrix = work / "GSE3_series_matrix.txt.gz"
        write_series_matrix(matrix, args.size_mb)
        seconds = best_of(lambda: get_background_and_clinical_data(matrix), args.repeat)
        print(f"series matrix ({args.size_mb:.0f} MB text, {matrix.stat().st_size / 1e6:.0f} MB "
              f"gzip): header read (get_background_and_clinical_data) {seconds:.3f} s; "
              f"{_load()}")
        soft = work / "GSE4_family.soft.gz"
        text_bytes = write_family_soft(soft, args.soft_samples)
        seconds = best_of(lambda: get_gene_annotation(soft), args.repeat)
        print(f"family SOFT ({text_bytes / 1e6:.0f} MB text, {soft.stat().st_size / 1e6:.0f} MB "
              f"gzip; platform table, then {args.soft_samples} sample tables): "
              f"get_gene_annotation {seconds:.3f} s; {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
