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
* Transient failures (timeouts, resets, 408, 409, 425, 429, 5xx, truncation, a size or
  checksum mismatch) are retried a bounded number of times with exponential
  back-off and jitter; ``429``/``503`` ``Retry-After`` is honoured. Permanent
  failures (404 and other 4xx) stop at once. The final error names the item.
* Request, transfer and run deadlines and a minimum speed bound the time spent
  (a server trickling bytes ends too); a body is cut at its announced, expected
  or maximum size; an HTML answer or a wrong announced size is refused before
  any byte is written; redirects stay within the configured hosts.
* The clock, the sleep function and the random generator are injectable, so
  tests run against a local server without real waiting.

The retry policy, the deadlines, the rate limit, ``Retry-After`` and the transfer
errors are the project's HTTP floor, :mod:`utils.io.http` (shared with the
language-model client). Here, one module per concern:

==============  ====================================================================
module          what
==============  ====================================================================
``client``      :class:`HttpClient`: requests, failure classification, ``get_bytes``,
                ``head``
``body``        reading a body under a size cap, a deadline and a minimum speed
``redirects``   the redirect policy (configured hosts only, no https -> http)
``resume``      :func:`fetch_resumable`: the resumable transfer of one file into a
                part file and its checkpoint
``files``       verification (size, SHA-256, text tables), :func:`install_file`,
                the state folder
==============  ====================================================================

May import: ``utils`` and the standard library; nothing else of ``download``.
"""

from download.fetch.client import USER_AGENT, HttpClient, RemoteInfo, redact_url
from download.fetch.files import (CHUNK_SIZE, ENV_STATE_DIR, Verifier, default_state_dir,
                                  install_file, verify_text)
from download.fetch.resume import FetchResult, fetch_resumable

__all__ = [
    "CHUNK_SIZE", "ENV_STATE_DIR", "USER_AGENT", "FetchResult", "HttpClient", "RemoteInfo",
    "Verifier", "default_state_dir", "fetch_resumable", "install_file", "redact_url",
    "verify_text",
]
