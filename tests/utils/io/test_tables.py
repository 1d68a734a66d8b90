"""Tests for utils.io.tables and utils.io.rows: sections across chunk boundaries, row widths."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest

from tests.hang_guard import fail_after
from utils.errors import InputFileError
from utils.io.gzip_stream import GZIP_MAX_INPUT_BYTES, GZIP_OUTPUT_PER_INPUT
from utils.io.rows import newline_offsets, separators_per_line
from utils.io.tables import (DEFAULT_CHUNK_SIZE, LineStream, open_lines, row_problem,
                             unterminated_problem)

TABLE = b"".join(b"row%d\t%d\n" % (i, i) for i in range(500))
DATA = b"head 1\nhead 2\n" + TABLE + b"!end\ntail\n"


def read_all(section, size):
    out = b""
    while True:
        piece = section.read(size)
        if not piece:
            return out
        out += piece


@pytest.mark.parametrize("chunk_size", [1, 2, 5, 7, 64, 4096])
@pytest.mark.parametrize("read_size", [1, 3, 50, -1])
def test_section_stops_at_marker_whatever_the_chunking(chunk_size, read_size):
    stream = LineStream(io.BytesIO(DATA), "x", chunk_size=chunk_size)
    assert stream.readline() == "head 1" and stream.readline_bytes() == b"head 2"
    section = stream.section("!end")
    assert section.first_line == 3
    assert read_all(section, read_size) == TABLE
    assert section.found_end
    assert section.n_lines == 500
    # the marker line is consumed; reading continues after it
    assert stream.readline() == "tail" and stream.line_no == 504
    assert stream.readline() is None


def test_empty_section_and_missing_marker():
    stream = LineStream(io.BytesIO(b"!end\nafter\n"), "x", chunk_size=2)
    section = stream.section("!end")
    assert section.read() == b"" and section.found_end
    assert stream.readline() == "after"
    stream = LineStream(io.BytesIO(b"a\nb\n"), "x", chunk_size=3)
    section = stream.section("!end")
    assert read_all(section, 10) == b"a\nb\n" and not section.found_end


def test_marker_must_start_a_line():
    data = b"x!end\n!endless\n!end\nz\n"
    stream = LineStream(io.BytesIO(data), "x", chunk_size=4)
    section = stream.section("!end")
    # "!endless" starts with the marker text: a marker line (prefix match, as GEO)
    assert read_all(section, 100) == b"x!end\n"
    assert stream.readline() == "!end"


@pytest.mark.parametrize("read_size", [1, 4, 9, 1000])
def test_lines_that_begin_like_the_marker_are_rows_whatever_the_chunking(read_size):
    """Rows that start with a prefix of the end marker ('!en', '!') are handed out as rows,
    and the marker is found, wherever the chunk boundaries cut them."""
    table = b"a\t1\n!en\t2\n!\t3\n\n!e\t4\n"
    data = table + b"!end\nafter\n"
    for chunk_size in range(1, len(data) + 1):
        stream = LineStream(io.BytesIO(data), "x", chunk_size=chunk_size)
        section = stream.section("!end", n_fields=2)
        assert read_all(section, read_size) == table, chunk_size
        assert section.found_end and section.bad_row is None
        assert stream.readline() == "after"


def test_crlf_and_no_final_newline():
    stream = LineStream(io.BytesIO(b"a\r\nb"), "x")
    assert [stream.readline(), stream.readline(), stream.readline()] == ["a", "b", None]


def test_latin1_fallback_per_line():
    stream = LineStream(io.BytesIO("caf\xe9\n".encode("latin-1")), "x")
    assert stream.readline() == "caf\u00e9"


# lines: 1 h, 2 header, 3 ok, 4 blank (ignored), 5 short, 6 long, 7 ok
WIDTHS = b"h\nid\ta\tb\n1\t2\t3\n\n4\t5\n6\t7\t8\t9\n1\t2\t3\n!end\nafter\n"


@pytest.mark.parametrize("chunk_size", [1, 3, 8, 4096])
@pytest.mark.parametrize("read_size", [1, 5, -1])
def test_section_names_the_first_row_of_the_wrong_width(chunk_size, read_size):
    """The width check runs on the bytes as they go by, whatever the block boundaries."""
    def bad_row(n_fields):
        stream = LineStream(io.BytesIO(WIDTHS), "x", chunk_size=chunk_size)
        stream.readline()
        stream.readline()
        section = stream.section("!end", n_fields=n_fields)
        read_all(section, read_size)
        assert stream.readline() == "after"
        return section.bad_row

    assert bad_row(3) == (5, 2)       # a short row is as wrong as a long one
    assert bad_row(2) == (3, 3)
    assert bad_row(None) is None


def _first_bad_row_line_by_line(rows, first_line, n_fields, marker):
    """The width check's contract, one row at a time: (bad row, stray marker)."""
    for line_no, row in enumerate(rows, start=first_line):
        found = row.count(b"\t")
        if found == n_fields - 1 or not row.strip():
            continue
        stray = (line_no, marker.decode()) if row.startswith(marker) else None
        return (line_no, found + 1), stray
    return None, None


@pytest.mark.parametrize("seed", range(40))
def test_the_vectorized_width_check_agrees_with_a_row_by_row_check(seed):
    """Random tables (blank, short, long, stray-marker and CRLF rows among good ones) read
    in random chunk and read sizes: the same first bad row as a plain row-by-row check."""
    rng = np.random.default_rng(seed)
    n_fields = int(rng.integers(1, 6))
    kinds = rng.choice(["good", "blank", "space", "short", "long", "marker", "crlf"],
                       size=int(rng.integers(1, 60)),
                       p=[0.8, 0.04, 0.03, 0.04, 0.03, 0.03, 0.03])
    rows = []
    for kind in kinds:
        width = {"short": max(0, n_fields - int(rng.integers(1, 3))),
                 "long": n_fields + int(rng.integers(1, 3))}.get(kind, n_fields)
        row = b"\t".join(b"x" * int(rng.integers(0, 4)) for _ in range(max(width, 1)))
        row = {"blank": b"", "space": b" \t "[:1 + int(rng.integers(0, 3)) % 2],
               "marker": b"!begin extra", "crlf": row + b"\r"}.get(kind, row)
        rows.append(row)
    data = b"id\n" + b"".join(row + b"\n" for row in rows) + b"!end\nafter\n"
    stream = LineStream(io.BytesIO(data), "x", chunk_size=int(rng.integers(1, 40)))
    stream.readline()
    section = stream.section("!end", n_fields=n_fields, stray_markers=("!begin",))
    table = data[len(b"id\n"):-len(b"!end\nafter\n")]
    assert read_all(section, int(rng.choice([1, 2, 7, 33, -1]))) == table
    assert stream.readline() == "after" and section.n_lines == len(rows)
    expected = _first_bad_row_line_by_line(rows, 2, n_fields, b"!begin")
    assert (section.bad_row, section.stray_marker) == expected


def test_separators_are_counted_per_line_without_overflow():
    wide = b"\t" * 70_000  # more separators than a 16-bit count holds
    data = b"a\tb\n" + wide + b"\n\n" + b"x,y\t\n" + b"tail\t"
    counts = separators_per_line(data, newline_offsets(data), b"\t")
    assert counts.tolist() == [1, 70_000, 0, 1]
    assert separators_per_line(data, newline_offsets(data), b",").tolist() == [0, 0, 0, 1]


def test_width_check_of_a_last_line_without_newline():
    stream = LineStream(io.BytesIO(b"a\tb\nc\td\te"), "x", chunk_size=2)
    section = stream.section(None, n_fields=2)
    assert read_all(section, 3) == b"a\tb\nc\td\te"
    assert section.bad_row == (2, 3)


def test_peek_line_does_not_consume():
    stream = LineStream(io.BytesIO(b"one\r\ntwo"), "x", chunk_size=2)
    assert stream.peek_line_bytes() == b"one"
    assert stream.readline() == "one"
    assert stream.peek_line_bytes() == b"two" and stream.readline() == "two"
    assert stream.peek_line_bytes() is None


# ---------------------------------------------------------------------------
# Long lines, caps, stray markers, cut files (issue 14)
# ---------------------------------------------------------------------------
def test_a_long_line_read_in_tiny_chunks_costs_linear_work():
    """A 4 MB line in 16-byte chunks: 262,144 reads. Re-copying the buffer at every chunk
    (the old reader) would copy ~550 GB and never finish; gathering the chunks once is
    instant. The guard turns a hang into a failure; nothing is timed."""
    line = b"x" * (4 << 20)
    stream = LineStream(io.BytesIO(b"head\n" + line + b"\ntail\n"), "x", chunk_size=16)
    with fail_after(30, "reading a long line"):
        assert stream.readline() == "head"
        assert stream.peek_line_bytes() == line
        assert stream.readline_bytes() == line
        assert stream.readline() == "tail" and stream.line_no == 3


@pytest.mark.parametrize("chunk_size", [3, 64, 4096])
def test_a_line_over_the_cap_names_the_file_and_line(chunk_size):
    data = b"a\nbb\n" + b"y" * 100 + b"\nz\n"
    stream = LineStream(io.BytesIO(data), "big.txt", chunk_size=chunk_size, max_line_bytes=50)
    assert stream.readline() == "a" and stream.readline() == "bb"
    with pytest.raises(InputFileError, match="big.txt:3: line longer than 50 bytes"):
        stream.readline()
    stream = LineStream(io.BytesIO(data), "big.txt", chunk_size=chunk_size, max_line_bytes=50)
    stream.readline()
    stream.readline()
    with pytest.raises(InputFileError, match="big.txt:3: line longer than 50 bytes"):
        stream.peek_line_bytes()


@pytest.mark.parametrize("chunk_size", [3, 64, 4096])
@pytest.mark.parametrize("read_size", [1, 7, 1000])
def test_a_table_row_over_the_cap_names_its_line(chunk_size, read_size):
    data = b"id\tx\n1\t2\n3\t" + b"9" * 100 + b"\n!end\n"
    stream = LineStream(io.BytesIO(data), "t.txt", chunk_size=chunk_size, max_line_bytes=50)
    section = stream.section("!end", n_fields=2)
    with pytest.raises(InputFileError, match="t.txt:3: line longer than 50 bytes"):
        read_all(section, read_size)


@pytest.mark.parametrize("chunk_size", [1, 5, 4096])
def test_a_stray_begin_marker_inside_a_table_is_found(chunk_size):
    data = b"id\ta\tb\n1\t2\t3\n!begin\n4\t5\t6\n!end\n"
    stream = LineStream(io.BytesIO(data), "x", chunk_size=chunk_size)
    section = stream.section("!end", n_fields=3, stray_markers=("!begin",))
    read_all(section, 4)
    assert section.stray_marker == (3, "!begin")
    problem = row_problem("x", section, "row", 3)
    assert str(problem) == ("x:3: unexpected '!begin' line inside the table (a second table "
                            "start: damaged or concatenated file?)")


@pytest.mark.parametrize("chunk_size", [1, 4, 4096])
def test_a_last_line_without_line_ending_is_reported(chunk_size):
    stream = LineStream(io.BytesIO(b"a\tb\n1\t2\n3\t4"), "cut.tsv", chunk_size=chunk_size)
    section = stream.section(None, n_fields=2, sep="\t")
    read_all(section, 3)
    assert section.unterminated_line == 3
    assert "cut.tsv:3: the file ends in the middle of this line" in str(
        unterminated_problem("cut.tsv", section))
    whole = LineStream(io.BytesIO(b"a\tb\n1\t2\n"), "ok.tsv", chunk_size=chunk_size)
    section = whole.section(None)
    read_all(section, 3)
    assert section.unterminated_line is None


def test_the_width_check_counts_the_given_separator():
    stream = LineStream(io.BytesIO(b"a,b,c\n1,2,3\n4,5\n"), "x.csv")
    section = stream.section(None, n_fields=3, sep=",")
    read_all(section, 100)
    assert section.bad_row == (3, 2)


def test_open_lines_names_the_file_when_memory_runs_out(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("a\nb\n")
    with pytest.raises(InputFileError, match="t.txt: not enough memory to read the file "
                                             "\\(stopped after line 1\\)"):
        with open_lines(path) as stream:
            stream.readline()
            raise MemoryError


def test_a_line_stream_reads_the_largest_gzip_block_whole():
    """The chunk size matches the gzip reader's largest block (none is sliced in two)."""
    assert DEFAULT_CHUNK_SIZE == GZIP_MAX_INPUT_BYTES * GZIP_OUTPUT_PER_INPUT


def test_open_lines_checks_the_rest_of_a_gzip_file_when_the_reader_stops_early(tmp_path):
    """Leaving the block normally inflates what was not read; an error leaves at once."""
    rows = b"".join(b"row%d\t%d\n" % (i, i) for i in range(200_000))
    packed = gzip.compress(b"head\n" + rows)
    whole, cut = tmp_path / "whole.txt.gz", tmp_path / "cut.txt.gz"
    whole.write_bytes(packed)
    cut.write_bytes(packed[:len(packed) // 2])
    with open_lines(whole) as stream:
        assert stream.readline() == "head"
    with pytest.raises(InputFileError, match="cut.txt.gz: truncated gzip file"):
        with open_lines(cut) as stream:
            assert stream.readline() == "head"
    with pytest.raises(ValueError, match="the reader's own"):  # not masked by the check
        with open_lines(cut) as stream:
            stream.readline()
            raise ValueError("the reader's own error")
