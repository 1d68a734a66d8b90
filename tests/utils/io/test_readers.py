"""Guarded readers (utils.io.readers): gzip sniffed, latin-1 fallback, kinds and caps refused."""

from __future__ import annotations

import gzip
import hashlib
import json
import os

import pytest

from utils.errors import InputFileError
from utils.io import (check_complete, content_of, data_lines, decode_text, gzip_content_digest,
                      is_gzip, open_binary, open_raw, open_text, read_json, read_raw_bytes,
                      read_table, read_text)


def test_plain_and_gzip_read_the_same(tmp_path, inflater):
    text = "line one\nline two é\n"
    plain = tmp_path / "a.txt"
    plain.write_text(text, encoding="utf-8")
    zipped = tmp_path / "a.txt.plain_name"  # gzip content, misleading name
    zipped.write_bytes(gzip.compress(text.encode("utf-8")))
    unzipped_named_gz = tmp_path / "b.txt.gz"  # plain content with a .gz name
    unzipped_named_gz.write_text(text, encoding="utf-8")
    assert read_text(plain) == read_text(zipped) == read_text(unzipped_named_gz) == text


def test_latin1_fallback_keeps_every_character(tmp_path):
    # 'Sj\xf6gren' is latin-1 for Sjögren; the UTF-8 part must stay UTF-8.
    data = "caf\u00e9 ".encode("utf-8") + b"Sj\xf6gren\n"
    path = tmp_path / "mixed.txt"
    path.write_bytes(data)
    assert read_text(path) == "caf\u00e9 Sj\u00f6gren\n"
    with open_text(path) as handle:
        assert handle.read() == "caf\u00e9 Sj\u00f6gren\n"
    assert decode_text(b"\xff\xfe") == "\u00ff\u00fe"


def test_truncated_gzip_names_the_file(tmp_path, inflater):
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(gzip.compress(b"x" * 10000)[:-20])
    with pytest.raises(InputFileError, match="cut.txt.gz.*truncated"):
        read_text(path)


def test_missing_file_and_folder_errors(tmp_path):
    with pytest.raises(InputFileError, match="nope.txt: file not found"):
        read_text(tmp_path / "nope.txt")
    with pytest.raises(InputFileError, match="is a folder"):
        read_text(tmp_path)


def test_read_json_errors_name_file_and_line(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("")
    with pytest.raises(InputFileError, match="empty.json: empty file"):
        read_json(empty)
    bad = tmp_path / "bad.json"
    bad.write_text('{\n "a": 1,\n oops\n}')
    with pytest.raises(InputFileError, match=r"bad.json:3: invalid JSON"):
        read_json(bad)


def test_read_json_refuses_a_key_written_twice_naming_it(tmp_path):
    # json.loads alone keeps the second record of GSE1 and drops the first in silence
    path = tmp_path / "cohort_info.json"
    path.write_text('{\n "GSE1": {"is_usable": true},\n "GSE2": {"GSE1": 0},\n'
                    ' "GSE1": {"is_usable": false}\n}\n')
    with pytest.raises(InputFileError) as info:
        read_json(path)
    assert str(info.value) == (f"{path}: key 'GSE1' occurs twice in one JSON object (the "
                               "second value would replace the first in silence)")
    (tmp_path / "ok.json").write_text('{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}')
    assert read_json(tmp_path / "ok.json") == {"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
@pytest.mark.parametrize("reader", [open_binary, read_text, read_json])
def test_a_fifo_is_refused_without_blocking(tmp_path, reader):
    """Opening a FIFO for reading waits for a writer forever: it is never opened."""
    fifo = tmp_path / "GSE1_series_matrix.txt"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match="is a FIFO \\(named pipe\\), not a regular file"):
        reader(fifo)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused():
    with pytest.raises(InputFileError, match="/dev/zero: is a character device"):
        read_text("/dev/zero")  # would stream zeros without end


def test_a_plain_file_over_the_cap_is_refused_at_once(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 1001)
    with pytest.raises(InputFileError, match="big.txt: file of 1001 bytes, more than the "
                                             "limit of 1000"):
        open_binary(path, max_bytes=1000)


def test_text_readers_skip_a_utf8_bom_and_refuse_utf16(tmp_path):
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + json.dumps({"a": 1}).encode())
    assert read_json(bom) == {"a": 1}
    with open_text(bom) as handle:
        assert handle.read() == '{"a": 1}'
    wide = tmp_path / "wide.json"
    wide.write_text(json.dumps({"a": 1}), encoding="utf-16")
    with pytest.raises(InputFileError, match="wide.json:1: UTF-16 text"):
        read_json(wide)


# ---------------------------------------------------------------------------
# Whole-file bytes, early stops, the committed tables (issue 26)
# ---------------------------------------------------------------------------
def test_raw_bytes_are_read_from_regular_files_under_the_cap(tmp_path):
    path = tmp_path / "t.csv.gz"
    packed = gzip.compress(b"a,b\n1,2\n")
    path.write_bytes(packed)
    assert read_raw_bytes(path) == packed          # stored bytes, not decompressed
    assert content_of(packed, path) == b"a,b\n1,2\n"
    with pytest.raises(InputFileError, match=r"t.csv.gz: file of \d+ bytes, more than the "
                                             "limit of 10 bytes"):
        read_raw_bytes(path, max_bytes=10)
    with pytest.raises(InputFileError, match="is a folder"):
        read_raw_bytes(tmp_path)
    with pytest.raises(InputFileError, match="x.csv: truncated gzip file"):
        content_of(packed[:-3], "x.csv")
    with pytest.raises(InputFileError, match="y.csv: more than 5 bytes once decompressed"):
        content_of(packed, "y.csv", max_bytes=5)


@pytest.mark.parametrize("opener", [open_binary, open_text])
def test_check_complete_refuses_a_gzip_file_cut_after_the_part_read(tmp_path, opener, inflater):
    rows = b"".join(b"row%d\t%d\n" % (i, i) for i in range(100_000))
    packed = gzip.compress(rows)
    whole, cut = tmp_path / "whole.txt.gz", tmp_path / "cut.txt.gz"
    whole.write_bytes(packed)
    cut.write_bytes(packed[:-5])                   # the trailer cut: all the rows are there
    with opener(whole) as handle:
        handle.readline()
        check_complete(handle)
    with opener(cut) as handle:
        handle.readline()                          # the part read is fine ...
        with pytest.raises(InputFileError, match="cut.txt.gz: truncated gzip file"):
            check_complete(handle)                 # ... the rest is not
    plain = tmp_path / "plain.txt"
    plain.write_bytes(rows[:100])
    with opener(plain) as handle:                  # nothing to check in a plain file
        handle.readline()
        check_complete(handle)


def test_a_packaged_gzip_table_cut_short_is_refused(tmp_path):
    class Resource:  # a file inside a package (importlib.resources), not a path
        name = "table.tsv.gz"

        def __init__(self, data):
            self.data = data

        def read_bytes(self):
            return self.data

        def __str__(self):
            return self.name

    packed = gzip.compress(b"code\tname\n# comment\nA\tx\n")
    assert read_table(Resource(packed), ("code", "name")) == [(3, ["A", "x"])]
    with pytest.raises(InputFileError, match="table.tsv.gz: truncated gzip file"):
        read_text(Resource(packed[:-2]))


def test_committed_tables_name_the_bad_line(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("# about\ncode\tname\n\nA\tx\nB\n")
    assert list(data_lines(path)) == [(2, "code\tname"), (4, "A\tx"), (5, "B")]
    with pytest.raises(InputFileError, match=r"t.tsv:5: expected 2 tab-separated cells"):
        read_table(path, ("code", "name"))
    with pytest.raises(InputFileError, match="header must be code / other"):
        read_table(path, ("code", "other"))


# -- the one check of a whole gzip file, the raw opener -----------------------------------
def test_gzip_content_digest_of_a_whole_multi_member_file(tmp_path, inflater):
    path = tmp_path / "a.gz"
    path.write_bytes(gzip.compress(b"first\n") + gzip.compress(b"second\n"))
    digest, size = gzip_content_digest(path)
    assert (digest, size) == (hashlib.sha256(b"first\nsecond\n").hexdigest(), 13)


@pytest.mark.parametrize("damage, problem", [
    (lambda packed: packed[:-3], "truncated gzip file"),
    (lambda packed: packed[:12] + bytes(b ^ 0xFF for b in packed[12:20]) + packed[20:],
     "gzip"),
    (lambda packed: b"<html><body>Service unavailable</body></html>\n",
     "not a gzip file"),
])
def test_gzip_content_digest_refuses_a_damaged_file_naming_it(tmp_path, inflater, damage,
                                                              problem):
    path = tmp_path / "b.txt.gz"
    path.write_bytes(damage(gzip.compress(b"ID\tx\n" * 1000)))
    with pytest.raises(InputFileError, match=problem) as caught:
        gzip_content_digest(path)
    assert str(caught.value).startswith(str(path))


def test_gzip_content_digest_caps_the_content_only_when_asked(tmp_path):
    path = tmp_path / "c.gz"
    path.write_bytes(gzip.compress(b"x" * 10_000))
    assert gzip_content_digest(path)[1] == 10_000
    with pytest.raises(InputFileError, match="limit"):
        gzip_content_digest(path, max_bytes=1_000)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_is_gzip_and_open_raw_refuse_what_is_not_a_regular_file(tmp_path):
    fifo = tmp_path / "pipe.gz"
    os.mkfifo(fifo)
    for check in (is_gzip, open_raw, gzip_content_digest):
        with pytest.raises(InputFileError, match="pipe.gz"):
            check(fifo)
    with pytest.raises(InputFileError, match="file not found"):
        is_gzip(tmp_path / "missing.gz")


def test_open_raw_leaves_gzip_compressed(tmp_path):
    packed = gzip.compress(b"hello")
    path = tmp_path / "d.gz"
    path.write_bytes(packed)
    plain = tmp_path / "a.txt"
    plain.write_text("plain")
    assert is_gzip(path) and not is_gzip(plain)
    with open_raw(path) as handle:
        assert handle.read() == packed
