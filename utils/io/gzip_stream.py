"""The gzip engine: a file object that inflates a gzip stream, optionally ahead in a thread.

* :class:`BlockReader` turns a source of successive blocks into a binary file
  object; with ``background=True`` a thread produces the blocks ahead of the
  consumer (inflating runs without the GIL, so it overlaps with parsing).
* :class:`CheckedGzip` inflates a gzip file with ISA-L's inflater (zlib's when
  ISA-L is missing; the same bytes): members are joined, zero padding is
  skipped, every member's CRC-32 and size are checked, the decompressed size is
  capped (a gzip bomb stops with an error), and a stream cut short (the file ends
  inside a member, or before a member's trailer) raises
  :class:`utils.errors.InputFileError` naming the file. A reader that stops
  early calls :meth:`CheckedGzip.check_complete` so the rest is checked too.
* :func:`inflate_bytes` does the same for compressed bytes already in memory.

The readers of :mod:`utils.io.readers` open files through this module; nothing
else in the project inflates gzip data for reading.
"""

from __future__ import annotations

import contextlib
import io
import os
import queue
import threading
import zlib
from typing import IO, Callable, Optional

from utils.errors import InputFileError
from utils.input_safety import MAX_TOTAL_BYTES
from utils.io.types import PathLike

try:  # ISA-L's inflater: the same bytes as zlib, 2.5x faster (zlib when it is missing)
    from isal import isal_zlib as inflate_module
except ImportError:  # pragma: no cover - isal is in requirements.txt
    inflate_module = zlib

#: What an inflater raises on corrupt data (zlib's, and ISA-L's own class).
INFLATE_ERRORS = (zlib.error, inflate_module.error)

GZIP_MAGIC = b"\x1f\x8b"


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


class CheckedGzip(BlockReader):
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

    Examples
    --------
    >>> import gzip
    >>> packed = gzip.compress(b"ID\\tx\\n1\\t2\\n")
    >>> with CheckedGzip(io.BytesIO(packed), "a.txt.gz") as reader:
    ...     reader.readline()
    b'ID\\tx\\n'
    >>> with CheckedGzip(io.BytesIO(packed[:-4]), "a.txt.gz") as reader:
    ...     reader.readline()
    ...     reader.check_complete()  # a reader that stops early checks the rest
    Traceback (most recent call last):
    ...
    utils.errors.InputFileError: a.txt.gz: truncated gzip file (compressed stream ends early)
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

    def check_complete(self) -> None:
        """Inflate the part not read yet (discarding it): the whole stream must be intact.

        A reader that takes only the start of a file (a header, the first
        table) calls this before it trusts what it read, so a file cut short
        after that part, or damaged there, is refused all the same. The rest
        counts towards the decompressed-size cap.

        Raises
        ------
        InputFileError
            The stream is cut short or corrupt, or larger than the cap once
            decompressed; the message names the file.
        """
        if self.closed:
            raise ValueError("check_complete on a closed gzip reader")
        self._buf, self._pos = b"", 0
        while self._take_block():
            pass

    def close(self) -> None:
        if self.closed:
            return
        try:
            self.stop_reading()
        finally:
            self._file.close()
            super().close()


def inflate_bytes(data: bytes, path: PathLike, max_bytes: int = MAX_TOTAL_BYTES) -> bytes:
    """The decompressed content of gzip bytes held in memory, checked like a file's.

    Parameters
    ----------
    data : bytes
        One or more gzip members (zero padding after a member is skipped).
    path : path-like
        Where the bytes came from, named in errors.
    max_bytes : int
        Most decompressed bytes.

    Raises
    ------
    InputFileError
        The stream is cut short, corrupt, or over ``max_bytes`` once decompressed.

    Examples
    --------
    >>> import gzip
    >>> inflate_bytes(gzip.compress(b"hello"), "a.gz")
    b'hello'
    """
    with CheckedGzip(io.BytesIO(data), path, max_bytes, background=False) as reader:
        return reader.read()
