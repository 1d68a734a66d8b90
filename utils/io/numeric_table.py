r"""The fast parser of labelled numeric CSV bodies (linked, gene and clinical tables).

A labelled numeric table has a header row of column labels, a first column of
row labels, and numbers or missing-value texts in every other cell. Its body
(the rows below the header) is parsed here by :func:`parse_numeric_rows`, the
one fast path the project has for such tables: the cohort cache of the
regression runner (:mod:`tools.statistics.cohort_cache`) and the evaluator
(:mod:`genotex.evaluation.numeric_csv`) both call it.

How: pandas' C parser reads every cell as one ``float64`` column, which is fast
whatever the table's width (about 1.5x NumPy's ``loadtxt`` on a 167 x 18,530
linked table, 1.3-1.6x pandas reading the table's own columns,
``benchmarks/README.md``); the values are pandas' own conversions, so they are
the bits a ``pandas.read_csv`` of the table gives. Around it, a few NumPy passes
over the bytes, none of which builds an array per cell:

- one pass finds the line feeds (and any ``\r``);
- the commas become a 0/1 byte per byte; read as 64-bit words, a population
  count per word and their running sum give the commas before any offset, hence
  every row's field count (a row of another width than the header raises
  :class:`utils.errors.InputFileError` naming the file and line: never read in
  silence);
- each label's end (its row's first comma) is looked for in all rows' first
  bytes at once, in windows of 32 then 256 bytes;
- the column the parser reads is the body with every comma made a line feed
  (``byte - 34 * flag``) and every label's bytes made ``0``.

Those passes cost about a quarter of pandas' parse (the first version, with an
array of every comma's offset, cost half). A cell that is neither a number nor a
missing-value text makes it return None, for the caller's slower reader to name.

Polars (a multithreaded CSV reader with correctly rounded floats) was measured
as a replacement and not kept: per CPU-second it reads no faster than pandas'
one-column parse, builds a column per table column (2-5x slower on linked
tables, samples x genes) and raised the evaluator's peak memory by a third
(``benchmarks/README.md``, "The evaluator's preprocessing comparison").

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

_NEWLINE, _CARRIAGE_RETURN, _COMMA = 10, 13, 44
_COMMA_TO_NEWLINE = _COMMA - _NEWLINE
#: Widths of the windows in which the ends of the row labels are looked for, all
#: rows at once (longer labels: one search each).
LABEL_WINDOWS = (32, 256)
#: Bytes of the windows looked at per block of rows (bounds their offsets' array).
_WINDOW_CELLS = 1 << 20

Bytes = Union[bytes, bytearray, memoryview]


def _row_bounds(line_feeds: np.ndarray, end: int) -> Tuple[np.ndarray, np.ndarray]:
    """Start and end offsets of the lines of ``buf[:end]`` (the last may lack its ``\\n``),
    given the offsets of the line feeds of ``buf``."""
    ends = np.append(line_feeds[line_feeds < end], end)
    starts = np.concatenate(([0], ends[:-1] + 1))
    return starts, ends


def _count_before(flags: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """How many of ``flags[:p]`` are 1, for every ``p`` of ``positions``.

    ``flags`` holds bytes 0 or 1, its length a multiple of 8 with at least one
    byte after the largest position. Read as 64-bit words, each flag is one bit:
    a population count per word, summed cumulatively, gives the count before each
    word; the flags of a position's own word below it are counted the same way.
    """
    words = flags.view("<u8")
    per_word = np.bitwise_count(words)
    total = np.cumsum(per_word, dtype=np.uint32 if flags.size < 1 << 32 else np.uint64)
    word, byte = np.divmod(positions, 8)
    below = (np.uint64(1) << (byte.astype(np.uint64) * np.uint64(8))) - np.uint64(1)
    return (total[word].astype(np.int64) - per_word[word]
            + np.bitwise_count(words[word] & below))


def _label_ends(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Offset of the first comma of each row ``buf[starts[k]:ends[k]]`` (every row has one).

    The rows' first bytes are looked at together, in windows of
    :data:`LABEL_WINDOWS` bytes (a block of rows at a time, so that the window's
    offsets stay small); a label longer than the widest is found by a search.
    """
    found = np.full(starts.size, -1, dtype=np.int64)
    for width in LABEL_WINDOWS:
        todo = np.flatnonzero(found < 0)
        window = np.arange(width)
        for first in range(0, todo.size, _WINDOW_CELLS // width):
            rows = todo[first:first + _WINDOW_CELLS // width]
            heads = buf[np.minimum(starts[rows, None] + window, ends[rows, None] - 1)] == _COMMA
            offset = heads.argmax(axis=1)
            hit = heads[np.arange(rows.size), offset]
            found[rows[hit]] = starts[rows[hit]] + offset[hit]
    for row in np.flatnonzero(found < 0).tolist():
        start = int(starts[row])
        found[row] = start + int(np.argmax(buf[start:int(ends[row])] == _COMMA))
    return found


def _label_indices(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Offsets of every byte of ``buf[starts[k]:starts[k] + lengths[k]]``, in order."""
    shift = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return shift + np.arange(shift.size)


def parse_numeric_rows(body: Bytes, n_columns: int, path: PathLike, first_line: int = 2
                       ) -> Optional[Tuple[List[str], np.ndarray]]:
    """Row labels and values of the body of an unquoted labelled numeric CSV table.

    Parameters
    ----------
    body : bytes-like
        The rows below the header (read in place, not modified). No double quotes
        (the caller reads a quoted table another way); ``\\r\\n`` and ``\\r`` line
        endings are read as ``\\n``; blank lines are skipped.
    n_columns : int
        Value columns of the header (its fields minus the row-label column), at
        least 1.
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
    ValueError
        ``n_columns`` below 1.
    """
    if n_columns < 1:
        raise ValueError(f"a labelled numeric table has value columns, not {n_columns}")
    src = np.frombuffer(body, dtype=np.uint8)
    controls = np.flatnonzero(src <= _CARRIAGE_RETURN)  # line feeds, in one pass with \r
    if np.any(src[controls] == _CARRIAGE_RETURN):
        src = np.frombuffer(bytes(body).replace(b"\r\n", b"\n").replace(b"\r", b"\n"),
                            dtype=np.uint8)
        controls = np.flatnonzero(src == _NEWLINE)
    end = src.size
    while end and src[end - 1] == _NEWLINE:
        end -= 1
    if not end:
        return [], np.empty((0, n_columns))
    starts, ends = _row_bounds(controls[src[controls] == _NEWLINE], end)
    line_numbers: Optional[List[int]] = None
    if np.any(starts == ends):  # drop blank lines, remembering the line numbers
        lines = src[:end].tobytes().split(b"\n")
        line_numbers = [k + first_line for k, line in enumerate(lines) if line]
        src = np.frombuffer(b"\n".join(line for line in lines if line), dtype=np.uint8)
        end = src.size
        starts, ends = _row_bounds(np.flatnonzero(src == _NEWLINE), end)
    # Comma flags, zero-padded to whole 64-bit words (one word past the end).
    flags = np.zeros((end // 8 + 1) * 8, dtype=np.uint8)
    np.equal(src[:end], _COMMA, out=flags[:end].view(bool))
    counts = np.diff(_count_before(flags, np.append(starts, end)))  # commas per row
    bad = np.flatnonzero(counts != n_columns)
    if bad.size:
        row = int(bad[0])
        line = line_numbers[row] if line_numbers else row + first_line
        raise InputFileError(path, f"row has {int(counts[row]) + 1} fields, the header has "
                             f"{n_columns + 1}", line=line)
    label_end = _label_ends(src, starts, ends)
    lengths = label_end - starts
    # The labels' bytes, each followed by its comma (a label holds none).
    with_commas = _label_indices(starts, lengths + 1)
    labels = decode_text(src[with_commas].tobytes()).split(",")[:-1]
    # The cells, one per line: commas become line feeds, the labels zeros.
    column = np.empty(end + 1, dtype=np.uint8)
    np.multiply(flags[:end], _COMMA_TO_NEWLINE, out=column[:end])
    np.subtract(src[:end], column[:end], out=column[:end])
    column[end] = _NEWLINE  # one line feed after the last row (an empty last cell ends there)
    column[_label_indices(starts, lengths)] = ord("0")
    try:
        cells = pd.read_csv(io.BytesIO(column.data), header=None, names=["v"],
                            dtype=np.float64, skip_blank_lines=False, engine="c")["v"].to_numpy()
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return None
    if cells.size != starts.size * (n_columns + 1):
        return None
    return labels, cells.reshape(starts.size, n_columns + 1)[:, 1:]
