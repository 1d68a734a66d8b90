r"""Stream marker-delimited tables out of GEO text files.

GEO series matrix and SOFT files are long line-oriented headers with one or
more tab-separated tables between a begin and an end marker line
(``!series_matrix_table_begin`` / ``!series_matrix_table_end``,
``!platform_table_begin`` / ``!platform_table_end``). :class:`LineStream` walks
the header line by line and hands each table to :func:`pandas.read_csv` as a
file-like :class:`TableSection` that stops at the end marker, so a table is
parsed by pandas' C reader straight from the (possibly gzipped) stream and
never materialised as Python lists of lines.

The section checks the width of every row as the bytes go by, so a bad row
is named without reading the file a second time.

Bytes are handed over undecoded; decoding (UTF-8 with a per-byte latin-1
fallback, see :mod:`utils.io`) happens in the consumer.

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

import io
from itertools import repeat
from typing import IO, List, Optional, Tuple

from utils.io import PathLike, decode_text

DEFAULT_CHUNK_SIZE = 1 << 20


class LineStream:
    """Buffered line reader over a binary stream, counting lines.

    Parameters
    ----------
    handle : binary file object
        Already opened (e.g. by :func:`utils.io.open_binary`); not closed here.
    path : path-like
        Used in error messages by callers.
    chunk_size : int
        Bytes read from ``handle`` at a time.

    Attributes
    ----------
    line_no : int
        Number of lines consumed so far (the 1-based number of the last line
        returned by :meth:`readline`).
    """

    def __init__(self, handle: IO[bytes], path: PathLike,
                 chunk_size: int = DEFAULT_CHUNK_SIZE) -> None:
        self.handle = handle
        self.path = path
        self.line_no = 0
        self._chunk_size = chunk_size
        self._buf = b""
        self._pos = 0
        self._eof = False

    # -- buffer management -------------------------------------------------
    def _fill(self) -> bool:
        """Append one chunk to the buffer; False at end of file."""
        if self._eof:
            return False
        chunk = self.handle.read(self._chunk_size)
        if not chunk:
            self._eof = True
            return False
        self._buf = self._buf[self._pos:] + chunk
        self._pos = 0
        return True

    def _available(self) -> int:
        return len(self._buf) - self._pos

    # -- public API ---------------------------------------------------------
    def readline_bytes(self) -> Optional[bytes]:
        """Next line without its line ending, or None at end of file."""
        searched = 0  # bytes of the unread part already searched for a newline
        while True:
            newline = self._buf.find(b"\n", self._pos + searched)
            if newline >= 0:
                line = self._buf[self._pos:newline]
                self._pos = newline + 1
                break
            searched = self._available()
            if not self._fill():
                if searched == 0:
                    return None
                line = self._buf[self._pos:]
                self._pos = len(self._buf)
                break
        self.line_no += 1
        return line[:-1] if line.endswith(b"\r") else line

    def readline(self) -> Optional[str]:
        """Next line decoded (UTF-8, latin-1 fallback), or None at end of file."""
        line = self.readline_bytes()
        return None if line is None else decode_text(line)

    def peek_line_bytes(self) -> Optional[bytes]:
        """The next line (without its line ending) without consuming it; None at end."""
        while True:
            newline = self._buf.find(b"\n", self._pos)
            if newline >= 0:
                line = self._buf[self._pos:newline]
                return line[:-1] if line.endswith(b"\r") else line
            if not self._fill():
                line = self._buf[self._pos:]
                return line if line else None

    def startswith(self, prefix: bytes) -> bool:
        """True when the unread data starts with ``prefix`` (nothing consumed)."""
        while self._available() < len(prefix) and self._fill():
            pass
        return self._buf.startswith(prefix, self._pos)

    def section(self, end_marker: Optional[str], n_fields: Optional[int] = None,
                allow_short: bool = False) -> "TableSection":
        """A file-like view of the lines up to the line starting with ``end_marker``.

        The view is positioned at the current line; reading it to the end
        consumes the end-marker line too, so :meth:`readline` continues after it.
        With ``end_marker=None`` the view runs to the end of the file. With
        ``n_fields``, rows are checked as they are read (see :class:`TableSection`).
        """
        return TableSection(self, None if end_marker is None
                            else end_marker.encode("ascii"), n_fields, allow_short)


class TableSection(io.RawIOBase):
    """Binary file-like view of a table that ends at an end-marker line.

    Parameters
    ----------
    stream : LineStream
        Positioned at the section's first line.
    end_marker : bytes or None
        The section ends before the first line starting with it (None: end of file).
    n_fields : int, optional
        Expected tab-separated fields per row; when given, every row read is
        checked and the first bad one is kept in :attr:`bad_row`.
    allow_short : bool
        Accept rows with fewer fields (missing trailing cells).

    Attributes
    ----------
    found_end : bool
        True once the end-marker line was reached (False if the file ended first).
    first_line : int
        1-based file line number of the section's first line.
    n_lines : int
        Newline-terminated lines handed out so far.
    bad_row : tuple of (int, int) or None
        ``(line number, fields found)`` of the first non-blank row whose width
        is wrong, among the rows handed out so far (blank rows are ignored, as
        the parser skips them).
    """

    def __init__(self, stream: LineStream, end_marker: Optional[bytes],
                 n_fields: Optional[int] = None, allow_short: bool = False) -> None:
        super().__init__()
        self._stream = stream
        self._marker = end_marker
        self._needle = None if end_marker is None else b"\n" + end_marker
        self.first_line = stream.line_no + 1
        self.found_end = False
        self.n_lines = 0
        self.bad_row: Optional[Tuple[int, int]] = None
        self._rows = None if n_fields is None else _RowWidths(self.first_line, n_fields,
                                                              allow_short)
        self._done = False
        self._clean = 0  # unread bytes already known to hold no end marker
        if end_marker is not None and stream.startswith(end_marker):
            self._finish_at(stream._pos)

    def readable(self) -> bool:
        return True

    def _emit(self, end: int) -> bytes:
        stream = self._stream
        data = stream._buf[stream._pos:end]
        self._clean = max(0, self._clean - len(data))
        stream._pos = end
        lines = data.count(b"\n")
        self.n_lines += lines
        stream.line_no += lines
        if self._rows is not None and self.bad_row is None:
            self.bad_row = self._rows.feed(data)
        return data

    def _set_done(self) -> None:
        self._done = True
        if self._rows is not None and self.bad_row is None:
            self.bad_row = self._rows.close()

    def _finish_at(self, marker_start: int) -> None:
        """Consume the end-marker line that starts at buffer offset ``marker_start``."""
        stream = self._stream
        stream._pos = marker_start
        stream.readline_bytes()
        self.found_end = True
        self._set_done()

    def _find_marker(self) -> int:
        """Buffer offset of the next end-marker line's preceding newline, or -1."""
        if self._needle is None:
            return -1
        stream = self._stream
        start = stream._pos + max(0, self._clean - len(self._needle) + 1)
        hit = stream._buf.find(self._needle, start)
        if hit < 0:
            self._clean = stream._available()
        return hit

    def read(self, size: int = -1) -> bytes:
        if self._done:
            return b""
        stream = self._stream
        want = size if size is not None and size >= 0 else 1 << 62
        keep = 0 if self._needle is None else len(self._needle) - 1
        while True:
            hit = self._find_marker()
            if hit >= 0:
                end = min(hit + 1, stream._pos + want)
                data = self._emit(end)
                if stream._pos == hit + 1:
                    self._finish_at(hit + 1)
                return data
            safe_end = len(stream._buf) - keep
            if safe_end - stream._pos >= want:
                return self._emit(stream._pos + want)
            if not stream._fill():
                data = self._emit(min(len(stream._buf), stream._pos + want))
                if stream._available() == 0:
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


class _RowWidths:
    """Check the field count of rows fed as arbitrary byte blocks (internal).

    The complete lines of a block are split and their tabs counted in C
    (``map(bytes.count, ...)``, about as fast as counting the block's tabs
    once); only a block holding a row of the wrong width (or a blank row) is
    walked line by line. The unfinished last line waits for the next block.
    """

    def __init__(self, first_line: int, n_fields: int, allow_short: bool) -> None:
        self._line = first_line  # file line number of the first unchecked line
        self._tabs_per_row = n_fields - 1
        self._allow_short = allow_short
        self._partial = b""

    def feed(self, data: bytes) -> Optional[Tuple[int, int]]:
        """Check the lines completed by ``data``; the first bad row, or None."""
        last_newline = data.rfind(b"\n")
        if last_newline < 0:
            self._partial += data
            return None
        lines = data[:last_newline].split(b"\n")
        lines[0] = self._partial + lines[0]
        self._partial = data[last_newline + 1:]
        bad = self._check(lines)
        self._line += len(lines)
        return bad

    def close(self) -> Optional[Tuple[int, int]]:
        """Check an unfinished last line (a file that ends without a newline)."""
        line, self._partial = self._partial, b""
        return self._check([line]) if line else None

    def _check(self, lines: List[bytes]) -> Optional[Tuple[int, int]]:
        tabs = list(map(bytes.count, lines, repeat(b"\t")))
        if max(tabs) <= self._tabs_per_row and (self._allow_short
                                                or min(tabs) == self._tabs_per_row):
            return None
        for offset, (line, found) in enumerate(zip(lines, tabs)):
            if found == self._tabs_per_row or not line.strip():
                continue
            if found > self._tabs_per_row or not self._allow_short:
                return self._line + offset, found + 1
        return None
