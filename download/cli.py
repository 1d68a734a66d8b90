"""Command-line plumbing shared by the download CLIs (flags, client, logging)."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence

from download.fetch import HttpClient, default_state_dir
from download.manifest import read_manifest
from download.transfer import attach_checksums, download_units
from utils.arguments import non_negative_float, positive_float, positive_int
from utils.errors import InputFileError, command_error
from utils.io import make_folder
from utils.io.http import NO_DEADLINE, Deadline, NameResolutionError, RateLimiter, RetryPolicy
from utils.logs import add_verbosity_argument, configure_logging
from utils.paths import ProjectPaths


def add_transfer_arguments(parser: argparse.ArgumentParser, units: bool = True) -> None:
    """Flags for retries, resumption, verification and progress display.

    ``units=False`` leaves out the flags that only make sense for tree downloads
    (``--manifest``, ``--fail-fast``).
    """
    group = parser.add_argument_group("transfer")
    group.add_argument("--state-dir", metavar="PATH", default=None,
                       help="folder for part files, checkpoints and the search plan, "
                            "outside the data tree (env GENOTEX_DOWNLOAD_STATE; default: "
                            "<input>/../.<input name>_download_state)")
    group.add_argument("--retries", type=positive_int, default=6, metavar="N",
                       help="attempts per request or file, the first included (default: 6)")
    group.add_argument("--timeout", type=positive_float, default=60.0, metavar="SECONDS",
                       help="socket timeout of one request (default: 60)")
    group.add_argument("--backoff", type=non_negative_float, default=1.0, metavar="SECONDS",
                       help="base of the exponential back-off between attempts (default: 1)")
    group.add_argument("--request-deadline", type=non_negative_float, default=1800.0, metavar="SECONDS",
                       help="longest time one attempt (request and body) may take; 0: no "
                            "limit (default: 1800)")
    group.add_argument("--transfer-deadline", type=non_negative_float, default=7200.0, metavar="SECONDS",
                       help="longest time one file or request may take, every attempt and "
                            "back-off wait included; 0: no limit (default: 7200)")
    group.add_argument("--run-deadline", type=non_negative_float, default=0.0, metavar="SECONDS",
                       help="longest time the whole command may take; what is left is "
                            "reported as failed and a re-run continues; 0: no limit "
                            "(default: 0)")
    group.add_argument("--min-speed", type=non_negative_float, default=1024.0, metavar="BYTES_PER_S",
                       help="abandon (and retry) a transfer averaging fewer bytes per second "
                            "over a minute; 0: no check (default: 1024)")
    group.add_argument("--max-file-mb", type=positive_float, default=4096.0, metavar="MB",
                       help="largest file accepted, MiB, when no size is known beforehand "
                            "(default: 4096)")
    group.add_argument("--seed", type=int, default=None,
                       help="seed of the back-off jitter (default: random)")
    group.add_argument("--force", action="store_true",
                       help="download again even when a file already present looks current")
    if units:
        group.add_argument("--manifest", metavar="PATH", default=None,
                           help="SHA-256 manifest of a previous complete tree "
                                "(download/manifest.py); its checksums are verified")
        group.add_argument("--fail-fast", action="store_true",
                           help="stop at the first failed unit instead of finishing the others")
    group.add_argument("--no-progress", action="store_true",
                       help="hide progress bars (they are drawn only on a terminal anyway)")
    add_verbosity_argument(parser)


def _seconds(value: float) -> Optional[float]:
    """A deadline flag: 0 (or less) means no limit."""
    return value if value > 0 else None


def retry_policy_from_args(args: argparse.Namespace) -> RetryPolicy:
    """The :class:`RetryPolicy` chosen by the transfer flags."""
    return RetryPolicy(max_attempts=max(1, args.retries), backoff_base=args.backoff,
                       backoff_max=max(60.0, args.backoff), timeout=args.timeout,
                       request_deadline=_seconds(args.request_deadline),
                       transfer_deadline=_seconds(args.transfer_deadline),
                       min_speed=max(0.0, args.min_speed),
                       max_body_bytes=int(args.max_file_mb * 1024 * 1024))


def run_deadline_from_args(args: argparse.Namespace) -> Deadline:
    """The run's deadline (``--run-deadline``), counted from now."""
    seconds = _seconds(args.run_deadline)
    return NO_DEADLINE if seconds is None else Deadline.after(seconds, "run")


def http_client_from_args(args: argparse.Namespace, rate: Optional[float] = None,
                          run_deadline: Optional[Deadline] = None,
                          allowed_hosts: Iterable[str] = ()) -> HttpClient:
    """An :class:`HttpClient` from the transfer flags (optionally rate-limited).

    ``run_deadline``: share one between the clients of a run; default
    :func:`run_deadline_from_args` (counted from now). ``allowed_hosts``: the
    configured base URLs (or hosts) redirects may lead to (see
    :mod:`download.fetch.redirects`).
    """
    limiter = RateLimiter(rate) if rate else None
    rng = random.Random(args.seed) if args.seed is not None else random.Random()
    return HttpClient(retry_policy_from_args(args), rate_limiter=limiter, rng=rng,
                      run_deadline=run_deadline or run_deadline_from_args(args),
                      allowed_hosts=allowed_hosts)


def state_dir_from_args(args: argparse.Namespace, paths: ProjectPaths) -> Path:
    """``--state-dir`` or the default beside the input root, created.

    Raises
    ------
    utils.errors.OutputFileError
        The folder cannot be created (:func:`utils.io.make_folder`): said before
        any request, not after the searches.
    """
    if args.state_dir:
        return make_folder(Path(args.state_dir).expanduser().resolve())
    return make_folder(default_state_dir(paths.input))


def download_and_report(http: HttpClient, units: List, state: Path,
                        args: argparse.Namespace, checksums: Dict[str, str], input_root: Path,
                        earlier_failures: Iterable, label: str, desc: str) -> int:
    """Download the planned units, print the summary and return the exit code.

    The downloaders' last step: ``checksums`` (from :func:`manifest_checksums`)
    are attached to the units, ``earlier_failures`` (what could not be
    planned) join the transfer report, and ``label`` names the source in the
    summary line.
    """
    if checksums:
        units = attach_checksums(units, checksums, input_root)
    report = download_units(http, units, state, force=args.force,
                            progress=not args.no_progress, fail_fast=args.fail_fast,
                            desc=desc)
    for failure in earlier_failures:
        report.add(failure)
    print(report.summary(label))
    return report.exit_code


def manifest_checksums(args: argparse.Namespace) -> Dict[str, str]:
    """``{path relative to input: sha256}`` from ``--manifest`` (empty without it)."""
    manifest = getattr(args, "manifest", None)
    return read_manifest(manifest) if manifest else {}


def traits_from_args(requested: Optional[List[str]], paths: ProjectPaths) -> List[str]:
    """Normalized ``--traits``, or every trait of ``task_info.json`` (sorted)."""
    from utils.problems import load_task_info, normalize_trait  # not needed by --help

    if requested:
        return [normalize_trait(t) for t in requested]
    if not paths.task_info.is_file():
        raise InputFileError(paths.task_info, "task info not found; give --traits or build "
                             "it with download/build_task_info.py")
    return sorted(load_task_info(paths.task_info))


def run_network_command(build_parser: Callable[[], argparse.ArgumentParser],
                        run: Callable[[argparse.Namespace], int],
                        argv: Optional[Sequence[str]] = None) -> int:
    """The body of a downloader's ``main``: parse, set up logging, run.

    Parameters
    ----------
    build_parser : callable
        Returns the command's argument parser (its flags include ``--verbose``).
    run : callable
        The command on parsed arguments; returns the exit code.
    argv : sequence of str, optional
        The arguments (default: the process's).

    Returns
    -------
    int
        ``run``'s exit code, or 2 when a host name does not resolve
        (:func:`stop_at_unresolved_host`).
    """
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    return stop_at_unresolved_host(lambda: run(args))


def stop_at_unresolved_host(run: Callable[[], int]) -> int:
    """Run a downloader; a host name that does not resolve stops it with one message (exit 2).

    Without network (or with a mistyped base URL) every request would fail the
    same way, so there is nothing to retry and nothing to go on with.
    """
    try:
        return run()
    except NameResolutionError as exc:
        print(command_error(exc), file=sys.stderr)
        return 2
