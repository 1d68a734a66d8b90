"""Reliable HTTP(S) transfers: retries, back-off, rate limits and resumable downloads.

Rules every download in ``download/`` follows (SPEC 8.1, 8.2):

* Data is streamed into a *part file* in a state folder outside the data tree,
  next to a small JSON *checkpoint* (URL, total size, ETag / Last-Modified).
  Nothing is written inside ``input/`` until a file is complete and verified,
  so a partial file never appears in the tree.
* An interrupted transfer (timeout, connection reset, truncated body, a killed
  process) resumes from the bytes already on disk with an HTTP ``Range``
  request; ``If-Range`` makes the server send the whole file again when it
  changed in between.
* Transient failures (timeouts, resets, 408, 429, 5xx, truncation, a size or
  checksum mismatch) are retried a bounded number of times with exponential
  back-off and jitter; ``429``/``503`` ``Retry-After`` is honoured. Permanent
  failures (404 and other 4xx) stop at once. The final error names the item.
* The clock, the sleep function and the random generator are injectable, so
  tests run against a local server without real waiting.
"""

from __future__ import annotations

import contextlib
import email.utils
import errno
import gzip
import hashlib
import http.client
import json
import logging
import os
import random
import shutil
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Dict, Mapping, Optional

from utils.io import PathLike, atomic_write, atomic_write_json
from utils.io import file_sha256 as sha256_file  # re-exported for download.manifest/transfer
from utils.logs import progress

logger = logging.getLogger(__name__)

CHUNK_SIZE = 1 << 16
USER_AGENT = "genotex-download/0.1 (+https://github.com; benchmark input builder)"
ENV_STATE_DIR = "GENOTEX_DOWNLOAD_STATE"
RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})

Sleep = Callable[[float], None]
Clock = Callable[[], float]
Verifier = Callable[[Path], None]


class DownloadError(RuntimeError):
    """A transfer failed for good; the message names the item and the URL.

    Parameters
    ----------
    item : str
        What was being fetched, in the user's words (e.g. ``"GSE12345 (Asthma)"``).
    url : str
    reason : str
        The last failure, in plain words.
    attempts : int
        How many attempts were made.
    """

    def __init__(self, item: str, url: str, reason: str, attempts: int = 1) -> None:
        self.item = item
        self.url = url
        self.reason = reason
        self.attempts = attempts
        tries = "1 attempt" if attempts == 1 else f"{attempts} attempts"
        super().__init__(f"{item}: could not fetch {url} after {tries}: {reason}")


class RemoteNotFoundError(DownloadError):
    """The server answered with a permanent client error (404, 410, 403, ...)."""


class NameResolutionError(DownloadError):
    """The server's host name does not resolve (no network, or a wrong base URL).

    Never retried: every other request of the run would fail the same way, so
    the command-line tools stop at the first one with a single message.
    """

    def __init__(self, item: str, url: str, host: str, reason: str) -> None:
        self.host = host
        super().__init__(item, url, f"host name {host!r} does not resolve ({reason}); "
                                    "check the network or the base URL", 1)


class _Transient(Exception):
    """Internal: a failure worth retrying, with an optional server-given delay."""

    def __init__(self, reason: str, retry_after: Optional[float] = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


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
        """Delay before attempt ``attempt + 1`` ("equal jitter": half fixed, half random)."""
        ceiling = min(self.backoff_max, self.backoff_base * 2.0 ** max(attempt - 1, 0))
        return ceiling / 2.0 + rng.uniform(0.0, ceiling / 2.0)


class RateLimiter:
    """Space successive requests at least ``1 / rate`` seconds apart (thread-safe).

    Parameters
    ----------
    rate : float
        Requests per second (``<= 0`` disables the limit).
    clock, sleep : callable, optional
        Injected for tests (default :func:`time.monotonic`, :func:`time.sleep`).
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


@dataclass(frozen=True)
class RemoteInfo:
    """What a ``HEAD`` request says about a remote file."""

    url: str
    size: Optional[int]
    etag: Optional[str] = None
    last_modified: Optional[str] = None


@dataclass(frozen=True)
class FetchResult:
    """A completed, verified transfer sitting in the state folder.

    Attributes
    ----------
    path : pathlib.Path
        The staged file (move it into place with :func:`install_file`).
    size : int
    sha256 : str
    resumed : bool
        True when part of the file came from an earlier, interrupted attempt or run.
    attempts : int
    """

    path: Path
    size: int
    sha256: str
    resumed: bool
    attempts: int


def parse_retry_after(value: Optional[str], now: Optional[datetime] = None) -> Optional[float]:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date).

    Returns ``None`` when absent or unreadable; never negative.
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


SECRET_PARAMETERS = ("api_key",)


def redact_url(url: str) -> str:
    """``url`` with secret query values (``api_key``) replaced by ``***`` for messages."""
    parts = urllib.parse.urlsplit(url)
    if not parts.query:
        return url
    query = [(key, "***" if key in SECRET_PARAMETERS else value)
             for key, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query, safe="*")))


def verify_gzip(path: Path) -> None:
    """Raise ``ValueError`` unless ``path`` is a complete, readable gzip stream."""
    try:
        with gzip.open(path, "rb") as handle:
            while handle.read(1 << 20):
                pass
    except (EOFError, OSError, zlib.error) as exc:
        raise ValueError(f"damaged gzip stream ({exc})") from exc


def default_state_dir(input_root: PathLike,
                      environ: Optional[Mapping[str, str]] = None) -> Path:
    """Folder for part files and checkpoints, outside the data tree.

    ``$GENOTEX_DOWNLOAD_STATE`` when set, else ``<input>/../.<input name>_download_state``.
    """
    environ = os.environ if environ is None else environ
    if environ.get(ENV_STATE_DIR):
        return Path(environ[ENV_STATE_DIR]).expanduser().resolve()
    root = Path(input_root).expanduser().resolve()
    return root.parent / f".{root.name}_download_state"


def _state_key(url: str, name: str) -> str:
    digest = hashlib.sha1(url.encode("utf-8")).hexdigest()[:12]
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)
    return f"{digest}-{safe}"


def _read_checkpoint(path: Path) -> Dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _content_range_total(value: Optional[str]) -> tuple[Optional[int], Optional[int]]:
    """``(start, total)`` from ``Content-Range: bytes start-end/total``."""
    if not value or not value.startswith("bytes "):
        return None, None
    span, _, total = value[6:].partition("/")
    start = span.partition("-")[0]
    return (int(start) if start.isdigit() else None,
            int(total) if total.isdigit() else None)


def _check_file(path: Path, expected_size: Optional[int], sha256: Optional[str],
                verify: Optional[Verifier]) -> Optional[str]:
    """Return what is wrong with a finished file, or None when it passes every check."""
    size = path.stat().st_size
    if expected_size is not None and size != expected_size:
        return f"size mismatch: got {size} bytes, expected {expected_size}"
    if sha256:
        digest = sha256_file(path)
        if digest != sha256.lower():
            return f"checksum mismatch: sha256 {digest}, expected {sha256.lower()}"
    if verify is not None:
        try:
            verify(path)
        except ValueError as exc:
            return f"verification failed: {exc}"
    return None


def _fsync_file(path: Path) -> None:
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def install_file(staged: PathLike, dest: PathLike) -> Path:
    """Move a verified staged file to ``dest`` atomically (folders created).

    Uses :func:`os.replace` on the same file system; across file systems the
    data is copied to a temporary file beside ``dest`` first, then renamed.
    """
    staged, dest = Path(staged), Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.replace(staged, dest)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        with open(staged, "rb") as source, atomic_write(dest, "wb") as target:
            shutil.copyfileobj(source, target, CHUNK_SIZE)
        staged.unlink()
    with contextlib.suppress(OSError):
        os.chmod(dest, 0o644)
    return dest


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

    # -- low level -----------------------------------------------------------------
    def _open(self, url: str, method: str = "GET",
              headers: Optional[Mapping[str, str]] = None):
        if self.rate_limiter is not None:
            self.rate_limiter.wait()
        request = urllib.request.Request(url, method=method)
        request.add_header("User-Agent", self._user_agent)
        request.add_header("Accept-Encoding", "identity")
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        return self._opener.open(request, timeout=self.policy.timeout)

    @staticmethod
    def _classify(exc: BaseException, item: str, url: str, attempt: int) -> _Transient:
        """Turn a request exception into a retryable failure or raise a permanent one."""
        if isinstance(exc, urllib.error.HTTPError):
            code = exc.code
            retry_after = parse_retry_after(exc.headers.get("Retry-After")
                                            if exc.headers else None)
            with contextlib.suppress(Exception):
                exc.close()
            if code in RETRYABLE_STATUS or code >= 500:
                return _Transient(f"HTTP {code} {exc.reason}", retry_after)
            raise RemoteNotFoundError(item, url, f"HTTP {code} {exc.reason}", attempt) from exc
        if isinstance(exc, urllib.error.URLError):
            reason = exc.reason
            if isinstance(reason, socket.gaierror):
                host = urllib.parse.urlsplit(url).hostname or url
                raise NameResolutionError(item, url, host, str(reason)) from exc
            if isinstance(reason, (socket.timeout, TimeoutError)):
                return _Transient("timed out")
            return _Transient(f"connection failed ({reason})")
        if isinstance(exc, (socket.timeout, TimeoutError)):
            return _Transient("timed out")
        if isinstance(exc, http.client.IncompleteRead):
            return _Transient(f"truncated body ({len(exc.partial)} bytes in the last read, "
                              f"{exc.expected} more expected)")
        if isinstance(exc, (ConnectionError, http.client.HTTPException)):
            return _Transient(f"connection error ({type(exc).__name__}: {exc})")
        if isinstance(exc, OSError):
            return _Transient(f"I/O error ({exc})")
        raise exc

    def _wait_before_retry(self, attempt: int, failure: _Transient, item: str) -> None:
        delay = self.policy.backoff(attempt, self._rng)
        if failure.retry_after is not None:
            delay = max(delay, min(failure.retry_after, self.policy.max_retry_after))
        logger.warning("%s: attempt %d/%d failed (%s); retrying in %.2f s", item, attempt,
                       self.policy.max_attempts, failure, delay)
        self._sleep(delay)

    def _retrying(self, item: str, url: str, action: Callable[[], object]) -> object:
        last: Optional[_Transient] = None
        for attempt in range(1, self.policy.max_attempts + 1):
            try:
                return action()
            except _Transient as failure:
                last = failure
            except DownloadError:
                raise
            except Exception as exc:  # noqa: BLE001 - classified, permanent ones re-raised
                last = self._classify(exc, item, url, attempt)
            if attempt < self.policy.max_attempts:
                self._wait_before_retry(attempt, last, item)
        raise DownloadError(item, url, str(last), self.policy.max_attempts)

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

        def action() -> bytes:
            with self._open(url) as response:
                length = response.headers.get("Content-Length")
                data = response.read()
            if length is not None and length.isdigit() and len(data) != int(length):
                raise _Transient(f"truncated body ({len(data)} of {length} bytes)")
            return data

        return self._retrying(item, shown, action)  # type: ignore[return-value]

    def head(self, url: str, item: Optional[str] = None) -> RemoteInfo:
        """Size and validators of a remote file (``HEAD``, with retries)."""
        item = item or url

        def action() -> RemoteInfo:
            with self._open(url, method="HEAD") as response:
                length = response.headers.get("Content-Length")
                return RemoteInfo(url=url,
                                  size=int(length) if length and length.isdigit() else None,
                                  etag=response.headers.get("ETag"),
                                  last_modified=response.headers.get("Last-Modified"))

        return self._retrying(item, url, action)  # type: ignore[return-value]

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
            (e.g. :func:`verify_gzip`). A failed check discards the data.
        progress : bool
            Show a tqdm byte progress bar.

        Returns
        -------
        FetchResult
            The finished file is ``<state_dir>/<key>.done``; install it with
            :func:`install_file`.

        Raises
        ------
        DownloadError
            After ``policy.max_attempts`` failed attempts, or at once for a
            permanent HTTP error (:class:`RemoteNotFoundError`).
        """
        item = item or name
        state = Path(state_dir)
        state.mkdir(parents=True, exist_ok=True)
        key = _state_key(url, name)
        part, checkpoint, done = (state / f"{key}.part", state / f"{key}.json",
                                  state / f"{key}.done")
        session = _Transfer(self, url, item, part, checkpoint, expected_size, progress)
        if done.exists():  # finished by an earlier run that stopped before installing it
            if _check_file(done, expected_size, sha256, verify) is None:
                return FetchResult(done, done.stat().st_size, sha256_file(done), True, 0)
            done.unlink()
        resumed = part.exists() and part.stat().st_size > 0
        attempts = 0

        def action() -> FetchResult:
            nonlocal attempts, resumed
            attempts += 1
            resumed = session.run() or resumed
            problem = _check_file(part, expected_size, sha256, verify)
            if problem is not None:
                session.discard()
                raise _Transient(problem)
            size, digest = part.stat().st_size, sha256_file(part)
            _fsync_file(part)
            os.replace(part, done)
            checkpoint.unlink(missing_ok=True)
            return FetchResult(done, size, digest, resumed, attempts)

        return self._retrying(item, url, action)  # type: ignore[return-value]


@dataclass
class _Transfer:
    """One resumable GET into a part file, with its checkpoint (internal)."""

    client: HttpClient
    url: str
    item: str
    part: Path
    checkpoint: Path
    expected_size: Optional[int]
    progress: bool
    _meta: Dict[str, object] = field(default_factory=dict)

    def discard(self) -> None:
        """Forget all partial data (after a failed verification)."""
        self.part.unlink(missing_ok=True)
        self.checkpoint.unlink(missing_ok=True)

    def _resume_offset(self) -> int:
        if not self.part.exists():
            self.checkpoint.unlink(missing_ok=True)
            return 0
        meta = _read_checkpoint(self.checkpoint)
        if meta.get("url") != self.url:
            self.discard()
            return 0
        self._meta = meta
        return self.part.stat().st_size

    def _request_headers(self, offset: int) -> Dict[str, str]:
        if offset <= 0:
            return {}
        headers = {"Range": f"bytes={offset}-"}
        validator = self._meta.get("etag") or self._meta.get("last_modified")
        if isinstance(validator, str) and validator:
            headers["If-Range"] = validator
        return headers

    def run(self) -> bool:
        """Transfer what is missing; return True when earlier bytes were reused."""
        offset = self._resume_offset()
        if offset > 0 and offset == self._meta.get("total"):
            return True  # complete before an interruption: only verification is left
        try:
            response = self.client._open(self.url, headers=self._request_headers(offset))
        except urllib.error.HTTPError as exc:
            if exc.code == 416 and offset > 0:
                exc.close()
                self.discard()
                raise _Transient("server refused the resume range; starting over") from exc
            raise
        with response:
            total, reused = self._start(response, offset)
            self._stream(response, total, offset if reused else 0)
        size = self.part.stat().st_size
        if total is not None and size < total:
            raise _Transient(f"truncated body: {size} of {total} bytes received")
        if total is not None and size > total:
            self.discard()
            raise _Transient(f"body longer than announced ({size} > {total} bytes)")
        return reused

    def _start(self, response, offset: int) -> tuple[Optional[int], bool]:
        headers = response.headers
        status = getattr(response, "status", 200)
        if status == 206 and offset > 0:
            start, total = _content_range_total(headers.get("Content-Range"))
            if start != offset:
                self.discard()
                raise _Transient(f"server resumed at byte {start}, expected {offset}")
            reused = True
        else:
            length = headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            self.part.write_bytes(b"")
            reused = False
        if total is None and self.expected_size is not None:
            total = self.expected_size
        atomic_write_json(self.checkpoint, {
            "url": self.url, "total": total,
            "etag": headers.get("ETag"), "last_modified": headers.get("Last-Modified"),
        })
        return total, reused

    def _stream(self, response, total: Optional[int], offset: int) -> None:
        bar = progress(total=total, initial=offset, unit="B", unit_scale=True,
                       unit_divisor=1024, desc=self.item, leave=False, enabled=self.progress)
        try:
            with open(self.part, "ab") as handle:
                while True:
                    block = response.read(CHUNK_SIZE)
                    if not block:
                        break
                    handle.write(block)
                    bar.update(len(block))
                handle.flush()
        finally:
            bar.close()
