"""The gzip engine (utils.io.gzip_stream): read-ahead blocks, members, caps, damage named."""

from __future__ import annotations

import gzip
import threading

import pytest

from utils.errors import InputFileError
from utils.io import open_binary
from utils.io.gzip_stream import BlockReader, CheckedGzip


def test_a_gzip_bomb_stops_at_the_decompressed_cap(tmp_path, inflater):
    bomb = tmp_path / "bomb.txt.gz"
    bomb.write_bytes(gzip.compress(b"0\t" * 500_000))  # 1 MB of text in ~1 kB
    with open_binary(bomb, max_bytes=100_000) as handle:
        with pytest.raises(InputFileError, match="bomb.txt.gz: more than 100000 bytes once "
                                                 "decompressed.*offset 100000"):
            while handle.read(4096):
                pass
    with pytest.raises(InputFileError, match="more than 100000 bytes"):
        open_binary(bomb, max_bytes=100_000).read()


def _blocks(*pieces):
    source = iter(pieces + (b"",))
    return lambda: next(source)


@pytest.mark.parametrize("background", [True, False])
def test_block_reader_hands_out_the_bytes_in_order(background):
    reader = BlockReader(_blocks(b"ab\ncd", b"e", b"\nfgh\n", b"ij"), background)
    with reader:
        assert reader.peek(3)[:3] == b"ab\n"
        assert reader.readline() == b"ab\n"
        assert reader.read(4) == b"cde\n"  # exact sizes across blocks
        assert reader.readline(2) == b"fg"
        assert reader.read1(10) == b"h\n"
        assert reader.read() == b"ij"
        assert reader.read(5) == b"" and reader.readline() == b""


@pytest.mark.parametrize("background", [True, False])
def test_block_reader_raises_a_source_error_after_the_data_before_it(background):
    pieces = iter([b"abc", ValueError("source broke")])

    def read_block():
        item = next(pieces)
        if isinstance(item, Exception):
            raise item
        return item

    with BlockReader(read_block, background) as reader:
        assert reader.read(3) == b"abc"
        with pytest.raises(ValueError, match="source broke"):
            reader.read(1)


def test_closing_a_block_reader_early_stops_its_thread():
    reader = BlockReader(lambda: b"x" * 1000, background=True, name="endless")
    assert reader.read(10) == b"x" * 10
    reader.close()  # the source never ends: the thread must be stopped, not waited out
    assert not [t for t in threading.enumerate() if t.name == "endless"]


@pytest.mark.parametrize("background", [True, False])
def test_gzip_reader_errors_name_the_file_with_or_without_thread(tmp_path, background, inflater):
    packed = gzip.compress(b"row\t1\n" * 20000)
    cut, bad = tmp_path / "cut.txt.gz", tmp_path / "bad.txt.gz"
    cut.write_bytes(packed[:-30])
    bad.write_bytes(packed[:-8] + bytes(4) + packed[-4:])  # a wrong CRC-32
    for path, message in ((cut, "cut.txt.gz: truncated gzip file"),
                          (bad, "bad.txt.gz: corrupt gzip data")):
        handle = CheckedGzip(open(path, "rb"), path, background=background)
        with handle, pytest.raises(InputFileError, match=message):
            while handle.read(4096):
                pass


@pytest.mark.parametrize("background", [True, False])
def test_gzip_members_and_zero_padding_read_as_gzip_does(tmp_path, background, inflater):
    rows = b"".join(b"row%d\t%d\n" % (i, i) for i in range(300_000))  # several blocks
    joined = gzip.compress(rows[:1000]) + gzip.compress(rows[1000:]) + bytes(700)
    path = tmp_path / "joined.txt.gz"
    path.write_bytes(joined)
    with CheckedGzip(open(path, "rb"), path, background=background) as handle:
        assert handle.read() == gzip.decompress(joined) == rows
    garbage = tmp_path / "garbage.txt.gz"
    garbage.write_bytes(gzip.compress(rows[:1000]) + b"not gzip")
    with CheckedGzip(open(garbage, "rb"), garbage, background=background) as handle:
        assert handle.read(1000) == rows[:1000]
        with pytest.raises(InputFileError, match="garbage.txt.gz: corrupt gzip data"):
            handle.read()
