"""Download the GEO series of every benchmark trait into ``input/GEO/<Trait>/<GSE>/``.

Example::

    NCBI_EMAIL=me@example.org python download/download_geo.py --traits Asthma Obesity

See ``docs/download.md`` for the rules (query, size limits, retries, resumption).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Dict, Optional, Sequence

if __package__ in (None, ""):  # run as a script (python download/x.py): use this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from download.cli import (add_transfer_arguments, download_and_report, http_client_from_args,
                          manifest_checksums,
                          run_deadline_from_args, state_dir_from_args,
                          run_network_command, traits_from_args)
from download.eutils import RETMAX, EutilsClient, EutilsSettings, GdsQuery
from download.geo import (PLAN_NAME, SizeRules, TraitPlan, describe_plans, geo_base_url, load_plans,
                          plan_trait, plan_units, read_search_terms, save_plans)
from download.transfer import FAILED, UnitOutcome
from utils.arguments import http_url, non_negative_float, positive_float, positive_int
from utils.errors import InputFileError, command_error
from utils.io.http import DownloadError, NameResolutionError, RunDeadlineExceeded
from utils.logs import progress
from utils.paths import add_path_arguments, exits_when_root_is_missing, paths_from_args
from utils.runtime import in_utf8_mode


def build_parser() -> argparse.ArgumentParser:
    """Argument parser of the GEO downloader."""
    parser = argparse.ArgumentParser(
        description="Search GEO (E-utilities, db=gds) for each trait and download up to "
                    "--max-series series matrix and family SOFT files per trait into "
                    "<input>/GEO/<Trait>/<GSE>/. Re-running resumes where it stopped. "
                    "NCBI_API_KEY and NCBI_EMAIL are read from the environment.")
    parser.add_argument("--traits", nargs="+", metavar="TRAIT",
                        help="traits to fetch (default: every trait in task_info.json)")
    add_path_arguments(parser, ("root", "input", "metadata", "task_info"))
    search = parser.add_argument_group("search")
    search.add_argument("--eutils-url", type=http_url, default=None, metavar="URL",
                        help="E-utilities base URL (env GENOTEX_EUTILS_URL; default: NCBI)")
    search.add_argument("--geo-url", type=http_url, default=None, metavar="URL",
                        help="GEO download root holding series/ (env GENOTEX_GEO_URL; "
                             "default: https://ftp.ncbi.nlm.nih.gov/geo/)")
    search.add_argument("--search-terms", metavar="TSV", default=None,
                        help="optional TSV 'trait<TAB>search words' overriding the default "
                             "words (the trait name with underscores as spaces)")
    rules = parser.add_argument_group("selection rules")
    # the defaults live in one place: the fields of GdsQuery and SizeRules (SPEC 8.1)
    for group, flag, default, text in (
            (search, "--min-samples", GdsQuery.min_samples,
             "minimum number of samples of a series"),
            (search, "--max-samples", GdsQuery.max_samples,
             "maximum number of samples of a series"),
            (search, "--first-year", GdsQuery.first_year, "first publication year"),
            (search, "--last-year", GdsQuery.last_year, "last publication year"),
            (search, "--retmax", RETMAX, "search hits considered per trait, in GEO's order"),
            (rules, "--max-series", SizeRules.max_series, "series kept per trait"),
            (rules, "--min-matrix-mb", SizeRules.min_matrix_mb,
             "smallest allowed series-matrix file, MiB"),
            (rules, "--max-matrix-mb", SizeRules.max_matrix_mb,
             "largest allowed series-matrix file, MiB"),
            (rules, "--max-soft-mb", SizeRules.max_soft_mb,
             "family SOFT must be smaller than this, MiB")):
        kind = positive_int if isinstance(default, int) else (
            non_negative_float if flag.startswith("--min") else positive_float)
        group.add_argument(flag, type=kind, default=default,
                           help=f"{text} (default: %(default)s)")
    rules.add_argument("--replan", action="store_true",
                       help="search again instead of reusing the saved plan of each trait")
    rules.add_argument("--dry-run", action="store_true",
                       help="search and print the chosen series without downloading")
    add_transfer_arguments(parser)
    return parser


@in_utf8_mode
@exits_when_root_is_missing
def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the GEO downloader; return the exit code (0 ok, 1 failures, 2 bad input)."""
    return run_network_command(build_parser, run, argv)


def check_ranges(args: argparse.Namespace) -> None:
    """Refuse a search whose lower bound is above its upper bound (a ValueError)."""
    for low, high in (("min_samples", "max_samples"), ("first_year", "last_year"),
                      ("min_matrix_mb", "max_matrix_mb")):
        if getattr(args, low) > getattr(args, high):
            raise ValueError(f"--{low.replace('_', '-')} {getattr(args, low)} is above "
                             f"--{high.replace('_', '-')} {getattr(args, high)}: "
                             "no series could match")


def run(args: argparse.Namespace) -> int:
    """The GEO downloader on parsed arguments (see :func:`main`)."""
    paths = paths_from_args(args)
    try:
        traits = traits_from_args(args.traits, paths)
        terms = read_search_terms(args.search_terms) if args.search_terms else {}
        checksums = manifest_checksums(args)
        check_ranges(args)
        settings = EutilsSettings.from_environ(args.eutils_url)
        base = geo_base_url(args.geo_url)
    except (InputFileError, ValueError, OSError) as exc:
        print(command_error(exc), file=sys.stderr)
        return 2
    state = state_dir_from_args(args, paths)
    deadline = run_deadline_from_args(args)
    hosts = (settings.base_url, base)  # redirects are followed within these hosts only
    eutils = EutilsClient(settings, http_client_from_args(args, rate=settings.rate,
                                                          run_deadline=deadline,
                                                          allowed_hosts=hosts))
    http = http_client_from_args(args, run_deadline=deadline, allowed_hosts=hosts)
    query = GdsQuery(args.min_samples, args.max_samples, args.first_year, args.last_year)
    rules = SizeRules(args.min_matrix_mb, args.max_matrix_mb, args.max_soft_mb,
                      args.max_series)
    plan_path = state / PLAN_NAME
    plans: Dict[str, TraitPlan] = {} if args.replan else load_plans(plan_path)
    search_failures = []
    for trait in progress(traits, desc="search", unit="trait", enabled=not args.no_progress):
        if trait in plans and not plans[trait].failed:
            continue  # planned by an earlier run; a plan with failed series is redone
        try:
            plans[trait] = plan_trait(trait, eutils, http, base, query, rules,
                                      terms.get(trait), retmax=args.retmax)
        except NameResolutionError:
            raise
        except RunDeadlineExceeded as exc:
            search_failures.append(UnitOutcome(f"search {trait}", FAILED, error=str(exc)))
            break
        except DownloadError as exc:
            search_failures.append(UnitOutcome(f"search {trait}", FAILED, error=str(exc)))
            if args.fail_fast:
                break
            continue
        save_plans(plan_path, plans)  # checkpoint after every trait
    chosen = [plans[t] for t in traits if t in plans]
    search_failures += [UnitOutcome(f"{accession} ({plan.trait})", FAILED,
                                    error=f"{plan.trait}: {error}")
                        for plan in chosen for accession, error in plan.failed.items()]
    print(describe_plans(chosen))
    if args.dry_run:
        for failure in search_failures:  # what the dry run could not plan, and why
            print(f"  FAILED {failure.error}")
        return 1 if search_failures else 0
    return download_and_report(http, plan_units(chosen, paths.geo_input), state, args,
                               checksums, paths.input, search_failures, "GEO", "GEO series")


if __name__ == "__main__":
    sys.exit(main())
