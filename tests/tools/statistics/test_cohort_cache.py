"""Content-keyed cache of linked tables (tools.statistics.cohort_cache)."""

from __future__ import annotations

import gzip
import os

import numpy as np
import pandas as pd
import pytest

from tools.statistics import cohort_cache
from tools.statistics.cohort_cache import (CohortCache, fast_parse, parse_linked_arrays,
                                           parse_linked_table)
from utils.errors import InputFileError

TABLE = "sample,T,G1,G2\nS1,1,0.5,2.0\nS2,0,1.5,3.0\n"


def test_parsed_once_and_reparsed_when_content_changes(tmp_path):
    path = tmp_path / "GSE1.csv"
    path.write_text(TABLE)
    cache = CohortCache()
    first = cache.load(path)
    assert cache.load(path) is first and cache.parses == 1
    assert first.columns == ("T", "G1", "G2") and first.samples[0] == "S1"
    stat = os.stat(path)
    path.write_text(TABLE.replace("0.5", "0.7"))          # same size, new content
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # even with the old mtime
    second = cache.load(path)
    assert second.column("G1")[0] == 0.7 and cache.parses == 2
    assert second.digest != first.digest
    assert cache.digest(path) == second.digest
    os.utime(path)  # touch only: hash unchanged -> no new parse
    assert cache.load(path) is second and cache.parses == 2


def test_gzip_and_errors_name_the_file(tmp_path):
    packed = tmp_path / "GSE2.csv"
    packed.write_bytes(gzip.compress(TABLE.encode()))
    assert CohortCache().load(packed).values.shape == (2, 3)
    truncated = tmp_path / "GSE3.csv"
    truncated.write_bytes(gzip.compress(TABLE.encode() * 50)[:40])
    with pytest.raises(InputFileError, match="GSE3.csv: truncated gzip file"):
        CohortCache().load(truncated)
    text = tmp_path / "GSE4.csv"
    text.write_text("sample,T,G1\nS1,1,abc\n")
    with pytest.raises(InputFileError, match="GSE4.csv: non-numeric values in 1 column"):
        CohortCache().load(text)
    with pytest.raises(InputFileError, match="GSE5.csv"):
        CohortCache().load(tmp_path / "GSE5.csv")


def test_repeated_columns_and_sample_ids_are_refused(tmp_path):
    # pandas would read a second FEN1 as a gene "FEN1.1" that does not exist
    genes = tmp_path / "GSE6.csv"
    genes.write_bytes(gzip.compress(b"sample,T,FEN1,G2,FEN1\nS1,1,0.5,2.0,0.1\nS2,0,1,3,4\n"))
    with pytest.raises(InputFileError, match=r"GSE6.csv: column 'FEN1' occurs twice "
                                             r"\(columns 3 and 5\)"):
        CohortCache().load(genes)
    samples = tmp_path / "GSE7.csv"
    samples.write_text("sample,T,G1\nS1,1,0.5\nS2,0,1.5\nS1,0,2.5\n")
    with pytest.raises(InputFileError, match=r"GSE7.csv: sample id 'S1' occurs twice "
                                             r"\(data rows 1 and 3\)"):
        CohortCache().load(samples)


# --------------------------------------------------------------------------- fast reader

def _both(raw: bytes):
    """The fast reader's result and pandas' (``parse_linked_table``) on the same bytes."""
    frame = parse_linked_table("t.csv", raw)
    return fast_parse(raw), (tuple(frame.index), tuple(frame.columns),
                             frame.to_numpy(dtype=float))


def test_fast_reader_gives_pandas_bits_on_written_tables():
    rng = np.random.default_rng(3)
    values = np.column_stack([
        rng.integers(0, 2, 60).astype(float),                        # a 0/1 trait
        rng.normal(size=(60, 30)) * 10.0 ** rng.integers(-9, 9, 30),  # any magnitude
        rng.lognormal(2, 1, size=(60, 30)).round(4),
        rng.normal(size=(60, 5)) * 1e-300])                           # near the subnormals
    frame = pd.DataFrame(values, index=[f"GSM{i}" for i in range(60)],
                         columns=["Trait"] + [f"G{j}" for j in range(values.shape[1] - 1)])
    for float_format in (None, "%.6g", "%.17g"):
        raw = frame.to_csv(float_format=float_format).encode()
        fast, slow = _both(raw)
        assert fast is not None, float_format
        assert fast[:2] == slow[:2]
        assert np.array_equal(fast[2], slow[2]) and fast[2].dtype == np.float64
    fast, slow = _both(frame.iloc[:3].to_csv(lineterminator="\r\n").encode())
    assert fast is not None and np.array_equal(fast[2], slow[2])


@pytest.mark.parametrize("raw, why", [
    (b"id,T,G1\nS1,1,\nS2,0,2\n", "an empty cell"),
    (b"id,T,G1\nS1,1,NA\nS2,0,2\n", "a missing-value code"),
    (b"id,T,G1\nS1,1,nan\nS2,0,2\n", "nan as text"),
    (b"id,T,G1\nS1,1, 2\nS2,0,2\n", "a space"),
    (b"id,T,G1\nS1,1,inf\nS2,0,-1e300\n", "an infinity"),
    (b"id,T,G1\r\nS1,1,2\r\n\r\nS2,0,3\r\n", "CRLF and a blank line"),
])
def test_fast_reader_reads_missing_cells_as_pandas_does(raw, why):
    fast, slow = _both(raw)
    assert fast is not None, why
    assert fast[:2] == slow[:2], why
    assert np.array_equal(fast[2], slow[2], equal_nan=True), why


@pytest.mark.parametrize("raw, why", [
    (b'id,T,G1\n"S1",1,2\nS2,0,2\n', "quotes"),
    (b"id,T,G1\n1,1,2\n2,0,2\n", "numeric sample ids (pandas makes them numbers)"),
    (b"id,T,G1\nNA,1,2\nS2,0,2\n", "a sample id pandas reads as missing"),
    (b"id,T,G1\nTrue,1,2\nS2,0,2\n", "a boolean sample id"),
    (b"id,T,G1\ninf,1,2\nS2,0,2\n", "a sample id float() reads"),
    (b"id,T,\nS1,1,2\nS2,0,2\n", "an unnamed column (pandas: 'Unnamed: 2')"),
    (b"id,T,G1\nS1,1,abc\nS2,0,2\n", "a text cell"),
])
def test_fast_reader_leaves_everything_else_to_pandas(raw, why):
    assert fast_parse(raw) is None, why
    try:
        frame = parse_linked_table("t.csv", raw)
    except InputFileError:
        return                                  # pandas' error is the one users see
    samples, columns, values = parse_linked_arrays("t.csv", raw)
    assert samples == tuple(frame.index) and columns == tuple(frame.columns)
    assert np.array_equal(values, frame.to_numpy(dtype=float), equal_nan=True)


@pytest.mark.parametrize("raw, line, found", [
    (b"id,T,G1\nS1,1,2,5\nS2,0,2\n", 2, 4),        # an extra field
    (b"id,T,G1\nS1,1,2\nS2,0\n", 3, 2),            # a cell removed (pandas: NaN)
    (b"id,T,G1,G2\nS1,1,2\nS2,0,2\n", 2, 3),       # an extra name in the header
    (b'id,T,G1\n"S1",1,2\nS2,0\n', 3, 2),          # quoted: the pandas path checks too
    (b'id,T,G1\nS1,1,"2,5"\nS2,0,1,7\n', 3, 4),    # a quoted comma is one field
])
def test_rows_of_another_width_are_refused_with_their_line(raw, line, found):
    header_fields = raw.split(b"\n")[0].count(b",") + 1
    for reader in (parse_linked_arrays, parse_linked_table):
        with pytest.raises(InputFileError, match=rf"^t.csv:{line}: row has {found} fields, "
                                                 rf"the header has {header_fields}"):
            reader("t.csv", raw)


def test_cache_reads_unquoted_tables_fast_and_the_rest_with_pandas(tmp_path, monkeypatch):
    calls = []
    original = cohort_cache._frame_with_pandas
    monkeypatch.setattr(cohort_cache, "_frame_with_pandas",
                        lambda *args: calls.append(args[0]) or original(*args))
    plain, gaps, quoted = tmp_path / "GSE8.csv", tmp_path / "GSE9.csv", tmp_path / "GSE10.csv"
    plain.write_text(TABLE)
    gaps.write_text(TABLE.replace("0.5", ""))
    quoted.write_text(TABLE.replace("S1", '"S1"'))
    assert CohortCache().load(plain).values.tolist() == [[1, 0.5, 2.0], [0, 1.5, 3.0]]
    assert np.isnan(CohortCache().load(gaps).column("G1")[0])
    assert calls == []
    assert CohortCache().load(quoted).samples == ("S1", "S2")
    assert calls == [quoted.resolve()]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
def test_the_cache_reads_through_the_guarded_readers(tmp_path):
    fifo = tmp_path / "GSE11.csv"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match="GSE11.csv: is a FIFO"):
        CohortCache().load(fifo)                 # refused, never opened (it would block)
    with pytest.raises(InputFileError, match="GSE11.csv: is a FIFO"):
        CohortCache().digest(fifo)
    folder = tmp_path / "GSE12.csv"
    folder.mkdir()
    with pytest.raises(InputFileError, match="GSE12.csv: is a folder"):
        CohortCache().load(folder)
    packed = gzip.compress(TABLE.encode() * 200)
    cut = tmp_path / "GSE13.csv"
    cut.write_bytes(packed[:-6])                 # only the gzip trailer is missing
    with pytest.raises(InputFileError, match="GSE13.csv: truncated gzip file"):
        CohortCache().load(cut)


@pytest.mark.parametrize("names", [["G1", "G2", "G3"], ["G3", "G1"], ["T", "G2", "G3"],
                                   ["G2"], ["G3", "G2"], ["G1", "G1"]])
@pytest.mark.parametrize("rows", [None, [0, 1, 2], [2, 0], [1]])
def test_select_is_the_frame_selection(tmp_path, names, rows):
    # consecutive columns are copied as row segments, other selections gathered
    # value by value: both give the pandas selection, as a new array
    path = tmp_path / "GSE5.csv"
    path.write_text("sample,T,G1,G2,G3\nS1,1,0.5,2.0,-1\nS2,0,1.5,3.0,7\nS3,1,2.5,4.0,8\n")
    table = CohortCache().load(path)
    frame = pd.read_csv(path, index_col=0)
    expected = frame[names].to_numpy() if rows is None else frame[names].to_numpy()[rows]
    chosen = table.select(names, None if rows is None else np.array(rows))
    np.testing.assert_array_equal(chosen, expected)
    chosen[:] = -99.0
    assert not (table.values == -99.0).any()
    with pytest.raises(KeyError):
        table.select(["G1", "G9"])
