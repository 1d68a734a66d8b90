"""Re-gzip input files that a data platform unpacked.

Some platforms (dataset hubs, archive extractors, browsers) silently
decompress ``.gz`` files. Readers in ``tools/`` sniff the gzip magic bytes, so
an unpacked tree still works, but hashes and sizes no longer match manifests
and the tree is several times larger. This module restores the canonical form.

Rules
-----
1. A file whose name ends in ``.gz`` but whose content is not gzip is
   compressed in place (same name).
2. A file that lost its ``.gz`` suffix — its name matches one of
   :data:`LOST_SUFFIX_PATTERNS` (``*_series_matrix.txt``, ``*_family.soft``,
   ``*.sampleMap_HiSeqV2``, ``*.sampleMap_HiSeqV2_PANCAN``,
   ``*_raw_counts_*.tsv``) — becomes ``<name>.gz``: compressed if plain,
   merely renamed if its content is already gzip.
3. If ``<name>.gz`` already exists: when it decompresses to exactly the
   plain file's bytes, the plain duplicate is removed (this also finishes a run
   that was interrupted after writing the ``.gz``); otherwise the pair is a
   *conflict* and both files are left alone.
4. Everything else is left alone — in particular the Xena clinicalMatrix,
   which Xena ships uncompressed, and every JSON / CSV file.

Safety: output is written to a temporary file in the same folder, verified by
decompressing it and comparing SHA-256 with the original, then renamed over
the target (atomic on POSIX); only then is a superseded plain file removed. A
failure at any step removes the temporary file and leaves the original
untouched. Output gzip streams carry no file name and mtime 0, so the same
content always gives the same bytes, and a second run finds nothing to do.
"""

from __future__ import annotations

import contextlib
import fnmatch
import gzip
import hashlib
import logging
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, List, Sequence, Tuple

from utils.errors import InputFileError
from utils.io import PathLike, file_sha256, gzip_content_digest, is_gzip

logger = logging.getLogger(__name__)

LOST_SUFFIX_PATTERNS: Tuple[str, ...] = (
    "*_series_matrix.txt", "*_family.soft", "*.sampleMap_HiSeqV2",
    "*.sampleMap_HiSeqV2_PANCAN", "*_raw_counts_*.tsv")
TEMP_MARKER = ".recompress-"
CHUNK = 1 << 20
GZIP_LEVEL = 9

COMPRESS = "compress"          # plain content, canonical .gz name: gzip in place
COMPRESS_RENAME = "compress+rename"  # plain content, lost suffix: gzip to <name>.gz
RENAME = "rename"              # gzip content, lost suffix: rename to <name>.gz
DEDUPE = "remove-duplicate"    # <name>.gz holds the same content: remove <name>
CONFLICT = "conflict"          # <name> and a different <name>.gz: left alone
CORRUPT = "corrupt"            # an empty file, or --verify found a damaged gzip file


@dataclass(frozen=True)
class Action:
    """One planned change.

    Attributes
    ----------
    kind : str
        One of ``compress``, ``compress+rename``, ``rename``,
        ``remove-duplicate``, ``conflict``, ``corrupt``.
    source : Path
        The file as found.
    target : Path
        The file as it should end up (``source`` for in-place actions).
    """

    kind: str
    source: Path
    target: Path

    def describe(self, root: Path) -> str:
        """One readable line, paths relative to ``root``."""
        src = _relative(self.source, root)
        if self.target != self.source:
            return f"{self.kind:17s} {src} -> {_relative(self.target, root)}"
        return f"{self.kind:17s} {src}"


@dataclass
class RecompressReport:
    """Outcome of a run.

    Attributes
    ----------
    root : Path
    dry_run : bool
    done : list of Action
        Changes made (or, in a dry run, that would be made).
    conflicts : list of Action
        Pairs left alone, and corrupt files found by ``verify``.
    errors : list of (Action, str)
        Changes that failed; their originals are intact.
    unchanged : int
        Candidate files already in canonical form.
    stale_temporaries : list of Path
        Temporary files left by a killed run (safe to delete).
    """

    root: Path
    dry_run: bool = False
    done: List[Action] = field(default_factory=list)
    conflicts: List[Action] = field(default_factory=list)
    errors: List[Tuple[Action, str]] = field(default_factory=list)
    unchanged: int = 0
    stale_temporaries: List[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing failed and nothing conflicts."""
        return not self.errors and not self.conflicts

    def summary(self) -> str:
        """Multi-line human summary."""
        verb = "would change" if self.dry_run else "changed"
        lines = [a.describe(self.root) for a in self.done + self.conflicts]
        lines += [f"{'error':17s} {_relative(a.source, self.root)}: {msg}"
                  for a, msg in self.errors]
        lines += [f"stale temporary   {_relative(p, self.root)} (safe to delete)"
                  for p in self.stale_temporaries]
        counts = {}
        for action in self.done:
            counts[action.kind] = counts.get(action.kind, 0) + 1
        detail = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) or "nothing"
        lines.append(f"{'dry run: ' if self.dry_run else ''}{verb} {len(self.done)} file(s) "
                     f"({detail}); already canonical: {self.unchanged}; conflicts: "
                     f"{len(self.conflicts)}; errors: {len(self.errors)}")
        return "\n".join(lines)


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def plain_digest(path: PathLike) -> Tuple[str, int]:
    """SHA-256 and size of a plain file."""
    return file_sha256(path), os.stat(path).st_size


def _is_candidate_lost_suffix(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def _same_content(plain: Path, zipped: Path) -> bool:
    try:
        return plain_digest(plain) == gzip_content_digest(zipped)
    except (OSError, InputFileError):
        return False


def plan_actions(root: PathLike, patterns: Sequence[str] = LOST_SUFFIX_PATTERNS,
                 verify: bool = False) -> RecompressReport:
    """Scan ``root`` and decide what to do, without changing anything.

    Parameters
    ----------
    root : path-like
        Tree to scan (usually the input root).
    patterns : sequence of str
        Names (without ``.gz``) of files whose canonical form is gzip.
    verify : bool
        Also decompress every canonical ``.gz`` file and report damaged ones.

    Returns
    -------
    RecompressReport
        ``done`` holds the planned actions; nothing has been changed.
    """
    root_path = Path(root)
    report = RecompressReport(root=root_path, dry_run=True)
    for path in sorted(_walk_files(root_path)):
        name = path.name
        if TEMP_MARKER in name and name.startswith("."):
            report.stale_temporaries.append(path)
            continue
        if name.endswith(".gz") or _is_candidate_lost_suffix(name, patterns):
            if not os.stat(path).st_size:  # never a gzip file, nor a GEO / Xena table:
                report.conflicts.append(Action(CORRUPT, path, path))  # a cut download
                continue
        if name.endswith(".gz"):
            if not is_gzip(path):
                report.done.append(Action(COMPRESS, path, path))
            elif verify and not _gzip_readable(path):
                report.conflicts.append(Action(CORRUPT, path, path))
            else:
                report.unchanged += 1
            continue
        if not _is_candidate_lost_suffix(name, patterns):
            continue
        target = path.with_name(name + ".gz")
        if target.exists():
            kind = DEDUPE if _same_content(path, target) else CONFLICT
            (report.done if kind == DEDUPE else report.conflicts).append(
                Action(kind, path, target))
        else:
            kind = RENAME if is_gzip(path) else COMPRESS_RENAME
            report.done.append(Action(kind, path, target))
    return report


def _walk_files(root: Path) -> Iterable[Path]:
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if path.is_file() and not path.is_symlink():
                yield path


def _gzip_readable(path: Path) -> bool:
    try:
        gzip_content_digest(path)
        return True
    except (OSError, InputFileError):
        return False


def compress_to_temp(source: Path, level: int = GZIP_LEVEL) -> Tuple[Path, str]:
    """Gzip ``source`` into a temporary file beside it; return (temp, content sha256).

    The gzip header has no file name and mtime 0 (reproducible bytes).
    """
    fd, name = tempfile.mkstemp(prefix=f".{source.name}{TEMP_MARKER}", suffix=".tmp",
                                dir=source.parent)
    temp = Path(name)
    try:
        digest = hashlib.sha256()
        with open(source, "rb") as src, os.fdopen(fd, "wb") as raw:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                               compresslevel=level) as out:
                for block in iter(lambda: src.read(CHUNK), b""):
                    digest.update(block)
                    out.write(block)
            raw.flush()
            os.fsync(raw.fileno())
        shutil.copymode(source, temp)
        return temp, digest.hexdigest()
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise


def _copy_matches(temp: Path, expected_sha256: str) -> bool:
    """True when the compressed copy ``temp`` decompresses to the expected content."""
    try:
        return gzip_content_digest(temp)[0] == expected_sha256
    except (OSError, InputFileError):
        return False


def _apply(action: Action) -> None:
    """Carry out one action; on failure the original is intact and no temp remains."""
    if action.kind == DEDUPE:
        if not _same_content(action.source, action.target):
            raise RuntimeError("the .gz twin changed since the scan; left alone")
        action.source.unlink()
        return
    if action.kind == RENAME:
        if not _gzip_readable(action.source):
            raise RuntimeError("content starts like gzip but does not decompress")
        _no_clobber_rename(action.source, action.target)
        return
    temp, digest = compress_to_temp(action.source)
    try:
        if not _copy_matches(temp, digest):
            raise RuntimeError("verification failed: the compressed copy does not "
                               "decompress to the original bytes")
        if action.kind == COMPRESS:
            os.replace(temp, action.target)
        else:
            _no_clobber_rename(temp, action.target)
            action.source.unlink()
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise


def _no_clobber_rename(source: Path, target: Path) -> None:
    """Rename without ever replacing an existing target.

    A hard link fails when the target exists; file systems without hard links
    fall back to a checked rename.
    """
    try:
        os.link(source, target)
    except FileExistsError:
        raise
    except OSError:
        if target.exists():
            raise FileExistsError(f"{target} appeared during the run")
        os.rename(source, target)
        return
    source.unlink()


def recompress_tree(root: PathLike, dry_run: bool = False,
                    patterns: Sequence[str] = LOST_SUFFIX_PATTERNS,
                    verify: bool = False) -> RecompressReport:
    """Restore the canonical gzip form of every file below ``root``.

    Parameters
    ----------
    root : path-like
        Tree to repair (usually the input root).
    dry_run : bool
        Only report what would change.
    patterns : sequence of str
        Names (without ``.gz``) whose canonical form is gzip; see module doc.
    verify : bool
        Also decompress canonical ``.gz`` files and report damaged ones.

    Returns
    -------
    RecompressReport
    """
    root_path = Path(root)
    if not root_path.is_dir():
        raise FileNotFoundError(f"{root_path}: folder not found")
    planned = plan_actions(root_path, patterns, verify)
    if dry_run:
        return planned
    report = RecompressReport(root=root_path, dry_run=False, conflicts=planned.conflicts,
                              unchanged=planned.unchanged,
                              stale_temporaries=planned.stale_temporaries)
    for action in planned.done:
        try:
            _apply(action)
        except (OSError, RuntimeError, InputFileError) as exc:
            logger.error("%s: %s", action.source, exc)
            report.errors.append((action, str(exc)))
            continue
        logger.info("%s", action.describe(root_path))
        report.done.append(action)
    return report
