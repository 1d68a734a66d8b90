#!/usr/bin/env python
"""A deliberately simple baseline: writes a GenoTEX prediction tree for eval.py.

A thin command line over :func:`genotex.demo.baseline.write_baseline`, whose module
docstring lists the mistakes it makes on purpose.

    python examples/make_baseline.py                       # -> examples/baseline_prediction
    python eval.py -p examples/baseline_prediction         # score it against output/
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional

if __package__ in (None, ""):  # run as a script (python examples/x.py): use this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from utils.logs import add_verbosity_argument, configure_logging  # noqa: E402
from utils.paths import add_path_arguments, paths_from_args  # noqa: E402

# The baseline (numpy, pandas, scipy) is imported in main(), after the arguments are
# parsed, so that --help comes back at once.


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        description="Write the baseline prediction tree (preprocess/ and regress/) from the "
                    "demo inputs: naive automatic preprocessing and a univariate "
                    "correlation ranking (see the module docstring).")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="tree to (re)write (default: <root>/examples/baseline_prediction)")
    add_path_arguments(parser, ("root", "input", "metadata", "task_info"))
    add_verbosity_argument(parser)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run the CLI; returns the exit code."""
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    from genotex.demo.baseline import write_baseline

    paths = paths_from_args(args)
    out = Path(args.out) if args.out else paths.root / "examples" / "baseline_prediction"
    cohorts, written = write_baseline(out, paths.input, paths.task_info)
    print(f"wrote {cohorts} cohort records and {written} regression results under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
