"""Readers sniff gzip, decode with latin-1 fallback; writers are atomic; locks serialise."""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os
import signal
import threading

import pandas as pd
import pytest

from utils.errors import InputFileError
import utils.io
from utils.io import (atomic_to_csv, atomic_write, atomic_write_json, atomic_write_text,
                      decode_text, lock_file, locked, open_text, read_json, read_text,
                      remove_stale_temp_files)
from utils.paths import ENV_LOCK_DIR


@pytest.fixture(params=["isal", "zlib"])
def inflater(request, monkeypatch):
    """Run a gzip test with ISA-L's inflater and with zlib's (the fallback)."""
    import zlib

    if request.param == "zlib":
        monkeypatch.setattr(utils.io, "inflate_module", zlib)
        monkeypatch.setattr(utils.io, "INFLATE_ERRORS", (zlib.error,))
    else:
        pytest.importorskip("isal", reason="isal (requirements.txt) is not installed")
    return request.param


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


def test_atomic_write_failure_keeps_previous_version(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_write(target) as handle:
            handle.write("half of the new content")
            raise RuntimeError("crash mid-write")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.txt"]  # no temp file left behind


def test_atomic_json_and_csv(tmp_path):
    atomic_write_json(tmp_path / "d" / "x.json", {"b": 1, "a": [1.5]})
    assert json.loads((tmp_path / "d" / "x.json").read_text()) == {"b": 1, "a": [1.5]}
    with pytest.raises(ValueError):  # NaN is not valid JSON and is refused
        atomic_write_json(tmp_path / "nan.json", {"x": float("nan")})
    assert not (tmp_path / "nan.json").exists()
    df = pd.DataFrame({"g": [1.0, 2.0]}, index=["s1", "s2"])
    atomic_to_csv(df, tmp_path / "t.csv")
    assert pd.read_csv(tmp_path / "t.csv", index_col=0).equals(df)


def _increment(path: str, times: int) -> None:
    for _ in range(times):
        with locked(path):
            value = int(open(path).read()) if os.path.exists(path) else 0
            with atomic_write(path) as handle:
                handle.write(str(value + 1))


def test_lock_serialises_read_modify_write_across_processes(tmp_path):
    counter = str(tmp_path / "counter.txt")
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_increment, args=(counter, 25)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert int(open(counter).read()) == 100


# --------------------------------------------------------------------------- no debris in trees
# A killed writer must leave nothing behind that the next write does not clear, and the
# lock of a read-modify-write cycle never lands in the data folder (SPEC 2 lists the files
# a tree holds).

FORK = multiprocessing.get_context("fork")


@pytest.fixture
def lock_folder(tmp_path, monkeypatch):
    folder = tmp_path / "locks"
    monkeypatch.setenv(ENV_LOCK_DIR, str(folder))
    return folder


def _write_and_hang(path: str, started, finish) -> None:
    """Start an atomic write, report, then wait (for a kill or ``finish``)."""
    with atomic_write(path) as handle:
        handle.write("from the child")
        handle.flush()
        started.set()
        finish.wait(60)


def _start_writer(path):
    started, finish = FORK.Event(), FORK.Event()
    child = FORK.Process(target=_write_and_hang, args=(str(path), started, finish))
    child.start()
    assert started.wait(60)
    return child, finish


def temp_files(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_temp_file_of_a_killed_writer_is_removed_by_the_next_write(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    child, _ = _start_writer(tree / "a.csv")
    assert len(temp_files(tree)) == 1  # the child's, while it writes
    os.kill(child.pid, signal.SIGKILL)
    child.join(60)
    assert child.exitcode == -signal.SIGKILL
    assert len(temp_files(tree)) == 1  # left behind by the kill
    atomic_write_text(tree / "b.csv", "next write")  # any atomic write in the folder
    assert sorted(os.listdir(tree)) == ["b.csv"]


def test_temp_file_of_a_live_writer_is_kept(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    child, finish = _start_writer(tree / "a.csv")
    atomic_write_text(tree / "b.csv", "meanwhile")
    assert remove_stale_temp_files(tree) == 0
    assert len(temp_files(tree)) == 1
    finish.set()
    child.join(60)
    assert child.exitcode == 0
    assert (tree / "a.csv").read_text() == "from the child"
    assert sorted(os.listdir(tree)) == ["a.csv", "b.csv"]


def test_foreign_files_are_never_removed(tmp_path):
    names = [".notes.txt.tmp", ".a.csv.12.abc.tmp", "x.tmp", ".a.csv.12.0123456789abcdef.tmp.bak"]
    for name in names:
        (tmp_path / name).write_text("mine")
    assert remove_stale_temp_files(tmp_path) == 0
    assert sorted(os.listdir(tmp_path)) == sorted(names)


def test_writer_retries_when_a_cleaner_took_its_fresh_temp_file(tmp_path, monkeypatch):
    """The race a cleaner can win: between creating its temp file and locking it, a
    writer's file looks stale. The writer then sees it unlinked and starts over."""
    real_flock = utils.io.fcntl.flock
    calls = []

    class CleanerWinsOnce:
        LOCK_EX, LOCK_NB = utils.io.fcntl.LOCK_EX, utils.io.fcntl.LOCK_NB

        @staticmethod
        def flock(fd, operation):
            if not calls:
                for name in temp_files(tmp_path):
                    os.unlink(tmp_path / name)
            calls.append(operation)
            return real_flock(fd, operation)

    monkeypatch.setattr(utils.io, "fcntl", CleanerWinsOnce)
    atomic_write_text(tmp_path / "a.csv", "content")
    assert len(calls) == 2
    assert os.listdir(tmp_path) == ["a.csv"]
    assert (tmp_path / "a.csv").read_text() == "content"


def test_lock_file_lives_outside_the_folder(tmp_path, lock_folder):
    tree = tmp_path / "tree" / "Asthma"
    with locked(tree / "cohort_info.json"):
        assert lock_file(tree / "cohort_info.json").exists()
    assert os.listdir(tree) == []
    (lock,) = lock_folder.iterdir()
    assert lock.name.startswith("cohort_info.json-") and lock.suffix == ".lock"
    assert lock_folder.stat().st_mode & 0o777 == 0o700


def test_every_spelling_of_a_folder_shares_one_lock(tmp_path, lock_folder):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tmp_path / "link").symlink_to(tree)
    spellings = [tree / "x.json", tmp_path / "link" / "x.json",
                 tmp_path / "tree" / ".." / "tree" / "x.json"]
    assert len({lock_file(path) for path in spellings}) == 1
    assert lock_file(tree / "x.json") != lock_file(tree / "y.json")


def test_lock_folder_of_another_user_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_LOCK_DIR, str(tmp_path / "locks"))
    (tmp_path / "locks").mkdir()
    monkeypatch.setattr(os, "getuid", lambda: os.stat(tmp_path / "locks").st_uid + 1)
    with pytest.raises(PermissionError, match="GENOTEX_LOCK_DIR"):
        with locked(tmp_path / "x.json"):
            pass


def _hold_lock(path: str, started) -> None:
    with locked(path):
        started.set()
        signal.pause()


def test_a_killed_lock_holder_does_not_block_the_next_writer(tmp_path, lock_folder):
    path = tmp_path / "cohort_info.json"
    started = FORK.Event()
    holder = FORK.Process(target=_hold_lock, args=(str(path), started))
    holder.start()
    assert started.wait(60)
    with pytest.raises(TimeoutError):
        with locked(path, timeout=0.2):
            pass
    os.kill(holder.pid, signal.SIGKILL)
    holder.join(60)
    with locked(path, timeout=60):
        pass


# ---------------------------------------------------------------------------
# Untrusted inputs: file kinds, size caps, formats (issue 14)
# ---------------------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")
@pytest.mark.parametrize("reader", [utils.io.open_binary, read_text, read_json])
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


def test_a_gzip_bomb_stops_at_the_decompressed_cap(tmp_path, inflater):
    bomb = tmp_path / "bomb.txt.gz"
    bomb.write_bytes(gzip.compress(b"0\t" * 500_000))  # 1 MB of text in ~1 kB
    with utils.io.open_binary(bomb, max_bytes=100_000) as handle:
        with pytest.raises(InputFileError, match="bomb.txt.gz: more than 100000 bytes once "
                                                 "decompressed.*offset 100000"):
            while handle.read(4096):
                pass
    with pytest.raises(InputFileError, match="more than 100000 bytes"):
        utils.io.open_binary(bomb, max_bytes=100_000).read()


def test_a_plain_file_over_the_cap_is_refused_at_once(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 1001)
    with pytest.raises(InputFileError, match="big.txt: file of 1001 bytes, more than the "
                                             "limit of 1000"):
        utils.io.open_binary(path, max_bytes=1000)


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
# Block readers (read ahead in a thread) and the gzip reader built on them
# ---------------------------------------------------------------------------
def _blocks(*pieces):
    source = iter(pieces + (b"",))
    return lambda: next(source)


@pytest.mark.parametrize("background", [True, False])
def test_block_reader_hands_out_the_bytes_in_order(background):
    reader = utils.io.BlockReader(_blocks(b"ab\ncd", b"e", b"\nfgh\n", b"ij"), background)
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

    with utils.io.BlockReader(read_block, background) as reader:
        assert reader.read(3) == b"abc"
        with pytest.raises(ValueError, match="source broke"):
            reader.read(1)


def test_closing_a_block_reader_early_stops_its_thread():
    reader = utils.io.BlockReader(lambda: b"x" * 1000, background=True, name="endless")
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
        handle = utils.io._CheckedGzip(open(path, "rb"), path, background=background)
        with handle, pytest.raises(InputFileError, match=message):
            while handle.read(4096):
                pass


@pytest.mark.parametrize("background", [True, False])
def test_gzip_members_and_zero_padding_read_as_gzip_does(tmp_path, background, inflater):
    rows = b"".join(b"row%d\t%d\n" % (i, i) for i in range(300_000))  # several blocks
    joined = gzip.compress(rows[:1000]) + gzip.compress(rows[1000:]) + bytes(700)
    path = tmp_path / "joined.txt.gz"
    path.write_bytes(joined)
    with utils.io._CheckedGzip(open(path, "rb"), path, background=background) as handle:
        assert handle.read() == gzip.decompress(joined) == rows
    garbage = tmp_path / "garbage.txt.gz"
    garbage.write_bytes(gzip.compress(rows[:1000]) + b"not gzip")
    with utils.io._CheckedGzip(open(garbage, "rb"), garbage, background=background) as handle:
        assert handle.read(1000) == rows[:1000]
        with pytest.raises(InputFileError, match="garbage.txt.gz: corrupt gzip data"):
            handle.read()
