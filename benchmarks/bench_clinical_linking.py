"""Timing of clinical/TCGA parsing, linking, missing values, bias and cohort_info.

Run: ``python benchmarks/bench_clinical_linking.py`` (prints best-of-3 seconds).
The real LUAD clinicalMatrix is used when ``../shared/data`` is present.
"""

from __future__ import annotations

import gzip
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.preprocess.bias import judge_and_remove_biased_features  # noqa: E402
from tools.preprocess.cohort_info import validate_and_save_cohort_info  # noqa: E402
from tools.preprocess.linking import (  # noqa: E402
    geo_link_clinical_genetic_data, handle_missing_values)
from tools.preprocess.tcga import (  # noqa: E402
    tcga_read_clinical_data, tcga_read_genetic_data, tcga_select_clinical_features)

LUAD = (Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "tcga" / "LUAD"
        / "TCGA.LUAD.sampleMap_LUAD_clinicalMatrix")


def best_of(func, repeat: int = 3) -> float:
    """Best wall time of ``repeat`` calls, seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def cohort_tables(n_samples: int, n_genes: int, missing: float, seed: int = 0):
    """Clinical (features x samples) and gene (genes x samples) tables."""
    rng = np.random.default_rng(seed)
    samples = [f"GSM{i}" for i in range(n_samples)]
    clinical = pd.DataFrame([rng.integers(0, 2, n_samples).astype(float),
                             rng.uniform(20, 80, n_samples),
                             rng.integers(0, 2, n_samples).astype(float)],
                            index=["Trait", "Age", "Gender"], columns=samples)
    values = rng.normal(size=(n_genes, n_samples))
    values[rng.random(values.shape) < missing] = np.nan
    genes = pd.DataFrame(values, index=[f"G{i}" for i in range(n_genes)], columns=samples)
    return clinical, genes


def linking_pipeline(clinical: pd.DataFrame, genes: pd.DataFrame) -> None:
    linked = geo_link_clinical_genetic_data(clinical, genes)
    linked = handle_missing_values(linked, "Trait")
    judge_and_remove_biased_features(linked, "Trait", verbose=False)


def _writer(path: str, worker: int, n_cohorts: int) -> None:
    table = pd.DataFrame({"Trait": [0.0, 1.0], "G1": [1.0, 2.0]})
    for i in range(n_cohorts):
        validate_and_save_cohort_info(True, f"GSE{worker}_{i}", path, True, True, False,
                                      table)


def concurrent_writes(n_workers: int = 8, n_cohorts: int = 20) -> float:
    """Wall time of n_workers forked processes writing n_cohorts records each."""
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "Trait" / "cohort_info.json")
        context = multiprocessing.get_context("fork")
        workers = [context.Process(target=_writer, args=(path, w, n_cohorts))
                   for w in range(n_workers)]
        start = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        return time.perf_counter() - start


def hiseq_read_seconds(n_genes: int = 20530, n_samples: int = 576) -> tuple:
    """(MB of text, best read time) of a generated gzipped HiSeqV2-shaped matrix."""
    rng = np.random.default_rng(1)
    table = pd.DataFrame(np.round(rng.uniform(0, 15, (n_genes, n_samples)), 4),
                         index=pd.Index([f"G{i}" for i in range(n_genes)], name="sample"),
                         columns=[f"TCGA-AA-{i:04d}-01" for i in range(n_samples)])
    text = table.to_csv(sep="\t").encode()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "TCGA.X.sampleMap_HiSeqV2.gz"
        path.write_bytes(gzip.compress(text, 1))
        return len(text) / 1e6, best_of(lambda: tcga_read_genetic_data(path), repeat=2)


def main() -> None:
    for n_samples, n_genes in ((500, 20000), (22, 54675)):
        clinical, genes = cohort_tables(n_samples, n_genes, missing=0.01)
        seconds = best_of(lambda: linking_pipeline(clinical, genes))
        print(f"link + missing values + bias, {n_samples} samples x {n_genes} genes "
              f"(1% NaN): {seconds:.3f} s")
    print(f"cohort_info: 8 processes x 20 records (locked, atomic, fsync): "
          f"{concurrent_writes():.2f} s")
    if LUAD.exists():
        seconds = best_of(lambda: tcga_select_clinical_features(
            tcga_read_clinical_data(LUAD), "Lung_Cancer",
            "age_at_initial_pathologic_diagnosis", "gender"))
        print(f"LUAD clinicalMatrix read + trait/age/gender (706 x 157): {seconds:.3f} s")
    megabytes, seconds = hiseq_read_seconds()
    print(f"HiSeqV2-shaped matrix 20530 x 576 ({megabytes:.0f} MB text, gzip): "
          f"{seconds:.2f} s ({megabytes / seconds:.0f} MB/s)")


if __name__ == "__main__":
    main()
