"""Download TCGA cohorts from the UCSC Xena TCGA hub into ``input/TCGA/<folder>/``.

Example::

    python download/download_tcga.py                 # every cohort serving a benchmark trait
    python download/download_tcga.py --cohorts LUAD  # one cohort by its code

See ``docs/download.md`` for the cohort table and the reliability rules.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

if __package__ in (None, ""):  # run as a script (python download/x.py): use this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from download.cli import (add_transfer_arguments, download_and_report, http_client_from_args,
                          manifest_checksums,
                          run_network_command, state_dir_from_args)
from download.tcga import GENE_DATASETS, plan_cohort, select_cohorts, xena_base_url
from download.transfer import FAILED, UnitOutcome
from utils.arguments import http_url
from utils.errors import InputFileError, command_error
from utils.io.http import DownloadError, NameResolutionError, RunDeadlineExceeded
from utils.logs import progress
from utils.paths import add_path_arguments, exits_when_root_is_missing, paths_from_args
from utils.tcga_cohorts import COHORT_TABLE, read_cohort_table
from utils.runtime import in_utf8_mode


def build_parser() -> argparse.ArgumentParser:
    """Argument parser of the TCGA downloader."""
    parser = argparse.ArgumentParser(
        description="Download the clinical matrix and the HiSeqV2 / HiSeqV2_PANCAN gene "
                    "matrices of TCGA cohorts from the UCSC Xena TCGA hub into "
                    "<input>/TCGA/<folder>/. Re-running resumes where it stopped.")
    parser.add_argument("--cohorts", nargs="+", metavar="CODE",
                        help="cohort codes from the table (e.g. LUAD BRCA); default: every "
                             "cohort serving a trait of task_info.json (or of the table when "
                             "task_info.json is absent)")
    parser.add_argument("--table", default=COHORT_TABLE, metavar="TSV",
                        help="cohort table: code, Xena cohort, folder, traits "
                             "(default: xena_cohorts.tsv, shipped in the utils package)")
    parser.add_argument("--xena-url", type=http_url, default=None, metavar="URL",
                        help="hub download root (env GENOTEX_XENA_URL; default: the TCGA "
                             "hub's public bucket)")
    parser.add_argument("--gene-datasets", nargs="+", default=list(GENE_DATASETS),
                        metavar="NAME",
                        help="gene matrices to fetch when the hub has them "
                             "(default: HiSeqV2 HiSeqV2_PANCAN)")
    parser.add_argument("--list", action="store_true",
                        help="print the cohort table and exit")
    add_path_arguments(parser, ("root", "input", "metadata", "task_info"))
    add_transfer_arguments(parser)
    return parser


@in_utf8_mode
@exits_when_root_is_missing
def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the TCGA downloader; return the exit code (0 ok, 1 failures, 2 bad input)."""
    return run_network_command(build_parser, run, argv)


def run(args: argparse.Namespace) -> int:
    """The TCGA downloader on parsed arguments (see :func:`main`)."""
    from utils.problems import load_task_info  # not needed by --help

    paths = paths_from_args(args)
    try:
        table = read_cohort_table(args.table)
        traits = (list(load_task_info(paths.task_info))
                  if not args.cohorts and paths.task_info.is_file() else None)
        cohorts = select_cohorts(table, args.cohorts, traits)
        checksums = manifest_checksums(args)
    except (InputFileError, ValueError, OSError) as exc:
        print(command_error(exc), file=sys.stderr)
        return 2
    if args.list:
        for cohort in table:
            print(f"{cohort.code}\t{cohort.folder}\t{';'.join(cohort.traits) or '-'}")
        return 0
    state = state_dir_from_args(args, paths)  # before any request: a bad path is said first
    try:
        base = xena_base_url(args.xena_url)
    except ValueError as exc:
        print(command_error(exc), file=sys.stderr)
        return 2
    http = http_client_from_args(args, allowed_hosts=(base,))
    units, failures = [], []
    for cohort in progress(cohorts, desc="check hub", unit="cohort", enabled=not args.no_progress):
        try:
            units.append(plan_cohort(http, base, cohort, paths.tcga_input, args.gene_datasets))
        except NameResolutionError:
            raise
        except RunDeadlineExceeded as exc:
            failures.append(UnitOutcome(f"TCGA {cohort.code}", FAILED, error=str(exc)))
            break
        except DownloadError as exc:
            failures.append(UnitOutcome(f"TCGA {cohort.code}", FAILED, error=str(exc)))
            if args.fail_fast:
                break
    return download_and_report(http, units, state, args, checksums, paths.input, failures,
                               "TCGA", "TCGA cohorts")


if __name__ == "__main__":
    sys.exit(main())
