"""Reading a response body under a size cap, a deadline and a minimum speed.

A body is copied in the pieces the network delivers (``read1``), never by
waiting for a full block, so the checks run after every piece:

* **size cap**: more bytes than the cap (the announced or expected size, or the
  policy's maximum) stop the transfer at once; nothing beyond the cap is written;
* **deadline**: the attempt's :class:`~utils.io.http.retry.Deadline` (a server
  sending one byte every half second never ends a read on its own);
* **minimum speed**: a body averaging less than ``RetryPolicy.min_speed`` bytes
  per second over a ``speed_window`` is abandoned (and retried).

Every failure is a :class:`~utils.io.http.errors.TransientFailure`.
"""

from __future__ import annotations

import re
import time
from typing import Callable, Optional

from download.fetch.files import CHUNK_SIZE
from utils.io.http.errors import TransientFailure
from utils.io.http.retry import Clock, Deadline, RetryPolicy

_DIGITS = re.compile(r"[0-9]+")


class BodyTooLarge(TransientFailure):
    """The body is longer than its cap (the data is not kept)."""


def ascii_int(value: Optional[str]) -> Optional[int]:
    """An integer header value written in ASCII digits only, else None.

    Examples
    --------
    >>> ascii_int("1024"), ascii_int(" 12 "), ascii_int("\u0661\u0662"), ascii_int(None)
    (1024, 12, None, None)
    """
    if value is None:
        return None
    value = value.strip()
    return int(value) if _DIGITS.fullmatch(value) else None


def read_body(response, write: Callable[[bytes], None], *, limit: int, deadline: Deadline,
              policy: RetryPolicy, progress: Optional[Callable[[int], None]] = None,
              clock: Clock = time.monotonic) -> int:
    """Copy ``response``'s body to ``write`` in pieces, under the checks above.

    Parameters
    ----------
    response : http.client.HTTPResponse
    write : callable
        Receives each piece.
    limit : int
        Most bytes accepted; one more raises :class:`BodyTooLarge`.
    deadline : Deadline
        The attempt's deadline.
    policy : RetryPolicy
        ``min_speed`` and ``speed_window``.
    progress : callable, optional
        Called with the size of each piece.
    clock : callable

    Returns
    -------
    int
        Bytes received.

    Raises
    ------
    TransientFailure
        The deadline passed, the body is too slow, or (:class:`BodyTooLarge`)
        too long.
    """
    read = getattr(response, "read1", None) or response.read
    received = 0
    window_start, window_bytes = clock(), 0
    while True:
        if deadline.expired():
            raise TransientFailure(f"{deadline.describe()} passed during the body "
                                   f"({received} bytes received)")
        piece = read(min(CHUNK_SIZE, limit - received + 1))
        if not piece:
            return received
        received += len(piece)
        if received > limit:
            raise BodyTooLarge(f"body longer than {limit} bytes (the announced or expected "
                               "size, or the size limit): refused")
        write(piece)
        if progress is not None:
            progress(len(piece))
        window_bytes += len(piece)
        elapsed = clock() - window_start
        if policy.min_speed > 0 and elapsed >= policy.speed_window:
            if window_bytes < policy.min_speed * elapsed:
                raise TransientFailure(f"too slow: {window_bytes / elapsed:.0f} bytes/s over "
                                       f"{elapsed:.0f} s, less than {policy.min_speed:g} "
                                       f"bytes/s ({received} bytes received)")
            window_start, window_bytes = clock(), 0
