r"""Row checks: how many fields each line of a delimited table holds.

A table reader never takes a row whose field count differs from the header's in
silence. The checks here count the fields of every row without copying lines:

* :func:`newline_offsets` and :func:`separators_per_line` count the separators of
  every line of a block at once with NumPy (unquoted tables: tab-separated GEO,
  SOFT, TCGA and NCBI files, pandas' numeric CSV);
* :class:`RowWidths` applies them to a table that streams by in arbitrary blocks
  (:class:`utils.io.tables.TableSection` feeds it) and finds the first bad row;
* :func:`first_bad_row` checks a table held in memory, quoted CSV included
  (cells in double quotes may hold the separator and line breaks).

Examples
--------
>>> first_bad_row(b'id,a,b\n1,"x,y",2\n2,3\n', 3, sep=",")  # (line, fields found)
(3, 2)
"""

from __future__ import annotations

import csv
import io
from typing import List, Optional, Tuple

import numpy as np

from utils.io.readers import decode_text


class RowWidths:
    """Check the field count of rows fed as arbitrary byte blocks.

    The separators of each complete line of a block are counted at once with
    NumPy from the offsets of the block's line endings (no line is copied);
    only a block holding a row of the wrong width (or a blank row) is split
    and walked line by line. The unfinished last line waits for the next
    block. A stray marker line has no separator, so it costs no extra scan:
    it is a row of the wrong width, found on the slow path.

    Every row must have ``n_fields`` fields: shorter rows are not accepted
    either (a cell removed shifts the cells after it one column left).
    """

    def __init__(self, first_line: int, n_fields: int, sep: bytes = b"\t",
                 stray_markers: Tuple[bytes, ...] = ()) -> None:
        self._line = first_line  # file line number of the first unchecked line
        self._seps_per_row = n_fields - 1
        self._sep = sep
        self._markers = stray_markers
        self._pending: List[bytes] = []  # pieces of the unfinished last line
        self.stray: Optional[Tuple[int, str]] = None

    def feed(self, data: bytes, newlines: np.ndarray) -> Optional[Tuple[int, int]]:
        """Check the lines completed by ``data`` (line endings at offsets ``newlines``);
        the first bad row, or None."""
        if len(newlines) == 0:
            self._pending.append(data)
            return None
        last_newline = int(newlines[-1])
        seps = separators_per_line(data, newlines, self._sep)
        head = b""
        if self._pending:
            head = b"".join(self._pending)
            seps[0] += head.count(self._sep)
            self._pending = []
        if data[last_newline + 1:]:
            self._pending.append(data[last_newline + 1:])
        bad = None
        if seps.min() != self._seps_per_row or seps.max() != self._seps_per_row:
            lines = data[:last_newline].split(b"\n")
            lines[0] = head + lines[0]
            bad = self._first_bad(lines, seps.tolist())
        self._line += len(newlines)
        return bad

    def close(self) -> Optional[Tuple[int, int]]:
        """Check an unfinished last line (a file that ends without a newline)."""
        line = b"".join(self._pending)
        self._pending = []
        if not line:
            return None
        found = line.count(self._sep)
        return None if found == self._seps_per_row else self._first_bad([line], [found])

    def _first_bad(self, lines: List[bytes], seps: List[int]) -> Optional[Tuple[int, int]]:
        """Walk the lines (with their separator counts): the first bad row, or None."""
        expected = self._seps_per_row
        for offset, (line, found) in enumerate(zip(lines, seps)):
            if found == expected or not line.strip():
                continue
            stray = next((m for m in self._markers if line.startswith(m)), None)
            if stray is not None:  # reported as a stray marker (see row_problem)
                self.stray = self.stray or (self._line + offset, stray.decode("ascii"))
            return self._line + offset, found + 1
        return None


def newline_offsets(data: bytes) -> np.ndarray:
    r"""Offsets of the line feeds in ``data`` (a read-only view, nothing copied).

    Examples
    --------
    >>> newline_offsets(b"a\tb\n\nc").tolist()
    [3, 4]
    """
    return np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))


def separators_per_line(data: bytes, newlines: np.ndarray, sep: bytes) -> np.ndarray:
    r"""Number of ``sep`` bytes in each line of ``data`` that ends at one of ``newlines``.

    Parameters
    ----------
    data : bytes
    newlines : numpy.ndarray
        Offsets of the line feeds of ``data`` (:func:`newline_offsets`), at least one;
        the bytes after the last one are not counted.
    sep : bytes
        One byte.

    Returns
    -------
    numpy.ndarray of int32 (int64 for blocks of 2 GiB or more)
        One count per line feed; the first line starts at offset 0.

    Examples
    --------
    >>> data = b"a\tb\tc\n\nd\te\nf\t"
    >>> separators_per_line(data, newline_offsets(data), b"\t").tolist()
    [2, 0, 1]
    """
    end = int(newlines[-1]) + 1
    is_sep = np.frombuffer(data, dtype=np.uint8, count=end) == ord(sep)
    starts = np.empty(len(newlines), dtype=np.intp)
    starts[0] = 0
    starts[1:] = newlines[:-1] + 1
    # Each segment holds its line feed, so none is empty (reduceat's special case).
    # Summing bytes (0/1) into int32 is twice as fast as summing booleans into int64,
    # and exact: no line of a block shorter than 2**31 bytes holds more separators.
    total = np.int32 if end < 2**31 else np.int64
    return np.add.reduceat(is_sep.view(np.uint8), starts, dtype=total)


def first_bad_row(data: bytes, n_fields: int, sep: str = ",", first_line: int = 1,
                  allow_blank: bool = True) -> Optional[Tuple[int, int]]:
    r"""The first row of a table in memory whose field count is not ``n_fields``.

    Parameters
    ----------
    data : bytes
        The table (header included, or not: every line is checked), ``\n`` or
        ``\r\n`` line endings.
    n_fields : int
        Fields every row must have.
    sep : str
        Field separator (one character).
    first_line : int
        File line number of the first line of ``data``.
    allow_blank : bool
        Skip blank lines (as pandas does) rather than count them as one-field rows.

    Returns
    -------
    tuple of (int, int) or None
        ``(line number, fields found)``; None when every row is right. A table
        without double quotes is counted with NumPy; one with quotes by the
        :mod:`csv` module (a quoted cell may hold the separator or a line
        break; the line number is then the row's first line).

    Examples
    --------
    >>> first_bad_row(b"a\tb\n1\t2\n\n3\n", 2, sep="\t")
    (4, 1)
    >>> first_bad_row(b'a,b\n"1,5",2\n', 2) is None
    True
    """
    if b'"' not in data:
        return _first_bad_unquoted(data, n_fields, sep.encode("ascii"), first_line,
                                   allow_blank)
    reader = csv.reader(io.StringIO(decode_text(data), newline=""), delimiter=sep)
    start = first_line
    for row in reader:
        blank = len(row) <= 1 and not "".join(row).strip()
        if not (allow_blank and blank) and len(row) != n_fields:
            return start, len(row)
        start = first_line + reader.line_num
    return None


def _first_bad_unquoted(data: bytes, n_fields: int, sep: bytes, first_line: int,
                        allow_blank: bool) -> Optional[Tuple[int, int]]:
    """:func:`first_bad_row` of a table without quotes (NumPy counts)."""
    if not data:
        return None
    if not data.endswith(b"\n"):
        data += b"\n"
    newlines = newline_offsets(data)
    found = separators_per_line(data, newlines, sep) + 1
    starts = np.concatenate(([0], newlines[:-1] + 1))
    for row in np.flatnonzero(found != n_fields).tolist():
        if allow_blank and not data[starts[row]:newlines[row]].strip():
            continue
        return first_line + row, int(found[row])
    return None
