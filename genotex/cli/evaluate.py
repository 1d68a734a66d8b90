"""Score prediction trees against the reference outputs (docs/evaluation.md).

Examples
--------
python eval.py -p my_agent_output                       # every task, REF = the project's output/
python eval.py -p pred -r output -t analysis -g metadata/gene_synonym.json
python eval.py --pred-dir pred --ref-dir output --tasks preprocessing \\
    --preprocess-subtasks gene linked --report results/report.json
python eval.py -p agentA=runs/a agentB=runs/b baseline --html compare.html
python eval.py -p runs/random3        # a run folder of repeats (run_agent.py --repeats 3):
                                      # every repeat scored, the leaderboard shows mean +- sd
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from genotex.evaluation.layout import SUBTASKS, TASKS, NotATreeError, check_prediction_tree
from genotex.evaluation.untrusted import MIB, Limits
from utils.arguments import positive_float, positive_int
from utils.errors import InputFileError
from utils.logs import add_verbosity_argument, configure_logging
from utils.paths import ENV_OUTPUT, add_path_arguments, exits_when_root_is_missing, paths_from_args
from utils.runtime import in_utf8_mode

# The evaluator and its readers (numpy, pandas, scipy) are imported in main(), after the
# arguments are parsed, so that --help and usage errors come back at once.

logger = logging.getLogger("eval")

REFERENCE_HELP = (
    "root of the reference tree (default: $GENOTEX_OUTPUT if set, else the output/ folder "
    "of the GenoTEX checkout that holds the working directory, i.e. ./output when run from "
    "the checkout's top folder, else output/ of the checkout this program belongs to)")


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface (the seed README's flags, both forms, plus extras)."""
    parser = argparse.ArgumentParser(
        description="Evaluate GenoTEX prediction trees (preprocess/ and regress/ laid out "
                    "like output/) against a reference tree: dataset filtering and "
                    "selection, preprocessing (AJ, SJ, CSC) and statistical analysis "
                    "(precision, recall, F1, Jaccard, AUROC, GSEA ES). Several prediction "
                    "trees give a leaderboard.")
    parser.add_argument("-p", "--pred-dir", "--pred", dest="pred", nargs="+", required=True,
                        metavar="PRED",
                        help="root of a prediction tree (holds preprocess/ and regress/); "
                             "several give a leaderboard; NAME=PRED names a method (default "
                             "name: the folder's); a run folder of repeats (run_agent.py "
                             "--repeats: repeat-<k>/prediction) is scored repeat by repeat and "
                             "ranked by mean +- sd")
    parser.add_argument("-r", "--ref-dir", "--ref", dest="ref", default=None, metavar="REF",
                        help=REFERENCE_HELP)
    parser.add_argument("-t", "--tasks", nargs="+", choices=TASKS, default=list(TASKS),
                        metavar="TASK", help=f"tasks to evaluate, any of {', '.join(TASKS)} "
                                             "(default: all)")
    parser.add_argument("-s", "--preprocess-subtasks", "--subtasks", dest="subtasks",
                        nargs="+", choices=SUBTASKS, default=list(SUBTASKS), metavar="SUBTASK",
                        help="preprocessing tables to compare, any of "
                             f"{', '.join(SUBTASKS)} (default: all)")
    parser.add_argument("-g", "--gene-synonyms", default=None, metavar="SYNONYMS",
                        help="gene synonym JSON {ALIAS_UPPER: Official}; when given, analysis "
                             "gene symbols are mapped through it before comparison. Default, "
                             "and the canonical reading the leaderboard reports: compare "
                             "upper-cased symbols as written (normalizing symbols is part of "
                             "the method's preprocessing; docs/evaluation.md)")
    add_path_arguments(parser, ("task_info",))
    parser.add_argument("--legacy", action="store_true",
                        help="score with the original GenoTEX evaluator's conventions where "
                             "they differ (is_available labels and per-trait averages for "
                             "filtering, a 20,000-gene universe, failed problems left out "
                             "of the means...), to compare with published tables; see "
                             "docs/evaluation.md")
    parser.add_argument("--report", default=None, metavar="FILE",
                        help="write the full JSON report here, plus one CSV per task part "
                             "beside it (FILE stem + .filtering.csv, .dataset_selection.csv, "
                             ".preprocessing.csv, .analysis.csv; with several methods also "
                             ".leaderboard.csv)")
    parser.add_argument("--html", default=None, metavar="FILE",
                        help="write a self-contained HTML report with plots (works offline)")
    parser.add_argument("-j", "--jobs", type=positive_int, default=None, metavar="N",
                        help="worker processes for the preprocessing comparison "
                             "(default: available cores)")
    parser.add_argument("--max-json-mb", type=positive_float, default=Limits.max_json_bytes / MIB,
                        metavar="MB", help="largest predicted JSON file read "
                                           "(default: %(default).0f)")
    parser.add_argument("--max-table-mb", type=positive_float, default=Limits.max_table_bytes / MIB,
                        metavar="MB",
                        help="largest predicted CSV read, unless its reference table is "
                             f"larger: then up to {Limits.table_size_ratio:g}x the reference "
                             "(default: %(default).0f)")
    parser.add_argument("--no-progress", action="store_true",
                        help="do not show progress bars")
    add_verbosity_argument(parser)
    return parser


def method_and_path(argument: str) -> Tuple[Optional[str], str]:
    """``NAME=PATH`` -> ``(NAME, PATH)``; an existing path, even one holding ``=``, or a
    plain path -> ``(None, PATH)``."""
    name, sep, path = argument.partition("=")
    if sep and name and path and not os.path.exists(argument):
        return name, path
    return None, argument


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _predictions(arguments: List[str]) -> Tuple[List[Tuple[str, Path]], List[str]]:
    """``[(method, folder)]`` and the problems (folders that do not exist)."""
    from genotex.evaluation.leaderboard import unique_method_names

    named = [method_and_path(argument) for argument in arguments]
    folders = [Path(path).expanduser() for _, path in named]
    names = unique_method_names([name or folder.resolve().name or str(folder)
                                 for (name, _), folder in zip(named, folders)])
    problems = [f"prediction folder {folder} does not exist" if not folder.exists()
                else f"prediction {folder} is not a folder"
                for folder in folders if not folder.is_dir()]
    return list(zip(names, folders)), problems


@in_utf8_mode
@exits_when_root_is_missing
def main(argv: Optional[List[str]] = None) -> int:
    """Run the evaluation; returns the process exit code (2 for a usage problem)."""
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    paths = paths_from_args(args)
    predictions, problems = _predictions(args.pred)
    if problems:
        return _error("; ".join(problems) + " (pass -p PRED, the folder holding preprocess/ "
                      "and regress/)")
    tasks = tuple(t for t in TASKS if t in args.tasks)
    from genotex.evaluation.repeats import MethodRuns, find_repeats, repeated_leaderboard

    # a run folder of repeats (run_agent.py --repeats) stands for its repeats' trees
    repeats = [find_repeats(folder) for _, folder in predictions]
    warnings: List[str] = []
    try:
        for (_, folder), trees in zip(predictions, repeats):
            for tree in trees or [folder]:
                if tree.is_dir():
                    warnings += check_prediction_tree(tree, tasks)
                else:
                    warnings.append(f"{tree} does not exist: that repeat scores 0")
    except NotATreeError as exc:
        return _error(str(exc))
    try:
        reference = Path(args.ref).expanduser().resolve() if args.ref else paths.output
    except InputFileError as exc:
        return _error(f"{exc} (pass -r REF or set {ENV_OUTPUT})")
    if not reference.is_dir():
        problem = "is not a folder" if reference.exists() else "does not exist"
        return _error(f"reference folder {reference} {problem} (pass -r REF or set "
                      f"{ENV_OUTPUT})")
    from utils.io import prepare_target
    for output in (args.report, args.html):  # a bad path is said now, not after the work
        if output:
            prepare_target(output)
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    from genotex.evaluation.evaluator import EvaluationSettings, Evaluator, default_jobs
    from genotex.evaluation.html_report import write_html_report
    from genotex.evaluation.leaderboard import build_leaderboard
    from genotex.evaluation.report import write_comparison, write_report
    from genotex.evaluation.text_summary import format_leaderboard, format_report
    from utils.problems import load_task_info
    from utils.symbols import load_synonym_map

    task_info = None
    if {"selection", "analysis"} & set(tasks):
        try:
            task_info = load_task_info(paths.task_info)
        except InputFileError as exc:
            return _error(f"task info needed for dataset selection and analysis: {exc} "
                          "(pass --task-info)")
    synonyms = None
    if args.gene_synonyms:
        try:
            synonyms = load_synonym_map(args.gene_synonyms)
        except InputFileError as exc:
            return _error(str(exc))
    limits = Limits(max_json_bytes=int(args.max_json_mb * MIB),
                    max_table_bytes=int(args.max_table_mb * MIB))
    settings = EvaluationSettings(
        tasks=tasks, subtasks=tuple(s for s in SUBTASKS if s in args.subtasks),
        synonyms=synonyms, synonyms_file=args.gene_synonyms, limits=limits,
        jobs=args.jobs if args.jobs else default_jobs(),
        progress=not args.no_progress and sys.stderr.isatty(), legacy=args.legacy)
    methods = [MethodRuns(name, folder, [], trees is not None)
               for (name, folder), trees in zip(predictions, repeats)]
    reports: List[Dict[str, Any]] = []
    for method, trees in zip(methods, repeats):
        for tree in trees or [method.folder]:
            name = f"{method.method}/{tree.parent.name}" if method.repeated else method.method
            report = Evaluator(tree, reference, task_info, settings, method=name).run()
            reports.append(report)
            method.reports.append(report)
    if any(method.repeated for method in methods):
        leaderboard = repeated_leaderboard(methods)
    else:
        leaderboard = build_leaderboard(reports) if len(reports) > 1 else None
    if leaderboard is None:
        sys.stdout.write(format_report(reports[0]))
    else:
        sys.stdout.write(format_leaderboard(leaderboard, reports))
    written: List[Path] = []
    if args.report:
        written += (write_report(reports[0], args.report) if leaderboard is None
                    else write_comparison(leaderboard, reports, args.report))
    if args.html:
        written.append(write_html_report(reports, args.html, leaderboard))
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
