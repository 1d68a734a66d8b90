r"""Stream line-oriented tables (GEO, SOFT, TSV) into pandas, row widths checked on the way.

GEO series matrix and SOFT files are long line-oriented headers with one or
more tab-separated tables between a begin and an end marker line
(``!series_matrix_table_begin`` / ``!series_matrix_table_end``,
``!platform_table_begin`` / ``!platform_table_end``). :class:`LineStream` walks
the header line by line and hands each table to :func:`pandas.read_csv` as a
file-like :class:`TableSection` that stops at the end marker, so a table is
parsed by pandas' C reader straight from the (possibly gzipped) stream and
never materialised as Python lists of lines.

The section checks the width of every row as the bytes go by
(:class:`utils.io.rows.RowWidths`), so a bad row is named without reading the
file a second time; it also notices a stray begin marker inside a table and a
last line cut short (no line ending). A reader that leaves :func:`open_lines`
normally has the rest of a gzip file checked (:func:`utils.io.readers.check_complete`):
a file cut short after the part it read is refused too.

Work is linear in the file size whatever the line lengths: a line that spans
many read chunks is gathered once, not re-copied at every chunk, and a line
longer than ``max_line_bytes`` (:data:`utils.input_safety.MAX_LINE_BYTES`)
raises :class:`utils.errors.InputFileError` naming the file and the line.

Bytes are handed over undecoded; decoding (UTF-8 with a per-byte latin-1
fallback, see :mod:`utils.io.readers`) happens in the consumer.

Examples
--------
>>> import io
>>> stream = LineStream(io.BytesIO(b"!head\nid\tx\n1\t2\n3\n!end\nafter\n"), "demo.txt")
>>> stream.readline()
'!head'
>>> section = stream.section("!end", n_fields=2)
>>> section.read()
b'id\tx\n1\t2\n3\n'
>>> section.bad_row  # (line, fields found): line 4 has 1 field, not 2
(4, 1)
>>> stream.readline()
'after'
"""

from __future__ import annotations

import contextlib
import io
from typing import IO, Iterator, Optional, Sequence, Tuple

import numpy as np

from utils.errors import InputFileError
from utils.input_safety import DEFAULT_LIMITS, MAX_LINE_BYTES, ReadLimits
from utils.io.readers import check_complete, decode_text, open_text_bytes
from utils.io.rows import RowWidths, newline_offsets
from utils.io.types import PathLike

#: Bytes a :class:`LineStream` asks its file for at a time: as many as the largest block
#: the gzip reader hands out (:data:`utils.io.gzip_stream.GZIP_MAX_INPUT_BYTES` x
#: :data:`utils.io.gzip_stream.GZIP_OUTPUT_PER_INPUT`), so its blocks come whole, never
#: sliced. Reading a 99 MB series matrix is 5-10 % faster than with 1 MiB
#: (benchmarks/README.md).
DEFAULT_CHUNK_SIZE = 4 << 20


@contextlib.contextmanager
def open_lines(path: PathLike, limits: Optional[ReadLimits] = None) -> Iterator["LineStream"]:
    """A :class:`LineStream` over a text file (gzip or plain), its format checked first.

    The file is opened with :func:`utils.io.readers.open_text_bytes` (regular files
    only, a UTF-8 byte-order mark skipped; UTF-16, binary data and HTML pages
    refused) and read under ``limits`` (line length, decompressed size). Running
    out of memory while the file is read raises :class:`InputFileError` naming it.

    When the ``with`` block ends without an error, the part of a gzip file the
    reader did not read is inflated and checked
    (:func:`utils.io.readers.check_complete`): a reader that stops early (a header,
    the platform tables before the sample tables) refuses a file cut short or
    damaged after what it read, as a reader of the whole file does.

    Parameters
    ----------
    path : path-like
    limits : ReadLimits, optional
        Default :data:`utils.input_safety.DEFAULT_LIMITS`.

    Raises
    ------
    InputFileError
        Besides the reader's own errors: the gzip stream is cut short or damaged
        (after the part read, too).
    """
    limits = limits or DEFAULT_LIMITS
    with open_text_bytes(path, limits) as handle:
        stream = LineStream(handle, path, max_line_bytes=limits.max_line_bytes)
        try:
            yield stream
            check_complete(handle)
        except MemoryError:
            raise InputFileError(path, "not enough memory to read the file (stopped after "
                                 f"line {stream.line_no})") from None


def row_problem(path: PathLike, section: "TableSection", what: str, n_fields: int,
                header_line: Optional[int] = None) -> Optional[InputFileError]:
    """The error for the first stray marker or wrong-width row of a read section, if any.

    Parameters
    ----------
    path : path-like
    section : TableSection
        Read (at least as far as the parser went).
    what : str
        What a row is, for the message (``"expression table row"``).
    n_fields : int
        Fields of the table header.
    header_line : int, optional
        Line of the table header, named in the message.
    """
    stray, bad = section.stray_marker, section.bad_row
    if stray is not None and (bad is None or stray[0] <= bad[0]):
        return InputFileError(path, f"unexpected '{stray[1]}' line inside the table (a "
                              "second table start: damaged or concatenated file?)",
                              line=stray[0])
    if bad is None:
        return None
    return row_width_error(path, what, bad[0], bad[1], n_fields, header_line)


def row_width_error(path: PathLike, what: str, line: int, found: int, n_fields: int,
                    header_line: Optional[int] = None) -> InputFileError:
    """The error of a row with ``found`` fields where the header has ``n_fields``.

    Examples
    --------
    >>> print(row_width_error("a.txt", "annotation table row", 7, 2, 3, header_line=1))
    a.txt:7: annotation table row has 2 fields, expected 3 (as in the table header at line 1)
    """
    where = f" (as in the table header at line {header_line})" if header_line else ""
    return InputFileError(path, f"{what} has {found} fields, expected {n_fields}{where}",
                          line=line)


def repeated_column_problem(path: PathLike, names: Sequence[str], line: int,
                            what: str = "column") -> Optional[InputFileError]:
    """The error for the first header name that occurs twice, if any.

    pandas would read the second one as ``<name>.1``: a repeated column is
    refused instead, naming both positions (1-based). Empty names (unnamed
    columns, which readers drop or name themselves) are not compared.

    Examples
    --------
    >>> print(repeated_column_problem("a.txt", ["ID", "Symbol", "ID"], 1))
    a.txt:1: column 'ID' occurs twice (columns 1 and 3)
    """
    seen: dict = {}
    for position, name in enumerate(names, start=1):
        if not name:
            continue
        if name in seen:
            return InputFileError(path, f"{what} {name!r} occurs twice (columns "
                                  f"{seen[name]} and {position})", line=line)
        seen[name] = position
    return None


def unterminated_problem(path: PathLike, section: "TableSection") -> Optional[InputFileError]:
    """The error for a table that ends in the middle of a line (no final line ending)."""
    if section.unterminated_line is None:
        return None
    return InputFileError(path, "the file ends in the middle of this line (no line ending "
                          "after the last row): truncated?", line=section.unterminated_line)


def line_too_long(path: PathLike, line: int, max_line_bytes: int) -> InputFileError:
    """The error of a line longer than the cap."""
    return InputFileError(path, f"line longer than {max_line_bytes} bytes (the limit of "
                          "one line): not a line-oriented text file, or a damaged one",
                          line=line)


class LineStream:
    """Buffered line reader over a binary stream, counting lines.

    Parameters
    ----------
    handle : binary file object
        Already opened (e.g. by :func:`utils.io.readers.open_text_bytes`); not closed here.
    path : path-like
        Named in errors.
    chunk_size : int
        Bytes read from ``handle`` at a time.
    max_line_bytes : int
        Longest accepted line (bytes, line ending excluded); a longer one
        raises :class:`InputFileError` with its line number.

    Attributes
    ----------
    line_no : int
        Number of lines consumed so far (the 1-based number of the last line
        returned by :meth:`readline`).
    """

    def __init__(self, handle: IO[bytes], path: PathLike,
                 chunk_size: int = DEFAULT_CHUNK_SIZE,
                 max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.handle = handle
        # read1: the bytes at hand (one system call, or one decompressed block), not joined
        self._read = getattr(handle, "read1", handle.read)
        self.path = path
        self.line_no = 0
        self.max_line_bytes = max_line_bytes
        self._chunk_size = chunk_size
        self._buf = b""
        self._pos = 0
        self._eof = False

    # -- buffer management -------------------------------------------------
    def _read_chunk(self) -> bytes:
        if self._eof:
            return b""
        chunk = self._read(self._chunk_size)
        if not chunk:
            self._eof = True
        return chunk

    def _fill(self) -> bool:
        """Append one chunk to the unread data; False at end of file."""
        chunk = self._read_chunk()
        if not chunk:
            return False
        if self._pos >= len(self._buf):
            self._buf = chunk
        else:
            self._buf = self._buf[self._pos:] + chunk
        self._pos = 0
        return True

    def _available(self) -> int:
        return len(self._buf) - self._pos

    def _fill_line(self) -> int:
        """Read until the unread data holds a newline (or the file ends); its offset or -1.

        The chunks are gathered in a list and joined once, so a long line costs
        time linear in its length.
        """
        newline = self._buf.find(b"\n", self._pos)
        if newline >= 0:
            return newline
        pieces = [self._buf[self._pos:]]
        length = len(pieces[0])
        while True:
            if length > self.max_line_bytes:
                raise line_too_long(self.path, self.line_no + 1, self.max_line_bytes)
            chunk = self._read_chunk()
            if not chunk:
                break
            pieces.append(chunk)
            found = chunk.find(b"\n")
            if found >= 0:
                newline = length + found
                break
            length += len(chunk)
        self._buf = b"".join(pieces)
        self._pos = 0
        return newline

    def _line_end(self) -> Optional[int]:
        """Buffer offset where the next line ends (its newline, or the end of the file);
        None at the end of the file. The line's length is checked against the cap."""
        newline = self._fill_line()
        if newline < 0:
            if self._available() == 0:
                return None
            newline = len(self._buf)
        if newline - self._pos > self.max_line_bytes:
            raise line_too_long(self.path, self.line_no + 1, self.max_line_bytes)
        return newline

    # -- public API ---------------------------------------------------------
    def readline_bytes(self) -> Optional[bytes]:
        """Next line without its line ending, or None at end of file."""
        end = self._line_end()
        if end is None:
            return None
        line = self._buf[self._pos:end]
        self._pos = min(end + 1, len(self._buf))
        self.line_no += 1
        return line[:-1] if line.endswith(b"\r") else line

    def readline(self) -> Optional[str]:
        """Next line decoded (UTF-8, latin-1 fallback), or None at end of file."""
        line = self.readline_bytes()
        return None if line is None else decode_text(line)

    def peek_line_bytes(self) -> Optional[bytes]:
        """The next line (without its line ending) without consuming it; None at end."""
        end = self._line_end()
        if end is None:
            return None
        line = self._buf[self._pos:end]
        return line[:-1] if line.endswith(b"\r") else line

    def startswith(self, prefix: bytes) -> bool:
        """True when the unread data starts with ``prefix`` (nothing consumed)."""
        while self._available() < len(prefix) and self._fill():
            pass
        return self._buf.startswith(prefix, self._pos)

    def section(self, end_marker: Optional[str], n_fields: Optional[int] = None,
                sep: str = "\t", stray_markers: Sequence[str] = ()) -> "TableSection":
        """A file-like view of the lines up to the line starting with ``end_marker``.

        The view is positioned at the current line; reading it to the end
        consumes the end-marker line too, so :meth:`readline` continues after it.
        With ``end_marker=None`` the view runs to the end of the file. With
        ``n_fields``, rows are checked as they are read (see :class:`TableSection`).
        """
        return TableSection(self, None if end_marker is None
                            else end_marker.encode("ascii"), n_fields, sep=sep,
                            stray_markers=stray_markers)


class TableSection(io.RawIOBase):
    """Binary file-like view of a table that ends at an end-marker line.

    Parameters
    ----------
    stream : LineStream
        Positioned at the section's first line.
    end_marker : bytes or None
        The section ends before the first line starting with it (None: end of file).
    n_fields : int, optional
        Expected ``sep``-separated fields per row; when given, every row read is
        checked and the first bad one (more or fewer fields) is kept in :attr:`bad_row`.
    sep : str
        Field separator counted by the width check (one character; quotes are
        not interpreted).
    stray_markers : sequence of str
        Lines starting with one of these must not appear in the table (e.g. a
        second begin marker); the first one is kept in :attr:`stray_marker`.
        Checked with the widths (``n_fields`` given).

    Attributes
    ----------
    found_end : bool
        True once the end-marker line was reached (False if the file ended first).
    first_line : int
        1-based file line number of the section's first line.
    n_fields : int or None
        The expected fields per row (None: rows are not checked).
    n_lines : int
        Newline-terminated lines handed out so far.
    bad_row : tuple of (int, int) or None
        ``(line number, fields found)`` of the first non-blank row whose width
        is wrong, among the rows handed out so far (blank rows are ignored, as
        the parser skips them).
    stray_marker : tuple of (int, str) or None
        ``(line number, marker)`` of the first line starting with a stray marker.
    unterminated_line : int or None
        Once the section is read to the end of the file: the number of its last
        line when that line has no line ending (a file cut short?).
    """

    def __init__(self, stream: LineStream, end_marker: Optional[bytes],
                 n_fields: Optional[int] = None, sep: str = "\t",
                 stray_markers: Sequence[str] = ()) -> None:
        super().__init__()
        self._stream = stream
        self._marker = end_marker
        self.first_line = stream.line_no + 1
        self.n_fields = n_fields
        self.found_end = False
        self.n_lines = 0
        self.bad_row: Optional[Tuple[int, int]] = None
        self.stray_marker: Optional[Tuple[int, str]] = None
        self.unterminated_line: Optional[int] = None
        self._rows = None if n_fields is None else RowWidths(
            self.first_line, n_fields, sep.encode("ascii"),
            tuple(m.encode("ascii") for m in stray_markers))
        self._lengths = _LineLengths(stream.path, self.first_line, stream.max_line_bytes)
        self._last_byte = b"\n"
        self._done = False
        if end_marker is not None and stream.startswith(end_marker):
            self._finish_at(stream._pos)

    def readable(self) -> bool:
        return True

    def _emit(self, data: bytes, newlines: np.ndarray) -> None:
        """Account for ``data`` (the next unread bytes, line feeds at ``newlines``) as read."""
        stream = self._stream
        self._lengths.feed(data, newlines)
        stream._pos += len(data)
        self.n_lines += len(newlines)
        stream.line_no += len(newlines)
        self._last_byte = data[-1:]
        if self._rows is not None and self.bad_row is None:
            self.bad_row = self._rows.feed(data, newlines)
            self.stray_marker = self.stray_marker or self._rows.stray

    def _set_done(self) -> None:
        self._done = True
        if self._rows is not None and self.bad_row is None:
            self.bad_row = self._rows.close()
            self.stray_marker = self.stray_marker or self._rows.stray
        if not self.found_end and self._last_byte != b"\n":
            self.unterminated_line = self._stream.line_no + 1

    def _finish_at(self, marker_start: int) -> None:
        """Consume the end-marker line that starts at buffer offset ``marker_start``."""
        stream = self._stream
        stream._pos = marker_start
        self.found_end = True
        stream.readline_bytes()
        self._set_done()

    def _marker_after(self, newlines: np.ndarray) -> int:
        """Offset (from the read position) of the first end-marker line that starts
        right after one of ``newlines`` (offsets from the read position), or -1.

        Only lines whose first byte is the marker's are compared with it; the
        caller makes sure the buffer holds a marker's length after each line feed.
        """
        if self._marker is None or len(newlines) == 0:
            return -1
        stream = self._stream
        starts = newlines + (stream._pos + 1)
        starts = starts[starts < len(stream._buf)]
        first_bytes = np.frombuffer(stream._buf, dtype=np.uint8)[starts]
        for start in starts[first_bytes == self._marker[0]].tolist():
            if stream._buf.startswith(self._marker, start):
                return start - stream._pos
        return -1

    def _hand_out(self, end: int) -> bytes:
        """The unread bytes up to buffer offset ``end``, or up to an end-marker line
        among them (which is then consumed and ends the section)."""
        stream = self._stream
        data = stream._buf[stream._pos:end]
        if not data:
            return data
        newlines = newline_offsets(data)
        marker = self._marker_after(newlines)
        if marker >= 0:
            data = data[:marker]
            newlines = newlines[:int(np.searchsorted(newlines, marker))]
        if data:
            self._emit(data, newlines)
        if marker >= 0:
            self._finish_at(stream._pos)
        return data

    def read(self, size: Optional[int] = -1) -> bytes:
        """Up to ``size`` bytes of the table (all of it for ``size < 0``); b"" at its end.

        A read larger than a chunk may return fewer bytes than asked (what is
        buffered), so the buffer never grows beyond about two chunks and no read
        re-copies it more than once. The end marker is looked for only at line
        starts, among the line feeds the row checks find anyway; the last
        marker's length of the buffer waits for more data, so a marker line
        is always seen whole.
        """
        if size is None or size < 0:
            return b"".join(iter(lambda: self.read(DEFAULT_CHUNK_SIZE), b""))
        if self._done or size == 0:
            return b""
        stream = self._stream
        keep = 0 if self._marker is None else len(self._marker)
        while True:
            safe_end = len(stream._buf) - keep
            if safe_end - stream._pos >= size:
                return self._hand_out(stream._pos + size)
            if safe_end > stream._pos and size > stream._chunk_size:
                return self._hand_out(safe_end)  # a huge read: never grow the buffer for it
            if not stream._fill():
                data = self._hand_out(min(len(stream._buf), stream._pos + size))
                if not self._done and stream._available() == 0:
                    self._set_done()
                return data

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def drain(self) -> None:
        """Read (and discard) the rest of the section."""
        while self.read(DEFAULT_CHUNK_SIZE):
            pass


class _LineLengths:
    """Check the length of every line of blocks fed in order (internal).

    A line can only exceed the cap by spanning blocks or within a block longer
    than the cap; the lines within such a block are measured from the
    offsets of its line endings at once.
    """

    def __init__(self, path: PathLike, first_line: int, max_line_bytes: int) -> None:
        self._path = path
        self._line = first_line  # file line number of the unfinished line
        self._max = max_line_bytes
        self._partial = 0  # bytes of the unfinished line seen so far

    def feed(self, data: bytes, newlines: np.ndarray) -> None:
        """Check the lines of ``data``, whose line endings are at offsets ``newlines``."""
        if len(newlines) == 0:
            self._partial += len(data)
            self._check(self._partial, 0)
            return
        first, last = int(newlines[0]), int(newlines[-1])
        self._check(self._partial + first, 0)
        if len(data) > self._max:  # rare: whole lines within the block may be too long
            lengths = np.diff(newlines) - 1
            too_long = np.flatnonzero(lengths > self._max)
            if len(too_long):
                self._check(int(lengths[too_long[0]]), int(too_long[0]) + 1)
        self._line += len(newlines)
        self._partial = len(data) - last - 1
        self._check(self._partial, 0)

    def _check(self, length: int, offset: int) -> None:
        if length > self._max:
            raise line_too_long(self._path, self._line + offset, self._max)
