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
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
import time
from typing import Callable, Mapping, Optional, Sequence, TypeVar

SEED = 42
PARENT_POLL_SECONDS = 0.5
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
