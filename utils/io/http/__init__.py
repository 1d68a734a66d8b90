"""HTTP for every client of the project: one retry policy, one list of retryable answers.

Both HTTP clients, the downloaders' (:class:`download.fetch.client.HttpClient`) and
the language-model client (:class:`genotex.methods.llm.client.ChatClient`), take
from here what they share, so a server's answer means the same to both:

==============  ======================================================================
module          what
==============  ======================================================================
``retry``       :class:`RetryPolicy` (attempts, back-off with jitter, the
                ``Retry-After`` cap, timeouts), :class:`Deadline`,
                :class:`RateLimiter`, :func:`parse_retry_after`, the retry loop
                :func:`retry_call`
``transport``   :data:`RETRYABLE_STATUS` (the statuses worth another attempt) and
                :func:`transport_fault`, the root cause of a failure to connect or
                to keep a connection (host name, refused, unreachable, timeout)
``errors``      the errors of a transfer: :class:`DownloadError` and its permanent
                kinds (:class:`NameResolutionError`, ...), :class:`TransientFailure`
==============  ======================================================================

Standard library only (``urllib``), so a command's ``--help`` stays light.
"""

from utils.io.http.errors import (DeadlineExceeded, DownloadError, NameResolutionError,
                                  RedirectRefusedError, RemoteNotFoundError,
                                  RunDeadlineExceeded, TransientFailure)
from utils.io.http.retry import (NO_DEADLINE, Deadline, RateLimiter, RetryPolicy,
                                 parse_retry_after, retry_call)
from utils.io.http.transport import (RETRYABLE_STATUS, TransportFault, is_retryable_status,
                                     transport_fault)

__all__ = [
    "NO_DEADLINE", "RETRYABLE_STATUS", "Deadline", "DeadlineExceeded", "DownloadError",
    "NameResolutionError", "RateLimiter", "RedirectRefusedError", "RemoteNotFoundError",
    "RetryPolicy", "RunDeadlineExceeded", "TransientFailure", "TransportFault",
    "is_retryable_status", "parse_retry_after", "retry_call", "transport_fault",
]
