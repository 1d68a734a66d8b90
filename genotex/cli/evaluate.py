"""Score a prediction tree against the reference outputs (SPEC 6).

Examples
--------
python eval.py -p my_agent_output                       # every task, REF = ./output
python eval.py -p pred -r output -t analysis -g metadata/gene_synonym.json
python eval.py -p pred -t preprocessing -s gene linked --report results/report.json
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import List, Optional

from genotex.evaluation.evaluator import TASKS, EvaluationSettings, Evaluator, default_jobs
from genotex.evaluation.report import format_report, write_report
from genotex.evaluation.tree import SUBTASKS
from genotex.evaluation.untrusted import MIB, Limits
from utils.errors import InputFileError
from utils.logs import add_verbosity_argument, configure_logging
from utils.paths import add_path_arguments, exits_when_root_is_missing, paths_from_args
from utils.problems import load_task_info
from utils.symbols import load_synonym_map

logger = logging.getLogger("eval")


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        description="Evaluate a GenoTEX prediction tree (preprocess/ and regress/ laid out "
                    "like output/) against a reference tree: dataset filtering and "
                    "selection, preprocessing (AJ, SJ, CSC) and statistical analysis "
                    "(precision, recall, F1, Jaccard, AUROC, GSEA ES).")
    parser.add_argument("-p", "--pred", required=True, metavar="PRED",
                        help="root of the prediction tree (holds preprocess/ and regress/)")
    parser.add_argument("-r", "--ref", default=None, metavar="REF",
                        help="root of the reference tree (default: the project's output "
                             "folder, ./output, or env GENOTEX_OUTPUT)")
    parser.add_argument("-t", "--tasks", nargs="+", choices=TASKS, default=list(TASKS),
                        metavar="TASK", help=f"tasks to evaluate, any of {', '.join(TASKS)} "
                                             "(default: all)")
    parser.add_argument("-s", "--subtasks", nargs="+", choices=SUBTASKS,
                        default=list(SUBTASKS), metavar="SUBTASK",
                        help="preprocessing tables to compare, any of "
                             f"{', '.join(SUBTASKS)} (default: all)")
    parser.add_argument("-g", "--gene-synonyms", default=None, metavar="SYNONYMS",
                        help="gene synonym JSON {ALIAS_UPPER: Official}; when given, analysis "
                             "gene symbols are mapped through it before comparison "
                             "(default: compare upper-cased symbols as written)")
    add_path_arguments(parser, ("task_info",))
    parser.add_argument("--report", default=None, metavar="FILE",
                        help="write the full JSON report here, plus one CSV per task part "
                             "beside it (FILE stem + .filtering.csv, .dataset_selection.csv, "
                             ".preprocessing.csv, .analysis.csv)")
    parser.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                        help="worker processes for the preprocessing comparison "
                             "(default: available cores)")
    parser.add_argument("--max-json-mb", type=float, default=Limits.max_json_bytes / MIB,
                        metavar="MB", help="largest predicted JSON file read "
                                           "(default: %(default).0f)")
    parser.add_argument("--max-table-mb", type=float, default=Limits.max_table_bytes / MIB,
                        metavar="MB",
                        help="largest predicted CSV read, unless its reference table is "
                             f"larger: then up to {Limits.table_size_ratio:g}x the reference "
                             "(default: %(default).0f)")
    parser.add_argument("--no-progress", action="store_true",
                        help="do not show progress bars")
    add_verbosity_argument(parser)
    return parser


@exits_when_root_is_missing
def main(argv: Optional[List[str]] = None) -> int:
    """Run the evaluation; returns the process exit code."""
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    paths = paths_from_args(args)
    reference = Path(args.ref).expanduser().resolve() if args.ref else paths.output
    if not reference.is_dir():
        print(f"error: reference tree {reference} is not a folder (pass -r REF)",
              file=sys.stderr)
        return 2
    tasks = tuple(t for t in TASKS if t in args.tasks)
    task_info = None
    if {"selection", "analysis"} & set(tasks):
        try:
            task_info = load_task_info(paths.task_info)
        except InputFileError as exc:
            print(f"error: task info needed for dataset selection and analysis: {exc} "
                  "(pass --task-info)", file=sys.stderr)
            return 2
    synonyms = None
    if args.gene_synonyms:
        try:
            synonyms = load_synonym_map(args.gene_synonyms)
        except InputFileError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    limits = Limits(max_json_bytes=int(args.max_json_mb * MIB),
                    max_table_bytes=int(args.max_table_mb * MIB))
    settings = EvaluationSettings(
        tasks=tasks, subtasks=tuple(s for s in SUBTASKS if s in args.subtasks),
        synonyms=synonyms, limits=limits,
        jobs=args.jobs if args.jobs else default_jobs(),
        progress=not args.no_progress and sys.stderr.isatty())
    report = Evaluator(args.pred, reference, task_info, settings).run()
    sys.stdout.write(format_report(report))
    if args.report:
        for path in write_report(report, args.report):
            print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
