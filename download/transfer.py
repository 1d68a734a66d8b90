"""Download *units* (a GEO series, a TCGA cohort) into the data tree, all or nothing.

A unit's files are fetched into the state folder first (see :mod:`download.fetch`)
and moved into the tree only when every required file of the unit is complete
and verified, so a folder in ``input/`` never holds a half-downloaded series.
Files already present and matching their known size / checksum are skipped, so
re-running a command after an interruption only fetches what is missing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence

from download.fetch import HttpClient, Verifier, fetch_resumable, install_file, verify_text
from utils.io import PathLike, file_sha256, gzip_content_digest
from utils.io.http import (DownloadError, NameResolutionError, RemoteNotFoundError,
                           RunDeadlineExceeded)
from utils.logs import progress as progress_bar

logger = logging.getLogger(__name__)

DOWNLOADED = "downloaded"
RESUMED = "resumed"
UP_TO_DATE = "up to date"
FAILED = "failed"


@dataclass(frozen=True)
class RemoteFile:
    """One file to fetch.

    Attributes
    ----------
    url : str
    dest : pathlib.Path
        Final location in the data tree.
    size : int, optional
        Expected size in bytes, verified when known.
    sha256 : str, optional
        Expected checksum, verified when known (e.g. from a previous manifest).
    required : bool
        A missing optional file (HTTP 404) is noted, not a failure.
    text : bool
        A plain (not gzip) file holding a text table: an HTML page, UTF-16
        text, binary data or a last line without line ending fails the
        verification. (A ``.gz`` file is checked by decompressing it whole,
        which an HTML page fails too.)
    """

    url: str
    dest: Path
    size: Optional[int] = None
    sha256: Optional[str] = None
    required: bool = True
    text: bool = False

    @property
    def is_gzip(self) -> bool:
        """Gzip files get a full decompression check after the transfer."""
        return self.dest.name.endswith(".gz")

    @property
    def verifier(self) -> Optional[Verifier]:
        """The content check run after the transfer (gzip stream, text table), if any."""
        if self.is_gzip:
            return gzip_content_digest
        return verify_text if self.text else None


@dataclass(frozen=True)
class DownloadUnit:
    """Files that belong together (one GEO series, one TCGA cohort).

    Attributes
    ----------
    name : str
        Shown in progress bars, the summary and errors (e.g. ``"GSE1234 (Asthma)"``).
    files : tuple of RemoteFile
    """

    name: str
    files: tuple

    def with_checksums(self, known: Mapping[Path, str]) -> "DownloadUnit":
        """Copy of the unit with ``sha256`` filled from ``{absolute dest: sha256}``."""
        files = tuple(replace(f, sha256=f.sha256 or known.get(f.dest.resolve()))
                      for f in self.files)
        return replace(self, files=files)


@dataclass
class UnitOutcome:
    """What happened to one unit."""

    name: str
    status: str
    files: List[Path] = field(default_factory=list)
    bytes_fetched: int = 0
    missing_optional: List[str] = field(default_factory=list)
    error: Optional[str] = None


@dataclass
class DownloadReport:
    """Outcomes of a run; renders the final summary."""

    outcomes: List[UnitOutcome] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    def add(self, outcome: UnitOutcome) -> None:
        """Record one unit's outcome."""
        self.outcomes.append(outcome)

    def count(self, status: str) -> int:
        """Number of units with ``status``."""
        return sum(o.status == status for o in self.outcomes)

    @property
    def failures(self) -> List[UnitOutcome]:
        """Units that failed."""
        return [o for o in self.outcomes if o.status == FAILED]

    @property
    def exit_code(self) -> int:
        """0 when every unit succeeded, 1 otherwise."""
        return 1 if self.failures else 0

    def summary(self, title: str) -> str:
        """A readable multi-line summary (printed by the CLIs)."""
        fetched = sum(o.bytes_fetched for o in self.outcomes)
        lines = [f"{title}: {len(self.outcomes)} units: {self.count(DOWNLOADED)} downloaded, "
                 f"{self.count(RESUMED)} resumed, {self.count(UP_TO_DATE)} up to date, "
                 f"{self.count(FAILED)} failed; {fetched / 1e6:.1f} MB fetched"]
        lines += [f"  note: {note}" for note in self.notes]
        for outcome in self.outcomes:
            for name in outcome.missing_optional:
                lines.append(f"  {outcome.name}: optional file not on the server: {name}")
        for outcome in self.failures:
            lines.append(f"  FAILED {outcome.error}")
        return "\n".join(lines)


def file_is_current(remote: RemoteFile) -> bool:
    """True when ``remote.dest`` exists and matches its known size and checksum."""
    dest = remote.dest
    if not dest.is_file():
        return False
    if remote.size is not None and dest.stat().st_size != remote.size:
        return False
    if remote.sha256 and file_sha256(dest) != remote.sha256.lower():
        return False
    return True


def download_unit(client: HttpClient, unit: DownloadUnit, state_dir: PathLike, *,
                  force: bool = False, progress: bool = True) -> UnitOutcome:
    """Fetch every missing file of ``unit``, then install them together.

    Parameters
    ----------
    client : HttpClient
    unit : DownloadUnit
    state_dir : path-like
        Part files and checkpoints (outside the data tree).
    force : bool
        Fetch again even when the file in the tree looks current.
    progress : bool

    Returns
    -------
    UnitOutcome
        ``failed`` with the error message (naming the unit and the file) when a
        required file could not be fetched; nothing of the unit is installed then.
    """
    staged: List[tuple] = []
    outcome = UnitOutcome(unit.name, UP_TO_DATE)
    resumed = False
    for remote in unit.files:
        if not force and file_is_current(remote):
            outcome.files.append(remote.dest)
            continue
        try:
            result = fetch_resumable(client, remote.url, state_dir, remote.dest.name,
                                     item=f"{unit.name}: {remote.dest.name}",
                                     expected_size=remote.size, sha256=remote.sha256,
                                     verify=remote.verifier, progress=progress)
        except RemoteNotFoundError as exc:
            if remote.required:
                return UnitOutcome(unit.name, FAILED, error=str(exc))
            logger.info("%s: optional file missing on the server (%s)", unit.name, exc.reason)
            outcome.missing_optional.append(remote.dest.name)
            continue
        except (NameResolutionError, RunDeadlineExceeded):
            raise  # every unit would fail the same way: the caller stops the run
        except DownloadError as exc:
            return UnitOutcome(unit.name, FAILED, error=str(exc))
        staged.append((result, remote.dest))
        resumed = resumed or result.resumed
        outcome.bytes_fetched += result.size
    for result, dest in staged:
        install_file(result.path, dest)
        outcome.files.append(dest)
    if staged:
        outcome.status = RESUMED if resumed else DOWNLOADED
    return outcome


def download_units(client: HttpClient, units: Sequence[DownloadUnit], state_dir: PathLike,
                   *, force: bool = False, progress: bool = True,
                   fail_fast: bool = False, desc: str = "units") -> DownloadReport:
    """Download many units, isolating failures; see :func:`download_unit`.

    Parameters
    ----------
    fail_fast : bool
        Stop at the first failed unit instead of going on with the others.
    desc : str
        Label of the overall progress bar.
    """
    report = DownloadReport()
    for done, unit in enumerate(progress_bar(units, desc=desc, unit="unit",
                                             enabled=progress)):
        try:
            outcome = download_unit(client, unit, state_dir, force=force, progress=progress)
        except RunDeadlineExceeded as exc:
            report.add(UnitOutcome(unit.name, FAILED, error=str(exc)))
            report.notes.append(f"the run deadline passed: {len(units) - done - 1} unit(s) "
                                "not started; run the command again to continue")
            logger.error("%s", exc)
            break
        report.add(outcome)
        if outcome.status == FAILED:
            logger.error("%s", outcome.error)
            if fail_fast:
                break
    return report


def known_checksums(manifest: Mapping[str, str], root: PathLike) -> Dict[Path, str]:
    """``{absolute path: sha256}`` from a manifest mapping of paths relative to ``root``."""
    base = Path(root).resolve()
    return {(base / rel).resolve(): digest for rel, digest in manifest.items()}


def attach_checksums(units: Iterable[DownloadUnit], manifest: Mapping[str, str],
                     root: PathLike) -> List[DownloadUnit]:
    """Units with checksums filled from a manifest of ``root`` (see :mod:`download.manifest`)."""
    known = known_checksums(manifest, root)
    return [unit.with_checksums(known) for unit in units]
