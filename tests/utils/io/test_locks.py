"""Inter-process locks (utils.io.locks): serialised cycles, lock files outside the trees."""

from __future__ import annotations

import multiprocessing
import os
import signal

import pytest

from utils.io import atomic_write, lock_file, locked
from utils.paths import ENV_LOCK_DIR


# Spawned, not forked (see tests/utils/io/test_atomic.py); a spawned child inherits the
# environment, so GENOTEX_LOCK_DIR set by ``lock_folder`` holds there too.
SPAWN = multiprocessing.get_context("spawn")


def _increment(path: str, times: int) -> None:
    for _ in range(times):
        with locked(path):
            value = int(open(path).read()) if os.path.exists(path) else 0
            with atomic_write(path) as handle:
                handle.write(str(value + 1))


def test_lock_serialises_read_modify_write_across_processes(tmp_path):
    counter = str(tmp_path / "counter.txt")
    workers = [SPAWN.Process(target=_increment, args=(counter, 25)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert int(open(counter).read()) == 100


@pytest.fixture
def lock_folder(tmp_path, monkeypatch):
    folder = tmp_path / "locks"
    monkeypatch.setenv(ENV_LOCK_DIR, str(folder))
    return folder


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
    started = SPAWN.Event()
    holder = SPAWN.Process(target=_hold_lock, args=(str(path), started))
    holder.start()
    assert started.wait(60)
    with pytest.raises(TimeoutError):
        with locked(path, timeout=0.2):
            pass
    os.kill(holder.pid, signal.SIGKILL)
    holder.join(60)
    with locked(path, timeout=60):
        pass
