"""The fast parser of labelled numeric CSV bodies (utils.io.numeric_table)."""

from __future__ import annotations

import io
from typing import List, Tuple

import numpy as np
import pandas as pd
import pytest

from utils.errors import InputFileError
from utils.io.numeric_table import _count_before, parse_numeric_rows


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


def _awkward_table(rng: np.random.Generator, rows: int, columns: int) -> Tuple[bytes, List[str]]:
    """A body of awkward numbers (every format pandas writes and more), missing-value
    texts, empty cells and labels of 0-300 bytes (ASCII, UTF-8, latin-1 bytes)."""
    def number() -> str:
        kind = rng.integers(12)
        x = float(rng.normal() * 10.0 ** rng.integers(-30, 30))
        return [repr(x), f"{x:.6g}", f"{x:.17g}", f"{x:.4f}", f"{x:.3e}", f"{x:.16E}",
                str(int(rng.integers(-10**6, 10**6))), "-0", ".5", "-1.", "inf",
                rng.choice(["", "NA", "nan", "NaN", "null", "N/A", "#N/A", "<NA>", "-nan",
                            "1.#IND", "None"])][kind]
    labels, lines = [], []
    for row in range(rows):
        width = int(rng.choice([0, 1, 5, 31, 32, 33, 255, 256, 257, 300]))
        label = "".join(rng.choice(list("abcXYZ019_-.é"), width)) if width else ""
        labels.append(label)
        lines.append(",".join([label] + [number() for _ in range(columns)]))
    return "\n".join(lines).encode() + b"\n", labels


@pytest.mark.parametrize("seed", range(6))
def test_awkward_numbers_and_labels_are_the_bits_pandas_reads(seed):
    rng = np.random.default_rng(seed)
    rows, columns = int(rng.integers(1, 60)), int(rng.integers(1, 40))
    body, labels = _awkward_table(rng, rows, columns)
    parsed_labels, values = parse_numeric_rows(body, columns, "t.csv")
    expected = pd.read_csv(io.BytesIO(body), header=None, dtype=np.float64,
                           usecols=range(1, columns + 1)).to_numpy()
    assert parsed_labels == labels
    finite = ~np.isnan(expected)
    assert np.array_equal(np.isnan(values), ~finite)
    assert np.array_equal(values[finite].view(np.int64), expected[finite].view(np.int64))


def test_latin1_label_bytes_and_tabs_read_as_before():
    body = b"caf\xe9,\t1,2\n\xe2\x82,3,\t-4e-2\n"
    labels, values = parse_numeric_rows(body, 2, "t.csv")
    assert labels == ["caf\u00e9", "\u00e2\u0082"]
    assert values.tolist() == [[1.0, 2.0], [3.0, -0.04]]


def test_tall_tables_and_long_labels_cross_the_label_blocks():
    # more rows than one block of label windows, labels past both windows
    rows = (1 << 20) // 32 + 7
    labels = [("L" * (300 if k % 997 == 0 else 40 if k % 3 == 0 else 3)) + str(k)
              for k in range(rows)]
    body = "".join(f"{label},{k % 7}.25\n" for k, label in enumerate(labels)).encode()
    parsed, values = parse_numeric_rows(body, 1, "t.csv")
    assert parsed == labels
    assert np.array_equal(values[:, 0], np.arange(rows) % 7 + 0.25)


def test_a_short_row_balanced_by_a_long_one_is_refused_at_the_first():
    # as many commas in all as the header asks for: the rows are counted one by one
    with pytest.raises(InputFileError, match=r"^t.csv:4: row has 2 fields, the header has 3$"):
        parse_numeric_rows(b"S1,1,2\nS2,3,4\nS3,5\nS4,6,7,8\n", 2, "t.csv")
    with pytest.raises(InputFileError, match=r"^t.csv:3: row has 4 fields, the header has 3$"):
        parse_numeric_rows(b"S1,1,2\nS2,3,4,5", 2, "t.csv")


@pytest.mark.parametrize("length", [0, 1, 7, 8, 9, 63, 64, 65, 200])
def test_commas_are_counted_per_row_at_every_word_offset(length):
    # _count_before reads 8 flags per word: rows start and end at every offset mod 8
    rng = np.random.default_rng(length)
    flags = np.zeros((length // 8 + 1) * 8, dtype=np.uint8)
    flags[:length] = rng.integers(0, 2, length)
    positions = np.arange(length + 1)
    expected = np.concatenate(([0], np.cumsum(flags[:length])))
    assert np.array_equal(_count_before(flags, positions), expected)


def test_at_least_one_value_column():
    with pytest.raises(ValueError, match="value columns"):
        parse_numeric_rows(b"S1\nS2\n", 0, "t.csv")
