"""File input/output primitives shared by every component.

* Readers accept gzip-compressed or plain files alike (the magic bytes decide,
  never the file name), and decode text as UTF-8 with a per-byte latin-1
  fallback, so no character is ever dropped.
* Writers are atomic: data goes to a temporary file in the target folder, is
  flushed to disk and then renamed over the target, so a reader never sees a
  half-written file and a crash never destroys the previous version.
* :func:`locked` serialises read-modify-write cycles across processes.
"""

from __future__ import annotations

import codecs
import contextlib
import gzip
import hashlib
import io
import json
import os
import tempfile
import zlib
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import IO, Any, Iterator, Union

from filelock import FileLock

from utils.errors import InputFileError

PathLike = Union[str, os.PathLike]

GZIP_MAGIC = b"\x1f\x8b"
FALLBACK_ERRORS = "genotex-latin1"


def _latin1_fallback(error: UnicodeError):
    """Codec error handler: decode undecodable bytes as latin-1 characters."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    bad = error.object[error.start:error.end]
    return bytes(bad).decode("latin-1"), error.end


codecs.register_error(FALLBACK_ERRORS, _latin1_fallback)


def file_sha256(path: PathLike, chunk_size: int = 1 << 20) -> str:
    """SHA-256 hex digest of a file's bytes (read in chunks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(chunk_size), b""):
            digest.update(block)
    return digest.hexdigest()


def decode_text(data: bytes) -> str:
    """Decode bytes as UTF-8, decoding any invalid byte as latin-1.

    Parameters
    ----------
    data : bytes

    Returns
    -------
    str
        Text with one character per undecodable byte; nothing is dropped.
    """
    return data.decode("utf-8", errors=FALLBACK_ERRORS)


def is_gzip(path: PathLike) -> bool:
    """Return True when the file starts with the gzip magic bytes."""
    with open(path, "rb") as handle:
        return handle.read(2) == GZIP_MAGIC


class _CheckedGzip(io.BufferedIOBase):
    """Decompress an open gzip file; truncation/corruption errors name the file.

    Parameters
    ----------
    handle : binary file object
        The compressed file, already open (closed with this object).
    path : path-like
        Named in error messages.
    """

    def __init__(self, handle: IO[bytes], path: PathLike) -> None:
        self._path = os.fspath(path)
        self._file = handle
        self._raw = gzip.GzipFile(fileobj=handle, mode="rb")

    def readable(self) -> bool:
        return True

    def _guard(self, func, *args):
        try:
            return func(*args)
        except EOFError as exc:
            raise InputFileError(self._path, "truncated gzip file (compressed "
                                 "stream ends early)") from exc
        except (OSError, zlib.error) as exc:
            raise InputFileError(self._path, f"corrupt gzip data ({exc})") from exc

    def read(self, size: int = -1) -> bytes:
        return self._guard(self._raw.read, size)

    def read1(self, size: int = -1) -> bytes:
        return self._guard(self._raw.read1, size)

    def readinto(self, buffer) -> int:
        return self._guard(self._raw.readinto, buffer)

    def readline(self, size: int = -1) -> bytes:
        return self._guard(self._raw.readline, size)

    def __iter__(self):
        return self

    def __next__(self) -> bytes:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def close(self) -> None:
        try:
            self._raw.close()
        finally:
            self._file.close()
            super().close()


def open_binary(path: PathLike) -> IO[bytes]:
    """Open a file for binary reading, transparently decompressing gzip.

    The file is opened once: its first two bytes are peeked at through the
    same handle to recognise gzip (the magic bytes decide, never the name).

    Parameters
    ----------
    path : path-like

    Returns
    -------
    binary file object
        Reading errors of a damaged gzip stream raise :class:`InputFileError`.

    Raises
    ------
    InputFileError
        When the file does not exist or is a folder.

    Examples
    --------
    >>> import gzip, tempfile, pathlib
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "a.txt.gz"
    >>> _ = path.write_bytes(gzip.compress(b"hello"))
    >>> with open_binary(path) as handle:
    ...     handle.read()
    b'hello'
    >>> folder.cleanup()
    """
    path = Path(path)
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        raise InputFileError(path, "file not found") from None
    except (IsADirectoryError, PermissionError):
        if path.is_dir():  # Windows refuses a folder with PermissionError
            raise InputFileError(path, "is a folder, expected a file") from None
        raise
    if handle.peek(len(GZIP_MAGIC))[:len(GZIP_MAGIC)] == GZIP_MAGIC:
        return _CheckedGzip(handle, path)
    return handle


def open_text(path: PathLike) -> IO[str]:
    """Open a (possibly gzipped) text file; UTF-8 with latin-1 fallback.

    Parameters
    ----------
    path : path-like

    Returns
    -------
    text file object
        Universal newlines; invalid UTF-8 bytes become latin-1 characters.
    """
    return io.TextIOWrapper(open_binary(path), encoding="utf-8",
                            errors=FALLBACK_ERRORS, newline=None)


def read_text(path: Union[PathLike, Traversable]) -> str:
    """Read a whole (possibly gzipped) text file, see :func:`open_text`.

    ``path`` may also be a file shipped inside a package
    (:func:`importlib.resources.files`), even when the package is not a folder
    on disk (a zip).
    """
    if not isinstance(path, (str, os.PathLike)):
        data = path.read_bytes()
        return decode_text(gzip.decompress(data) if data[:2] == GZIP_MAGIC else data)
    with open_binary(path) as handle:
        return decode_text(handle.read())


def read_json(path: Union[PathLike, Traversable]) -> Any:
    """Read a (possibly gzipped) JSON file with a clear error on bad content.

    Raises
    ------
    InputFileError
        When the file is missing, empty, or not valid JSON.
    """
    text = read_text(path)
    if not text.strip():
        raise InputFileError(path, "empty file, expected JSON")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFileError(path, f"invalid JSON ({exc.msg})", line=exc.lineno) from exc


@contextlib.contextmanager
def atomic_write(path: PathLike, mode: str = "w", encoding: str = "utf-8",
                 newline: str | None = None) -> Iterator[IO]:
    """Write a file atomically: temp file in the same folder, fsync, rename.

    Parameters
    ----------
    path : path-like
        Target file; parent folders are created.
    mode : {"w", "wb"}
    encoding : str
        Text encoding for ``mode="w"``.
    newline : str, optional
        Passed to :func:`open` in text mode.

    Yields
    ------
    file object
        Write to it; on normal exit it replaces ``path``; on an exception the
        temporary file is removed and ``path`` is left untouched.
    """
    if mode not in ("w", "wb"):
        raise ValueError("atomic_write supports modes 'w' and 'wb'")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                    dir=target.parent)
    try:
        if mode == "wb":
            handle = os.fdopen(fd, "wb")
        else:
            handle = os.fdopen(fd, "w", encoding=encoding, newline=newline)
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_name, 0o644)
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
    """Atomically write a DataFrame as CSV (``DataFrame.to_csv`` arguments)."""
    with atomic_write(path, "w", newline="") as handle:
        df.to_csv(handle, **to_csv_kwargs)


@contextlib.contextmanager
def locked(path: PathLike, timeout: float = 120.0) -> Iterator[None]:
    """Hold an inter-process lock tied to ``path`` (lock file ``<path>.lock``).

    Parameters
    ----------
    path : path-like
        The file whose read-modify-write cycle must be serialised.
    timeout : float
        Seconds to wait before giving up with :class:`TimeoutError`.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(target) + ".lock", timeout=timeout):
        yield
