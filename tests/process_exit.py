"""Waiting for processes that are not this process's children to end.

A process whose parent was killed is re-parented to init (or a subreaper), which must
reap it once it exits. Until then it is a zombie: it has exited, holds no file, no
pipe, no CPU, but its pid still exists, so ``psutil.wait_procs`` (which polls whether
the pid exists) reports it alive. In a container whose first process never reaps
orphans it stays a zombie for ever, and a test asking "did the worker exit?" through
``wait_procs`` failed there after its whole timeout. :func:`still_running` counts a
zombie as exited.
"""

from __future__ import annotations

import time
from typing import List, Sequence

import psutil

POLL_SECONDS = 0.1


def _running(process: psutil.Process) -> bool:
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def still_running(processes: Sequence[psutil.Process], timeout: float) -> List[psutil.Process]:
    """Wait until every process has exited (gone, or a zombie nobody reaped yet), at most
    ``timeout`` seconds (a hang guard); returns those still running then."""
    deadline = time.monotonic() + timeout
    running = [p for p in processes if _running(p)]
    while running and time.monotonic() < deadline:
        psutil.wait_procs(running, timeout=POLL_SECONDS)  # reaps this process's children
        running = [p for p in running if _running(p)]
    return running
