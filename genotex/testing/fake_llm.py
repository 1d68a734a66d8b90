"""A scripted OpenAI-compatible chat server on 127.0.0.1 (no test calls the internet).

``POST /v1/chat/completions`` answers with what a *responder* returns for the
request body: a text (the message content), or a dict with any of
``content``, ``reasoning_content``, ``reasoning``, ``tool_calls``,
``finish_reason`` (a reply shaped like a given server's). ``GET /v1/models``
lists :attr:`FakeLLM.models` (404 when None). Every chat request is logged
(body and headers; model listings in :attr:`FakeLLM.listings`). Faults queued
with :meth:`FakeLLM.fail` apply to the next chat requests, one each:

``429``         ``429 Too Many Requests`` with ``Retry-After: retry_after``
``500``         ``500 Internal Server Error``
``stall``       wait ``stall`` seconds before answering (longer than the client's timeout)
``echo-key``    ``401`` whose body repeats the request's ``Authorization`` header
``error-body``  ``200`` whose body is an ``error`` object and no choice (gateways do that)
``404``         ``404`` naming an unknown model
``drop``        close the connection without an answer

Structured output (:attr:`FakeLLM.structured`): ``"accept"`` takes any
``response_format`` (the default), ``"json_object"`` refuses ``json_schema``
with 400, ``"refuse"`` refuses any ``response_format`` with 400 (older llama.cpp,
vLLM and OpenAI models do). :attr:`FakeLLM.tools` False refuses ``tools``.

Usage counts are deterministic (:func:`completion`). :attr:`FakeLLM.latency` seconds
are waited before every chat answer (a model's time to answer).

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
        self.models: Optional[List[str]] = [model]
        self.listings = 0
        self.structured = "accept"
        self.tools = True
        self.latency = 0.0
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

    def do_GET(self) -> None:
        fake = self.fake
        with fake._lock:
            fake.listings += 1
        if not self.path.endswith("/v1/models") or fake.models is None:
            self._send(404, b'{"error": "not found"}')
            return
        listing = {"object": "list", "data": [{"id": m, "object": "model"} for m in fake.models]}
        self._send(200, json.dumps(listing).encode())

    def _refusal(self, body: dict) -> Optional[str]:
        """Why the server refuses the request's options (None: it does not)."""
        fake = self.fake
        kind = (body.get("response_format") or {}).get("type")
        if kind and (fake.structured == "refuse"
                     or (fake.structured == "json_object" and kind == "json_schema")):
            return f"response_format type {kind} is not supported"
        if body.get("tools") and not fake.tools:
            return "tools are not supported"
        return None

    def do_POST(self) -> None:
        fake = self.fake
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        with fake._lock:
            fake.requests.append(body)
            fake.headers.append(dict(self.headers))
            fake.times.append(time.monotonic())
        if not self.path.endswith("/v1/chat/completions"):
            self._send(404, b'{"error": "not found"}')
            return
        refusal = self._refusal(body)
        if refusal:
            self._send(400, json.dumps({"error": {"message": refusal}}).encode())
            return
        if fake.latency:
            time.sleep(fake.latency)
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
        if fault == "drop":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if fault == "error-body":
            self._send(200, b'{"error": {"message": "upstream overloaded", "code": 502}}')
            return
        if fault == "404":
            self._send(404, json.dumps({"error": {"message": f"model '{body.get('model')}' "
                                                             "not found"}}).encode())
            return
        if fault == "stall":
            time.sleep(fake.stall)
        self._send(200, json.dumps(completion(body, fake.responder(body), fake.model,
                                              len(fake.requests))).encode())


def completion(body: dict, reply, model: str, number: int) -> dict:
    """A chat-completion document for ``reply`` (a text or a message dict, see module doc).

    Usage counts are deterministic: characters of the messages // 4 and of the
    reply (content, reasoning and tool arguments) // 4.
    """
    reply = {"content": reply} if isinstance(reply, str) else dict(reply)
    finish = reply.pop("finish_reason", "tool_calls" if reply.get("tool_calls") else "stop")
    message = {"role": "assistant", "content": reply.pop("content", None), **reply}
    prompt = sum(len(m.get("content") or "") for m in body.get("messages", []))
    produced = sum(len(message.get(k) or "") for k in ("content", "reasoning_content",
                                                         "reasoning"))
    produced += sum(len(c["function"]["arguments"]) for c in message.get("tool_calls") or [])
    return {"id": f"chat-{number}", "object": "chat.completion",
            "model": body.get("model") or model,
            "choices": [{"index": 0, "finish_reason": finish, "message": message}],
            "usage": {"prompt_tokens": prompt // 4, "completion_tokens": produced // 4,
                      "total_tokens": prompt // 4 + produced // 4}}


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
        for combination in ((request, step, task), (request, step), (request,)):
            key = tuple(k for k in combination if k)
            if self.queues.get(key):
                return self.queues[key].pop(0)
        return self.DEFAULTS.get(request, NO_REPLY)

    def left(self) -> Dict[Tuple[str, ...], List[str]]:
        """Replies queued but never asked for."""
        return {key: replies for key, replies in self.queues.items() if replies}
