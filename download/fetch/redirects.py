"""Which HTTP redirects a download follows.

Policy (documented in ``docs/download.md``): a redirect is followed only when
its target's host is the host of the original request or one of the
*configured* hosts (those of the base URLs a command was given: E-utilities,
GEO, the Xena hub), and it does not downgrade ``https`` to ``http``. Any other
redirect is refused as a permanent failure naming the target
(:class:`~utils.io.http.errors.RedirectRefusedError`): data is never taken
from a host the user did not name. ``urllib`` still bounds the chain (10 hops).
"""

from __future__ import annotations

import urllib.parse
import urllib.request
from typing import FrozenSet, Iterable


class RedirectRefused(Exception):
    """Raised inside ``urllib`` for a redirect outside the policy (internal)."""

    def __init__(self, target: str, reason: str) -> None:
        super().__init__(f"redirected to {target}: {reason}")
        self.target = target
        self.reason = reason


def host_of(url: str) -> str:
    """Lower-case host name of a URL (port left out).

    Examples
    --------
    >>> host_of("https://FTP.ncbi.nlm.nih.gov:443/geo/")
    'ftp.ncbi.nlm.nih.gov'
    """
    return (urllib.parse.urlsplit(url).hostname or "").lower()


class HostRedirectHandler(urllib.request.HTTPRedirectHandler):
    """Follow redirects only to the original host or a configured one, never to http.

    Parameters
    ----------
    allowed_hosts : iterable of str
        Host names (or URLs, whose host is taken) redirects may lead to, besides
        the host of the original request.
    """

    def __init__(self, allowed_hosts: Iterable[str] = ()) -> None:
        super().__init__()
        self.allowed_hosts: FrozenSet[str] = frozenset(
            host_of(h) if "://" in h else h.lower() for h in allowed_hosts)

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        target = urllib.parse.urljoin(req.full_url, newurl)
        parts = urllib.parse.urlsplit(target)
        origin = req.origin_req_host.lower()
        host = (parts.hostname or "").lower()
        if urllib.parse.urlsplit(req.full_url).scheme == "https" and parts.scheme != "https":
            raise RedirectRefused(target, "a redirect from https to another scheme is not "
                                  "followed")
        if host != origin and host not in self.allowed_hosts:
            allowed = ", ".join(sorted(self.allowed_hosts | {origin}))
            raise RedirectRefused(target, f"host {host!r} is not one of the configured hosts "
                                  f"({allowed}); redirects to other hosts are not followed")
        return super().redirect_request(req, fp, code, msg, headers, newurl)
