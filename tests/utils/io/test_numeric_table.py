"""The fast parser of labelled numeric CSV bodies (utils.io.numeric_table)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from utils.errors import InputFileError
from utils.io.numeric_table import parse_numeric_rows


def _pandas(raw: bytes):
    """The same table read by pandas (the reference the fast parser must match)."""
    frame = pd.read_csv(io.BytesIO(raw), index_col=0, dtype={0: str})
    return list(frame.index), frame.to_numpy(dtype=float)


@pytest.mark.parametrize("float_format", [None, "%.6g", "%.17g"])
def test_values_are_the_bits_pandas_reads(float_format):
    rng = np.random.default_rng(7)
    values = np.column_stack([rng.integers(0, 2, 50).astype(float),
                              rng.normal(size=(50, 40)) * 10.0 ** rng.integers(-12, 12, 40),
                              rng.normal(size=(50, 3)) * 1e-300])
    values[rng.random(values.shape) < 0.05] = np.nan       # empty cells
    frame = pd.DataFrame(values, index=[f"S{i}" for i in range(50)],
                         columns=[f"G{j}" for j in range(values.shape[1])])
    raw = frame.to_csv(float_format=float_format).encode()
    body = raw[raw.index(b"\n") + 1:]
    labels, parsed = parse_numeric_rows(body, values.shape[1], "t.csv")
    expected_labels, expected = _pandas(raw)
    assert labels == expected_labels
    assert np.array_equal(parsed, expected, equal_nan=True) and parsed.dtype == np.float64


@pytest.mark.parametrize("body, expected", [
    (b"S1,NA,null\nS2,,nan\n", [[np.nan, np.nan], [np.nan, np.nan]]),   # missing texts
    (b"S1,1,2\r\nS2,3,4\r\n", [[1, 2], [3, 4]]),                        # CRLF
    (b"S1,1,2\n\n\nS2,3,\n\n", [[1, 2], [3, np.nan]]),                  # blank lines, empty end
    (b"S1,1,2", [[1, 2]]),                                               # no final line feed
    (b"S1,inf,-1e3\n", [[np.inf, -1000]]),
])
def test_missing_cells_line_endings_and_blank_lines(body, expected):
    labels, values = parse_numeric_rows(body, 2, "t.csv")
    assert np.array_equal(values, np.array(expected, dtype=float), equal_nan=True)
    assert labels == ["S1", "S2"][:len(expected)]


def test_labels_are_kept_as_written():
    labels, _ = parse_numeric_rows("Sjögren,1\n0042,2\n,3\n".encode("utf-8") + b"caf\xe9,4\n",
                                   1, "t.csv")
    assert labels == ["Sjögren", "0042", "", "caf\u00e9"]


@pytest.mark.parametrize("body, line, found", [
    (b"S1,1,2\nS2,3\n", 3, 2),                 # a cell removed
    (b"S1,1,2,9\nS2,3,4\n", 2, 4),             # an extra field
    (b"S1,1,2\n\n\nS2,3,4,5\n", 5, 4),         # line numbers count the blank lines
])
def test_a_row_of_another_width_is_refused_with_its_line(body, line, found):
    with pytest.raises(InputFileError, match=rf"^t.csv:{line}: row has {found} fields, the "
                                             r"header has 3$"):
        parse_numeric_rows(body, 2, "t.csv")


def test_a_text_cell_is_left_to_the_caller():
    assert parse_numeric_rows(b"S1,1,abc\n", 2, "t.csv") is None
    assert parse_numeric_rows(b"\n\n", 2, "t.csv")[1].shape == (0, 2)
