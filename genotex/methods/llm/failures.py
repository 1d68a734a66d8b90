"""What the model client does with each kind of failure: retry, fail the task, or stop the run.

The whole policy is the table below and :func:`classify_status` /
:func:`classify_exception`. What a status or a transport failure *is* comes from
the project's HTTP floor, :mod:`utils.io.http`, shared with the downloaders: the
retryable statuses (:data:`utils.io.http.RETRYABLE_STATUS` and 5xx), the root
cause of a failure to connect (:func:`utils.io.http.transport_fault`) and
``Retry-After`` (:func:`utils.io.http.parse_retry_after`); this module adds what
the model client does about each (a 501 or a wrong key stops the run).

=====================================  ==========  ===================================
answer                                 what        why
=====================================  ==========  ===================================
401, 403                               stop run    the key is missing, wrong or not allowed
404, 405, 501                          stop run    wrong base URL (e.g. no ``/v1``) or unknown model
any 4xx naming an unknown model        stop run    ``model 'x' not found`` (Ollama, vLLM, OpenAI)
429 "insufficient quota"               stop run    no credit left: waiting does not help
408, 409, 425, 429                     retry       timeout, conflict, too early, rate limit
5xx (but 501)                          retry       the server is busy or failing
200 with an ``error`` body, no choice  retry       proxies and gateways report failures so
other 4xx (400, 413, 422, ...)         fail task   the request itself is refused (too long ...)
DNS failure, connection refused,       stop run    nothing listens there
no route to the host
connection reset / dropped / timeout   retry       counted by the circuit breaker
=====================================  ==========  ===================================

Retries wait with exponential back-off and jitter, or what ``Retry-After``
says (capped); the circuit breaker (:class:`CircuitBreaker`) stops the run after
a few consecutive failures to connect, whatever the requests.
"""

from __future__ import annotations

import re
import threading
from typing import Tuple

from utils.io.http import RETRYABLE_STATUS, is_retryable_status
from utils.io.http.transport import (REFUSED, TIMEOUT, UNREACHABLE, UNRESOLVED_HOST,
                                     transport_fault)

RETRY = "retry"
FAIL_TASK = "fail task"
STOP_RUN = "stop run"

#: HTTP status -> what to do (statuses not listed: 5xx retry, others fail the task).
STATUS_TABLE = {
    401: STOP_RUN, 403: STOP_RUN, 404: STOP_RUN, 405: STOP_RUN, 501: STOP_RUN,
    **{status: RETRY for status in sorted(RETRYABLE_STATUS)},
    400: FAIL_TASK, 413: FAIL_TASK, 422: FAIL_TASK,
}
_UNKNOWN_MODEL = re.compile(r"model[^\n]{0,80}(?:not found|does not exist|not exist|unknown|"
                            r"not available|is not supported|no such)|model_not_found|"
                            r"unknown model", re.IGNORECASE)
_NO_QUOTA = re.compile(r"insufficient_quota|exceeded your current quota|billing", re.IGNORECASE)


def classify_status(status: int, body: str = "") -> str:
    """What to do after an HTTP error answer (see the module's table)."""
    if 400 <= status < 500 and _UNKNOWN_MODEL.search(body):
        return STOP_RUN
    if status == 429 and _NO_QUOTA.search(body):
        return STOP_RUN
    if status in STATUS_TABLE:
        return STATUS_TABLE[status]
    return RETRY if is_retryable_status(status) else FAIL_TASK


def classify_exception(exc: BaseException) -> Tuple[str, str, bool]:
    """What to do after a transport failure: ``(action, reason, counts_for_breaker)``.

    ``counts_for_breaker`` is True for failures to connect or keep a connection
    (not for a slow answer: a read timeout of a busy model is retried without it).
    """
    fault = transport_fault(exc)
    cause = fault.cause
    if fault.kind == UNRESOLVED_HOST:
        return STOP_RUN, f"the host name does not resolve ({cause.strerror or cause})", True
    if fault.kind == REFUSED:
        return STOP_RUN, "connection refused (no server listens there)", True
    if fault.kind == UNREACHABLE:
        return STOP_RUN, f"no route to the host ({cause.strerror})", True
    if fault.kind == TIMEOUT:
        where = "connecting" if fault.connecting else "waiting for the answer"
        return RETRY, f"timed out {where}", fault.connecting
    return RETRY, f"connection failed: {type(cause).__name__}: {cause}", True


class CircuitBreaker:
    """Stops the run after ``limit`` consecutive connection failures (any requests).

    Thread-safe, so concurrent tasks sharing one client share it.
    """

    def __init__(self, limit: int = 4) -> None:
        self.limit = limit
        self._failures = 0
        self._lock = threading.Lock()

    def success(self) -> None:
        """A request got an answer: the count starts again."""
        with self._lock:
            self._failures = 0

    def failure(self) -> bool:
        """Count a connection failure; True when the breaker opens (the run must stop)."""
        with self._lock:
            self._failures += 1
            return self.limit > 0 and self._failures >= self.limit

    @property
    def failures(self) -> int:
        """Consecutive connection failures so far."""
        return self._failures
