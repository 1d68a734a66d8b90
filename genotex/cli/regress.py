"""Statistical analysis of every gene-trait association problem (SPEC 5).

Reads the preprocess tree (``cohort_info.json`` and linked tables), selects
the cohort(s) of each problem, runs the Lasso or LMM analysis (or the model
named by ``--model``) and writes
``<regress>/<Trait>/significant_genes_condition_<C>.json``.

Examples
--------
    python regress.py                          # every problem of metadata/task_info.json
    python regress.py --traits Breast_Cancer "Crohn's Disease"
    python regress.py --problems "Breast_Cancer|Age" "Asthma|Obesity" -j 2
    python regress.py --scheduler tcp://10.0.0.5:8786 --force
    python regress.py --model lasso            # the Lasso path for every problem
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from genotex.regress.runner import RunSettings, SchedulerError, check_inputs, run_problems
from tools.statistics.inputs import AUTO, AnalysisConfig
from tools.statistics.models import model_names
from utils.errors import InputFileError
from utils.logs import add_verbosity_argument, configure_logging
from utils.paths import add_path_arguments, exits_when_root_is_missing, paths_from_args
from utils.problems import (Problem, TraitNameError, enumerate_problems, load_task_info,
                            normalize_trait, parse_problem)

logger = logging.getLogger("regress")


class UsageError(ValueError):
    """A command line that names something that does not exist."""


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        description="Find the genes significantly associated with each trait (optionally "
                    "given a condition) and write one JSON per problem. Problems whose "
                    "result is up to date (same input fingerprint) are skipped unless "
                    "--force.")
    parser.add_argument("--traits", nargs="+", metavar="TRAIT",
                        help="only these traits (all their problems); names are normalized "
                             "like folder names")
    parser.add_argument("--problems", nargs="+", metavar="TRAIT|CONDITION",
                        help="only these problems, e.g. 'Asthma|None' 'Asthma|Age' "
                             "'Asthma|Obesity' (None = unconditional)")
    parser.add_argument("-j", "--jobs", type=int, default=1,
                        help="local worker processes (default: 1); with fewer processes "
                             "than cores, a problem's LMM fits use cores // jobs threads")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on a Dask distributed cluster at this scheduler address "
                             "(e.g. tcp://host:8786). The scheduler needs only Dask; every "
                             "worker must import this project (start it with "
                             "PYTHONPATH=<checkout>) and see the preprocess tree at the same "
                             "path; results are written by this process (docs/statistics.md, "
                             "'A Dask cluster')")
    parser.add_argument("--model", choices=[AUTO, *model_names()], default=AUTO,
                        help="statistical model of every problem (default: auto = SPEC 5.3's "
                             "rule: lmm when a batch effect is detected, else lasso); the "
                             "choices are the registered models of tools.statistics.models, "
                             "and a model other than auto enters the results' fingerprints")
    parser.add_argument("--force", action="store_true",
                        help="re-run problems whose results are up to date")
    parser.add_argument("--remove-stale", action="store_true",
                        help="delete the earlier result of a problem that is now skipped or "
                             "failed (default: keep it and list it in the summary); only files "
                             "written by regress.py are ever deleted")
    parser.add_argument("--preprocess-dir", metavar="PATH",
                        help="preprocess tree to read (default: <output>/preprocess)")
    parser.add_argument("--regress-dir", metavar="PATH",
                        help="folder for the results (default: <output>/regress)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_path_arguments(parser, ("root", "output", "metadata", "task_info"))
    add_verbosity_argument(parser)
    return parser


def select_problems(all_problems: Sequence[Problem], traits: Optional[Sequence[str]],
                    wanted: Optional[Sequence[str]]) -> List[Problem]:
    """The problems named by ``--traits`` / ``--problems`` (all when neither is given).

    Raises
    ------
    UsageError
        When a named trait or problem is not in the task info.
    """
    if not traits and not wanted:
        return list(all_problems)
    known = set(all_problems)
    chosen: List[Problem] = []
    missing: List[str] = []
    for trait in traits or ():
        name = normalize_trait(trait)
        matches = [p for p in all_problems if p.trait == name]
        if matches:
            chosen.extend(matches)
        else:
            missing.append(trait)
    for text in wanted or ():
        problem = parse_problem(text)
        if problem in known:
            chosen.append(problem)
        else:
            missing.append(text)
    if missing:
        raise UsageError(f"not in the task info: {', '.join(missing)}")
    order = {p: i for i, p in enumerate(all_problems)}
    return sorted(set(chosen), key=order.__getitem__)


@exits_when_root_is_missing
def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point; returns 1 when a problem failed, else 0."""
    parser = build_parser()
    args = parser.parse_args(argv)
    level = configure_logging(args.verbose)
    try:
        paths = paths_from_args(args)
        task_info = load_task_info(paths.task_info)
        problems = select_problems(enumerate_problems(task_info), args.traits, args.problems)
        preprocess = (Path(args.preprocess_dir).resolve() if args.preprocess_dir
                      else paths.preprocess)
        regress = Path(args.regress_dir).resolve() if args.regress_dir else paths.regress
        check_inputs(problems, preprocess)
    except (InputFileError, UsageError, TraitNameError) as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    settings = RunSettings(preprocess, regress, paths.task_info, args.force,
                           remove_stale=args.remove_stale, log_level=level,
                           config=AnalysisConfig(model=args.model))
    try:
        summary = run_problems(problems, settings, jobs=max(1, args.jobs),
                               scheduler=args.scheduler, progress=not args.no_progress)
    except SchedulerError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    print(summary.format())
    return 1 if summary.counts()["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
