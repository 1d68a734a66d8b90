"""A local HTTP server (127.0.0.1) standing in for E-utilities, GEO and the Xena hub.

Tests register files and JSON routes, then queue faults per path; each request
to that path consumes the next fault:

``timeout``   answer nothing for ``hub.stall`` seconds, then close
``429``       ``429 Too Many Requests`` with ``Retry-After: hub.retry_after``
``500``       ``500 Internal Server Error``
``truncate``  announce the full ``Content-Length``, send half the body, close
``reset``     send part of the body, then reset the connection (TCP RST)
``corrupt``   send a body of the right length with one byte changed
``norange``   ignore a ``Range`` header and send the whole file with 200
``trickle``   announce the full length, then send one byte every ``hub.trickle_delay`` s
``html``      answer 200 with an HTML error page (``Content-Type: text/html``)
``short``     announce and send only the first half of the file (HEAD too): a
              consistently short ``Content-Length``
``oversize``  no ``Content-Length``; send the file followed by ``hub.oversize_extra``
              junk bytes until the client hangs up (``hub.sent`` counts the bytes
              the server managed to write)

Files support ``Range: bytes=N-`` (206 with ``Content-Range``) and ``If-Range``
(ETag), HEAD, and folder listings for paths ending in ``/`` (like GEO's HTTPS
area). ``hub.chunk_delay`` slows every body down (for kill-and-resume tests).
``hub.redirects[path] = url`` answers ``302 Found`` with that ``Location``.
"""

from __future__ import annotations

import hashlib
import socket
import struct
import threading
import time
import urllib.parse
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Dict, List, Optional, Tuple

Route = Callable[[Dict[str, str]], Tuple[int, Dict[str, str], bytes]]


class FakeHub:
    """Registry of files, routes, queued faults and a request log."""

    def __init__(self) -> None:
        self.files: Dict[str, bytes] = {}
        self.routes: Dict[str, Route] = {}
        self.faults: Dict[str, List[str]] = defaultdict(list)
        self.log: List[Tuple[str, str, Optional[str]]] = []
        self.stall = 1.0
        self.retry_after = "0"
        self.chunk_size = 4096
        self.chunk_delay = 0.0
        self.trickle_delay = 0.5
        self.oversize_extra = 32 << 20
        self.redirects: Dict[str, str] = {}
        self.sent: Dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()
        self._server: Optional[ThreadingHTTPServer] = None
        self._thread: Optional[threading.Thread] = None

    # -- registration ---------------------------------------------------------------
    def add_file(self, path: str, data: bytes) -> None:
        self.files[path] = data

    def add_route(self, path: str, route: Route) -> None:
        self.routes[path] = route

    def fail(self, path: str, *kinds: str) -> None:
        with self._lock:
            self.faults[path].extend(kinds)

    def next_fault(self, path: str) -> Optional[str]:
        with self._lock:
            queue = self.faults.get(path)
            return queue.pop(0) if queue else None

    def requests_for(self, path: str) -> List[Tuple[str, str, Optional[str]]]:
        return [entry for entry in self.log if entry[1] == path]

    # -- life cycle -----------------------------------------------------------------
    @property
    def base_url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "FakeHub":
        hub = self

        class Handler(_Handler):
            pass

        Handler.hub = hub
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> "FakeHub":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _etag(data: bytes) -> str:
    return '"' + hashlib.sha1(data).hexdigest()[:16] + '"'


class _Handler(BaseHTTPRequestHandler):
    hub: FakeHub

    def log_message(self, *args) -> None:  # keep pytest output clean
        pass

    def do_HEAD(self) -> None:
        self._serve(head=True)

    def do_GET(self) -> None:
        self._serve(head=False)

    # -- helpers --------------------------------------------------------------------
    def _send(self, status: int, headers: Dict[str, str], body: bytes, head: bool) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self._write_body(body)

    def _write_body(self, body: bytes) -> None:
        step = self.hub.chunk_size
        for start in range(0, len(body), step):
            try:
                self.wfile.write(body[start:start + step])
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                return
            if self.hub.chunk_delay:
                time.sleep(self.hub.chunk_delay)

    def _reset(self) -> None:
        self.wfile.flush()
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                   struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def _listing(self, path: str) -> Optional[bytes]:
        names = sorted({key[len(path):].split("/")[0] + ("/" if "/" in key[len(path):] else "")
                        for key in self.hub.files if key.startswith(path)})
        if not names:
            return None
        rows = "".join(f'<a href="{name}">{name}</a>  01-Jan-2024 00:00  1.0M\n'
                       for name in names)
        return (f"<html><head><title>Index of {path}</title></head><body><h1>Index of "
                f"{path}</h1><pre><a href=\"../\">Parent Directory</a>\n{rows}</pre>"
                "</body></html>").encode()

    def _serve(self, head: bool) -> None:
        parsed = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(parsed.path)
        query = dict(urllib.parse.parse_qsl(parsed.query))
        range_header = self.headers.get("Range")
        self.hub.log.append(("HEAD" if head else "GET", path, range_header))
        fault = self.hub.next_fault(path)
        if fault == "timeout":
            time.sleep(self.hub.stall)
            self.close_connection = True
            return
        if fault == "429":
            self._send(429, {"Retry-After": self.hub.retry_after}, b"slow down", head)
            return
        if fault == "500":
            self._send(500, {}, b"server error", head)
            return
        if fault == "html":
            page = b"<!DOCTYPE html><html><body><h1>Service unavailable</h1></body></html>\n"
            self._send(200, {"Content-Type": "text/html; charset=utf-8"}, page, head)
            return
        if path in self.hub.redirects:
            self._send(302, {"Location": self.hub.redirects[path]}, b"", head)
            return
        if path in self.hub.routes:
            status, headers, body = self.hub.routes[path](query)
            self._send(status, headers, body, head)
            return
        data = self.hub.files.get(path)
        if data is None and path.endswith("/"):
            listing = self._listing(path)
            if listing is not None:
                self._send(200, {"Content-Type": "text/html"}, listing, head)
                return
        if data is None:
            self._send(404, {}, b"not found", head)
            return
        self._serve_file(data, range_header, fault, head)

    def _trickle(self, body: bytes) -> None:
        for position in range(len(body)):
            try:
                self.wfile.write(body[position:position + 1])
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError, OSError):
                return
            time.sleep(self.hub.trickle_delay)

    def _oversize(self, data: bytes, path: str) -> None:
        self.send_response(200)
        self.send_header("Connection", "close")
        self.end_headers()
        junk = b"x" * 65536
        try:
            self.wfile.write(data)
            self.hub.sent[path] += len(data)
            for _ in range(self.hub.oversize_extra // len(junk)):
                self.wfile.write(junk)
                self.hub.sent[path] += len(junk)
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        self.close_connection = True

    def _serve_file(self, data: bytes, range_header: Optional[str], fault: Optional[str],
                    head: bool) -> None:
        if fault == "short":
            data = data[:len(data) // 2]
        if fault == "oversize" and not head:
            self._oversize(data, urllib.parse.unquote(urllib.parse.urlsplit(self.path).path))
            return
        etag = _etag(data)
        start = 0
        if range_header and fault != "norange" and range_header.startswith("bytes="):
            if_range = self.headers.get("If-Range")
            if if_range is None or if_range == etag:
                start = int(range_header[6:].split("-")[0])
        if start >= len(data) and start > 0:
            self._send(416, {"Content-Range": f"bytes */{len(data)}"}, b"", head)
            return
        body = data[start:]
        if fault == "corrupt":
            body = bytes([body[0] ^ 0xFF]) + body[1:]
        status = 206 if start else 200
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Accept-Ranges", "bytes")
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        self.end_headers()
        if head:
            return
        if fault == "truncate":
            self._write_body(body[:len(body) // 2])
            self.close_connection = True
            return
        if fault == "reset":
            self._write_body(body[:len(body) // 3])
            self._reset()
            return
        if fault == "trickle":
            self._trickle(body)
            self.close_connection = True
            return
        self._write_body(body)
