"""The HTTP client: one request at a time, retried by policy, rate-limited on demand.

:class:`HttpClient` sends every request of ``download/`` (``urllib``, no
third-party client). It classifies failures: timeouts, resets, truncated
bodies and the statuses of :data:`utils.io.http.transport.RETRYABLE_STATUS` (and
5xx) are retried with back-off (:mod:`utils.io.http.retry`);
404 and other 4xx stop at once (:class:`RemoteNotFoundError`); a host name that
does not resolve stops the run (:class:`NameResolutionError`); a URL that is
not ASCII is refused at once. Every request runs under the request, transfer
and run deadlines, every body under a size cap and a minimum speed
(:mod:`download.fetch.body`), and redirects are followed only within the
configured hosts (:mod:`download.fetch.redirects`). Whole files go through
:func:`download.fetch.resume.fetch_resumable`, which resumes interrupted
transfers over the client's single requests.
"""

from __future__ import annotations

import contextlib
import http.client
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Optional

from download.fetch.body import ascii_int, read_body
from download.fetch.redirects import HostRedirectHandler, RedirectRefused
from utils.io.http.errors import (DownloadError, NameResolutionError, RedirectRefusedError,
                                  RemoteNotFoundError, TransientFailure)
from utils.io.http.retry import (NO_DEADLINE, Deadline, RateLimiter, Result, RetryPolicy, Sleep,
                                 parse_retry_after, retry_call)
from utils.io.http.transport import TIMEOUT, UNRESOLVED_HOST, is_retryable_status, \
    transport_fault

USER_AGENT = "genotex-download/0.1 (+https://github.com; benchmark input builder)"
SECRET_PARAMETERS = ("api_key",)


@dataclass(frozen=True)
class RemoteInfo:
    """What a ``HEAD`` request says about a remote file."""

    url: str
    size: Optional[int]
    etag: Optional[str] = None
    last_modified: Optional[str] = None


def redact_url(url: str) -> str:
    """``url`` with secret query values (``api_key``) replaced by ``***`` for messages.

    Examples
    --------
    >>> redact_url("https://example.org/esearch.fcgi?db=gds&api_key=secret")
    'https://example.org/esearch.fcgi?db=gds&api_key=***'
    """
    parts = urllib.parse.urlsplit(url)
    if not parts.query:
        return url
    query = [(key, "***" if key in SECRET_PARAMETERS else value)
             for key, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query, safe="*")))


def classify_failure(exc: BaseException, item: str, url: str, attempt: int) -> TransientFailure:
    """Turn a request exception into a retryable failure, or raise the permanent error.

    Raises
    ------
    RemoteNotFoundError
        A permanent HTTP client error (404, 410, 403, ...).
    NameResolutionError
        The host name does not resolve.
    RedirectRefusedError
        A redirect outside the configured hosts.
    DownloadError
        A URL that cannot be sent (not ASCII).
    """
    if isinstance(exc, RedirectRefused):
        raise RedirectRefusedError(item, url, str(exc), attempt) from exc
    if isinstance(exc, (UnicodeError, http.client.InvalidURL)):
        raise DownloadError(item, url, f"invalid URL ({exc})", attempt) from exc
    if isinstance(exc, urllib.error.HTTPError):
        code = exc.code
        retry_after = parse_retry_after(exc.headers.get("Retry-After") if exc.headers else None)
        with contextlib.suppress(Exception):
            exc.close()
        if is_retryable_status(code):
            return TransientFailure(f"HTTP {code} {exc.reason}", retry_after)
        raise RemoteNotFoundError(item, url, f"HTTP {code} {exc.reason}", attempt) from exc
    if isinstance(exc, urllib.error.URLError):
        reason = exc.reason
        if isinstance(reason, RedirectRefused):
            raise RedirectRefusedError(item, url, str(reason), attempt) from exc
        fault = transport_fault(exc)
        if fault.kind == UNRESOLVED_HOST:
            host = urllib.parse.urlsplit(url).hostname or url
            raise NameResolutionError(item, url, host, str(reason)) from exc
        if fault.kind == TIMEOUT:
            return TransientFailure("timed out")
        return TransientFailure(f"connection failed ({reason})")
    if transport_fault(exc).kind == TIMEOUT:
        return TransientFailure("timed out")
    if isinstance(exc, http.client.IncompleteRead):
        return TransientFailure(f"truncated body ({len(exc.partial)} bytes in the last read, "
                                f"{exc.expected} more expected)")
    if isinstance(exc, (ConnectionError, http.client.HTTPException)):
        return TransientFailure(f"connection error ({type(exc).__name__}: {exc})")
    if isinstance(exc, OSError):
        return TransientFailure(f"I/O error ({exc})")
    raise exc


class HttpClient:
    """HTTP client with retries, back-off, an optional rate limit and resumable downloads.

    Parameters
    ----------
    policy : RetryPolicy, optional
    rate_limiter : RateLimiter, optional
        Applied before every request attempt (E-utilities needs it).
    sleep : callable, optional
        Used for back-off waits (tests pass a recorder).
    rng : random.Random, optional
        Jitter source; seed it for reproducible delays.
    user_agent : str, optional
    run_deadline : Deadline, optional
        The whole run's deadline (``--run-deadline``); every request of the
        client stops there with :class:`~utils.io.http.errors.RunDeadlineExceeded`.
    allowed_hosts : iterable of str
        Hosts (or URLs) redirects may lead to besides the original request's
        host (see :mod:`download.fetch.redirects`).
    """

    def __init__(self, policy: Optional[RetryPolicy] = None,
                 rate_limiter: Optional[RateLimiter] = None,
                 sleep: Sleep = time.sleep,
                 rng: Optional[random.Random] = None,
                 user_agent: str = USER_AGENT, *,
                 run_deadline: Deadline = NO_DEADLINE,
                 allowed_hosts: Iterable[str] = ()) -> None:
        self.policy = policy or RetryPolicy()
        self.rate_limiter = rate_limiter
        self.run_deadline = run_deadline
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._user_agent = user_agent
        self._opener = urllib.request.build_opener(HostRedirectHandler(allowed_hosts))

    def sleep(self, seconds: float) -> None:
        """Wait with the client's (possibly injected) sleep function."""
        self._sleep(seconds)

    def open(self, url: str, method: str = "GET", headers: Optional[Mapping[str, str]] = None,
             deadline: Deadline = NO_DEADLINE):
        """Send one request (after the rate limiter), no retries; the open response.

        The socket timeout is the policy's, shortened to what is left of
        ``deadline``. A URL with non-ASCII characters raises ``UnicodeError``
        before anything is sent.
        """
        url.encode("ascii")  # http.client would fail half-way with a less clear error
        if self.rate_limiter is not None:
            self.rate_limiter.wait()
        remaining = deadline.remaining()
        if remaining <= 0:
            raise TransientFailure(f"{deadline.describe()} passed before the request")
        request = urllib.request.Request(url, method=method)
        request.add_header("User-Agent", self._user_agent)
        request.add_header("Accept-Encoding", "identity")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        return self._opener.open(request, timeout=min(self.policy.timeout, remaining))

    def retrying(self, item: str, url: str, attempt: Callable[[Deadline], Result]) -> Result:
        """Run ``attempt`` under the client's retry policy (see :func:`retry_call`).

        ``attempt`` receives its deadline: the earliest of the request deadline
        (from the attempt's start), the transfer deadline (from now) and the
        run deadline.
        """
        policy = self.policy
        transfer = self.run_deadline.earliest(
            Deadline.after(policy.transfer_deadline, "transfer"))
        return retry_call(
            lambda: attempt(transfer.earliest(Deadline.after(policy.request_deadline,
                                                             "request"))),
            item, url, policy, lambda exc, number: classify_failure(exc, item, url, number),
            self._sleep, self._rng, deadline=transfer)

    # -- small requests --------------------------------------------------------------
    def get_bytes(self, url: str, params: Optional[Mapping[str, object]] = None,
                  item: Optional[str] = None) -> bytes:
        """GET a (small) resource completely, with retries.

        Parameters
        ----------
        url : str
        params : mapping, optional
            Query parameters, URL-encoded and appended.
        item : str, optional
            Name used in log lines and errors (default: the URL).
        """
        if params:
            url = f"{url}{'&' if '?' in url else '?'}{urllib.parse.urlencode(params)}"
        shown = redact_url(url)
        item = item or shown

        def attempt(deadline: Deadline) -> bytes:
            pieces = []
            with self.open(url, deadline=deadline) as response:
                length = ascii_int(response.headers.get("Content-Length"))
                limit = self.policy.max_response_bytes
                if length is not None and length > limit:
                    raise DownloadError(item, shown, f"response of {length} bytes, more than "
                                        f"the limit of {limit} bytes")
                read_body(response, pieces.append, limit=limit if length is None else length,
                          deadline=deadline, policy=self.policy)
            data = b"".join(pieces)
            if length is not None and len(data) != length:
                raise TransientFailure(f"truncated body ({len(data)} of {length} bytes)")
            return data

        return self.retrying(item, shown, attempt)

    def head(self, url: str, item: Optional[str] = None) -> RemoteInfo:
        """Size and validators of a remote file (``HEAD``, with retries)."""
        item = item or url

        def attempt(deadline: Deadline) -> RemoteInfo:
            with self.open(url, method="HEAD", deadline=deadline) as response:
                return RemoteInfo(url=url,
                                  size=ascii_int(response.headers.get("Content-Length")),
                                  etag=response.headers.get("ETag"),
                                  last_modified=response.headers.get("Last-Modified"))

        return self.retrying(item, url, attempt)
