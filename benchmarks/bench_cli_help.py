"""Wall time of ``--help`` of every command line, in one or two checkouts side by side.

Run: ``python benchmarks/bench_cli_help.py [--before OTHER_CHECKOUT] [--repeat N]``.
Each command runs as a new process from the checkout's top folder (the way a user
types it: ``python regress.py --help``, ``python -m genotex.cli.demo --help``); the
figure is the median of ``--repeat`` runs, the two checkouts alternating run by run so
that machine load touches both alike. The machine's load (``os.getloadavg``) is printed
before and after. ``tests/project/test_cli_help.py`` checks the property that makes the
figure small (no numpy, pandas, scipy or scikit-learn imported by ``--help``); this
script only measures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Sequence

REPO = Path(__file__).resolve().parent.parent

#: Every command line: the scripts at the top of a checkout, the download scripts and
#: the ``genotex-*`` entry points that have no script (run with ``python -m``).
COMMANDS = (
    ("regress.py",), ("eval.py",), ("run_agent.py",), ("generate_synthetic.py",),
    ("recompress_files.py",), ("download/download_geo.py",), ("download/download_tcga.py",),
    ("download/get_gene_synonyms.py",), ("download/build_task_info.py",),
    ("download/select_pairs.py",), ("download/manifest.py",),
    ("-m", "genotex.cli.croissant"), ("-m", "genotex.cli.demo"), ("-m", "genotex.cli.recovery"),
)


def time_help(checkout: Path, command: Sequence[str]) -> float:
    """Seconds of one ``python <command> --help`` run in ``checkout``."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *command, "--help"], cwd=checkout,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0 or "usage:" not in done.stdout:
        raise RuntimeError(f"{' '.join(command)} --help failed in {checkout}: "
                           f"{done.stderr[-500:]}")
    return seconds


def measure(checkouts: Dict[str, Path], repeat: int) -> Dict[str, Dict[str, float]]:
    """Median seconds per checkout label and command."""
    runs: Dict[str, Dict[str, List[float]]] = {label: {} for label in checkouts}
    for command in COMMANDS:
        name = " ".join(command)
        for _ in range(repeat):
            for label, checkout in checkouts.items():
                runs[label].setdefault(name, []).append(time_help(checkout, command))
    return {label: {name: statistics.median(values) for name, values in by_name.items()}
            for label, by_name in runs.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, default=None, metavar="CHECKOUT",
                        help="another checkout (e.g. a clone at an older commit) to time "
                             "side by side with this one")
    parser.add_argument("--repeat", type=int, default=5, help="runs per command (median)")
    args = parser.parse_args(argv)
    checkouts = {"before": args.before.resolve()} if args.before else {}
    checkouts["this checkout"] = REPO
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}; "
          f"{os.cpu_count()} CPUs; {sys.executable}")
    medians = measure(checkouts, args.repeat)
    labels = list(checkouts)
    print(f"{'command --help (median of ' + str(args.repeat) + ')':45s}"
          + "".join(f"{label:>16s}" for label in labels))
    for command in COMMANDS:
        name = " ".join(command)
        print(f"{name:45s}" + "".join(f"{medians[label][name]:15.2f}s" for label in labels))
    for label in labels:
        values = list(medians[label].values())
        print(f"{label}: slowest {max(values):.2f} s, median {statistics.median(values):.2f} s")
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
