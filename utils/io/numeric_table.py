r"""The fast parser of labelled numeric CSV bodies (linked, gene and clinical tables).

A labelled numeric table has a header row of column labels, a first column of
row labels, and numbers or missing-value texts in every other cell. Its body
(the rows below the header) is parsed here by :func:`parse_numeric_rows`, the
one fast path the project has for such tables: the cohort cache of the
regression runner (:mod:`tools.statistics.cohort_cache`) and the evaluator
(:mod:`genotex.evaluation.numeric_csv`) both call it.

How: a NumPy pass finds the line feeds and the commas, checks every row's field
count against the header's (a wrong row raises :class:`utils.errors.InputFileError`
naming the file and line: never read in silence), overwrites the row labels with
``0`` and the commas with line feeds, and pandas' C parser reads every cell as one
``float64`` column, which is fast whatever the table's width (about 1.5x NumPy's
``loadtxt`` on a 167 x 18,530 linked table, ``benchmarks/README.md``). The values
are pandas' own conversions, so they are the bits a ``pandas.read_csv`` of the
table gives. A cell that is neither a number nor a missing-value text makes it
return None, for the caller's slower reader to name.

Examples
--------
>>> labels, values = parse_numeric_rows(b"S1,1,2.5\nS2,0,NA\n", 2, "t.csv")
>>> labels, values.tolist()
(['S1', 'S2'], [[1.0, 2.5], [0.0, nan]])
>>> parse_numeric_rows(b"S1,1,2.5\nS2,0\n", 2, "t.csv")
Traceback (most recent call last):
...
utils.errors.InputFileError: t.csv:3: row has 2 fields, the header has 3
"""

from __future__ import annotations

import io
from typing import List, Optional, Tuple, Union

import numpy as np
import pandas as pd

from utils.errors import InputFileError
from utils.io.readers import decode_text
from utils.io.types import PathLike

#: The cell texts pandas reads as missing by default (``pandas.read_csv``'s
#: ``na_values``); a parser of these tables reads the same ones.
NA_TOKENS = frozenset(["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                       "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None",
                       "n/a", "nan", "null"])

_NEWLINE, _COMMA = 10, 44

Bytes = Union[bytes, bytearray, memoryview]


def _row_bounds(buf: np.ndarray, end: int) -> Tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of the lines of ``buf[:end]`` (the last may lack its ``\\n``)."""
    ends = np.append(np.flatnonzero(buf == _NEWLINE), end)
    starts = np.concatenate(([0], ends[:-1] + 1))
    return starts, ends


def parse_numeric_rows(body: Bytes, n_columns: int, path: PathLike, first_line: int = 2
                       ) -> Optional[Tuple[List[str], np.ndarray]]:
    """Row labels and values of the body of an unquoted labelled numeric CSV table.

    Parameters
    ----------
    body : bytes-like
        The rows below the header (not modified; copied once). No double quotes
        (the caller reads a quoted table another way); ``\\r\\n`` and ``\\r`` line
        endings are read as ``\\n``; blank lines are skipped.
    n_columns : int
        Value columns of the header (its fields minus the row-label column).
    path : path-like
        Named in errors.
    first_line : int
        File line number of the body's first line (the header is line 1).

    Returns
    -------
    (labels, values) or None
        ``labels``: the row labels as written (UTF-8, latin-1 per undecodable
        byte); ``values``: ``(rows, n_columns)`` float64, NaN for the missing-value
        texts of :data:`NA_TOKENS`. None when a cell is neither: the caller's
        slower reader names it.

    Raises
    ------
    InputFileError
        A row whose field count differs from the header's, naming its line.
    """
    work = bytearray(body)
    if b"\r" in work:
        work = bytearray(bytes(work).replace(b"\r\n", b"\n").replace(b"\r", b"\n"))
    end = len(work)
    while end and work[end - 1] == _NEWLINE:
        end -= 1
    if not end:
        return [], np.empty((0, n_columns))
    del work[end:]
    work.append(_NEWLINE)  # one line feed after the last row (an empty last cell ends there)
    buf = np.frombuffer(work, dtype=np.uint8, count=end)
    starts, ends = _row_bounds(buf, end)
    line_numbers: Optional[List[int]] = None
    if np.any(starts == ends):  # drop blank lines, remembering the line numbers
        lines = bytes(work[:end]).split(b"\n")
        line_numbers = [k + first_line for k, line in enumerate(lines) if line]
        work = bytearray(b"\n".join(line for line in lines if line))
        end = len(work)
        work.append(_NEWLINE)
        buf = np.frombuffer(work, dtype=np.uint8, count=end)
        starts, ends = _row_bounds(buf, end)
    commas = np.flatnonzero(buf == _COMMA)
    first = np.searchsorted(commas, starts)
    counts = np.searchsorted(commas, ends) - first
    bad = np.flatnonzero(counts != n_columns)
    if bad.size:
        row = int(bad[0])
        line = line_numbers[row] if line_numbers else row + first_line
        raise InputFileError(path, f"row has {int(counts[row]) + 1} fields, the header has "
                             f"{n_columns + 1}", line=line)
    label_end = commas[first]
    raw = memoryview(work)
    labels = decode_text(b"\n".join([raw[a:b] for a, b in zip(starts.tolist(),
                                                            label_end.tolist())])).split("\n")
    lengths = label_end - starts
    shift = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    buf[shift + np.arange(shift.size)] = ord("0")  # labels become numeric tokens
    # No empty cell and no letter that can start a missing-value token: skip
    # pandas' NA matching (about 15 % faster).
    last_comma = commas[first + n_columns - 1]
    plain = not (np.any(label_end == starts) or np.any(last_comma + 1 == ends)
                 or np.any(np.diff(commas) == 1)
                 or any(work.find(c, 0, end) >= 0 for c in (b"N", b"n", b"#", b"<")))
    buf[commas] = _NEWLINE
    try:
        column = pd.read_csv(io.BytesIO(raw[:end + 1]), header=None, names=["v"],
                             dtype=np.float64, skip_blank_lines=False, na_filter=not plain,
                             engine="c")["v"].to_numpy()
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return None
    if column.size != starts.size * (n_columns + 1):
        return None
    return labels, column.reshape(starts.size, n_columns + 1)[:, 1:]
