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
from typing import Optional, Sequence

from genotex.cli.common import SELECTION_HELP, UsageError
from utils.arguments import positive_int
from utils.logs import add_verbosity_argument, configure_logging
from utils.paths import add_path_arguments, exits_when_root_is_missing, paths_from_args
from utils.runtime import in_utf8_mode

# The analysis modules (numpy, scipy, scikit-learn) are imported in main(), after the
# arguments are parsed, so that --help and usage errors come back at once.

logger = logging.getLogger("regress")
#: ``--model`` default: SPEC 5.3's rule (tools.statistics.inputs.AUTO).
AUTO_MODEL = "auto"
#: The models built into tools.statistics.models, named in --help (a test keeps the
#: list equal to the registry's).
BUILT_IN_MODELS = ("lasso", "lmm")


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        description="Find the genes significantly associated with each trait (optionally "
                    "given a condition) and write one JSON per problem. Problems whose "
                    "result is up to date (same input fingerprint) are skipped unless "
                    "--force.")
    parser.add_argument("--traits", nargs="+", metavar="TRAIT",
                        help="every problem of these traits (names are normalized like "
                             "folder names: \"Crohn's Disease\" = Crohns_Disease); "
                             + SELECTION_HELP)
    parser.add_argument("--problems", nargs="+", metavar="TRAIT|CONDITION",
                        help="these problems, e.g. 'Asthma|None' 'Asthma|Age' "
                             "'Asthma|Obesity' (None = unconditional); without --traits and "
                             "--problems, every problem of the task info")
    parser.add_argument("-j", "--jobs", type=positive_int, default=1,
                        help="local worker processes (default: 1); with fewer processes "
                             "than cores, a problem's LMM fits use cores // jobs threads")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on a Dask distributed cluster at this scheduler address "
                             "(e.g. tcp://host:8786). The scheduler needs only Dask; every "
                             "worker must import this project (start it with "
                             "PYTHONPATH=<checkout>) and see the preprocess tree at the same "
                             "path; results are written by this process (docs/statistics.md, "
                             "'A Dask cluster')")
    parser.add_argument("--model", default=AUTO_MODEL, metavar="NAME",
                        help="statistical model of every problem (default: auto = the rule "
                             "of docs/statistics.md: lmm when a batch effect is detected, else "
                             f"lasso); or a model registered in tools.statistics.models (built "
                             f"in: {', '.join(BUILT_IN_MODELS)}). A model other than auto "
                             "enters the results' fingerprints")
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


def check_model(name: str) -> None:
    """Refuse a ``--model`` that is not registered, with the closest registered name.

    Raises
    ------
    UsageError
    """
    from tools.statistics.models import model_names
    from utils.problems import closest_name

    known = [AUTO_MODEL, *model_names()]
    if name not in known:
        match = closest_name(name, known)
        raise UsageError(f"--model {name}: not a registered model "
                         + (f"(did you mean {match}?)" if match else f"({', '.join(known)})"))


@in_utf8_mode
@exits_when_root_is_missing
def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point; returns 1 when a problem failed, else 0."""
    parser = build_parser()
    args = parser.parse_args(argv)
    level = configure_logging(args.verbose)
    from genotex.regress.runner import RunSettings, SchedulerError, check_inputs, run_problems
    from tools.statistics.inputs import AnalysisConfig
    from utils.errors import InputFileError
    from utils.problems import (ProblemNameError, TraitNameError, enumerate_problems,
                                load_task_info, select_problems)

    try:
        check_model(args.model)
        paths = paths_from_args(args)
        task_info = load_task_info(paths.task_info)
        problems = select_problems(enumerate_problems(task_info), args.traits, args.problems)
        preprocess = (Path(args.preprocess_dir).resolve() if args.preprocess_dir
                      else paths.preprocess)
        regress = Path(args.regress_dir).resolve() if args.regress_dir else paths.regress
        check_inputs(problems, preprocess)
    except (InputFileError, UsageError, ProblemNameError, TraitNameError) as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    settings = RunSettings(preprocess, regress, paths.task_info, args.force,
                           remove_stale=args.remove_stale, log_level=level,
                           config=AnalysisConfig(model=args.model))
    try:
        summary = run_problems(problems, settings, jobs=args.jobs,
                               scheduler=args.scheduler, progress=not args.no_progress)
    except SchedulerError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    print(summary.format())
    print(f"results in {regress}")
    return 1 if summary.counts()["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
