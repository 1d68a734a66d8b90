"""Row checks of tables held in memory (utils.io.rows.first_bad_row), quoted CSV included."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from utils.io.rows import first_bad_row


def _first_bad_row_by_csv(data: bytes, n_fields: int, sep: str, first_line: int):
    """The contract, row by row with the csv module: (line of the row's start, fields)."""
    reader = csv.reader(io.StringIO(data.decode("utf-8"), newline=""), delimiter=sep)
    start = first_line
    for row in reader:
        if len(row) > 1 or "".join(row).strip():
            if len(row) != n_fields:
                return start, len(row)
        start = first_line + reader.line_num
    return None


@pytest.mark.parametrize("quoted", [False, True])
@pytest.mark.parametrize("seed", range(30))
def test_first_bad_row_agrees_with_the_csv_module(seed, quoted):
    """Random tables (blank, short, long and CRLF rows; quoted cells holding separators
    and line breaks): NumPy's count and the csv module's agree on the first bad row."""
    rng = np.random.default_rng(seed)
    n_fields = int(rng.integers(1, 6))
    lines = []
    for _ in range(int(rng.integers(1, 40))):
        kind = rng.choice(["good", "blank", "short", "long", "crlf"], p=[0.8, 0.05, 0.06,
                                                                         0.05, 0.04])
        width = {"short": max(1, n_fields - 1), "long": n_fields + 1}.get(kind, n_fields)
        cells = [f"c{int(rng.integers(0, 99))}" for _ in range(width)]
        if quoted and rng.random() < 0.3:
            cells[0] = '"a,b\nc"'               # a separator and a line break inside quotes
        line = ",".join(cells)
        lines.append({"blank": "", "crlf": line + "\r"}.get(kind, line))
    data = ("\n".join(lines) + "\n").encode()
    expected = _first_bad_row_by_csv(data, n_fields, ",", 2)
    assert first_bad_row(data, n_fields, ",", first_line=2) == expected


def test_first_bad_row_edges():
    assert first_bad_row(b"", 3) is None
    assert first_bad_row(b"a,b,c", 3) is None                 # no final line feed
    assert first_bad_row(b"a,b,c\n  \n", 3) is None           # a blank line is skipped ...
    assert first_bad_row(b"a,b,c\n  \n", 3, allow_blank=False) == (2, 1)  # ... unless not
    assert first_bad_row(b"a\tb\r\nc\r\n", 2, sep="\t") == (2, 1)
    assert first_bad_row(b'a,"b\n,c"\nd\n', 2, first_line=5) == (7, 1)   # quoted break
