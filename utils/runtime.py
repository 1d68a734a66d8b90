"""Process-level rules shared by every tool: the seed, cores, worker lifetime.

* :data:`SEED`: the seed of every random choice of the analysis (SPEC 5.5's
  fold shuffle, solvers that take a ``random_state``), so runs repeat exactly.
* :func:`available_cores`: the cores this process may run on (CPU affinity,
  not the machine's total), the one definition used for ``-j`` defaults and
  thread budgets.
* :func:`exit_when_parent_dies`: worker processes end when the process that
  started them is gone (killed with ``kill -9``, say) instead of computing on
  for nobody.
* :func:`in_utf8_mode`: a command restarts itself in Python's UTF-8 mode under a
  locale whose encoding is not UTF-8, so that file names with non-ASCII letters
  (``Sjögrens_Syndrome``) are the same on every machine.
* :func:`worker_pool` / :func:`spawn_pool` and :func:`stop_pool`: the worker
  processes of ``-j N``; they end with their parent. Ctrl-C is the parent's to
  handle: workers ignore SIGINT (no traceback per worker), and a parent leaving its pool on an
  exception (``KeyboardInterrupt`` included) stops the workers at once instead
  of waiting for their running tasks: a stopped worker unwinds its task (an
  atomic write removes its temporary file) and exits, without taking the task
  the executor had queued for it. Only a worker killed outright can leave a
  temporary file; the next atomic write in its folder removes it.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence, Tuple, TypeVar

SEED = 42
PARENT_POLL_SECONDS = 0.5
PARENT_GONE_GRACE_SECONDS = 5.0
#: The variable that turns Python's UTF-8 mode on (PEP 540).
UTF8_MODE_VARIABLE = "PYTHONUTF8"

logger = logging.getLogger(__name__)
Main = TypeVar("Main", bound=Callable[..., int])


def available_cores() -> int:
    """Cores this process may use (its CPU affinity where the OS tells, else all).

    >>> available_cores() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def exit_when_parent_dies(parent_pid: int, poll_seconds: float = PARENT_POLL_SECONDS,
                          grace_seconds: float = PARENT_GONE_GRACE_SECONDS
                          ) -> threading.Thread:
    """Watch ``parent_pid`` from a daemon thread; stop this process once it is gone.

    When the parent dies its children are re-parented (to init or a
    subreaper), so ``os.getppid()`` changes: that is checked every
    ``poll_seconds``. The process then sends itself SIGTERM: a pool worker
    (:func:`spawn_pool`) unwinds its task, so a file it was writing atomically
    leaves no temporary file, and exits. ``os._exit(1)`` follows after
    ``grace_seconds`` if it is still there (a long call in compiled code): the
    parent that would have received the results no longer exists.

    Returns
    -------
    threading.Thread
        The watching thread (a daemon; it never keeps the process alive).
    """
    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(poll_seconds)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(grace_seconds)
        os._exit(1)

    thread = threading.Thread(target=watch, name="parent-watch", daemon=True)
    thread.start()
    return thread


def needs_utf8_restart(environ: Optional[Mapping[str, str]] = None) -> bool:
    """True when file names are not UTF-8 in this process and a restart can change that.

    Python encodes file names with the locale's encoding unless its UTF-8 mode is
    on. The benchmark's folders are named after traits in UTF-8 (``Sjögrens_Syndrome``);
    under a Latin-1 or ASCII locale (``tr_TR.ISO-8859-9``; ``LC_ALL=C`` with
    ``PYTHONUTF8=0``) those names are read as other letters or cannot be written,
    and problems go missing. Never true once ``PYTHONUTF8=1`` is set (no restart loop).

    >>> needs_utf8_restart({UTF8_MODE_VARIABLE: "1"})
    False
    """
    environ = os.environ if environ is None else environ
    if environ.get(UTF8_MODE_VARIABLE) == "1" or os.name != "posix":
        return False
    return sys.getfilesystemencoding().lower().replace("-", "").replace("_", "") != "utf8"


def restart_in_utf8_mode(orig_argv: Sequence[str]) -> None:
    """Replace this process by the same command in UTF-8 mode (``PYTHONUTF8=1``).

    ``orig_argv`` is the interpreter's own command line (``sys.orig_argv``: options,
    then the script or ``-m`` module, then its arguments); the arguments keep their
    bytes. Children inherit the variable, so worker processes and sandbox kernels
    name files the same way. Does not return.
    """
    logger.info("file names are %s here: restarting in UTF-8 mode (%s=1)",
                sys.getfilesystemencoding(), UTF8_MODE_VARIABLE)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, [sys.executable, *orig_argv[1:]],
              {**os.environ, UTF8_MODE_VARIABLE: "1"})


def in_utf8_mode(main: Main) -> Main:
    """Decorate a command-line ``main``: run it in UTF-8 mode whatever the locale.

    Called from the command line (``argv`` None) in a process whose file names are
    not UTF-8 (:func:`needs_utf8_restart`), the process restarts itself with
    ``PYTHONUTF8=1`` (:func:`restart_in_utf8_mode`), so the results do not depend on
    the locale's encoding. A call with an explicit ``argv`` (tests, notebooks) never
    replaces the calling process.
    """
    @functools.wraps(main)
    def wrapper(argv: Optional[Sequence[str]] = None) -> int:
        if argv is None and needs_utf8_restart():
            restart_in_utf8_mode(sys.orig_argv)
        return main(argv)

    wrapper.restarts_in_utf8_mode = True  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


_SPAWN = multiprocessing.get_context("spawn")
_CAN_BLOCK = hasattr(signal, "pthread_sigmask")


class _QuietSpawnProcess(_SPAWN.Process):  # type: ignore[name-defined,misc]
    """A spawned process started with SIGINT blocked: a Ctrl-C while it starts (before
    :func:`_start_worker` ignores SIGINT) neither interrupts its start-up with a
    traceback nor is lost by the parent (blocked, it stays pending there)."""

    def start(self) -> None:
        if not _CAN_BLOCK:  # pragma: no cover - not POSIX
            super().start()
            return
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            super().start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class _QuietSpawnContext(type(_SPAWN)):  # type: ignore[misc]
    Process = _QuietSpawnProcess


class _Terminated(SystemExit):
    """Raised by SIGTERM in a pool worker: the running task unwinds, then the worker exits."""


def _unwind_on_terminate(signum: int, frame: Any) -> None:
    """SIGTERM in a worker: unwind (an atomic write in progress removes its temporary
    file) and exit."""
    raise _Terminated(128 + signum)


def _run_task(function: Callable[..., Any], args: Tuple[Any, ...],
              kwargs: Mapping[str, Any]) -> Any:
    """A pool worker's task. Stopped by SIGTERM, the task unwinds and the worker exits at
    once: the executor's own loop would record the exit as the task's result and go on
    with the task it had already queued for this worker (one of a stopped run)."""
    try:
        return function(*args, **kwargs)
    except _Terminated as stop:
        logging.shutdown()
        os._exit(stop.code)


class _WorkerPool(cf.ProcessPoolExecutor):
    """A process pool whose tasks run through :func:`_run_task`."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future:
        return super().submit(_run_task, fn, args, kwargs)


def _start_worker(parent_pid: int, initializer: Optional[Callable[..., None]],
                  initargs: Tuple[Any, ...]) -> None:
    """Start-up of a pool worker: SIGINT ignored (the parent handles Ctrl-C), exit with
    the parent, the caller's initializer, then SIGTERM unwinds (set last: a worker
    stopped while it starts has nothing to unwind and ends silently)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if _CAN_BLOCK:  # blocked since the start (_QuietSpawnProcess); a pending one is dropped
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    exit_when_parent_dies(parent_pid)
    if initializer is not None:
        initializer(*initargs)
    signal.signal(signal.SIGTERM, _unwind_on_terminate)


def spawn_pool(jobs: int, initializer: Optional[Callable[..., None]] = None,
               initargs: Tuple[Any, ...] = ()) -> cf.ProcessPoolExecutor:
    """A pool of ``jobs`` spawned worker processes that ignore SIGINT and end with their
    parent.

    A terminal's Ctrl-C reaches the whole process group; the workers leave it
    to the parent, which stops them with :func:`stop_pool`. A parent killed
    outright (``kill -9``) leaves no worker behind (:func:`exit_when_parent_dies`):
    an idle worker would otherwise wait on its task queue for ever.

    Parameters
    ----------
    jobs : int
        Worker processes.
    initializer : callable, optional
        Run in each worker after SIGINT is set to be ignored, with ``initargs``.
    initargs : tuple

    Returns
    -------
    concurrent.futures.ProcessPoolExecutor
    """
    return _WorkerPool(max_workers=jobs, mp_context=_QuietSpawnContext(),
                       initializer=_start_worker, initargs=(os.getpid(), initializer, initargs))


def stop_pool(pool: cf.ProcessPoolExecutor, wait: bool = True,
              join_seconds: float = 10.0) -> None:
    """Shut a pool down; ``wait`` False (an interrupted run) stops its workers at once.

    Tasks not started are cancelled either way. Without ``wait`` the running
    tasks are not waited for: their workers are terminated (``SIGTERM``: the task
    unwinds, so a file it was writing atomically leaves no temporary file, and the
    worker exits without starting a queued task), and killed if still there after
    ``join_seconds`` (a long call in compiled code);
    the process can exit promptly, the results were not wanted.

    Parameters
    ----------
    pool : concurrent.futures.ProcessPoolExecutor
    wait : bool
    join_seconds : float
        Seconds to wait for each terminated worker to be gone.
    """
    if wait:
        pool.shutdown(wait=True, cancel_futures=True)
        return
    # the executor keeps its processes in a private mapping (public only from Python 3.14,
    # terminate_workers); it is emptied by shutdown, so it is read first
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(OSError, ValueError):
            process.terminate()
    for process in processes:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            process.join(join_seconds)
            if process.is_alive():
                process.kill()
                process.join(join_seconds)


@contextlib.contextmanager
def worker_pool(jobs: int, initializer: Optional[Callable[..., None]] = None,
                initargs: Tuple[Any, ...] = ()) -> Iterator[cf.ProcessPoolExecutor]:
    """:func:`spawn_pool` as a context: left normally, it waits for its tasks; left by
    an exception (Ctrl-C's ``KeyboardInterrupt`` included), it stops the workers
    at once (:func:`stop_pool`)."""
    pool = spawn_pool(jobs, initializer, initargs)
    try:
        yield pool
    except BaseException:
        stop_pool(pool, wait=False)
        raise
    stop_pool(pool, wait=True)
