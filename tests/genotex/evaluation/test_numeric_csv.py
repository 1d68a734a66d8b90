"""Parsing numeric CSV tables (genotex.evaluation.numeric_csv): variants, errors, quotes."""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import numpy as np
import pytest

from genotex.evaluation.numeric_csv import parse_numeric_csv


def test_csv_variants_parse_alike():
    plain = b"Gene,S1,S2\nA,1.5,2\nB,3,4e-1\n"
    variants = [
        b"\xef\xbb\xbfGene,S1,S2\r\nA,1.5,2\r\nB,3,4e-1\r\n",   # BOM + CRLF
        b"\nGene,S1,S2\nA,1.5,2\n\n\nB,3,4e-1",                # blank lines, no final newline
        b"Gene, S1 ,S2\n A ,1.5, 2\nB ,3,4E-1\n",               # padded labels and values
        gzip.decompress(gzip.compress(plain)),
    ]
    expected = parse_numeric_csv(plain, Path("p"))
    assert expected[0] == ["A", "B"] and expected[1] == ["S1", "S2"]
    np.testing.assert_allclose(expected[2], [[1.5, 2.0], [3.0, 0.4]])
    for data in variants:
        rows, columns, values, notes = parse_numeric_csv(data, Path("v"))
        assert [r.strip() for r in rows] == expected[0]  # labels as written
        assert (columns, notes) == (expected[1], [])
        np.testing.assert_array_equal(values, expected[2])


def test_csv_errors_name_the_line():
    from genotex.evaluation.statuses import ItemError
    cases = {
        b"Gene,S1,S2\nA,1,2\n\nB,1\n": ("line 4", "2 fields"),  # line count keeps blanks
        b"Gene,S1\nA,1\nB,x1\n": (":3:", "non-numeric value 'x1'"),
        b"Gene,S1\n": ("", "no data row"),
        b"Gene\nA\n": (":1:", "no data column"),
    }
    for data, (where, what) in cases.items():
        with pytest.raises(ItemError) as info:
            parse_numeric_csv(data, Path("t.csv"))
        message = str(info.value).replace("t.csv:4", "t.csv line 4")
        assert what in message and where in message, message


def test_quoted_csv_parses_like_unquoted():
    plain = b"Gene,S1,S2\nA,1.5,NA\nB,,3\n"
    quoted = b'"Gene","S1","S2"\n"A","1.5","NA"\n"B","","3"\n'
    first, second = parse_numeric_csv(plain, Path("a")), parse_numeric_csv(quoted, Path("b"))
    assert first[0] == second[0] == ["A", "B"] and first[1] == second[1] == ["S1", "S2"]
    np.testing.assert_array_equal(first[2], second[2])
    assert math.isnan(first[2][0, 1]) and math.isnan(first[2][1, 0])
