"""Verifying a finished file and moving it into the data tree; where staged files live."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from pathlib import Path
from typing import Callable, Mapping, Optional

from utils.errors import InputFileError
from utils.input_safety import SNIFF_BYTES, check_text_start
from utils.io import PathLike, atomic_write, file_sha256

CHUNK_SIZE = 1 << 16
ENV_STATE_DIR = "GENOTEX_DOWNLOAD_STATE"

#: A check of a finished file: raises ``ValueError`` when the file is bad (its result is
#: ignored), e.g. :func:`utils.io.gzip_content_digest` or :func:`verify_text`.
Verifier = Callable[[Path], object]

__all__ = ["CHUNK_SIZE", "ENV_STATE_DIR", "Verifier", "check_file", "default_state_dir",
           "fsync_file", "install_file", "verify_text"]


def verify_text(path: Path) -> None:
    """Raise ``ValueError`` unless ``path`` looks like a complete text table.

    Refused: an HTML page (an error page served with status 200), UTF-16 text,
    binary data (:func:`utils.input_safety.check_text_start`), and a file whose
    last byte is not a line ending (a body cut short, e.g. by a consistently
    short ``Content-Length``).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = Path(folder.name) / "clinicalMatrix"
    >>> _ = path.write_bytes(b"<!DOCTYPE html><html>Service unavailable</html>\\n")
    >>> verify_text(path)
    Traceback (most recent call last):
    ...
    ValueError: an HTML or XML page, not a data file (an error page saved in place of the file?)
    >>> folder.cleanup()
    """
    with open(path, "rb") as handle:
        head = handle.read(SNIFF_BYTES)
        size = os.fstat(handle.fileno()).st_size
        handle.seek(max(0, size - 1))
        last = handle.read(1)
    try:
        check_text_start(head, path)
    except InputFileError as exc:
        raise ValueError(exc.problem) from None
    if last not in (b"", b"\n"):
        raise ValueError("the text does not end with a line ending (truncated?)")


def check_file(path: Path, expected_size: Optional[int], sha256: Optional[str],
               verify: Optional[Verifier]) -> Optional[str]:
    """What is wrong with a finished file, or None when it passes every check.

    Parameters
    ----------
    path : pathlib.Path
    expected_size : int, optional
        Checked when known.
    sha256 : str, optional
        Hex digest, checked when known (case-insensitive).
    verify : callable, optional
        Extra check raising ``ValueError`` (e.g. :func:`utils.io.gzip_content_digest`).

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = Path(folder.name) / "f.bin"
    >>> _ = path.write_bytes(b"abc")
    >>> check_file(path, 3, None, None) is None
    True
    >>> check_file(path, 4, None, None)
    'size mismatch: got 3 bytes, expected 4'
    >>> folder.cleanup()
    """
    size = path.stat().st_size
    if expected_size is not None and size != expected_size:
        return f"size mismatch: got {size} bytes, expected {expected_size}"
    if sha256:
        digest = file_sha256(path)
        if digest != sha256.lower():
            return f"checksum mismatch: sha256 {digest}, expected {sha256.lower()}"
    if verify is not None:
        try:
            verify(path)
        except ValueError as exc:  # an InputFileError names the part file: keep its problem
            return f"verification failed: {getattr(exc, 'problem', exc)}"
    return None


def fsync_file(path: Path) -> None:
    """Flush a written file's data to disk."""
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def install_file(staged: PathLike, dest: PathLike) -> Path:
    """Move a verified staged file to ``dest`` atomically (folders created).

    Uses :func:`os.replace` on the same file system; across file systems the
    data is copied to a temporary file beside ``dest`` first, then renamed.
    """
    staged, dest = Path(staged), Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(staged, dest)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        with open(staged, "rb") as source, atomic_write(dest, "wb") as target:
            shutil.copyfileobj(source, target, CHUNK_SIZE)
        staged.unlink()
    with contextlib.suppress(OSError):
        os.chmod(dest, 0o644)
    return dest


def default_state_dir(input_root: PathLike,
                      environ: Optional[Mapping[str, str]] = None) -> Path:
    """Folder for part files and checkpoints, outside the data tree.

    ``$GENOTEX_DOWNLOAD_STATE`` when set, else ``<input>/../.<input name>_download_state``.

    Examples
    --------
    >>> default_state_dir("/data/input", environ={}).as_posix()
    '/data/.input_download_state'
    """
    environ = os.environ if environ is None else environ
    if environ.get(ENV_STATE_DIR):
        return Path(environ[ENV_STATE_DIR]).expanduser().resolve()
    root = Path(input_root).expanduser().resolve()
    return root.parent / f".{root.name}_download_state"
