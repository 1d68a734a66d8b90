"""Fail a block of test code that runs too long, instead of letting the suite hang.

Not a timing assertion: the limit is generous (seconds for work that takes
milliseconds) and only turns a hang (a reader blocked on a FIFO, a quadratic
loop over a huge line) into a test failure with a message.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Iterator


class Hang(AssertionError):
    """The guarded block ran past its limit."""


@contextlib.contextmanager
def fail_after(seconds: float, what: str = "the block") -> Iterator[None]:
    """Raise :class:`Hang` inside the block once ``seconds`` of wall time have passed.

    Uses ``SIGALRM`` (POSIX, main thread); elsewhere the block runs unguarded.
    """
    usable = hasattr(signal, "setitimer") and threading.current_thread() is \
        threading.main_thread()
    if not usable:
        yield
        return

    def expire(signum, frame):
        raise Hang(f"{what} still running after {seconds:g} s: a hang")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
