"""Process-level rules shared by every tool: the seed, cores, worker lifetime.

* :data:`SEED`: the seed of every random choice of the analysis (SPEC 5.5's
  fold shuffle, solvers that take a ``random_state``), so runs repeat exactly.
* :func:`available_cores`: the cores this process may run on (CPU affinity,
  not the machine's total), the one definition used for ``-j`` defaults and
  thread budgets.
* :func:`exit_when_parent_dies`: worker processes end when the process that
  started them is gone (killed with ``kill -9``, say) instead of computing on
  for nobody.
"""

from __future__ import annotations

import os
import threading
import time

SEED = 42
PARENT_POLL_SECONDS = 0.5


def available_cores() -> int:
    """Cores this process may use (its CPU affinity where the OS tells, else all).

    >>> available_cores() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def exit_when_parent_dies(parent_pid: int, poll_seconds: float = PARENT_POLL_SECONDS
                          ) -> threading.Thread:
    """Watch ``parent_pid`` from a daemon thread; ``os._exit(1)`` once it is gone.

    When the parent dies its children are re-parented (to init or a
    subreaper), so ``os.getppid()`` changes: that is checked every
    ``poll_seconds``. ``os._exit`` skips clean-up on purpose: the parent that
    would have received the results no longer exists, and workers never write
    output files themselves.

    Returns
    -------
    threading.Thread
        The watching thread (a daemon; it never keeps the process alive).
    """
    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:
                os._exit(1)
            time.sleep(poll_seconds)

    thread = threading.Thread(target=watch, name="parent-watch", daemon=True)
    thread.start()
    return thread
