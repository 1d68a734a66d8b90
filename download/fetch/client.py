"""The HTTP client: one request at a time, retried by policy, rate-limited on demand.

:class:`HttpClient` sends every request of ``download/`` (``urllib``, no
third-party client). It classifies failures: timeouts, resets, truncated
bodies, 408/425/429/5xx are retried with back-off (:mod:`download.fetch.retry`);
404 and other 4xx stop at once (:class:`RemoteNotFoundError`); a host name that
does not resolve stops the run (:class:`NameResolutionError`). Whole files go
through :meth:`HttpClient.fetch`, which resumes interrupted transfers
(:mod:`download.fetch.resume`).
"""

from __future__ import annotations

import contextlib
import http.client
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Callable, Mapping, Optional

from download.fetch.errors import NameResolutionError, RemoteNotFoundError, TransientFailure
from download.fetch.files import Verifier
from download.fetch.resume import FetchResult, fetch_resumable
from download.fetch.retry import RateLimiter, Result, RetryPolicy, Sleep, parse_retry_after, \
    retry_call
from utils.io import PathLike

USER_AGENT = "genotex-download/0.1 (+https://github.com; benchmark input builder)"
RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
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
    """
    if isinstance(exc, urllib.error.HTTPError):
        code = exc.code
        retry_after = parse_retry_after(exc.headers.get("Retry-After") if exc.headers else None)
        with contextlib.suppress(Exception):
            exc.close()
        if code in RETRYABLE_STATUS or code >= 500:
            return TransientFailure(f"HTTP {code} {exc.reason}", retry_after)
        raise RemoteNotFoundError(item, url, f"HTTP {code} {exc.reason}", attempt) from exc
    if isinstance(exc, urllib.error.URLError):
        reason = exc.reason
        if isinstance(reason, socket.gaierror):
            host = urllib.parse.urlsplit(url).hostname or url
            raise NameResolutionError(item, url, host, str(reason)) from exc
        if isinstance(reason, (socket.timeout, TimeoutError)):
            return TransientFailure("timed out")
        return TransientFailure(f"connection failed ({reason})")
    if isinstance(exc, (socket.timeout, TimeoutError)):
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
    """

    def __init__(self, policy: Optional[RetryPolicy] = None,
                 rate_limiter: Optional[RateLimiter] = None,
                 sleep: Sleep = time.sleep,
                 rng: Optional[random.Random] = None,
                 user_agent: str = USER_AGENT) -> None:
        self.policy = policy or RetryPolicy()
        self.rate_limiter = rate_limiter
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._user_agent = user_agent
        self._opener = urllib.request.build_opener()

    def sleep(self, seconds: float) -> None:
        """Wait with the client's (possibly injected) sleep function."""
        self._sleep(seconds)

    def open(self, url: str, method: str = "GET", headers: Optional[Mapping[str, str]] = None):
        """Send one request (after the rate limiter), no retries; the open response."""
        if self.rate_limiter is not None:
            self.rate_limiter.wait()
        request = urllib.request.Request(url, method=method)
        request.add_header("User-Agent", self._user_agent)
        request.add_header("Accept-Encoding", "identity")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        return self._opener.open(request, timeout=self.policy.timeout)

    def retrying(self, item: str, url: str, attempt: Callable[[], Result]) -> Result:
        """Run ``attempt`` under the client's retry policy (see :func:`retry_call`)."""
        return retry_call(attempt, item, url, self.policy,
                          lambda exc, number: classify_failure(exc, item, url, number),
                          self._sleep, self._rng)

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

        def attempt() -> bytes:
            with self.open(url) as response:
                length = response.headers.get("Content-Length")
                data = response.read()
            if length is not None and length.isdigit() and len(data) != int(length):
                raise TransientFailure(f"truncated body ({len(data)} of {length} bytes)")
            return data

        return self.retrying(item, shown, attempt)

    def head(self, url: str, item: Optional[str] = None) -> RemoteInfo:
        """Size and validators of a remote file (``HEAD``, with retries)."""
        item = item or url

        def attempt() -> RemoteInfo:
            with self.open(url, method="HEAD") as response:
                length = response.headers.get("Content-Length")
                return RemoteInfo(url=url,
                                  size=int(length) if length and length.isdigit() else None,
                                  etag=response.headers.get("ETag"),
                                  last_modified=response.headers.get("Last-Modified"))

        return self.retrying(item, url, attempt)

    # -- resumable file transfer -------------------------------------------------------
    def fetch(self, url: str, state_dir: PathLike, name: str, *,
              item: Optional[str] = None,
              expected_size: Optional[int] = None,
              sha256: Optional[str] = None,
              verify: Optional[Verifier] = None,
              progress: bool = True) -> FetchResult:
        """Download ``url`` into the state folder, resuming earlier partial data.

        Parameters
        ----------
        url : str
        state_dir : path-like
            Folder for the part file, its checkpoint and the finished file.
        name : str
            Base name of the file (used for the state file names).
        item : str, optional
            Name for messages (default ``name``).
        expected_size : int, optional
            Verified after the transfer when known.
        sha256 : str, optional
            Verified after the transfer when known (hex, case-insensitive).
        verify : callable, optional
            Extra check of the finished file; raises ``ValueError`` when bad
            (e.g. :func:`download.fetch.files.verify_gzip`). A failed check
            discards the data.
        progress : bool
            Show a tqdm byte progress bar.

        Returns
        -------
        FetchResult
            The finished file is ``<state_dir>/<key>.done``; install it with
            :func:`download.fetch.files.install_file`.

        Raises
        ------
        DownloadError
            After ``policy.max_attempts`` failed attempts, or at once for a
            permanent HTTP error (:class:`RemoteNotFoundError`).
        """
        return fetch_resumable(self, url, state_dir, name, item=item,
                               expected_size=expected_size, sha256=sha256, verify=verify,
                               progress=progress)
