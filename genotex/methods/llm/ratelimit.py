"""A rate limiter shared by every request of a run: requests and tokens per minute.

Concurrent tasks (``run_agent.py -j N``) share one :class:`RateLimiter` through
their :class:`~genotex.methods.llm.client.ChatClient`:

* ``rpm``: at most that many requests start in any 60-second window;
* ``tpm``: at most that many tokens in any 60-second window. A request is
  counted at its estimate when it starts (characters of its messages / 4, plus
  the answer budget ``max_tokens`` when set) and corrected to the server's
  ``usage`` once it is answered;
* the server's word: a 429 answer (after ``Retry-After`` seconds, or the
  back-off the client chose) pauses *every* worker, not only the one that got it
  (:meth:`RateLimiter.pause`; the thread that got it waits on its own, as its
  retry policy says).

A request larger than the whole ``tpm`` budget is let through alone once the
window is empty (it could never fit otherwise). Limits of 0 mean none.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from dataclasses import dataclass
from typing import Callable, Deque, Optional, Tuple

logger = logging.getLogger(__name__)

WINDOW_SECONDS = 60.0
#: Characters per token of the start estimate (English prose; code is denser).
CHARS_PER_TOKEN = 4


def estimate_tokens(characters: int, max_tokens: Optional[int] = None) -> int:
    """Tokens a request is counted at before its answer: ``characters / 4`` plus ``max_tokens``."""
    return characters // CHARS_PER_TOKEN + (max_tokens or 0)


@dataclass(frozen=True)
class RateLimits:
    """Requests and tokens per minute (0: no limit)."""

    rpm: float = 0.0
    tpm: float = 0.0

    @property
    def active(self) -> bool:
        """Whether any limit is set."""
        return self.rpm > 0 or self.tpm > 0

    def share(self, parts: int) -> "RateLimits":
        """The limits one of ``parts`` independent limiters may use (a cluster's workers)."""
        parts = max(1, parts)
        return RateLimits(self.rpm / parts, self.tpm / parts)


class Ticket:
    """One admitted request; :meth:`settle` replaces its estimate by the tokens it used."""

    def __init__(self, limiter: "RateLimiter", entry: list) -> None:
        self._limiter = limiter
        self._entry = entry

    @property
    def start(self) -> float:
        """When the request was admitted (the limiter's clock)."""
        return self._entry[0]

    def settle(self, tokens: int) -> None:
        """Count the request at ``tokens`` (the answer's usage) from now on."""
        self._limiter._settle(self._entry, tokens)


class RateLimiter:
    """Blocks requests until the run's limits allow them (thread-safe).

    Parameters
    ----------
    limits : RateLimits
    clock, sleep : callable, optional
        Injected in tests.
    """

    def __init__(self, limits: RateLimits = RateLimits(),
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.limits = limits
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        #: ``[start time, tokens]`` of the requests of the last minute.
        self._window: Deque[list] = collections.deque()
        self._paused_until = 0.0
        self._paused_by: Optional[int] = None
        self.waited = 0.0

    def __reduce__(self) -> Tuple[type, Tuple[RateLimits]]:
        # a copy in another process limits that process only (cluster workers: see share())
        return RateLimiter, (self.limits,)

    def _expire(self, now: float) -> None:
        while self._window and self._window[0][0] <= now - WINDOW_SECONDS:
            self._window.popleft()

    def _pause_left(self, now: float) -> float:
        if self._paused_by == threading.get_ident():
            return 0.0      # the thread that was told to wait has waited already
        return max(0.0, self._paused_until - now)

    def _delay(self, now: float, tokens: int) -> float:
        """Seconds to wait before a request of ``tokens`` may start (0: now)."""
        delay = self._pause_left(now)
        limits = self.limits
        capacity = max(1, int(limits.rpm))
        if limits.rpm > 0 and len(self._window) >= capacity:
            # the oldest requests must leave the window first
            index = len(self._window) - capacity
            delay = max(delay, self._window[index][0] + WINDOW_SECONDS - now)
        if limits.tpm > 0 and self._window:
            used = sum(entry[1] for entry in self._window)
            excess = used + tokens - limits.tpm
            for start, spent in self._window:
                if excess <= 0:
                    break
                delay = max(delay, start + WINDOW_SECONDS - now)
                excess -= spent
        return delay

    def acquire(self, tokens: int = 0) -> Ticket:
        """Wait until a request counted at ``tokens`` may start; returns its ticket."""
        while True:
            with self._lock:
                now = self._clock()
                self._expire(now)
                delay = self._delay(now, tokens) if self.limits.active \
                    else self._pause_left(now)
                if delay <= 0:
                    entry = [now, tokens]
                    self._window.append(entry)
                    return Ticket(self, entry)
            self.waited += delay
            self._sleep(min(delay, WINDOW_SECONDS))

    def _settle(self, entry: list, tokens: int) -> None:
        with self._lock:
            entry[1] = tokens

    def pause(self, seconds: float) -> None:
        """No request starts for ``seconds`` (the server said 429): all workers wait."""
        if seconds <= 0:
            return
        with self._lock:
            until = self._clock() + seconds
            if until > self._paused_until:
                self._paused_until = until
                self._paused_by = threading.get_ident()
                logger.info("rate limited by the server: every request waits %.1f s", seconds)
