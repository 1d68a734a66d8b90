#!/usr/bin/env python
"""The labelled numeric table parser, two checkouts side by side (issue 27).

Parses each given CSV table (header, row labels, numbers) with
``utils.io.numeric_table.parse_numeric_rows`` of this checkout and of another one
(``--before``, e.g. ``git archive COMMIT | tar -x -C DIR``), both loaded in this
process (their imports from this checkout), ``--repeat`` times each; prints the
best CPU time of each
as MB of the table's body per CPU-second (``time.process_time``: on a machine
shared with other jobs it moves far less than wall time) and whether both give
the same labels and the same bits. The process keeps the memory it frees, as the
evaluator does (:func:`genotex.evaluation.allocator.retain_freed_memory`).

Usage::

    python benchmarks/bench_numeric_table.py --before /tmp/before \\
        /tmp/pipe/bench/reference/preprocess/Trait_002/gene_data/GSE9300280.csv
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import List, Optional

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from genotex.evaluation.allocator import retain_freed_memory  # noqa: E402


def load_parser(checkout: Path, name: str) -> ModuleType:
    """``utils/io/numeric_table.py`` of ``checkout`` as a module of its own."""
    spec = importlib.util.spec_from_file_location(name, checkout / "utils/io/numeric_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def best_cpu(parser: ModuleType, body: memoryview, columns: int, path: Path,
             repeat: int) -> tuple:
    """Best CPU seconds of ``repeat`` parses, and the last parse's result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        result = parser.parse_numeric_rows(body, columns, path)
        best = min(best, time.process_time() - start)
    return best, result


def same_result(first: tuple, second: tuple) -> bool:
    """Same labels, same shape and the same bits."""
    return (first[0] == second[0] and first[1].shape == second[1].shape
            and np.array_equal(first[1].view(np.int64), second[1].view(np.int64)))


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tables", nargs="+", type=Path, help="CSV tables (uncompressed)")
    parser.add_argument("--before", type=Path, required=True,
                        help="the other checkout (the code before the change)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="parses of each table by each checkout (default 3)")
    args = parser.parse_args(argv)
    retain_freed_memory()
    parsers = {"before": load_parser(args.before.resolve(), "numeric_table_before"),
               "after": load_parser(REPO, "numeric_table_after")}
    print(f"load {os.getloadavg()[0]:.2f}")
    for path in args.tables:
        data = path.read_bytes()
        newline = data.find(b"\n")
        columns = data[:newline].count(b",")
        body = memoryview(data)[newline + 1:]
        megabytes = len(body) / 1e6
        runs = {name: best_cpu(module, body, columns, path, args.repeat)
                for name, module in parsers.items()}
        same = same_result(runs["before"][1], runs["after"][1])
        print(f"{path}: {megabytes:.0f} MB, {runs['after'][1][1].shape}: before "
              f"{megabytes / runs['before'][0]:.0f}, after {megabytes / runs['after'][0]:.0f} "
              f"MB per CPU-second; {'same labels and bits' if same else 'DIFFERENT RESULTS'}")
        if not same:
            return 1
    print(f"load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
