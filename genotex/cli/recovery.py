"""Planted-gene recovery of a regress tree (``python -m genotex.cli.recovery``)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import List, Optional

from genotex.synthetic.options import TRUTH_NAME
from utils.errors import InputFileError
from utils.paths import add_path_arguments, exits_when_root_is_missing, paths_from_args
from utils.runtime import in_utf8_mode

# The recovery computation (numpy) is imported in main(), after the arguments are parsed.


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        description="AUROC of the regression results against the planted genes of the "
                    "synthetic truth, per problem category (two-step problems: the planted "
                    "genes that stay in X).")
    add_path_arguments(parser, ("root", "output", "metadata", "task_info"))
    parser.add_argument("--truth", metavar="FILE", default=None,
                        help=f"synthetic truth JSON (default: <metadata>/{TRUTH_NAME})")
    parser.add_argument("--per-problem", action="store_true",
                        help="also print one line per problem")
    parser.add_argument("--json", metavar="FILE", default=None,
                        help="write the per-problem rows and the table as JSON")
    return parser


@in_utf8_mode
@exits_when_root_is_missing
def main(argv: Optional[List[str]] = None) -> int:
    """Run the CLI; returns the exit code."""
    args = build_parser().parse_args(argv)
    from genotex.demo.recovery import category_table, format_table, tree_recovery
    from utils.io import read_json
    from utils.problems import load_task_info

    paths = paths_from_args(args)
    try:
        truth = read_json(args.truth or paths.metadata / TRUTH_NAME)
        task_info = load_task_info(paths.task_info)
        rows = tree_recovery(paths.preprocess, paths.regress, task_info, truth)
    except InputFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    table = category_table(rows)
    if args.per_problem:
        for row in rows:
            print(f"{row.problem:45s} {row.category:22s} {row.cohort:11s} {row.status:11s} "
                  f"AUROC {row.auroc:.3f}  planted {row.n_hits}/{row.n_positive} "
                  f"in top {row.n_predicted} of {row.n_universe}")
    print(format_table(table))
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"problems": [asdict(r) for r in rows], "categories": table}, indent=1,
            allow_nan=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
