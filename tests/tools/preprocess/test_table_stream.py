"""Tests for tools.preprocess.table_stream: marker-delimited sections across chunk boundaries."""

from __future__ import annotations

import io

import pytest

from tools.preprocess.table_stream import LineStream, find_bad_row

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
    assert (section.n_lines, section.n_tabs) == (500, 500)
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


def test_crlf_and_no_final_newline():
    stream = LineStream(io.BytesIO(b"a\r\nb"), "x")
    assert [stream.readline(), stream.readline(), stream.readline()] == ["a", "b", None]


def test_latin1_fallback_per_line():
    stream = LineStream(io.BytesIO("caf\xe9\n".encode("latin-1")), "x")
    assert stream.readline() == "caf\u00e9"


def test_find_bad_row(tmp_path):
    path = tmp_path / "t.txt"
    path.write_bytes(b"h\nid\ta\tb\n1\t2\t3\n\n4\t5\n6\t7\t8\t9\n!end\n")
    # lines: 1 h, 2 header, 3 ok, 4 blank (ignored), 5 short, 6 long
    assert find_bad_row(path, 3, 3, "!end") == (5, 2)
    assert find_bad_row(path, 3, 3, "!end", allow_short=True) == (6, 4)
    assert find_bad_row(path, 3, 4, "!end", allow_short=True) is None
