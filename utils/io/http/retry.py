"""How often and how patiently to retry: back-off policy, deadlines, ``Retry-After``, rate limit.

:func:`retry_call` runs one action until it succeeds, fails for good, the
attempts of the :class:`RetryPolicy` run out, or its :class:`Deadline` passes.
Three deadlines bound the time spent (see ``docs/download.md``):

* **request**: one attempt, headers and body (``RetryPolicy.request_deadline``);
* **transfer**: one file or small request, all attempts and back-off waits
  included (``RetryPolicy.transfer_deadline``);
* **run**: a whole command (``--run-deadline``), given to the
  HTTP client (:class:`~download.fetch.client.HttpClient`); when it passes,
  :class:`RunDeadlineExceeded` stops the run.

The clock, the sleep function and the random generator are injectable, so tests
never wait.
"""

from __future__ import annotations

import email.utils
import logging
import random
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Optional, TypeVar

from utils.io.http.errors import (DeadlineExceeded, DownloadError, RunDeadlineExceeded,
                                  TransientFailure)

logger = logging.getLogger(__name__)

Sleep = Callable[[float], None]
Clock = Callable[[], float]
Result = TypeVar("Result")


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry.

    Attributes
    ----------
    max_attempts : int
        Attempts per request or file, the first included.
    backoff_base : float
        Seconds; the ceiling of attempt ``k`` is ``backoff_base * 2**(k-1)``.
    backoff_max : float
        Upper bound of one back-off delay (seconds).
    max_retry_after : float
        Upper bound honoured for a server's ``Retry-After`` (seconds).
    timeout : float
        Socket timeout of one request (seconds): the longest wait for any
        single piece of data.
    request_deadline : float or None
        Seconds one attempt (headers and body) may take; None: no limit.
    transfer_deadline : float or None
        Seconds one file or small request may take, all attempts and back-off
        waits included; None: no limit.
    min_speed : float
        Bytes per second a body must average over each ``speed_window``; a
        slower transfer (a server trickling bytes) is abandoned and retried.
        0 disables the check.
    speed_window : float
        Seconds over which ``min_speed`` is averaged.
    max_body_bytes : int
        Largest file accepted when neither the server nor the caller gives a
        size; a larger announced size is refused before any byte is written.
    max_response_bytes : int
        Largest small response (E-utilities JSON, a folder listing).
    """

    max_attempts: int = 6
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    max_retry_after: float = 300.0
    timeout: float = 60.0
    request_deadline: Optional[float] = 1800.0
    transfer_deadline: Optional[float] = 7200.0
    min_speed: float = 1024.0
    speed_window: float = 60.0
    max_body_bytes: int = 4 << 30
    max_response_bytes: int = 64 << 20

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Delay before attempt ``attempt + 1`` ("equal jitter": half fixed, half random).

        Examples
        --------
        >>> policy = RetryPolicy(backoff_base=1.0)
        >>> 2.0 <= policy.backoff(3, random.Random(0)) <= 4.0  # ceiling 1 * 2**2
        True
        """
        ceiling = min(self.backoff_max, self.backoff_base * 2.0 ** max(attempt - 1, 0))
        return ceiling / 2.0 + rng.uniform(0.0, ceiling / 2.0)

    def delay(self, attempt: int, retry_after: Optional[float], rng: random.Random) -> float:
        """The wait after failed attempt ``attempt``: back-off, or longer if the server asks.

        ``retry_after`` is the server's ``Retry-After`` in seconds
        (:func:`parse_retry_after`), honoured up to ``max_retry_after``.

        Examples
        --------
        >>> policy = RetryPolicy(backoff_base=1.0, max_retry_after=30.0)
        >>> policy.delay(1, 7.0, random.Random(0)), policy.delay(1, 3600.0, random.Random(0))
        (7.0, 30.0)
        """
        delay = self.backoff(attempt, rng)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.max_retry_after))
        return delay


@dataclass(frozen=True)
class Deadline:
    """A point in time after which work stops, and which limit it is.

    Attributes
    ----------
    at : float or None
        Value of ``clock()`` at the deadline; None: never.
    kind : str
        ``"request"``, ``"transfer"`` or ``"run"``, named in errors.
    seconds : float or None
        The configured length, named in errors.
    clock : callable
        Monotonic clock (injectable).

    Examples
    --------
    >>> now = [100.0]
    >>> run = Deadline.after(60.0, "run", clock=lambda: now[0])
    >>> attempt = run.earliest(Deadline.after(10.0, "request", clock=lambda: now[0]))
    >>> attempt.kind, attempt.remaining()
    ('request', 10.0)
    >>> now[0] = 200.0
    >>> run.expired()
    True
    """

    at: Optional[float] = None
    kind: str = "run"
    seconds: Optional[float] = None
    clock: Clock = time.monotonic

    @classmethod
    def after(cls, seconds: Optional[float], kind: str,
              clock: Clock = time.monotonic) -> "Deadline":
        """The deadline ``seconds`` from now (never when ``seconds`` is None)."""
        at = None if seconds is None else clock() + seconds
        return cls(at, kind, seconds, clock)

    def remaining(self) -> float:
        """Seconds left (``inf`` when there is no deadline; negative once passed)."""
        return float("inf") if self.at is None else self.at - self.clock()

    def expired(self) -> bool:
        """True once the deadline has passed."""
        return self.remaining() <= 0

    def describe(self) -> str:
        """``"the request deadline of 10 s"`` (the length when known)."""
        length = f" of {self.seconds:g} s" if self.seconds is not None else ""
        return f"the {self.kind} deadline{length}"

    def earliest(self, other: Optional["Deadline"]) -> "Deadline":
        """The earlier of two deadlines."""
        if other is None or other.at is None:
            return self
        if self.at is None or other.at < self.at:
            return other
        return self

    def exceeded(self, item: str, url: str, reason: str, attempts: int) -> DeadlineExceeded:
        """The error saying this deadline passed (:class:`RunDeadlineExceeded` for a run)."""
        error = RunDeadlineExceeded if self.kind == "run" else DeadlineExceeded
        return error(item, url, reason, attempts, self.kind, self.seconds)


NO_DEADLINE = Deadline()


class RateLimiter:
    """Space successive requests at least ``1 / rate`` seconds apart (thread-safe).

    Parameters
    ----------
    rate : float
        Requests per second (``<= 0`` disables the limit).
    clock, sleep : callable, optional
        Injected for tests (default :func:`time.monotonic`, :func:`time.sleep`).

    Examples
    --------
    >>> waits = []
    >>> limiter = RateLimiter(2.0, clock=lambda: 0.0, sleep=waits.append)
    >>> limiter.wait(); limiter.wait()
    >>> waits
    [0.5]
    """

    def __init__(self, rate: float, clock: Clock = time.monotonic,
                 sleep: Sleep = time.sleep) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._next = -float("inf")

    def wait(self) -> None:
        """Block until the next request may go out."""
        if self.interval <= 0:
            return
        with self._lock:
            now = self._clock()
            if now < self._next:
                self._sleep(self._next - now)
                now = self._next
            self._next = now + self.interval


def parse_retry_after(value: Optional[str], now: Optional[datetime] = None) -> Optional[float]:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date).

    Returns ``None`` when absent or unreadable; never negative.

    Examples
    --------
    >>> parse_retry_after("120")
    120.0
    >>> parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT",
    ...                   now=datetime(2015, 10, 21, 7, 28, tzinfo=timezone.utc))
    30.0
    >>> parse_retry_after("soon") is None
    True
    """
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    now = now or datetime.now(timezone.utc)
    return max(0.0, (when - now).total_seconds())


def retry_call(action: Callable[[], Result], item: str, url: str, policy: RetryPolicy,
               classify: Callable[[Exception, int], TransientFailure],
               sleep: Sleep, rng: random.Random,
               deadline: Deadline = NO_DEADLINE) -> Result:
    """Run ``action`` until it succeeds, with back-off between failed attempts.

    Parameters
    ----------
    action : callable
        One attempt; raises :class:`TransientFailure` (retried),
        :class:`DownloadError` (permanent, re-raised at once) or any other
        exception, which ``classify`` turns into one of the two.
    item, url : str
        Named in log lines and in the final error.
    policy : RetryPolicy
    classify : callable
        ``classify(exception, attempt)`` returns a :class:`TransientFailure`
        or raises the permanent error.
    sleep : callable
    rng : random.Random
        Jitter source.
    deadline : Deadline
        No attempt starts after it, and no back-off wait would end after it.

    Returns
    -------
    The result of the first successful attempt.

    Raises
    ------
    DownloadError
        A permanent failure, or ``policy.max_attempts`` transient ones (the
        message gives the last reason).
    DeadlineExceeded
        The deadline passed (:class:`RunDeadlineExceeded` for the run's).

    Examples
    --------
    >>> answers = iter([TransientFailure("HTTP 503"), "data"])
    >>> def attempt():
    ...     answer = next(answers)
    ...     if isinstance(answer, Exception):
    ...         raise answer
    ...     return answer
    >>> retry_call(attempt, "demo", "https://example.org", RetryPolicy(),
    ...            classify=None, sleep=lambda s: None, rng=random.Random(0))
    'data'
    """
    last: Optional[TransientFailure] = None
    for attempt in range(1, policy.max_attempts + 1):
        if deadline.expired():
            raise deadline.exceeded(item, url, str(last or "not started"), attempt - 1)
        try:
            return action()
        except TransientFailure as failure:
            last = failure
        except DownloadError:
            raise
        except Exception as exc:  # noqa: BLE001 - classified, permanent ones re-raised
            last = classify(exc, attempt)
        if attempt < policy.max_attempts:
            delay = policy.delay(attempt, last.retry_after, rng)
            if delay >= deadline.remaining():
                raise deadline.exceeded(item, url, str(last), attempt)
            logger.warning("%s: attempt %d/%d failed (%s); retrying in %.2f s", item, attempt,
                           policy.max_attempts, last, delay)
            sleep(delay)
    raise DownloadError(item, url, str(last), policy.max_attempts)
