"""Atomic writes: a reader never sees a half-written file, a crash never loses the old one.

* Data goes to a temporary file in the target folder, is flushed to disk and
  then renamed over the target (:func:`atomic_write` and the helpers built on it).
* No debris in data trees. A writer holds an OS lock (``flock``) on its
  temporary file until the rename; every atomic write first removes the
  temporary files of its folder that no live writer holds, i.e. those a killed
  process (``kill -9``, power loss) left behind. (POSIX; elsewhere stale
  temporary files are left for the user to remove.)
* DataFrames are written by :func:`atomic_to_csv`, the one seam every CSV table
  of the project's frames goes through: a faster writer replaces its body, not
  its callers.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
from pathlib import Path
from typing import IO, Any, Iterator, Tuple

from utils.errors import OutputFileError
from utils.io.types import PathLike

try:  # POSIX: temporary files of live writers are marked by an flock
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None

TEMP_SUFFIX = ".tmp"
# ".<target name>.<writer pid>.<16 hex digits>.tmp": the temporary files atomic writes create.
TEMP_NAME = re.compile(r"\..+\.(?P<pid>[0-9]+)\.[0-9a-f]{16}" + re.escape(TEMP_SUFFIX) + r"\Z",
                       re.DOTALL)


def remove_stale_temp_files(folder: PathLike) -> int:
    """Remove the temporary files of atomic writes that no live writer holds.

    A writer holds an exclusive ``flock`` on its temporary file from creation
    to rename; a file nobody holds was left by a killed writer. Files whose
    names do not look like this module's temporary files are never touched,
    nor those of this process (its own are live; skipping them also keeps
    NFS's per-process lock emulation from mistaking them for stale).

    Parameters
    ----------
    folder : path-like

    Returns
    -------
    int
        How many files were removed (0 where ``flock`` is unavailable).
    """
    if fcntl is None:  # pragma: no cover - not POSIX
        return 0
    removed = 0
    try:
        names = [(e, TEMP_NAME.match(e.name)) for e in os.scandir(folder)]
    except FileNotFoundError:
        return 0
    own_pid = str(os.getpid())
    entries = [e for e, match in names if match and match["pid"] != own_pid]
    for entry in entries:
        try:
            fd = os.open(entry.path, os.O_RDWR)
        except OSError:  # already renamed or removed, or not ours to open
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.path.samestat(os.fstat(fd), os.stat(entry.path)):
                os.unlink(entry.path)
                removed += 1
        except OSError:  # held by a live writer, just renamed, or no flock on this disk
            pass
        finally:
            os.close(fd)
    return removed


def _file_in_the_way(folder: Path) -> Path | None:
    """The nearest existing non-folder among ``folder`` and its parents, or None."""
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate):
            return None if candidate.is_dir() else candidate
    return None


def make_folder(folder: PathLike) -> Path:
    """Create ``folder`` and its parents (if missing) to write into.

    Parameters
    ----------
    folder : path-like

    Returns
    -------
    pathlib.Path

    Raises
    ------
    utils.errors.OutputFileError
        The folder cannot be created: a file stands where it or one of its
        parents should be, no permission, a read-only disk. The message names
        the path.
    """
    path = Path(folder)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        blocking = _file_in_the_way(path)
        if blocking is not None:
            raise OutputFileError(path, f"cannot create this folder: {blocking} is a file, "
                                  "not a folder") from exc
        raise OutputFileError(path, f"cannot create this folder ({exc.strerror or exc})") \
            from exc
    return path


def prepare_target(path: PathLike) -> Path:
    """Check that ``path`` can be written as a file and create its folder.

    What :func:`atomic_write` does first; a command calls it before long work
    whose result goes to ``path``, so that a mistyped output path is said at
    once, not after the work.

    Raises
    ------
    utils.errors.OutputFileError
        ``path`` is a folder, or its folder cannot be created.
    """
    target = Path(path)
    if target.is_dir():
        raise OutputFileError(target, "is a folder; expected the name of a file to write")
    make_folder(target.parent)
    return target


def _create_temp(target: Path) -> Tuple[int, str]:
    """Create and lock ``.<name>.<pid>.<random>.tmp`` beside ``target``; (fd, path)."""
    while True:
        name = os.path.join(target.parent, f".{target.name}.{os.getpid()}."
                                           f"{secrets.token_hex(8)}{TEMP_SUFFIX}")
        try:
            # 0o666 less the umask: the mode ``open`` gives a new file (a fresh, unique
            # name; O_EXCL refuses one planted there), kept by the rename
            fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:  # pragma: no cover - 64 random bits collided
            continue
        if fcntl is None:  # pragma: no cover - not POSIX
            return fd, name
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError:  # pragma: no cover - a file system without flock: cleaners skip
                return fd, name
            if os.fstat(fd).st_nlink:
                return fd, name
        except BaseException:  # stopped here (a worker's SIGTERM): no file left behind
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(name)
            raise
        os.close(fd)  # a cleaner took it for stale before the lock was set: retry


@contextlib.contextmanager
def atomic_write(path: PathLike, mode: str = "w", encoding: str = "utf-8",
                 newline: str | None = None) -> Iterator[IO]:
    """Write a file atomically: locked temp file in the same folder, fsync, rename.

    Parameters
    ----------
    path : path-like
        Target file; parent folders are created. A new version has the
        permission bits a plain ``open`` gives (0o666 less the umask: 0o644 under
        the usual 022, 0o600 under 077).
    mode : {"w", "wb"}
    encoding : str
        Text encoding for ``mode="w"``.
    newline : str, optional
        Passed to :func:`open` in text mode.

    Yields
    ------
    file object
        Write to it; on normal exit it replaces ``path``; on an exception the
        temporary file is removed and ``path`` is left untouched. Temporary
        files that killed writers left in the folder are removed first
        (:func:`remove_stale_temp_files`).

    Raises
    ------
    utils.errors.OutputFileError
        ``path`` is a folder, its folder cannot be created (:func:`prepare_target`),
        or the file cannot be written there (no permission, a read-only or full
        disk); the message names the path and ``path`` is left untouched.
    """
    if mode not in ("w", "wb"):
        raise ValueError("atomic_write supports modes 'w' and 'wb'")
    target = prepare_target(path)
    remove_stale_temp_files(target.parent)
    try:
        fd, tmp_name = _create_temp(target)
    except OSError as exc:
        raise OutputFileError(target, f"cannot write this file ({exc.strerror or exc})") \
            from exc
    try:
        if mode == "wb":
            handle = os.fdopen(fd, "wb")
        else:
            handle = os.fdopen(fd, "w", encoding=encoding, newline=newline)
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        os.unlink(tmp_name)
        raise
    try:
        with handle:
            yield handle
            try:
                handle.flush()
                os.fsync(handle.fileno())
                if fcntl is not None:  # rename while the lock still marks the file as live
                    os.replace(tmp_name, target)
            except OSError as exc:  # a full disk, a folder that became read-only...
                raise OutputFileError(target, f"cannot write this file "
                                      f"({exc.strerror or exc}); the previous version, if "
                                      "any, is kept") from exc
        if fcntl is None:  # pragma: no cover - an open file cannot be renamed there
            os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


def atomic_write_text(path: PathLike, text: str) -> None:
    """Atomically write ``text`` (UTF-8) to ``path``."""
    with atomic_write(path, "w", newline="") as handle:
        handle.write(text)


def atomic_write_bytes(path: PathLike, data: bytes) -> None:
    """Atomically write ``data`` to ``path``."""
    with atomic_write(path, "wb") as handle:
        handle.write(data)


def dumps_json(obj: Any, indent: int | None = 4) -> str:
    """Serialise JSON deterministically (insertion order kept, NaN refused)."""
    return json.dumps(obj, indent=indent, ensure_ascii=False, allow_nan=False) + "\n"


def atomic_write_json(path: PathLike, obj: Any, indent: int | None = 4) -> None:
    """Atomically write ``obj`` as JSON; see :func:`dumps_json`."""
    atomic_write_text(path, dumps_json(obj, indent=indent))


def atomic_to_csv(df, path: PathLike, **to_csv_kwargs: Any) -> None:
    """Atomically write a DataFrame as CSV (``DataFrame.to_csv`` arguments).

    The table-writing seam: every DataFrame the project writes as CSV (gene,
    clinical and linked tables, notebooks included) goes through here, so a faster
    writer replaces this body, not its callers. The bytes must stay those of
    ``DataFrame.to_csv`` with the same arguments (the demo outputs are compared
    byte for byte). Float tables with a ``%.Pg`` ``float_format`` are formatted in
    bulk by :mod:`utils.io.csv_writer` (those bytes, at the speed of reading them);
    anything else by pandas.
    """
    from utils.io.csv_writer import csv_chunks      # numpy only when a table is written
    chunks = csv_chunks(df, **to_csv_kwargs)
    if chunks is None:
        with atomic_write(path, "w", newline="") as handle:
            df.to_csv(handle, **to_csv_kwargs)
        return
    with atomic_write(path, "wb") as handle:
        handle.writelines(chunks)
