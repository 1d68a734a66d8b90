"""Atomic writes (utils.io.atomic): all or nothing, and no debris left in data trees.

A killed writer must leave nothing behind that the next write does not clear (SPEC 2
lists the files a tree holds).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal

import pandas as pd
import pytest

from utils.io import (atomic_to_csv, atomic_write, atomic_write_json, atomic_write_text,
                      remove_stale_temp_files)
from utils.io import atomic as atomic_module


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


# Spawned, not forked: the test process runs threads (pytest-xdist's, OpenBLAS's), and a
# forked child of a multi-threaded process may deadlock (Python >= 3.12 warns). The child
# reports through ``started`` once it is mid-write, so its start-up time does not matter.
SPAWN = multiprocessing.get_context("spawn")


def _write_and_hang(path: str, started, finish) -> None:
    """Start an atomic write, report, then wait (for a kill or ``finish``)."""
    with atomic_write(path) as handle:
        handle.write("from the child")
        handle.flush()
        started.set()
        finish.wait(60)


def _start_writer(path):
    started, finish = SPAWN.Event(), SPAWN.Event()
    child = SPAWN.Process(target=_write_and_hang, args=(str(path), started, finish))
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
    real_flock = atomic_module.fcntl.flock
    calls = []

    class CleanerWinsOnce:
        LOCK_EX, LOCK_NB = atomic_module.fcntl.LOCK_EX, atomic_module.fcntl.LOCK_NB

        @staticmethod
        def flock(fd, operation):
            if not calls:
                for name in temp_files(tmp_path):
                    os.unlink(tmp_path / name)
            calls.append(operation)
            return real_flock(fd, operation)

    monkeypatch.setattr(atomic_module, "fcntl", CleanerWinsOnce)
    atomic_write_text(tmp_path / "a.csv", "content")
    assert len(calls) == 2
    assert os.listdir(tmp_path) == ["a.csv"]
    assert (tmp_path / "a.csv").read_text() == "content"



def test_a_writer_stopped_while_creating_its_temp_file_leaves_none(tmp_path, monkeypatch):
    """A pool worker's SIGTERM unwinds as an exception wherever it lands; one raised
    between creating the temporary file and handing it to the caller left the file."""
    (tmp_path / "a.csv").write_text("previous")

    class StoppedWhileLocking:
        LOCK_EX, LOCK_NB = atomic_module.fcntl.LOCK_EX, atomic_module.fcntl.LOCK_NB

        @staticmethod
        def flock(fd, operation):
            raise SystemExit(143)

    monkeypatch.setattr(atomic_module, "fcntl", StoppedWhileLocking)
    with pytest.raises(SystemExit):
        atomic_write_text(tmp_path / "a.csv", "content")
    assert os.listdir(tmp_path) == ["a.csv"]
    assert (tmp_path / "a.csv").read_text() == "previous"


# --- an unwritable target: OutputFileError naming the path, the old version kept ---

def test_a_folder_as_target_is_refused_naming_it(tmp_path):
    from utils.errors import OutputFileError
    (tmp_path / "report.json").mkdir()
    with pytest.raises(OutputFileError, match=r"report\.json: is a folder"):
        atomic_write_text(tmp_path / "report.json", "x")
    assert os.listdir(tmp_path) == ["report.json"]  # no temporary file beside it


def test_a_file_in_place_of_the_folder_is_named(tmp_path):
    from utils.errors import OutputFileError
    (tmp_path / "out").write_text("a file, not a folder")
    with pytest.raises(OutputFileError) as caught:
        atomic_write_json(tmp_path / "out" / "Trait" / "r.json", {})
    assert str(caught.value).startswith(str(tmp_path / "out" / "Trait"))
    assert f"{tmp_path / 'out'} is a file, not a folder" in str(caught.value)
    assert (tmp_path / "out").read_text() == "a file, not a folder"


@pytest.mark.parametrize("failing", ["open", "replace"])
def test_a_read_only_disk_is_named_and_keeps_the_old_version(tmp_path, monkeypatch, failing):
    # root ignores permission bits, so the read-only disk is simulated (errno EROFS)
    import errno
    from utils.errors import OutputFileError
    target = tmp_path / "out.txt"
    target.write_text("old")

    def refuse(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))
    if failing == "open":
        real_open = os.open
        monkeypatch.setattr(atomic_module.os, "open",
                            lambda name, *a, **k: refuse() if str(name).endswith(".tmp")
                            else real_open(name, *a, **k))
    else:
        monkeypatch.setattr(atomic_module.os, "replace", refuse)
    with pytest.raises(OutputFileError, match=r"out\.txt: cannot write this file "
                                              r"\(Read-only file system"):
        atomic_write_text(target, "new")
    monkeypatch.undo()
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_make_folder_names_the_blocking_file(tmp_path):
    from utils.errors import OutputFileError
    from utils.io import make_folder
    (tmp_path / "a").write_text("")
    with pytest.raises(OutputFileError, match="is a file, not a folder"):
        make_folder(tmp_path / "a" / "b" / "c")
    assert make_folder(tmp_path / "x" / "y") == tmp_path / "x" / "y"
    assert (tmp_path / "x" / "y").is_dir()


@pytest.fixture
def umask():
    """Set the process umask for one test and restore it afterwards."""
    previous = os.umask(0o022)
    yield os.umask
    os.umask(previous)


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_written_files_have_the_mode_plain_open_gives(tmp_path, umask, mask, expected):
    """The permission bits follow the user's umask (0o666 & ~umask), as ``open`` would:
    a user with umask 077 keeps the results private, one with 002 shares them with the
    group; not a fixed 0o644 whatever the umask."""
    umask(mask)
    atomic_write_text(tmp_path / "a.txt", "x\n")
    atomic_to_csv(pd.DataFrame({"v": [1]}), tmp_path / "b.csv")
    with open(tmp_path / "plain.txt", "w", encoding="utf-8") as handle:
        handle.write("x\n")
    for name in ("a.txt", "b.csv", "plain.txt"):
        assert (tmp_path / name).stat().st_mode & 0o777 == expected, name
