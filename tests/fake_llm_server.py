"""A scripted OpenAI-compatible chat server on 127.0.0.1 (no test calls the internet).

``POST /v1/chat/completions`` answers with the text a *responder* returns for
the request body; every request is logged (body and headers). Faults queued
with :meth:`FakeLLM.fail` apply to the next requests, one each:

``429``       ``429 Too Many Requests`` with ``Retry-After: retry_after``
``500``       ``500 Internal Server Error``
``stall``     wait ``stall`` seconds before answering (longer than the client's timeout)
``echo-key``  ``401`` whose body repeats the request's ``Authorization`` header

Usage counts are deterministic: ``prompt_tokens`` = characters of the
messages // 4, ``completion_tokens`` = characters of the reply // 4.

:class:`Script` is a responder for GenoAgent: it reads the ``ROLE:`` line of
the system prompt and the ``REQUEST:`` / ``STEP:`` / ``TASK:`` lines of the
last user message, and pops the next reply queued for the most specific
matching key; plans default to ``{"action": "next"}`` and reviews to
``APPROVED``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Dict, List, Optional, Tuple

Responder = Callable[[dict], str]
NO_REPLY = "NO SCRIPTED REPLY FOR THIS REQUEST"


class FakeLLM:
    """The server (use as a context manager)."""

    def __init__(self, responder: Optional[Responder] = None, model: str = "fake-model") -> None:
        self.responder: Responder = responder or (lambda body: "ok")
        self.model = model
        self.requests: List[dict] = []
        self.headers: List[Dict[str, str]] = []
        self.times: List[float] = []
        self.faults: List[str] = []
        self.retry_after = "1"
        self.stall = 2.0
        self._lock = threading.Lock()
        self._server: Optional[ThreadingHTTPServer] = None

    def fail(self, *kinds: str) -> None:
        """Queue faults for the next requests."""
        with self._lock:
            self.faults.extend(kinds)

    def _next_fault(self) -> Optional[str]:
        with self._lock:
            return self.faults.pop(0) if self.faults else None

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``."""
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> "FakeLLM":
        server = self

        class Handler(_Handler):
            fake = server

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                         daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> "FakeLLM":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class _Handler(BaseHTTPRequestHandler):
    fake: FakeLLM

    def log_message(self, *args) -> None:
        pass

    def _send(self, status: int, body: bytes, headers: Optional[Dict[str, str]] = None) -> None:
        try:
            self.send_response(status)
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_POST(self) -> None:
        fake = self.fake
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with fake._lock:
            fake.requests.append(body)
            fake.headers.append(dict(self.headers))
            fake.times.append(time.monotonic())
        if not self.path.endswith("/chat/completions"):
            self._send(404, b'{"error": "not found"}')
            return
        fault = fake._next_fault()
        if fault == "429":
            self._send(429, b'{"error": "rate limited"}', {"Retry-After": fake.retry_after})
            return
        if fault == "500":
            self._send(500, b'{"error": "server error"}')
            return
        if fault == "echo-key":
            echoed = json.dumps({"error": f"bad key {self.headers.get('Authorization')}"})
            self._send(401, echoed.encode())
            return
        if fault == "stall":
            time.sleep(fake.stall)
        content = fake.responder(body)
        prompt = sum(len(m.get("content", "")) for m in body.get("messages", []))
        answer = {"id": f"chat-{len(fake.requests)}", "object": "chat.completion",
                  "model": body.get("model") or fake.model,
                  "choices": [{"index": 0, "finish_reason": "stop",
                               "message": {"role": "assistant", "content": content}}],
                  "usage": {"prompt_tokens": prompt // 4,
                            "completion_tokens": len(content) // 4,
                            "total_tokens": prompt // 4 + len(content) // 4}}
        self._send(200, json.dumps(answer).encode())


def request_fields(body: dict) -> Dict[str, str]:
    """``role``, ``request``, ``step``, ``task`` of a GenoAgent request ('' when absent)."""
    messages = body.get("messages", [])
    system = next((m["content"] for m in messages if m["role"] == "system"), "")
    last = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    found = {"role": re.search(r"^ROLE: (.+)$", system, re.M)}
    for name in ("request", "step", "task"):
        found[name] = re.search(rf"^{name.upper()}: (.+)$", last, re.M)
    return {name: match.group(1).strip() if match else "" for name, match in found.items()}


class Script:
    """Replies queued per ``(request, step, task)``, ``(request, step)`` or ``(request,)``."""

    DEFAULTS = {"plan": '{"action": "next"}', "review": "APPROVED"}

    def __init__(self) -> None:
        self.queues: Dict[Tuple[str, ...], List[str]] = defaultdict(list)
        self.seen: List[Dict[str, str]] = []

    def add(self, request: str, *replies: str, step: str = "", task: str = "") -> "Script":
        """Queue replies for requests of this kind (and step, and task)."""
        key = tuple(k for k in (request, step, task) if k)
        self.queues[key].extend(replies)
        return self

    def __call__(self, body: dict) -> str:
        fields = request_fields(body)
        self.seen.append(fields)
        request, step, task = fields["request"], fields["step"], fields["task"]
        for key in ((request, step, task), (request, step), (request,)):
            if self.queues.get(key):
                return self.queues[key].pop(0)
        return self.DEFAULTS.get(request, NO_REPLY)

    def left(self) -> Dict[Tuple[str, ...], List[str]]:
        """Replies queued but never asked for."""
        return {key: replies for key, replies in self.queues.items() if replies}
