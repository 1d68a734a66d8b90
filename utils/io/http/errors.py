"""Errors of a transfer: permanent ones name the item and the URL, transient ones are retried."""

from __future__ import annotations

from typing import Optional


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

    Examples
    --------
    >>> str(DownloadError("GSE1 (Asthma)", "https://example.org/x", "HTTP 500", 3))
    'GSE1 (Asthma): could not fetch https://example.org/x after 3 attempts: HTTP 500'
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


class DeadlineExceeded(DownloadError):
    """A deadline passed before the transfer could finish.

    Parameters
    ----------
    item, url, reason, attempts
        As for :class:`DownloadError` (``reason``: the last failure).
    kind : str
        ``"request"``, ``"transfer"`` or ``"run"``.
    seconds : float, optional
        The configured length of the deadline.
    """

    def __init__(self, item: str, url: str, reason: str, attempts: int, kind: str,
                 seconds: Optional[float] = None) -> None:
        self.kind = kind
        self.seconds = seconds
        length = f" of {seconds:g} s" if seconds is not None else ""
        super().__init__(item, url, f"{reason}; stopped: the {kind} deadline{length} "
                                    "passed", attempts)


class RunDeadlineExceeded(DeadlineExceeded):
    """The run's deadline (``--run-deadline``) passed: the command stops."""


class RedirectRefusedError(DownloadError):
    """The server redirected to a host outside the configured ones (never followed)."""


class TransientFailure(Exception):
    """A failure worth retrying (timeout, reset, 5xx, truncation, failed check).

    Parameters
    ----------
    reason : str
        In plain words; becomes the :class:`DownloadError` reason when the
        attempts run out.
    retry_after : float, optional
        Seconds the server asked to wait (``Retry-After``).
    """

    def __init__(self, reason: str, retry_after: Optional[float] = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after
