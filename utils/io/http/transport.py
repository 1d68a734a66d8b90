"""What a failed HTTP exchange means: the retryable statuses, the cause of a transport failure.

Every HTTP client of the project reads a failure the same way: an answer whose
status is in :data:`RETRYABLE_STATUS` (or any 5xx) is worth another attempt,
any other 4xx is not; a failure to connect is traced to its root cause
(:func:`transport_fault`), which each client turns into its own error (a
downloader stops the run when a host name does not resolve; the model client
stops it when nothing listens).
"""

from __future__ import annotations

import errno
import socket
import urllib.error
from dataclasses import dataclass

#: HTTP statuses worth another attempt besides every 5xx: request timeout, conflict,
#: too early, too many requests.
RETRYABLE_STATUS = frozenset({408, 409, 425, 429})

#: Kinds of :class:`TransportFault`.
UNRESOLVED_HOST = "unresolved host"
REFUSED = "refused"
UNREACHABLE = "unreachable"
TIMEOUT = "timeout"
CONNECTION = "connection"


def is_retryable_status(status: int) -> bool:
    """True for an HTTP status worth another attempt (:data:`RETRYABLE_STATUS`, 5xx and above).

    Examples
    --------
    >>> [code for code in (400, 404, 408, 409, 429, 500, 503) if is_retryable_status(code)]
    [408, 409, 429, 500, 503]
    """
    return status in RETRYABLE_STATUS or status >= 500


@dataclass(frozen=True)
class TransportFault:
    """The root cause of a failure to connect or to keep a connection.

    Attributes
    ----------
    kind : str
        :data:`UNRESOLVED_HOST`, :data:`REFUSED`, :data:`UNREACHABLE`,
        :data:`TIMEOUT` or :data:`CONNECTION` (anything else).
    cause : BaseException
        The innermost exception (``urllib``'s wrappers removed).
    connecting : bool
        True when the failure came before any answer (``urllib``'s
        ``URLError``), False when a connection broke or stalled later.
    """

    kind: str
    cause: BaseException
    connecting: bool


def transport_fault(exc: BaseException) -> TransportFault:
    """Trace a transport exception to its root cause.

    Examples
    --------
    >>> fault = transport_fault(urllib.error.URLError(socket.gaierror(-2, "Name unknown")))
    >>> fault.kind, fault.connecting
    ('unresolved host', True)
    >>> transport_fault(TimeoutError("read")).kind
    'timeout'
    """
    cause = exc
    while isinstance(cause, urllib.error.URLError) and isinstance(cause.reason, BaseException):
        cause = cause.reason
    connecting = isinstance(exc, urllib.error.URLError)
    if isinstance(cause, socket.gaierror):
        kind = UNRESOLVED_HOST
    elif isinstance(cause, ConnectionRefusedError):
        kind = REFUSED
    elif isinstance(cause, OSError) and cause.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
        kind = UNREACHABLE
    elif isinstance(cause, (socket.timeout, TimeoutError)):
        kind = TIMEOUT
    else:
        kind = CONNECTION
    return TransportFault(kind, cause, connecting)
