"""Guarded readers: every input file is opened here, checked before it is trusted.

* Readers accept gzip-compressed or plain files alike (the magic bytes decide,
  never the file name), and decode text as UTF-8 with a per-byte latin-1
  fallback, so no character is ever dropped.
* Readers open regular files only and cap the decompressed size; text readers
  check the format first (UTF-8 byte-order mark skipped; UTF-16, binary data and
  HTML pages refused), see :mod:`utils.input_safety`.
* A gzip stream cut short or damaged is refused, naming the file
  (:mod:`utils.io.gzip_stream`); a reader that stops before the end of a gzip
  file calls :func:`check_complete`, so the part it skipped is checked too.
* The small tab-separated tables shipped with the code (comments start with
  ``#``) are read by :func:`data_lines` and :func:`read_table`.
"""

from __future__ import annotations

import codecs
import hashlib
import io
import json
import os
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import IO, Any, Iterator, List, Optional, Sequence, Tuple, Union

from utils.errors import InputFileError
from utils.input_safety import (DEFAULT_LIMITS, MAX_TOTAL_BYTES, SNIFF_BYTES, ReadLimits,
                                check_text_start, require_regular_file)
from utils.io.gzip_stream import GZIP_MAGIC, CheckedGzip, inflate_bytes
from utils.io.types import PathLike

FALLBACK_ERRORS = "genotex-latin1"
#: A size cap no file reaches (for checks that stream a file without holding it).
NO_SIZE_LIMIT = 1 << 62

#: A table: a path, or a file shipped inside a package (:func:`importlib.resources.files`).
TableSource = Union[PathLike, Traversable]


def _latin1_fallback(error: UnicodeError):
    """Codec error handler: decode undecodable bytes as latin-1 characters."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    bad = error.object[error.start:error.end]
    return bytes(bad).decode("latin-1"), error.end


codecs.register_error(FALLBACK_ERRORS, _latin1_fallback)


def _sha256_of(handle: IO[bytes], chunk_size: int = 1 << 20) -> Tuple[str, int]:
    """SHA-256 (hex) and size of what ``handle`` reads to its end."""
    digest, size = hashlib.sha256(), 0
    for block in iter(lambda: handle.read(chunk_size), b""):
        digest.update(block)
        size += len(block)
    return digest.hexdigest(), size


def file_signature(path: PathLike) -> Tuple[int, int, int, int]:
    """``(size, mtime_ns, ctime_ns, inode)`` of ``path``: what a cache of the file's
    contents is keyed on.

    Any rewrite changes it, even within one tick of a coarse modification time:
    an atomic replace gives a new inode, a write in place a new change time.

    Raises
    ------
    OSError
        The file cannot be stat-ed (callers name it in their own error).
    """
    stat = os.stat(path)
    return stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino


def file_sha256(path: PathLike, chunk_size: int = 1 << 20) -> str:
    """SHA-256 hex digest of a file's bytes (read in chunks)."""
    with open(path, "rb") as handle:
        return _sha256_of(handle, chunk_size)[0]


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

def _too_large(path: PathLike, size: int, max_bytes: int) -> InputFileError:
    """The error of a file over the size cap."""
    return InputFileError(path, f"file of {size} bytes, more than the limit of {max_bytes} "
                          "bytes for one input file")


def open_raw(path: PathLike) -> IO[bytes]:
    """Open a regular file for binary reading, its bytes as stored (gzip left compressed).

    For checks of a file's framing (magic bytes, a footer); readers of content use
    :func:`open_binary`.

    The type is checked before opening (opening a FIFO would wait for a writer
    forever) and again on the open file.

    Raises
    ------
    InputFileError
        The file does not exist, or is a folder, a FIFO, a device or a socket.
    """
    path = Path(path)
    try:
        require_regular_file(path, os.stat(path).st_mode)
        handle = open(path, "rb")
    except FileNotFoundError:
        raise InputFileError(path, "file not found") from None
    except (IsADirectoryError, PermissionError):
        if path.is_dir():  # Windows refuses a folder with PermissionError
            raise InputFileError(path, "is a folder, expected a file") from None
        raise
    try:
        require_regular_file(path, os.fstat(handle.fileno()).st_mode)
    except BaseException:
        handle.close()
        raise
    return handle


def open_binary(path: PathLike, max_bytes: int = MAX_TOTAL_BYTES) -> IO[bytes]:
    """Open a file for binary reading, transparently decompressing gzip.

    The file is opened once: its first two bytes are peeked at through the
    same handle to recognise gzip (the magic bytes decide, never the name).

    Parameters
    ----------
    path : path-like
    max_bytes : int
        Most bytes that may be read (after decompression); a larger plain file
        is refused at once, a gzip stream when it passes the cap.

    Returns
    -------
    binary file object
        Reading errors of a damaged gzip stream raise :class:`InputFileError`.

    Raises
    ------
    InputFileError
        When the file does not exist, is a folder, a FIFO, a device or a
        socket (never opened for reading: it could block forever), or is
        larger than ``max_bytes``.

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
    handle = open_raw(path)
    try:
        if handle.peek(len(GZIP_MAGIC))[:len(GZIP_MAGIC)] == GZIP_MAGIC:
            return CheckedGzip(handle, path, max_bytes)
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise _too_large(path, size, max_bytes)
    except BaseException:
        handle.close()
        raise
    return handle


def is_gzip(path: PathLike) -> bool:
    """True when a regular file starts with the gzip magic bytes.

    Raises
    ------
    InputFileError
        The file does not exist, or is not a regular file (never opened).
    """
    with open_raw(path) as handle:
        return handle.read(len(GZIP_MAGIC)) == GZIP_MAGIC


def gzip_content_digest(path: PathLike, max_bytes: Optional[int] = None) -> Tuple[str, int]:
    """Check a whole gzip file; the SHA-256 (hex) and size of its decompressed content.

    The one check that a file is a complete gzip stream: every member's CRC-32
    and size are verified (:class:`utils.io.gzip_stream.CheckedGzip`), so a
    stream cut short, a damaged one, or a file that is no gzip at all (an HTML
    error page saved in place of a ``.gz``) is refused.

    Parameters
    ----------
    path : path-like
    max_bytes : int, optional
        Most decompressed bytes accepted; None: no limit (the content is
        streamed, never held).

    Raises
    ------
    InputFileError
        Naming the file: not a regular file, not gzip, damaged or cut short,
        or larger than ``max_bytes`` once decompressed.

    Examples
    --------
    >>> import gzip, pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     two_members = pathlib.Path(folder, "b.gz")
    ...     _ = two_members.write_bytes(gzip.compress(b"hello") + gzip.compress(b"!"))
    ...     print(gzip_content_digest(two_members)[1])
    6
    """
    path = Path(path)
    with open_binary(path, NO_SIZE_LIMIT if max_bytes is None else max_bytes) as handle:
        if not isinstance(handle, CheckedGzip):
            raise InputFileError(path, "not a gzip file (no gzip magic bytes at its start)")
        return _sha256_of(handle)


def read_raw_bytes(path: PathLike, max_bytes: int = MAX_TOTAL_BYTES) -> bytes:
    """The bytes of a file as stored (gzip left compressed), from a regular file only.

    For readers that need the stored bytes themselves (a digest of the file)
    before they take their content with :func:`content_of`.

    Raises
    ------
    InputFileError
        The file does not exist, is a folder, a FIFO, a device or a socket, or
        is larger than ``max_bytes``; or it cannot be read.
    """
    path = Path(path)
    with open_raw(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise _too_large(path, size, max_bytes)
        try:
            return handle.read()
        except OSError as exc:
            raise InputFileError(path, f"cannot read file ({exc.strerror or exc})") from exc


def content_of(data: bytes, path: PathLike, max_bytes: int = MAX_TOTAL_BYTES) -> bytes:
    """The content of stored bytes: decompressed when they are gzip (the magic bytes
    decide), as they are otherwise; see :func:`read_raw_bytes`.

    Examples
    --------
    >>> import gzip
    >>> content_of(gzip.compress(b"a,b\\n"), "t.csv"), content_of(b"a,b\\n", "t.csv")
    (b'a,b\\n', b'a,b\\n')
    """
    if data[:len(GZIP_MAGIC)] == GZIP_MAGIC:
        return inflate_bytes(data, path, max_bytes)
    if len(data) > max_bytes:
        raise _too_large(path, len(data), max_bytes)
    return data


def open_text_bytes(path: PathLike, limits: Optional[ReadLimits] = None) -> IO[bytes]:
    """Open a text file (gzip or plain) as bytes, its format checked first.

    Like :func:`open_binary`, and :func:`utils.input_safety.check_text_start` on
    the first decompressed bytes: a UTF-8 byte-order mark is skipped; UTF-16 /
    UTF-32 text, binary data and HTML pages raise :class:`InputFileError`.

    Parameters
    ----------
    path : path-like
    limits : ReadLimits, optional
        Size caps (default :data:`utils.input_safety.DEFAULT_LIMITS`).

    Returns
    -------
    binary file object
        Positioned after the byte-order mark, if any.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "a.txt"
    >>> _ = path.write_bytes(b"\\xef\\xbb\\xbfID\\tx\\n")
    >>> with open_text_bytes(path) as handle:
    ...     handle.read()
    b'ID\\tx\\n'
    >>> folder.cleanup()
    """
    limits = limits or DEFAULT_LIMITS
    handle = open_binary(path, limits.max_total_bytes)
    try:
        skip = check_text_start(handle.peek(SNIFF_BYTES)[:SNIFF_BYTES], path)
        if skip:
            handle.read(skip)
    except BaseException:
        handle.close()
        raise
    return handle


def open_text(path: PathLike) -> IO[str]:
    """Open a (possibly gzipped) text file; UTF-8 with latin-1 fallback.

    Parameters
    ----------
    path : path-like

    Returns
    -------
    text file object
        Universal newlines; invalid UTF-8 bytes become latin-1 characters; the
        format is checked first (see :func:`open_text_bytes`).
    """
    return io.TextIOWrapper(open_text_bytes(path), encoding="utf-8",
                            errors=FALLBACK_ERRORS, newline=None)


def read_text(path: Union[PathLike, Traversable]) -> str:
    """Read a whole (possibly gzipped) text file, see :func:`open_text`.

    ``path`` may also be a file shipped inside a package
    (:func:`importlib.resources.files`), even when the package is not a folder
    on disk (a zip).
    """
    if not isinstance(path, (str, os.PathLike)):
        data = path.read_bytes()
        data = inflate_bytes(data, str(path)) if data[:2] == GZIP_MAGIC else data
        return decode_text(data[check_text_start(data[:SNIFF_BYTES], path):])
    with open_text_bytes(path) as handle:
        return decode_text(handle.read())


class RepeatedKeyError(ValueError):
    """A JSON object names the same key twice (:func:`unique_keys`)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key


def unique_keys(pairs: List[Tuple[str, Any]]) -> dict:
    """``object_pairs_hook`` for :func:`json.loads`: the object as a dict, or
    :class:`RepeatedKeyError` when a key occurs twice (plain ``json.loads`` keeps
    the last value in silence)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set = set()
        raise RepeatedKeyError(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return obj


def read_json(path: Union[PathLike, Traversable]) -> Any:
    """Read a (possibly gzipped) JSON file with a clear error on bad content.

    Raises
    ------
    InputFileError
        When the file is missing, empty, or not valid JSON, or when an object
        names a key twice (plain :func:`json.loads` keeps the last value in
        silence: a cohort record or a trait written twice would be lost).
    """
    text = read_text(path)
    if not text.strip():
        raise InputFileError(path, "empty file, expected JSON")
    try:
        return json.loads(text, object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise InputFileError(path, f"invalid JSON ({exc.msg})", line=exc.lineno) from exc
    except RepeatedKeyError as exc:
        raise InputFileError(path, f"key {exc.key!r} occurs twice in one JSON object (the "
                             "second value would replace the first in silence)") from None


def check_complete(handle: IO) -> None:
    """Check the rest of a file a reader stops reading early (gzip streams only).

    A plain file has nothing more to check; a gzip stream is inflated to its
    end (:meth:`utils.io.gzip_stream.CheckedGzip.check_complete`), so a file cut
    short after the part that was read is refused. ``handle`` is what
    :func:`open_binary`, :func:`open_text_bytes` or :func:`open_text` returned.

    Raises
    ------
    InputFileError
        The gzip stream is cut short or damaged (naming the file).
    """
    raw = handle.buffer if isinstance(handle, io.TextIOWrapper) else handle
    if isinstance(raw, CheckedGzip):
        raw.check_complete()


def data_lines(path: TableSource) -> Iterator[Tuple[int, str]]:
    """``(line number, text)`` of the non-empty, non-comment (``#``) lines of a text file.

    Examples
    --------
    >>> from importlib import resources
    >>> lines = dict(data_lines(resources.files("utils").joinpath("data/cancer_traits.txt")))
    >>> "Breast_Cancer" in lines.values()
    True
    """
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield number, line


def read_table(path: TableSource, columns: Sequence[str]) -> List[Tuple[int, List[str]]]:
    """Rows of a small TSV whose header is exactly ``columns``, as ``(line, stripped cells)``.

    Blank lines and ``#`` comments are skipped (:func:`data_lines`).

    Raises
    ------
    InputFileError
        When the header differs or a row has the wrong number of cells (naming the line).
    """
    lines = list(data_lines(path))
    if not lines or tuple(lines[0][1].split("\t")) != tuple(columns):
        raise InputFileError(path, f"header must be {' / '.join(columns)} (tab-separated)")
    rows = []
    for number, line in lines[1:]:
        cells = [cell.strip() for cell in line.split("\t")]
        if len(cells) != len(columns) or not cells[0]:
            raise InputFileError(path, f"expected {len(columns)} tab-separated cells",
                                 line=number)
        rows.append((number, cells))
    return rows
