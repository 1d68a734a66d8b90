"""File input/output primitives shared by every component.

* Readers accept gzip-compressed or plain files alike (the magic bytes decide,
  never the file name), and decode text as UTF-8 with a per-byte latin-1
  fallback, so no character is ever dropped.
* Readers open regular files only and cap the decompressed size; text readers
  check the format first (UTF-8 byte-order mark skipped; UTF-16, binary data and
  HTML pages refused), see :mod:`utils.input_safety`.
* Writers are atomic: data goes to a temporary file in the target folder, is
  flushed to disk and then renamed over the target, so a reader never sees a
  half-written file and a crash never destroys the previous version.
* No debris in data trees. A writer holds an OS lock (``flock``) on its
  temporary file until the rename; every atomic write first removes the
  temporary files of its folder that no live writer holds, i.e. those a killed
  process (``kill -9``, power loss) left behind. (POSIX; elsewhere stale
  temporary files are left for the user to remove.)
* :func:`locked` serialises read-modify-write cycles across processes with a
  lock file kept outside the tree, in :func:`utils.paths.lock_dir`.
"""

from __future__ import annotations

import codecs
import contextlib
import gzip
import hashlib
import io
import json
import os
import queue
import re
import secrets
import threading
import zlib
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import IO, Any, Callable, Iterator, Optional, Tuple, Union

from filelock import FileLock

from utils.csv_writer import csv_chunks
from utils.errors import InputFileError
from utils.input_safety import (DEFAULT_LIMITS, MAX_TOTAL_BYTES, SNIFF_BYTES, ReadLimits,
                                check_text_start, require_regular_file)
from utils.paths import lock_dir

try:  # ISA-L's inflater: the same bytes as zlib, 2.5x faster (zlib when it is missing)
    from isal import isal_zlib as inflate_module
except ImportError:  # pragma: no cover - isal is in requirements.txt
    inflate_module = zlib

#: What an inflater raises on corrupt data (zlib's, and ISA-L's own class).
INFLATE_ERRORS = (zlib.error, inflate_module.error)

try:  # POSIX: temporary files of live writers are marked by an flock
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None

PathLike = Union[str, os.PathLike]

GZIP_MAGIC = b"\x1f\x8b"
FALLBACK_ERRORS = "genotex-latin1"
TEMP_SUFFIX = ".tmp"
# ".<target name>.<writer pid>.<16 hex digits>.tmp": the temporary files atomic writes create.
TEMP_NAME = re.compile(r"\..+\.(?P<pid>[0-9]+)\.[0-9a-f]{16}" + re.escape(TEMP_SUFFIX) + r"\Z",
                       re.DOTALL)
LOCK_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]")


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


#: Blocks a background :class:`BlockReader` may hold ahead of its consumer.
BLOCKS_AHEAD = 2


def several_cpus() -> bool:
    """True when this process may run on more than one CPU (a reading thread can overlap)."""
    try:
        return len(os.sched_getaffinity(0)) > 1
    except AttributeError:  # pragma: no cover - not Linux
        return (os.cpu_count() or 1) > 1


def _read_ahead(read_block: Callable[[], bytes], blocks: "queue.Queue",
                stop: threading.Event) -> None:
    """Thread body: put ``read_block()`` results into ``blocks`` until ``b""`` or ``stop``.

    The last item is ``b""`` or the exception that stopped the source. Holds
    no reference to the consumer object (so dropping it closes it).
    """
    def put(item) -> bool:
        while not stop.is_set():
            try:
                blocks.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    try:
        while not stop.is_set():
            block = read_block()
            if not put(block) or not block:
                return
    except BaseException as exc:  # handed to the consumer, raised by its next read
        put(exc)


class BlockReader(io.BufferedIOBase):
    """Binary file object over a source of successive blocks, optionally read ahead.

    With ``background=True`` a thread calls ``read_block`` ahead of the
    consumer, holding at most :data:`BLOCKS_AHEAD` blocks in a bounded queue:
    work that releases the GIL (zlib inflating, pandas parsing) or simply
    runs meanwhile overlaps with the consumer. An exception of the source is
    raised by the consumer's read that reaches it, after the data before it.
    The thread ends at the source's end, or when :meth:`stop_reading` or
    :meth:`close` is called (both wait for it).

    Parameters
    ----------
    read_block : callable
        Returns the next block of bytes, ``b""`` at the end. Called from one
        thread only (the background thread, or the consumer's).
    background : bool
        Read ahead in a thread.
    name : str
        The thread's name.

    Examples
    --------
    >>> blocks = iter([b"ab\\nc", b"d\\n", b""])
    >>> with BlockReader(lambda: next(blocks), background=True) as reader:
    ...     reader.readline(), reader.read()
    (b'ab\\n', b'cd\\n')
    """

    def __init__(self, read_block: Callable[[], bytes], background: bool,
                 name: str = "read-ahead") -> None:
        super().__init__()
        self._read_block = read_block
        self._buf = b""  # bytes not handed out yet: self._buf[self._pos:]
        self._pos = 0
        self._eof = False
        self._blocks: Optional[queue.Queue] = None
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        if background:
            self._blocks = queue.Queue(maxsize=BLOCKS_AHEAD)
            self._thread = threading.Thread(target=_read_ahead, name=name, daemon=True,
                                            args=(read_block, self._blocks, self._stop))
            self._thread.start()

    def readable(self) -> bool:
        return True

    def _raise(self, exc: BaseException):
        """Raise an exception of the source (subclasses translate it)."""
        raise exc

    def _count(self, size: int) -> None:
        """Hook: ``size`` more bytes are handed out."""

    def _next_block(self) -> bytes:
        if self._eof:
            return b""
        if self._blocks is None:
            try:
                block = self._read_block()
            except BaseException as exc:
                self._eof = True
                self._raise(exc)
        else:
            block = self._blocks.get()
            if isinstance(block, BaseException):
                self._eof = True
                self._raise(block)
        if not block:
            self._eof = True
        return block

    def _fill(self, size: int) -> None:
        """Gather blocks until ``size`` bytes are buffered (or the source ends)."""
        pieces = [self._buf[self._pos:]]
        have = len(pieces[0])
        while have < size:
            block = self._next_block()
            if not block:
                break
            pieces.append(block)
            have += len(block)
        if len(pieces) > 1:
            self._buf, self._pos = b"".join(pieces), 0

    def _take(self, size: int) -> bytes:
        data = self._buf[self._pos:self._pos + size]
        self._pos += len(data)
        if self._pos >= len(self._buf):
            self._buf, self._pos = b"", 0
        self._count(len(data))
        return data

    def read(self, size: Optional[int] = -1) -> bytes:
        """``size`` bytes (fewer only at the end); everything for ``size < 0``."""
        if size is None or size < 0:
            pieces = [self._take(len(self._buf))]
            pieces.extend(iter(lambda: self._take_block(), b""))
            return b"".join(pieces)
        self._fill(size)
        return self._take(size)

    def _take_block(self) -> bytes:
        block = self._next_block()
        self._count(len(block))
        return block

    def read1(self, size: int = -1) -> bytes:
        if self._pos >= len(self._buf):
            self._fill(1)
        return self._take(len(self._buf) if size is None or size < 0 else size)

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def readline(self, size: Optional[int] = -1) -> bytes:
        pieces, got = [], 0
        limit = None if size is None or size < 0 else size
        while limit is None or got < limit:
            if self._pos >= len(self._buf):
                block = self._next_block()
                if not block:
                    break
                self._buf, self._pos = block, 0
            end = len(self._buf) if limit is None else min(len(self._buf),
                                                           self._pos + limit - got)
            newline = self._buf.find(b"\n", self._pos, end)
            piece = self._take((end if newline < 0 else newline + 1) - self._pos)
            pieces.append(piece)
            got += len(piece)
            if newline >= 0:
                break
        return b"".join(pieces)

    def peek(self, size: int = 1) -> bytes:
        """Bytes ahead without consuming them (at least ``size`` unless the source ends)."""
        self._fill(max(size, 1))
        return self._buf[self._pos:]

    def stop_reading(self) -> None:
        """Stop the background thread and wait for it (the source is then free)."""
        if self._thread is None:
            return
        self._stop.set()
        with contextlib.suppress(queue.Empty):  # unblock a waiting put at once
            while True:
                self._blocks.get_nowait()
        self._thread.join()
        self._thread = None

    def close(self) -> None:
        if not self.closed:
            try:
                self.stop_reading()
            finally:
                super().close()


#: Compressed bytes a gzip reader inflates in its first zlib call; each next call takes
#: 4x more, up to :data:`GZIP_MAX_INPUT_BYTES`: a reader of the first lines waits
#: little, a reader of the whole file passes the GIL rarely (a few dozen times per
#: 100 MB; a wait for the GIL stalls the inflating thread up to the switch interval).
GZIP_FIRST_INPUT_BYTES = 1 << 16
GZIP_MAX_INPUT_BYTES = 1 << 20
#: Most decompressed bytes of one zlib call, per compressed byte of the call's input.
GZIP_OUTPUT_PER_INPUT = 4


class _Gunzip:
    """The decompressed blocks of a gzip file, one per call (``b""`` at the end).

    The inflater (ISA-L's when installed, else zlib: :data:`inflate_module`)
    checks each member's header and its CRC-32 and size trailer (``wbits=31``).
    Members are joined and zero padding after a member is skipped, as
    :class:`gzip.GzipFile` does. Each call is one inflater call (it runs without
    the GIL) on up to :data:`GZIP_FIRST_INPUT_BYTES` of input, growing 4x per call to
    :data:`GZIP_MAX_INPUT_BYTES`, with at most :data:`GZIP_OUTPUT_PER_INPUT` x
    as many bytes out (4 MiB at most, whatever the compression ratio).

    Raises
    ------
    EOFError
        The input ends inside a member.
    zlib.error or isal.isal_zlib.error (:data:`INFLATE_ERRORS`)
        Corrupt data, a bad CRC or size, bytes after a member that start no member.
    """

    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle
        self._inflater = inflate_module.decompressobj(wbits=31)
        self._pending = b""  # compressed bytes not given to the inflater yet
        self._step = GZIP_FIRST_INPUT_BYTES

    def _next_member(self) -> bool:
        """After a member: start the next one; False at the end of the file."""
        rest = self._inflater.unused_data.lstrip(b"\x00")
        while not rest:
            chunk = self._handle.read(self._step)
            if not chunk:
                return False
            rest = chunk.lstrip(b"\x00")
        if len(rest) < len(GZIP_MAGIC):
            rest += self._handle.read(self._step)
        if not rest.startswith(GZIP_MAGIC):   # (ISA-L would wait for a whole header)
            raise zlib.error("bytes after a gzip member do not start a member")
        self._inflater = inflate_module.decompressobj(wbits=31)
        self._pending = rest
        return True

    def __call__(self) -> bytes:
        while True:
            if self._inflater.eof and not self._next_member():
                return b""
            if not self._pending:
                self._pending = self._handle.read(self._step)
                if not self._pending:
                    raise EOFError("compressed stream ends before its end marker")
            data = self._inflater.decompress(self._pending, self._step * GZIP_OUTPUT_PER_INPUT)
            self._pending = self._inflater.unconsumed_tail
            if data:
                self._step = min(4 * self._step, GZIP_MAX_INPUT_BYTES)
                return data


class _CheckedGzip(BlockReader):
    """Decompress an open gzip file; truncation/corruption errors name the file.

    The file is inflated by :class:`_Gunzip`; on a machine with more than one
    CPU ahead of the consumer, by a background thread (:class:`BlockReader`),
    so zlib inflating the next blocks (without the GIL) overlaps with the
    consumer's work.

    Parameters
    ----------
    handle : binary file object
        The compressed file, already open (closed with this object).
    path : path-like
        Named in error messages.
    max_bytes : int
        Most decompressed bytes handed out; one more raises :class:`InputFileError`
        (a gzip bomb is stopped before it fills the memory).
    background : bool, optional
        Decompress in a background thread; default :func:`several_cpus`.
    """

    def __init__(self, handle: IO[bytes], path: PathLike,
                 max_bytes: int = MAX_TOTAL_BYTES,
                 background: Optional[bool] = None) -> None:
        self._path = os.fspath(path)
        self._file = handle
        self._max_bytes = max_bytes
        self._given = 0
        super().__init__(_Gunzip(handle), several_cpus() if background is None else background,
                         name=f"gunzip {os.path.basename(self._path)}")

    def _raise(self, exc: BaseException):
        if isinstance(exc, EOFError):
            raise InputFileError(self._path, "truncated gzip file (compressed "
                                 "stream ends early)") from exc
        if isinstance(exc, (OSError, *INFLATE_ERRORS)):
            raise InputFileError(self._path, f"corrupt gzip data ({exc})") from exc
        raise exc

    def _count(self, size: int) -> None:
        self._given += size
        if self._given > self._max_bytes:
            raise InputFileError(self._path, f"more than {self._max_bytes} bytes once "
                                 "decompressed (the limit of one input file; a gzip "
                                 f"bomb?): stopped at offset {self._max_bytes}")

    def close(self) -> None:
        if self.closed:
            return
        try:
            self.stop_reading()
        finally:
            self._file.close()
            super().close()


def _open_regular(path: Path) -> IO[bytes]:
    """Open ``path`` for binary reading; refuse anything but a regular file.

    The type is checked before opening (opening a FIFO would wait for a writer
    forever) and again on the open file.
    """
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
    handle = _open_regular(path)
    try:
        if handle.peek(len(GZIP_MAGIC))[:len(GZIP_MAGIC)] == GZIP_MAGIC:
            return _CheckedGzip(handle, path, max_bytes)
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise InputFileError(path, f"file of {size} bytes, more than the limit of "
                                 f"{max_bytes} bytes for one input file")
    except BaseException:
        handle.close()
        raise
    return handle


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
        data = gzip.decompress(data) if data[:2] == GZIP_MAGIC else data
        return decode_text(data[check_text_start(data[:SNIFF_BYTES], path):])
    with open_text_bytes(path) as handle:
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


def _create_temp(target: Path) -> Tuple[int, str]:
    """Create and lock ``.<name>.<pid>.<random>.tmp`` beside ``target``; (fd, path)."""
    while True:
        name = os.path.join(target.parent, f".{target.name}.{os.getpid()}."
                                           f"{secrets.token_hex(8)}{TEMP_SUFFIX}")
        try:
            fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # pragma: no cover - 64 random bits collided
            continue
        if fcntl is None:  # pragma: no cover - not POSIX
            return fd, name
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:  # pragma: no cover - a file system without flock: cleaners skip too
            return fd, name
        if os.fstat(fd).st_nlink:
            return fd, name
        os.close(fd)  # a cleaner took it for stale before the lock was set: retry


@contextlib.contextmanager
def atomic_write(path: PathLike, mode: str = "w", encoding: str = "utf-8",
                 newline: str | None = None) -> Iterator[IO]:
    """Write a file atomically: locked temp file in the same folder, fsync, rename.

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
        temporary file is removed and ``path`` is left untouched. Temporary
        files that killed writers left in the folder are removed first
        (:func:`remove_stale_temp_files`).
    """
    if mode not in ("w", "wb"):
        raise ValueError("atomic_write supports modes 'w' and 'wb'")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temp_files(target.parent)
    fd, tmp_name = _create_temp(target)
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
            handle.flush()
            os.fsync(handle.fileno())
            os.chmod(tmp_name, 0o644)
            if fcntl is not None:  # rename while the lock still marks the file as live
                os.replace(tmp_name, target)
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

    Float tables with a ``%.Pg`` ``float_format`` are formatted in bulk by
    :mod:`utils.csv_writer` (the same bytes as pandas); anything else by pandas.
    """
    chunks = csv_chunks(df, **to_csv_kwargs)
    if chunks is None:
        with atomic_write(path, "w", newline="") as handle:
            df.to_csv(handle, **to_csv_kwargs)
        return
    with atomic_write(path, "wb") as handle:
        handle.writelines(chunks)


def lock_file(path: PathLike, environ=None) -> Path:
    """The lock file :func:`locked` uses for ``path`` (in :func:`utils.paths.lock_dir`).

    The name is the file's name plus a digest of its folder's identity (device
    and inode, so every spelling of the path, symbolic links and bind mounts
    included, gives the same lock) and of the name. The folder must exist.
    """
    target = Path(path)
    folder = os.stat(target.parent)
    digest = hashlib.sha256(f"{folder.st_dev}:{folder.st_ino}/{target.name}".encode(
        "utf-8", "surrogatepass")).hexdigest()[:24]
    readable = LOCK_NAME_CHARS.sub("_", target.name)[:40]
    return lock_dir(environ) / f"{readable}-{digest}.lock"


def _private_dir(folder: Path) -> Path:
    """Create ``folder`` (mode 0700) and refuse one owned by another user."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if hasattr(os, "getuid") and folder.stat().st_uid != os.getuid():
        raise PermissionError(f"{folder}: lock folder owned by another user; set "
                              "GENOTEX_LOCK_DIR to a folder of your own")
    return folder


@contextlib.contextmanager
def locked(path: PathLike, timeout: float = 120.0) -> Iterator[None]:
    """Hold an inter-process lock tied to ``path``; the lock file is not in its folder.

    The lock file is :func:`lock_file` (``<lock dir>/<name>-<digest>.lock``),
    so a data tree never holds one. The OS releases the lock when its holder
    dies, so a killed writer never blocks the next one.

    Parameters
    ----------
    path : path-like
        The file whose read-modify-write cycle must be serialised; its folder
        is created.
    timeout : float
        Seconds to wait before giving up with :class:`TimeoutError`.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    lock_path = lock_file(target)
    _private_dir(lock_path.parent)
    with FileLock(str(lock_path), timeout=timeout):
        yield
