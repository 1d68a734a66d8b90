"""Benchmark the GEO readers and the probe -> gene mapping.

1. Reading a generated series matrix of ``--size-mb`` MB of uncompressed text
   (plain and gzip, and gzip with one non-numeric cell near the end, which
   once made the reader start over): throughput in MB of text per second,
   how many times the file is opened (``open`` audit events), and peak
   memory measured in a fresh child process as the growth of peak RSS
   (``VmHWM``, reset just before the read) over the RSS just before the read,
   compared with the size of the resulting table (``DataFrame.memory_usage``).
   The child then reads the file twice more: the best of those is the warm
   figure (a long preprocessing run reads file after file in one process; the
   first read of a process also pays for first-touch page faults and pandas'
   first calls). ``--cpus 1`` pins the children to one CPU (no reading thread
   beside the parser).
   Beside them, the two floors of a gzip read timed alone: decompression, and
   pandas parsing the table's bytes from memory. Each figure is printed with
   the load average (the machine may be shared).
2. Mapping a 54,675-probe x 500-sample table to genes (GPL570 annotation) and
   normalizing the symbols through the synonym map built from the real NCBI
   gene_info (map load timed separately).

Run::

    python benchmarks/bench_preprocess.py            # full sizes
    python benchmarks/bench_preprocess.py --size-mb 10 --samples 50   # quick

Uses ../shared/data when present (GPL570 map, gene_info); falls back to
synthetic annotation and synonyms otherwise.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import multiprocessing as mp
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from queue import Empty

import numpy as np
import pandas as pd

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = REPO_ROOT.parent / "shared" / "data"
N_PROBES = 54675


def write_series_matrix(path: Path, size_mb: float, seed: int = 0,
                        text_cell: bool = False) -> tuple:
    """Write a GEO-like series matrix of about ``size_mb`` MB; returns (probes, samples).

    ``text_cell=True`` writes ``n/d`` in the first sample column of the last row.
    """
    rng = np.random.default_rng(seed)
    bytes_per_value = 8  # "%.6g" values average ~7 characters plus the tab
    n_samples = max(2, int(size_mb * 1e6 / (N_PROBES * bytes_per_value)))
    samples = [f"GSM{1000000 + i}" for i in range(n_samples)]
    quoted = "\t".join(f'"{s}"' for s in samples)
    header = "\n".join([
        '!Series_title\t"Generated benchmark series"',
        '!Series_summary\t"Synthetic values"',
        f"!Sample_geo_accession\t{quoted}",
        "!Sample_characteristics_ch1\t" + "\t".join('"disease: case"' for _ in samples),
        "!series_matrix_table_begin",
        f'"ID_REF"\t{quoted}', ""])
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(header)
        block = 5000
        for start in range(0, N_PROBES, block):
            stop = min(start + block, N_PROBES)
            values = rng.lognormal(2.0, 1.0, size=(stop - start, n_samples))
            frame = pd.DataFrame(values, index=[f'"P{i}_at"' for i in range(start, stop)])
            if text_cell and stop == N_PROBES:
                frame = frame.astype(object)
                frame.iloc[-1, 0] = "n/d"
            frame.to_csv(handle, sep="\t", header=False, float_format="%.6g",
                         quoting=3, lineterminator="\n")
        handle.write("!series_matrix_table_end\n")
    return N_PROBES, n_samples


def _reset_peak_rss() -> bool:
    """Reset this process's peak RSS (Linux >= 4.0: ``5`` into ``/proc/self/clear_refs``)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _peak_rss() -> int:
    """Peak RSS of this process in bytes: ``VmHWM`` (Linux), else ``ru_maxrss``.

    ``ru_maxrss`` alone is not enough on Linux: ``execve`` carries the parent's
    peak RSS at ``fork`` time into the child's ``ru_maxrss``, so a spawned child
    of a parent that held the generated files reported the parent's RSS.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


WARM_READS = 2


def _child_read(path: str, queue, cpus: int = 0) -> None:
    import psutil

    from tools.preprocess.geo import get_genetic_data

    if cpus:
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:cpus])

    opens = []
    sys.addaudithook(lambda event, args: opens.append(args[0])
                     if event == "open" and str(args[0]) == path else None)
    _reset_peak_rss()
    rss_before = psutil.Process().memory_info().rss
    start = time.perf_counter()
    table = get_genetic_data(path)
    seconds = time.perf_counter() - start
    peak = _peak_rss()
    result = {"seconds": seconds, "peak_growth": peak - rss_before,
              "table_bytes": int(table.memory_usage(deep=True).sum()),
              "shape": table.shape, "opens": len(opens)}
    del table
    warm = []
    for _ in range(WARM_READS):
        start = time.perf_counter()
        get_genetic_data(path)
        warm.append(time.perf_counter() - start)
    result["warm_seconds"] = min(warm)
    queue.put(result)


def _result_of(child, queue) -> dict:
    """The child's result; a clear error instead of waiting forever when it died."""
    while True:
        try:
            return queue.get(timeout=5)
        except Empty:
            if not child.is_alive():
                raise RuntimeError(f"the reading process failed (exit code {child.exitcode}); "
                                   "its traceback is above") from None


def measure_read(path: Path, text_bytes: int, repeat: int, cpus: int = 0) -> dict:
    """Best-of-``repeat`` read time (first read of a fresh process, and warm) and the
    peak-memory ratio, each run in a fresh process (on ``cpus`` CPUs; 0: all)."""
    context = mp.get_context("spawn")
    runs = []
    for _ in range(repeat):
        queue = context.Queue()
        child = context.Process(target=_child_read, args=(str(path), queue, cpus))
        child.start()
        runs.append(_result_of(child, queue))
        child.join()
    best = min(runs, key=lambda r: r["seconds"])
    warm = min(r["warm_seconds"] for r in runs)
    return {"seconds": best["seconds"], "mb_per_s": text_bytes / 1e6 / best["seconds"],
            "warm_seconds": warm, "warm_mb_per_s": text_bytes / 1e6 / warm,
            "peak_ratio": max(r["peak_growth"] for r in runs) / best["table_bytes"],
            "peak_growth_mb": max(r["peak_growth"] for r in runs) / 1e6,
            "table_mb": best["table_bytes"] / 1e6, "shape": best["shape"],
            "opens": best["opens"]}


def _load() -> str:
    """The 1-minute load average and the CPUs, for the record beside each figure."""
    return f"load {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"


def measure_floors(plain: Path, packed: Path, repeat: int) -> dict:
    """Best-of-``repeat`` times of the two halves of a gzip read, each alone.

    ``gunzip``: decompressing the file with the readers' inflater
    (:data:`utils.io.inflate_module`: ISA-L, or zlib without it; 1 MiB of input
    per call) and discarding the bytes. ``parse``: :func:`pandas.read_csv` (C engine) on the
    table's bytes already in memory, with the readers' options
    (:func:`tools.preprocess.geo.numeric.read_numeric_table`) and none of their
    checks; what any reader built on pandas pays.
    """
    from utils.io import inflate_module

    def gunzip() -> None:
        inflater = inflate_module.decompressobj(wbits=31)
        with open(packed, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                inflater.decompress(block)

    from tools.preprocess.geo.numeric import read_numeric_table

    text = plain.read_bytes()
    header_start = text.index(b"\n", text.index(b"!series_matrix_table_begin")) + 1
    header_end = text.index(b"\n", header_start)
    names = ["ID"] + [name.strip('"') for name in
                      text[header_start:header_end].decode().split("\t")[1:]]
    table = text[header_end + 1:text.index(b"!series_matrix_table_end")]
    del text

    def parse() -> None:
        read_numeric_table(io.BytesIO(table), names)

    floors = {}
    for name, step in (("gunzip", gunzip), ("parse", parse)):
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            step()
            times.append(time.perf_counter() - start)
        floors[name] = min(times)
    return floors


def mapping_inputs(workdir: Path, n_samples: int):
    """Expression table, mapping and synonym-map path for the mapping benchmark."""
    from tools.preprocess.soft import get_gene_annotation, get_gene_mapping

    rng = np.random.default_rng(1)
    gpl570 = SHARED / "geo/platforms/derived_id2symbol/GPL570.txt"
    gene_info = SHARED / "genes/Homo_sapiens.gene_info.gz"
    if gpl570.exists():
        mapping = get_gene_mapping(get_gene_annotation(gpl570), "ID", "symbol")
        probes = get_gene_annotation(gpl570)["ID"].tolist()
    else:
        probes = [f"P{i}_at" for i in range(N_PROBES)]
        genes = [f"GENE{i}" for i in range(20000)]
        texts = [" /// ".join(rng.choice(genes, size=rng.integers(0, 3)))
                 for _ in probes]
        mapping = pd.DataFrame({"ID": probes, "Gene": texts})
    if gene_info.exists():
        from utils.gene_maps import build_gene_synonyms
        synonym_path = build_gene_synonyms(gene_info, workdir / "meta")["synonyms"]
    else:
        symbols = {t for text in mapping["Gene"] for t in str(text).split(" /// ")}
        synonym_path = workdir / "gene_synonym.json"
        synonym_path.write_text(json.dumps({s.upper(): s for s in symbols if s}))
    values = rng.lognormal(2.0, 1.0, size=(len(probes), n_samples))
    values[rng.random(values.shape) < 0.01] = np.nan
    expression = pd.DataFrame(values, index=pd.Index(probes, name="ID"),
                              columns=[f"GSM{i}" for i in range(n_samples)])
    return expression, mapping, synonym_path


def measure_mapping(expression, mapping, synonym_path, repeat: int) -> dict:
    from tools.preprocess.gene_mapping import apply_gene_mapping, normalize_gene_symbols_in_index
    from utils.symbols import load_synonym_map

    start = time.perf_counter()
    synonyms = load_synonym_map(synonym_path)
    load_seconds = time.perf_counter() - start
    times, map_times = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        genes = apply_gene_mapping(expression, mapping)
        middle = time.perf_counter()
        normalized = normalize_gene_symbols_in_index(genes, synonym_path=synonym_path,
                                                     synonyms=synonyms)
        times.append(time.perf_counter() - start)
        map_times.append(middle - start)
    return {"best": min(times), "median": statistics.median(times),
            "map_only_best": min(map_times), "load_seconds": load_seconds,
            "genes": genes.shape[0], "normalized": normalized.shape[0]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=100.0,
                        help="uncompressed size of the generated series matrix (default 100)")
    parser.add_argument("--samples", type=int, default=500,
                        help="samples of the mapping benchmark table (default 500)")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions (best is reported)")
    parser.add_argument("--workdir", default=None,
                        help="folder for generated files (default: a temporary folder)")
    parser.add_argument("--cpus", type=int, default=0,
                        help="CPUs the reading processes may use (default: all; 1: no "
                             "reading thread beside the parser)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO_ROOT))

    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        workdir = Path(tmp)
        plain = workdir / "GSE0_series_matrix.txt"
        n_probes, n_samples = write_series_matrix(plain, args.size_mb)
        text_bytes = plain.stat().st_size
        packed = workdir / "GSE0_series_matrix.txt.gz"
        packed.write_bytes(gzip.compress(plain.read_bytes(), compresslevel=6))
        print(f"series matrix: {n_probes} probes x {n_samples} samples, "
              f"{text_bytes / 1e6:.1f} MB text, {packed.stat().st_size / 1e6:.1f} MB gzip")
        texty = workdir / "GSE1_series_matrix.txt.gz"
        write_series_matrix(workdir / "GSE1_series_matrix.txt", args.size_mb, text_cell=True)
        texty.write_bytes(gzip.compress((workdir / "GSE1_series_matrix.txt").read_bytes(),
                                        compresslevel=6))
        (workdir / "GSE1_series_matrix.txt").unlink()
        floors = measure_floors(plain, packed, args.repeat)
        from utils.io import inflate_module
        print(f"  floors ({_load()}): gunzip alone ({inflate_module.__name__}) "
              f"{floors['gunzip']:.2f} s = "
              f"{text_bytes / 1e6 / floors['gunzip']:.0f} MB/s; pandas parsing the table "
              f"from memory {floors['parse']:.2f} s = "
              f"{text_bytes / 1e6 / floors['parse']:.0f} MB/s")
        for label, path in (("plain", plain), ("gzip", packed), ("gzip, one text cell", texty)):
            result = measure_read(path, text_bytes, args.repeat, args.cpus)
            print(f"  read {label}: {result['seconds']:.2f} s = "
                  f"{result['mb_per_s']:.0f} MB/s of text (warm process "
                  f"{result['warm_seconds']:.2f} s = {result['warm_mb_per_s']:.0f} MB/s"
                  f"{'' if not args.cpus else f', {args.cpus} CPU(s)'}); "
                  f"file opened {result['opens']} "
                  f"time(s); peak RSS growth {result['peak_growth_mb']:.0f} MB = "
                  f"{result['peak_ratio']:.2f} x table ({result['table_mb']:.0f} MB); "
                  f"{_load()}")

        expression, mapping, synonym_path = mapping_inputs(workdir, args.samples)
        result = measure_mapping(expression, mapping, synonym_path, args.repeat)
        print(f"mapping + normalization: {expression.shape[0]} probes x "
              f"{expression.shape[1]} samples -> {result['genes']} genes -> "
              f"{result['normalized']} symbols")
        print(f"  best {result['best']:.3f} s (median {result['median']:.3f} s; mapping "
              f"alone {result['map_only_best']:.3f} s); synonym map load (cold) "
              f"{result['load_seconds']:.2f} s; {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
