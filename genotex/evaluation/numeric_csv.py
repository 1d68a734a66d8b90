"""Parsing labelled numeric CSV tables (gene, clinical and linked tables) defensively.

The first row holds the column labels, the first column the row labels; every other
cell is a number or a missing-value token (``''``, ``NA``, ``NaN``, ``N/A``, ``null``,
...). Infinities are read as missing (with a note). Any other text, a row with the
wrong number of fields, binary content or invalid UTF-8 (predictions) raises
:class:`genotex.evaluation.statuses.ItemError` naming the file and line.

Speed: unquoted bodies are parsed by :func:`utils.io.numeric_table.parse_numeric_rows`
(the project's one fast parser of such tables: a NumPy pass finds rows and fields,
pandas' C parser reads every cell as one column, whatever the table's width); quoted
ones by the :mod:`csv` module.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import List, Tuple

import numpy as np

from genotex.evaluation.statuses import EMPTY, MALFORMED, ItemError
from genotex.evaluation.untrusted import BOM, decode_content
from utils.errors import InputFileError
from utils.io import decode_text
from utils.io.numeric_table import NA_TOKENS, parse_numeric_rows


def split_header(text: str, path: Path) -> List[str]:
    """Cells of a CSV header line (stripped when padded)."""
    if '"' not in text:
        cells = text.split(",")
        return [cell.strip() for cell in cells] if (" " in text or "\t" in text) else cells
    try:
        row = next(csv.reader([text], strict=True), [])
    except csv.Error as exc:
        raise ItemError(path, MALFORMED, f"unreadable CSV header ({exc})", line=1) from exc
    return [cell.strip() for cell in row]


def _to_float(cell: str) -> float:
    token = cell.strip()
    if token in NA_TOKENS:
        return math.nan
    return float(token)


def _parse_rows_slow(text: str, n_columns: int, path: Path) -> Tuple[List[str], np.ndarray]:
    """Row labels and values of a CSV body with the csv module (handles quotes)."""
    labels: List[str] = []
    rows: List[List[float]] = []
    reader = csv.reader(io.StringIO(text), strict=True)
    try:
        for row in reader:
            line = reader.line_num + 1  # the header is line 1
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) != n_columns + 1:
                raise ItemError(path, MALFORMED, f"row has {len(row)} fields, the header has "
                                f"{n_columns + 1}", line=line)
            try:
                rows.append([_to_float(cell) for cell in row[1:]])
            except ValueError:
                bad = next(c for c in row[1:] if not _is_number(c))
                raise ItemError(path, MALFORMED, f"non-numeric value {bad[:40]!r} in row "
                                f"{row[0][:40]!r}", line=line) from None
            labels.append(row[0])
    except csv.Error as exc:
        raise ItemError(path, MALFORMED, f"unreadable CSV ({exc})",
                        line=reader.line_num + 1) from exc
    values = np.asarray(rows, dtype=float).reshape(len(rows), n_columns)
    return labels, values


def _is_number(cell: str) -> bool:
    try:
        _to_float(cell)
    except ValueError:
        return False
    return True


def parse_numeric_csv(data: bytes, path: Path, strict: bool = True
                      ) -> Tuple[List[str], List[str], np.ndarray, List[str]]:
    """Parse a labelled numeric CSV: first row = column labels, first column = row labels.

    Parameters
    ----------
    data : bytes
        File content (already decompressed).
    path : pathlib.Path
        For messages.
    strict : bool
        Reject invalid UTF-8 (predictions) instead of decoding it as latin-1.

    Returns
    -------
    (row_labels, column_labels, values, notes)
        Labels as written (see :func:`genotex.evaluation.labels.canonical_unique`);
        ``values`` is ``(rows, columns)`` float with NaN for missing cells (and for
        infinities, noted).

    Raises
    ------
    ItemError
        ``empty`` or ``malformed`` with the line when one applies.
    """
    if b"\x00" in data:
        raise ItemError(path, MALFORMED, "binary content (NUL bytes), expected CSV text")
    if data.startswith(BOM):
        data = data[3:]
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if not data or data.isspace():
        raise ItemError(path, EMPTY, "empty file, expected a CSV table")
    if strict and not data.isascii():
        decode_content(data, path, strict=True)  # validate once; parts decode leniently
    start = len(data) - len(data.lstrip(b"\n")) if data[:1] == b"\n" else 0
    newline = data.find(b"\n", start)
    newline = len(data) if newline < 0 else newline
    header = split_header(decode_text(data[start:newline]), path)
    n_columns = len(header) - 1
    if n_columns < 1:
        raise ItemError(path, EMPTY, "the header has no data column", line=1)
    for position, name in enumerate(header[1:], start=2):
        if not name:
            raise ItemError(path, MALFORMED, f"empty column name at column {position}", line=1)
    parsed = None
    body = memoryview(data)[newline + 1:]
    if data.find(b'"', newline + 1) < 0:
        try:
            parsed = parse_numeric_rows(body, n_columns, path)
        except InputFileError as exc:  # a row of another width
            raise ItemError(path, MALFORMED, exc.problem, line=exc.line) from None
    if parsed is None:
        parsed = _parse_rows_slow(decode_text(bytes(body)), n_columns, path)
    labels, values = parsed
    if not labels:
        raise ItemError(path, EMPTY, "no data row below the header")
    notes: List[str] = []
    infinite = np.isinf(values)
    if infinite.any():
        values = np.where(infinite, np.nan, values)
        notes.append(f"{int(infinite.sum())} infinite value(s) read as missing")
    return labels, header[1:], values, notes
