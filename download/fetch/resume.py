"""Resumable transfer of one file into the state folder (``Range`` / ``If-Range``).

Data is streamed into a *part file* beside a small JSON *checkpoint* (URL,
total size, ETag / Last-Modified). An interrupted transfer (timeout, reset,
truncated body, a killed process) continues from the bytes already on disk;
``If-Range`` makes the server send the whole file again when it changed. A
finished file is verified, then renamed to ``<key>.done``; nothing is written
inside the data tree here (see :func:`download.fetch.files.install_file`).

Before any byte is written the answer is checked: an HTML page
(``Content-Type: text/html``) is not the file; an announced size that differs
from the expected one (the ``HEAD`` made while planning, or the manifest) or
exceeds ``RetryPolicy.max_body_bytes`` is refused. The body is then read under
a cap (the announced, else the expected, else the maximum size), so a server
sending more than it announced is stopped at the cap, not after writing it all.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.error
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Optional

from download.fetch.body import BodyTooLarge, ascii_int, read_body
from download.fetch.client import HttpClient
from download.fetch.files import Verifier, check_file, fsync_file
from utils.io import PathLike, atomic_write_json, file_sha256
from utils.io.http.errors import DownloadError, TransientFailure
from utils.io.http.retry import Deadline
from utils.logs import progress as progress_bar


@dataclass(frozen=True)
class FetchResult:
    """A completed, verified transfer sitting in the state folder.

    Attributes
    ----------
    path : pathlib.Path
        The staged file (move it into place with
        :func:`download.fetch.files.install_file`).
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


def state_key(url: str, name: str) -> str:
    """Base name of a transfer's state files: a digest of the URL and a safe ``name``.

    Examples
    --------
    >>> state_key("https://example.org/a b.gz", "a b.gz")
    '132968028aba-a_b.gz'
    """
    digest = hashlib.sha1(url.encode("utf-8")).hexdigest()[:12]
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)
    return f"{digest}-{safe}"


def content_range(value: Optional[str]) -> tuple[Optional[int], Optional[int]]:
    """``(start, total)`` from ``Content-Range: bytes start-end/total``.

    Examples
    --------
    >>> content_range("bytes 100-199/1000")
    (100, 1000)
    >>> content_range("bytes 100-199/*")
    (100, None)
    """
    if not value or not value.startswith("bytes "):
        return None, None
    span, _, total = value[6:].partition("/")
    start = span.partition("-")[0]
    return ascii_int(start), ascii_int(total)


def _read_checkpoint(path: Path) -> Dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def fetch_resumable(client: HttpClient, url: str, state_dir: PathLike, name: str, *,
                    item: Optional[str] = None, expected_size: Optional[int] = None,
                    sha256: Optional[str] = None, verify: Optional[Verifier] = None,
                    progress: bool = True) -> FetchResult:
    """Download ``url`` into ``state_dir``, resuming earlier partial data, with retries.

    Parameters
    ----------
    client : HttpClient
        Sends each request and retries by its policy and deadlines.
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
        (e.g. :func:`utils.io.gzip_content_digest`). A failed check
        discards the data and counts as a failed attempt.
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
    item = item or name
    state = Path(state_dir)
    state.mkdir(parents=True, exist_ok=True)
    key = state_key(url, name)
    part, checkpoint, done = (state / f"{key}.part", state / f"{key}.json",
                              state / f"{key}.done")
    transfer = ResumableTransfer(client, url, item, part, checkpoint, expected_size, progress)
    if done.exists():  # finished by an earlier run that stopped before installing it
        if check_file(done, expected_size, sha256, verify) is None:
            return FetchResult(done, done.stat().st_size, file_sha256(done), True, 0)
        done.unlink()
    resumed = part.exists() and part.stat().st_size > 0
    attempts = 0

    def attempt(deadline: Deadline) -> FetchResult:
        nonlocal attempts, resumed
        attempts += 1
        resumed = transfer.run(deadline) or resumed
        problem = check_file(part, expected_size, sha256, verify)
        if problem is not None:
            transfer.discard()
            raise TransientFailure(problem)
        size, digest = part.stat().st_size, file_sha256(part)
        fsync_file(part)
        os.replace(part, done)
        checkpoint.unlink(missing_ok=True)
        return FetchResult(done, size, digest, resumed, attempts)

    return client.retrying(item, url, attempt)


@dataclass
class ResumableTransfer:
    """One resumable GET into a part file, with its checkpoint.

    Attributes
    ----------
    client : HttpClient
        Sends each request (:meth:`HttpClient.open`, one attempt).
    url, item : str
    part, checkpoint : pathlib.Path
        The partial data and its JSON checkpoint.
    expected_size : int, optional
        Used as the total when the server does not announce one.
    progress : bool
        Show a byte progress bar.
    """

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

    def run(self, deadline: Deadline) -> bool:
        """Transfer what is missing; return True when earlier bytes were reused."""
        offset = self._resume_offset()
        if offset > 0 and offset == self._meta.get("total"):
            return True  # complete before an interruption: only verification is left
        try:
            response = self.client.open(self.url, headers=self._request_headers(offset),
                                        deadline=deadline)
        except urllib.error.HTTPError as exc:
            if exc.code == 416 and offset > 0:
                exc.close()
                self.discard()
                raise TransientFailure("server refused the resume range; starting over") \
                    from exc
            raise
        with response:
            total, reused = self._start(response, offset)
            self._stream(response, total, offset if reused else 0, deadline)
        size = self.part.stat().st_size
        if total is not None and size < total:
            raise TransientFailure(f"truncated body: {size} of {total} bytes received")
        return reused

    def _check_answer(self, response, total: Optional[int]) -> None:
        """Refuse an HTML page or a wrong or too large announced size, before writing."""
        kind = (response.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if kind in ("text/html", "application/xhtml+xml"):
            raise TransientFailure(f"the server answered with an HTML page (Content-Type "
                                   f"{kind}) instead of the file")
        if total is None:
            return
        if self.expected_size is not None and total != self.expected_size:
            raise TransientFailure(f"the server announces {total} bytes, expected "
                                   f"{self.expected_size} (from the listing or manifest)")
        limit = self.client.policy.max_body_bytes
        if total > limit:
            raise DownloadError(self.item, self.url, f"file of {total} bytes, more than the "
                                f"size limit of {limit} bytes")

    def _start(self, response, offset: int) -> tuple[Optional[int], bool]:
        headers = response.headers
        status = getattr(response, "status", 200)
        if status == 206 and offset > 0:
            start, total = content_range(headers.get("Content-Range"))
            self._check_answer(response, total)
            if start != offset:
                self.discard()
                raise TransientFailure(f"server resumed at byte {start}, expected {offset}")
            reused = True
        else:
            total = ascii_int(headers.get("Content-Length"))
            self._check_answer(response, total)
            self.part.write_bytes(b"")
            reused = False
        if total is None and self.expected_size is not None:
            total = self.expected_size
        atomic_write_json(self.checkpoint, {
            "url": self.url, "total": total,
            "etag": headers.get("ETag"), "last_modified": headers.get("Last-Modified"),
        })
        return total, reused

    def _stream(self, response, total: Optional[int], offset: int,
                deadline: Deadline) -> None:
        """Append the body to the part file, at most up to ``total`` (or the size limit)."""
        limit = (total if total is not None else self.client.policy.max_body_bytes) - offset
        bar = progress_bar(total=total, initial=offset, unit="B", unit_scale=True,
                           unit_divisor=1024, desc=self.item, leave=False,
                           enabled=self.progress)
        try:
            with open(self.part, "ab") as handle:
                try:
                    read_body(response, handle.write, limit=limit, deadline=deadline,
                              policy=self.client.policy, progress=bar.update)
                except BodyTooLarge:
                    handle.close()
                    self.discard()
                    raise
                handle.flush()
        finally:
            bar.close()
