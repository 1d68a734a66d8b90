"""Worker pools of ``-j N`` (utils.runtime): Ctrl-C is the parent's, an interrupted
parent does not wait for its workers' running tasks."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from utils.runtime import spawn_pool, stop_pool, worker_pool

# generous: a hang guard, not a timing assertion (the pools below stop in well under a second)
GUARD_SECONDS = 120


def _pid() -> int:
    return os.getpid()


def _sleep_long() -> None:
    threading.Event().wait(3600)


def _raise_interrupt_in_worker() -> str:
    os.kill(os.getpid(), signal.SIGINT)   # ignored: the worker goes on
    return "survived"


def test_pool_workers_ignore_sigint():
    with worker_pool(1) as pool:
        assert pool.submit(_raise_interrupt_in_worker).result(timeout=GUARD_SECONDS) == \
            "survived"


def test_pool_runs_the_callers_initializer_too():
    seen = []
    with worker_pool(1, seen.append, ("not in this process",)) as pool:
        worker = pool.submit(_pid).result(timeout=GUARD_SECONDS)
    assert worker != os.getpid() and seen == []   # the initializer ran over there


def test_leaving_the_pool_by_an_exception_stops_running_workers():
    """Before: leaving a ProcessPoolExecutor waited for its running tasks (an hour here)."""
    done = threading.Event()
    workers = []

    def interrupted_run():
        try:
            with worker_pool(2) as pool:
                running = [pool.submit(_sleep_long) for _ in range(2)]
                # the executor's own record of its processes (private; read-only here)
                while len(pool._processes or {}) < 2:
                    threading.Event().wait(0.05)
                workers.extend(process.pid for process in pool._processes.values())
                assert not any(future.done() for future in running)
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            done.set()

    thread = threading.Thread(target=interrupted_run, daemon=True)
    thread.start()
    thread.join(GUARD_SECONDS)
    assert done.is_set(), "the pool waited for its running tasks after an interrupt"
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_stop_pool_with_wait_finishes_the_tasks():
    pool = spawn_pool(1)
    future = pool.submit(_pid)
    stop_pool(pool, wait=True)
    assert future.result() != os.getpid()


def _write_slowly(path: str) -> None:
    from utils.io import atomic_write

    with atomic_write(path) as handle:
        handle.write("half")
        handle.flush()
        threading.Event().wait(3600)
        handle.write(" and the rest")


def test_a_stopped_worker_leaves_no_temporary_file(tmp_path):
    """The worker stopped in the middle of an atomic write unwinds it (before: SIGTERM's
    default action left ``.out.csv.<pid>.<hex>.tmp`` behind)."""
    target = tmp_path / "out.csv"
    with pytest.raises(KeyboardInterrupt):
        with worker_pool(1) as pool:
            pool.submit(_write_slowly, str(target))
            for _ in range(GUARD_SECONDS * 20):   # until the temporary file exists
                if any(tmp_path.iterdir()):
                    break
                threading.Event().wait(0.05)
            assert [p.name for p in tmp_path.iterdir()][0].startswith(".out.csv.")
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def _report_sigint_blocked(queue) -> None:
    queue.put(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set()))


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_workers_start_with_sigint_blocked():
    """A Ctrl-C while a worker starts (importing, before its initializer ignores SIGINT)
    gave a KeyboardInterrupt traceback from the worker: it is now blocked until then."""
    from utils.runtime import _QuietSpawnContext

    context = _QuietSpawnContext()
    queue = context.Queue()
    process = context.Process(target=_report_sigint_blocked, args=(queue,))
    process.start()
    try:
        assert queue.get(timeout=GUARD_SECONDS) is True
    finally:
        process.join(GUARD_SECONDS)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, set())  # parent's mask


def _touch(path: str) -> None:
    with open(path, "w") as handle:
        handle.write("ran")


def test_a_stopped_worker_does_not_take_the_next_queued_task(tmp_path):
    """The executor hands a worker one task more than it runs; SIGTERM's unwinding ended
    the running task only, and the worker went on with the queued one (a task of an
    interrupted run, killed mid-write after ``join_seconds``: CI found its temporary
    file). A stopped worker now exits once its task has unwound."""
    started = tmp_path / "started"
    with pytest.raises(KeyboardInterrupt):
        with worker_pool(1) as pool:
            pool.submit(_write_slowly, str(started))
            queued = [pool.submit(_touch, str(tmp_path / f"queued{i}")) for i in range(3)]
            for _ in range(GUARD_SECONDS * 20):
                if any(tmp_path.iterdir()):
                    break
                threading.Event().wait(0.05)
            workers = [process.pid for process in pool._processes.values()]
            raise KeyboardInterrupt
    assert not any(future.done() and not future.cancelled() and future.exception() is None
                   for future in queued)
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "a queued task ran after the stop"
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


PARENT_KILLED_MID_WRITE = """
import os, signal, sys, threading
from pathlib import Path
from tests.utils.test_runtime_pools import _write_slowly
from utils.runtime import spawn_pool
folder = Path(sys.argv[1])
pool = spawn_pool(1)
pool.submit(_write_slowly, str(folder / "out.csv"))
while not any(folder.iterdir()):
    threading.Event().wait(0.05)
print(*[process.pid for process in pool._processes.values()], flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_worker_whose_parent_is_killed_unwinds_its_write(tmp_path):
    """Before: the orphaned worker left with ``os._exit`` mid-write and its temporary
    file stayed until the next write in that folder."""
    import subprocess
    import sys

    from tests.conftest import REPO_ROOT

    done = subprocess.run([sys.executable, "-c", PARENT_KILLED_MID_WRITE, str(tmp_path)],
                          cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=GUARD_SECONDS)
    assert done.returncode == -signal.SIGKILL, done.stderr
    psutil = pytest.importorskip("psutil")
    try:
        worker = psutil.Process(int(done.stdout.split()[0]))
    except psutil.NoSuchProcess:
        worker = None
    if worker is not None:   # a guard: the worker sees its parent gone within a second
        from tests.process_exit import still_running

        alive = still_running([worker], timeout=GUARD_SECONDS)
        for process in alive:
            process.kill()
        assert not alive, "the worker outlived its parent"
    assert list(tmp_path.iterdir()) == []
