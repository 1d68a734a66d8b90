"""How often and how patiently to retry: back-off policy, ``Retry-After``, rate limit.

:func:`retry_call` runs one action until it succeeds, fails for good, or the
attempts of the :class:`RetryPolicy` run out. The clock, the sleep function and
the random generator are injectable, so tests never wait.
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

from download.fetch.errors import DownloadError, TransientFailure

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
        Socket timeout of one request (seconds).
    """

    max_attempts: int = 6
    backoff_base: float = 1.0
    backoff_max: float = 60.0
    max_retry_after: float = 300.0
    timeout: float = 60.0

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

    def delay(self, attempt: int, failure: TransientFailure, rng: random.Random) -> float:
        """The wait after failed attempt ``attempt``: back-off, or longer if the server asks."""
        delay = self.backoff(attempt, rng)
        if failure.retry_after is not None:
            delay = max(delay, min(failure.retry_after, self.max_retry_after))
        return delay


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
               sleep: Sleep, rng: random.Random) -> Result:
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

    Returns
    -------
    The result of the first successful attempt.

    Raises
    ------
    DownloadError
        A permanent failure, or ``policy.max_attempts`` transient ones (the
        message gives the last reason).

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
        try:
            return action()
        except TransientFailure as failure:
            last = failure
        except DownloadError:
            raise
        except Exception as exc:  # noqa: BLE001 - classified, permanent ones re-raised
            last = classify(exc, attempt)
        if attempt < policy.max_attempts:
            delay = policy.delay(attempt, last, rng)
            logger.warning("%s: attempt %d/%d failed (%s); retrying in %.2f s", item, attempt,
                           policy.max_attempts, last, delay)
            sleep(delay)
    raise DownloadError(item, url, str(last), policy.max_attempts)
