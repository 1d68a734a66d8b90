"""Rebuild the bundled demo from scratch (``python -m genotex.cli.demo``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from utils.logs import add_verbosity_argument, configure_logging
from utils.paths import add_path_arguments, exits_when_root_is_missing, paths_from_args
from utils.runtime import in_utf8_mode

# The build (nbformat, nbclient, the generator) is imported in main(), after the
# arguments are parsed, so that --help comes back at once.

#: The steps of genotex.demo.build, in the order they run.
STEPS = ("maps", "task-info", "input", "notebooks", "regress", "baseline", "croissant")
DEFAULT_GENE_INFO = Path("..") / "shared" / "data" / "genes" / "Homo_sapiens.gene_info.gz"
DEFAULT_SOURCE_TASK_INFO = (Path("..") / "shared" / "data" / "opentargets"
                            / "genomas_task_info.json")


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        description="Rebuild the offline demo from scratch: demo gene maps, task info, "
                    "synthetic inputs and truth, executed notebooks (output/preprocess), "
                    "regress.py results, the baseline prediction tree and metadata.json.")
    parser.add_argument("--steps", nargs="+", choices=STEPS, default=list(STEPS),
                        help="steps to run; they always run in the order maps, task-info, "
                             "input, notebooks, regress, baseline, croissant (default: all)")
    parser.add_argument("--gene-info", type=Path, default=None, metavar="PATH",
                        help="NCBI Homo_sapiens.gene_info(.gz) for the maps step (default: "
                             f"<root>/{DEFAULT_GENE_INFO})")
    parser.add_argument("--source-task-info", type=Path, default=None, metavar="PATH",
                        help="the real task_info.json whose related genes and conditions the "
                             f"demo keeps (default: <root>/{DEFAULT_SOURCE_TASK_INFO})")
    parser.add_argument("--code-dir", type=Path, default=None, metavar="PATH",
                        help="where the notebooks go (default: <root>/code)")
    parser.add_argument("--cohorts", nargs="+", default=None, metavar="TRAIT/COHORT",
                        help="notebooks step: only these cohorts (e.g. Heart_rate/GSE9100501); "
                             "output/preprocess is then not cleared first")
    add_path_arguments(parser, ("root", "input", "output", "metadata"))
    add_verbosity_argument(parser)
    return parser


def _selected_cohorts(names: Optional[Sequence[str]]) -> list:
    if not names:
        return []
    from genotex.demo.cohorts import all_cohorts

    known = {f"{d.trait}/{d.cohort}": d for d in all_cohorts()}
    missing = [name for name in names if name not in known]
    if missing:
        raise SystemExit(f"error: unknown cohort(s) {missing}; known: {sorted(known)}")
    return [known[name] for name in names]


@in_utf8_mode
@exits_when_root_is_missing
def main(argv: Optional[List[str]] = None) -> int:
    """Run the CLI; returns the exit code."""
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    from genotex.demo.build import (DemoBuildError, build_baseline, build_croissant,
                                    build_input, build_maps, build_notebooks, build_regress,
                                    build_task_info)
    from utils.errors import InputFileError

    paths = paths_from_args(args)
    root = paths.root
    gene_info = (args.gene_info or root / DEFAULT_GENE_INFO).resolve()
    source_task_info = (args.source_task_info or root / DEFAULT_SOURCE_TASK_INFO).resolve()
    steps = [step for step in STEPS if step in args.steps]
    for needed, path in (("maps", gene_info), ("maps", source_task_info),
                         ("task-info", source_task_info)):
        if needed in steps and not path.is_file():
            raise SystemExit(f"error: {path}: not found (needed by the {needed} step)")
    actions = {
        "maps": lambda: build_maps(paths, gene_info, source_task_info),
        "task-info": lambda: build_task_info(paths, source_task_info),
        "input": lambda: build_input(paths),
        "notebooks": lambda: build_notebooks(paths, args.code_dir or root / "code",
                                             _selected_cohorts(args.cohorts)),
        "regress": lambda: build_regress(paths),
        "baseline": lambda: build_baseline(paths),
        "croissant": lambda: build_croissant(paths),
    }
    for step in steps:
        print(f"## {step}", flush=True)
        try:
            actions[step]()
        except (DemoBuildError, InputFileError) as exc:
            print(f"error: step {step} failed: {exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
