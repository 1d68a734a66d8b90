"""Stream marker-delimited tables out of GEO text files.

GEO series matrix and SOFT files are long line-oriented headers with one or
more tab-separated tables between a begin and an end marker line
(``!series_matrix_table_begin`` / ``!series_matrix_table_end``,
``!platform_table_begin`` / ``!platform_table_end``). :class:`LineStream` walks
the header line by line and hands each table to :func:`pandas.read_csv` as a
file-like :class:`TableSection` that stops at the end marker, so a table is
parsed by pandas' C reader straight from the (possibly gzipped) stream and
never materialised as Python lists of lines.

Bytes are handed over undecoded; decoding (UTF-8 with a per-byte latin-1
fallback, see :mod:`utils.io`) happens in the consumer.
"""

from __future__ import annotations

import io
from typing import IO, Optional

from utils.io import PathLike, decode_text, open_binary

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

    def startswith(self, prefix: bytes) -> bool:
        """True when the unread data starts with ``prefix`` (nothing consumed)."""
        while self._available() < len(prefix) and self._fill():
            pass
        return self._buf.startswith(prefix, self._pos)

    def section(self, end_marker: Optional[str]) -> "TableSection":
        """A file-like view of the lines up to the line starting with ``end_marker``.

        The view is positioned at the current line; reading it to the end
        consumes the end-marker line too, so :meth:`readline` continues after it.
        With ``end_marker=None`` the view runs to the end of the file.
        """
        return TableSection(self, None if end_marker is None
                            else end_marker.encode("ascii"))


class TableSection(io.RawIOBase):
    """Binary file-like view of a table that ends at an end-marker line.

    Attributes
    ----------
    found_end : bool
        True once the end-marker line was reached (False if the file ended first).
    first_line : int
        1-based file line number of the section's first line.
    n_lines, n_tabs : int
        Newline-terminated lines and tab characters handed out so far; used to
        check cheaply that every row has the same number of fields.
    """

    def __init__(self, stream: LineStream, end_marker: Optional[bytes]) -> None:
        super().__init__()
        self._stream = stream
        self._marker = end_marker
        self._needle = None if end_marker is None else b"\n" + end_marker
        self.first_line = stream.line_no + 1
        self.found_end = False
        self.n_lines = 0
        self.n_tabs = 0
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
        self.n_tabs += data.count(b"\t")
        stream.line_no += lines
        return data

    def _finish_at(self, marker_start: int) -> None:
        """Consume the end-marker line that starts at buffer offset ``marker_start``."""
        stream = self._stream
        stream._pos = marker_start
        stream.readline_bytes()
        self.found_end = True
        self._done = True

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
                    self._done = True
                return data

    def readinto(self, buffer) -> int:
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def drain(self) -> None:
        """Read (and discard) the rest of the section."""
        while self.read(DEFAULT_CHUNK_SIZE):
            pass


def find_bad_row(path: PathLike, first_line: int, n_fields: int, end_marker: str,
                 allow_short: bool = False) -> Optional[tuple]:
    """Locate the first table row whose number of tab-separated fields is wrong.

    This is the slow path, run only after the cheap tab count of a
    :class:`TableSection` (or the parser) reported a problem, to name the line.

    Parameters
    ----------
    path : path-like
        The file (re-opened here, gzip or plain).
    first_line : int
        1-based line number of the first row to check.
    n_fields : int
        Expected number of fields per row.
    end_marker : str
        Checking stops at the line starting with this marker.
    allow_short : bool
        Accept rows with fewer fields (missing trailing cells).

    Returns
    -------
    tuple of (int, int) or None
        ``(line_number, fields_found)`` of the first bad row; None when every
        non-blank row is fine. Blank lines are ignored (the parser skips them).
    """
    marker = end_marker.encode("ascii")
    with open_binary(path) as handle:
        stream = LineStream(handle, path)
        while stream.line_no < first_line - 1:
            if stream.readline_bytes() is None:
                return None
        while True:
            line = stream.readline_bytes()
            if line is None or line.startswith(marker):
                return None
            if not line.strip():
                continue
            found = line.count(b"\t") + 1
            if found > n_fields or (found < n_fields and not allow_short):
                return stream.line_no, found
