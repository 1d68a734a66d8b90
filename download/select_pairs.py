"""Recompute the conditions of every trait in ``task_info.json`` (SPEC 8.4 pair rules).

Examples::

    python download/select_pairs.py                        # rewrite conditions in place
    python download/select_pairs.py --threshold 0.2 --output /tmp/task_info.json
    python download/select_pairs.py --compare ../shared/data/opentargets/genomas_task_info.json \\
        --sweep 0.05 0.1 0.15 0.2 --dry-run                # reproduction report only
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

if __package__ in (None, ""):  # run as a script (python download/x.py): use this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from download.defaults import PAPER_THRESHOLD
from utils.arguments import fraction
from utils.errors import InputFileError, command_error
from utils.paths import add_path_arguments, exits_when_root_is_missing, paths_from_args
from utils.tcga_cohorts import CANCER_TRAITS, read_cancer_traits
from utils.runtime import in_utf8_mode

# The pair rules and the task-info format (numpy, pandas, pydantic) are imported in main(),
# after the arguments are parsed, so that --help comes back at once.


def build_parser() -> argparse.ArgumentParser:
    """Argument parser of the pair-selection CLI."""
    parser = argparse.ArgumentParser(
        description="Recompute each trait's conditions from the related genes in "
                    "task_info.json with the rules of docs/download.md ('Pair selection'), "
                    "and write them back (or to "
                    "--output). Optionally compare with a reference task info.")
    add_path_arguments(parser, ("root", "metadata", "task_info"))
    parser.add_argument("--threshold", type=fraction, default=PAPER_THRESHOLD,
                        help="minimum Jaccard index of two traits' related-gene sets "
                             "(default: 0.1, the paper; the upstream notebook used 0.2)")
    parser.add_argument("--strict", action="store_true",
                        help="keep pairs whose Jaccard index exceeds the threshold (>), "
                             "instead of reaching it (>=, the default, which reproduces "
                             "the benchmark)")
    parser.add_argument("--cancer-list", default=CANCER_TRAITS, metavar="PATH",
                        help="traits that are cancers, one per line "
                             "(default: cancer_traits.txt, shipped in the utils package)")
    parser.add_argument("--output", metavar="PATH", default=None,
                        help="write the new task info here instead of over --task-info")
    parser.add_argument("--compare", metavar="JSON", default=None,
                        help="reference task info: report how many of its conditions are "
                             "reproduced (recall) and how many extra pairs appear")
    parser.add_argument("--sweep", nargs="+", type=fraction, metavar="T", default=None,
                        help="with --compare: also report these thresholds")
    parser.add_argument("--dry-run", action="store_true",
                        help="compute and report, write nothing")
    return parser


@in_utf8_mode
@exits_when_root_is_missing
def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run pair selection; return the exit code (0 ok, 2 bad input)."""
    args = build_parser().parse_args(argv)
    from download.pairs import (PairRules, build_task_info, compare_conditions, format_sweep,
                                threshold_sweep)
    from utils.problems import load_task_info
    from utils.schemas.task_info import write_task_info

    paths = paths_from_args(args)
    try:
        task_info = load_task_info(paths.task_info)
        reference = load_task_info(args.compare) if args.compare else None
        cancers = frozenset(read_cancer_traits(args.cancer_list))
    except (InputFileError, OSError) as exc:
        print(command_error(exc), file=sys.stderr)
        return 2
    related = {trait: entry.get("related_genes", []) for trait, entry in task_info.items()}
    rules = PairRules(threshold=args.threshold, inclusive=not args.strict, cancers=cancers)
    rebuilt = build_task_info(related, rules)
    conditions = {t: e["conditions"] for t, e in rebuilt.items()}
    total = sum(len(c) for c in conditions.values())
    print(f"{len(rebuilt)} entities, {total} conditions "
          f"(threshold {args.threshold:g}, {'>' if args.strict else '>='})")
    if reference is not None:
        ref_conditions = {t: e.get("conditions", []) for t, e in reference.items()}
        cmp = compare_conditions(conditions, ref_conditions)
        print(f"vs {args.compare}: reproduced {cmp.reproduced} of {cmp.reference} "
              f"(recall {100 * cmp.recall:.1f}%), {cmp.extra} extra "
              f"(precision {100 * cmp.precision:.1f}%)")
        if args.sweep:
            print(format_sweep(threshold_sweep(related, ref_conditions, args.sweep, rules)))
    if not args.dry_run:
        target = Path(args.output) if args.output else paths.task_info
        write_task_info(target, rebuilt)
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
