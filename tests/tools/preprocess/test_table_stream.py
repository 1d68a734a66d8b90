"""Tests for tools.preprocess.table_stream: marker-delimited sections across chunk boundaries."""

from __future__ import annotations

import io

import pytest

from tools.preprocess.table_stream import LineStream

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
    def bad_row(n_fields, allow_short=False):
        stream = LineStream(io.BytesIO(WIDTHS), "x", chunk_size=chunk_size)
        stream.readline()
        stream.readline()
        section = stream.section("!end", n_fields=n_fields, allow_short=allow_short)
        read_all(section, read_size)
        assert stream.readline() == "after"
        return section.bad_row

    assert bad_row(3) == (5, 2)
    assert bad_row(3, allow_short=True) == (6, 4)
    assert bad_row(4, allow_short=True) is None
    assert bad_row(None) is None


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
