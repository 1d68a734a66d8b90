"""The bulk CSV writer gives the bytes of ``DataFrame.to_csv`` (property tests and the demo)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from utils.io.csv_writer import csv_chunks, format_general
from utils.io import atomic_to_csv

REPO = Path(__file__).resolve().parents[3]

# Values where formatting is easy to get wrong: ties exactly half-way between two
# P-digit numbers (0.001953125 = 2**-9 at P = 6), carries into the next power of ten
# (999999.7, 9.9999996e-5), powers of ten, the ends of the bulk path's range.
EDGE_VALUES = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.001953125, -0.001953125, 1000005.0,
               999999.5, 999999.7, 9.9999996e-5, 0.099999996, 1e-4, 1e-5, 99999.95, 0.5, 2.5,
               123456.5, 1e16, 1e-300, 5e-324, 2.2250738585072014e-308, 1e290, 1.1e290,
               1e-290, 9.99e-291, 1.7976931348623157e308, 1.0, 10.0, 100000.0, 1e6, 1234567.0]

finite = st.floats(allow_nan=False, allow_infinity=False)
cells = st.one_of(
    finite,  # any magnitude, subnormals included
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    st.integers(-10**9, 10**9).map(float),  # integers stored as floats
    st.integers(-10**7, 10**7).map(lambda k: k / 10**4),  # 4-decimal data
    st.integers(-10**6, 10**6).map(lambda k: k * 2.0 ** -20),  # exact binary fractions (ties)
    st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)).map(  # means of 4-decimal data:
        lambda ab: (ab[0] / 10**4 + ab[1] / 10**4) / 2),  # next to half-way points
    st.sampled_from(EDGE_VALUES))
labels = st.text(min_size=0, max_size=12)


def pandas_bytes(frame: pd.DataFrame, **kwargs) -> bytes:
    return frame.to_csv(**kwargs).encode("utf-8")


def bulk_bytes(frame: pd.DataFrame, **kwargs) -> bytes:
    chunks = csv_chunks(frame, **kwargs)
    assert chunks is not None, "the bulk path should apply to this table"
    return b"".join(chunks)


@st.composite
def tables(draw):
    rows = draw(st.integers(1, 9))
    columns = draw(st.integers(1, 9))
    values = np.array(draw(st.lists(cells, min_size=rows * columns,
                                    max_size=rows * columns)), dtype=float)
    index = draw(st.one_of(
        st.lists(labels.filter(lambda s: "\0" not in s), min_size=rows, max_size=rows),
        st.lists(st.integers(-10**12, 10**12), min_size=rows, max_size=rows)))
    header = draw(st.lists(st.text(max_size=6), min_size=columns, max_size=columns))
    frame = pd.DataFrame(values.reshape(rows, columns), index=index, columns=header)
    if draw(st.booleans()):
        frame.index.name = draw(st.text(max_size=5))
    return frame


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frame=tables(), precision=st.integers(1, 6), sep=st.sampled_from([",", "\t", ";", "|"]),
       na_rep=st.sampled_from(["", "NA", "nan", "null"]))
def test_random_tables_match_pandas(frame, precision, sep, na_rep):
    kwargs = {"float_format": f"%.{precision}g", "sep": sep, "na_rep": na_rep}
    assume(sep not in na_rep)
    assert bulk_bytes(frame, **kwargs) == pandas_bytes(frame, **kwargs)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(cells, min_size=1, max_size=60), precision=st.integers(1, 6))
def test_cells_are_python_percent_formatting(values, precision):
    fmt = f"%.{precision}g"
    expected = ["" if np.isnan(v) else fmt % v for v in values]
    assert format_general(np.array(values), fmt) == expected


@pytest.mark.parametrize("precision", range(1, 7))
def test_edge_values_every_precision(precision):
    fmt = f"%.{precision}g"
    values = np.array(EDGE_VALUES * 3)
    assert format_general(values, fmt, "NA") == ["NA" if np.isnan(v) else fmt % v
                                                 for v in values]


def test_many_random_magnitudes_match():
    """A million cells across 600 orders of magnitude, the tie zone included."""
    rng = np.random.default_rng(7)
    values = rng.normal(size=1_000_000) * 10.0 ** rng.integers(-300, 300, 1_000_000)
    values[::97] = np.round(values[::97], 3)
    values[::89] = rng.integers(-10**7, 10**7, values[::89].size) * 2.0 ** -12
    frame = pd.DataFrame(values.reshape(2000, 500))
    assert bulk_bytes(frame, float_format="%.6g") == pandas_bytes(frame, float_format="%.6g")


def test_averages_of_four_decimal_values_next_to_half_way_points():
    """Pairs of 4-decimal values averaged end in 5 at the 7th digit above 10 (``%.6g``)."""
    rng = np.random.default_rng(5)
    low, high = rng.integers(0, 20 * 10**4, (2, 200_000)) / 10**4
    values = np.concatenate([(low + high) / 2, (low + high + rng.integers(0, 9, 200_000)
                                                 / 10**4) / 3])
    assert format_general(values, "%.6g") == ["%.6g" % v for v in values]
    frame = pd.DataFrame(values.reshape(-1, 50))
    assert bulk_bytes(frame, float_format="%.6g") == pandas_bytes(frame, float_format="%.6g")


def test_float32_and_mixed_float_columns():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"a": rng.normal(size=50).astype(np.float32),
                          "b": rng.normal(size=50) * 1e5, "c": np.float16(rng.normal(size=50))})
    frame.iloc[3, 0] = np.nan
    assert bulk_bytes(frame, float_format="%.6g") == pandas_bytes(frame, float_format="%.6g")


def test_wide_and_tall_tables_cross_block_boundaries():
    rng = np.random.default_rng(2)
    tall = pd.DataFrame(rng.normal(7, 2, (9000, 3)), index=[f"G{i}" for i in range(9000)])
    wide = pd.DataFrame(rng.normal(7, 2, (3, 20000)), index=["Trait", "Age", "Gender"])
    for frame in (tall, wide, wide.T):
        assert bulk_bytes(frame, float_format="%.6g") == pandas_bytes(frame, float_format="%.6g")


@pytest.mark.parametrize("label", ["", "a,b", 'say "x"', "line\nbreak", "cr\rhere", " lead",
                                   "tab\there", "ünïcode", "x" * 300])
def test_awkward_row_labels(label):
    frame = pd.DataFrame([[1.5, -2.25], [3.0, np.nan]], index=[label, "plain"], columns=["A", "B"])
    for sep in (",", "\t"):
        kwargs = {"float_format": "%.6g", "sep": sep}
        chunks = csv_chunks(frame, **kwargs)
        got = pandas_bytes(frame, **kwargs) if chunks is None else b"".join(chunks)
        assert got == pandas_bytes(frame, **kwargs)


@pytest.mark.parametrize("frame, kwargs", [
    (pd.DataFrame({"a": [1, 2]}), {"float_format": "%.6g"}),  # integer column
    (pd.DataFrame({"a": [1.0, 2.0]}), {}),  # no float_format: repr-style cells
    (pd.DataFrame({"a": [1.0, 2.0]}), {"float_format": "%.8g"}),
    (pd.DataFrame({"a": [1.0, 2.0]}), {"float_format": "%.3f"}),
    (pd.DataFrame({"a": [1.0, 2.0]}), {"float_format": "%.6g", "index": False}),
    (pd.DataFrame({"a": [1.0, 2.0]}), {"float_format": "%.6g", "sep": "."}),
    (pd.DataFrame({"a": [1.0, 2.0]}, index=[1.5, 2.5]), {"float_format": "%.6g"}),
    (pd.DataFrame({"a": [1.0, 2.0]}, index=["x", np.nan]), {"float_format": "%.6g"}),
    (pd.DataFrame({"a": [1.0, 2.0]}, index=["x\0", "y"]), {"float_format": "%.6g"}),
    (pd.DataFrame({"a": pd.array([1.0, None], dtype="Float64")}), {"float_format": "%.6g"}),
    (pd.DataFrame(np.ones((2, 2)), columns=pd.MultiIndex.from_tuples([("a", 1), ("a", 2)])),
     {"float_format": "%.6g"}),
    (pd.DataFrame(np.ones((0, 2))), {"float_format": "%.6g"}),
])
def test_outside_the_bulk_path_pandas_writes(tmp_path, frame, kwargs):
    assert csv_chunks(frame, **kwargs) is None
    atomic_to_csv(frame, tmp_path / "t.csv", **kwargs)
    assert (tmp_path / "t.csv").read_bytes() == pandas_bytes(frame, **kwargs)


def test_atomic_to_csv_writes_pandas_bytes(tmp_path):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(40, 7)), index=[f"GSM{i}" for i in range(40)])
    frame.iloc[0, 0] = np.nan
    atomic_to_csv(frame, tmp_path / "a" / "t.csv", float_format="%.6g")
    assert (tmp_path / "a" / "t.csv").read_bytes() == pandas_bytes(frame, float_format="%.6g")
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["t.csv"]  # no temp left


def test_line_terminator_is_the_platform_default():
    frame = pd.DataFrame([[1.0]], index=["x"])
    assert bulk_bytes(frame, float_format="%.6g").endswith(os.linesep.encode())


def demo_tables():
    root = REPO / "output" / "preprocess"
    return sorted(root.rglob("*.csv")) if root.is_dir() else []


@pytest.mark.skipif(not demo_tables(), reason="the demo's output/preprocess is not in this tree")
def test_demo_tables_rewritten_to_the_same_bytes(tmp_path):
    """Every committed demo table, read back as floats, is written to its own bytes."""
    bulk = 0
    for path in demo_tables():
        frame = pd.read_csv(path, index_col=0)
        frame = frame.astype(float)
        chunks = csv_chunks(frame, float_format="%.6g")
        bulk += chunks is not None
        atomic_to_csv(frame, tmp_path / "t.csv", float_format="%.6g")
        assert (tmp_path / "t.csv").read_bytes() == path.read_bytes(), path
    assert bulk == len(demo_tables())
