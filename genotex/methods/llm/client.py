"""A client for OpenAI-compatible chat-completions endpoints (standard library only).

Any server speaking ``POST {base_url}/chat/completions`` works: a hosted API,
vLLM, Ollama (``http://localhost:11434/v1``), llama.cpp's server, LM Studio.

* One seam, :meth:`ChatClient.complete` (a :class:`ChatRequest` in, a
  :class:`ChatReply` out): a per-exchange cache or a shared rate limiter can
  wrap it without touching the methods.
* Failures follow :mod:`.failures`: retried with back-off (honouring
  ``Retry-After``), failing the task, or stopping the run
  (:class:`EndpointError`, a :class:`~genotex.methods.errors.RunAborted`) --
  with one message naming the base URL and the cause.
* :meth:`ChatClient.probe` checks the endpoint once before a run (``GET
  /models``, else a one-token request): a dead server, a wrong base URL or an
  unknown model stop the run before any work starts.
* Structured output: a request may carry a JSON schema; it is sent as
  ``response_format`` ``json_schema``, else ``json_object``, else not at all --
  the client steps down the first time a server refuses one (HTTP 400/422) and
  remembers it. Tools (native function calling) are dropped the same way.
* Reasoning (``reasoning_content`` / ``reasoning`` fields) is kept apart from the
  answer; ``finish_reason: "length"`` marks a truncated reply.
* The API key exists only here: it is sent as the ``Authorization`` header, and
  removed from every text that comes back (answers, errors) and from every
  message sent, so neither the model nor any log can see it. A client sent to
  another process (a cluster worker) travels without its key: the copy reads it
  from the same environment variable there, and checks it against a digest.
* A shared :class:`~genotex.methods.llm.ratelimit.RateLimiter` (``limiter``)
  admits every attempt; a 429 answer pauses all the run's requests.
* ``offline`` (replaying a run): the client never contacts the server.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from genotex.methods.errors import RunAborted
from genotex.methods.llm.failures import (FAIL_TASK, RETRY, STOP_RUN, CircuitBreaker,
                                          classify_exception, classify_status)
from genotex.methods.llm.ratelimit import RateLimiter, Ticket, estimate_tokens
from utils.io.http import RetryPolicy, parse_retry_after

logger = logging.getLogger(__name__)

#: Characters of a server's error body kept in an error message.
ERROR_BODY_CHARS = 300
REDACTED = "[redacted]"
#: Structured-output levels, strongest first.
JSON_SCHEMA, JSON_OBJECT, NO_FORMAT = "json_schema", "json_object", "off"
STRUCTURED_LEVELS = (JSON_SCHEMA, JSON_OBJECT, NO_FORMAT)
#: Seconds the probe waits for ``GET /models`` (a listing is instant on any live server).
PROBE_TIMEOUT = 20.0
#: Keys ``--extra-body`` may not set (the client owns them).
RESERVED_KEYS = frozenset({"model", "messages", "response_format", "tools", "tool_choice",
                           "stream", "seed"})

Message = Mapping[str, Any]


class LLMError(RuntimeError):
    """The endpoint could not give an answer (after retries when they apply)."""


class DeadlineError(LLMError):
    """The time limit of the task ran out while waiting for the endpoint."""


class EndpointError(LLMError, RunAborted):
    """The endpoint cannot be used at all (auth, wrong URL, unknown model, nothing listening,
    repeated connection failures): the run stops."""


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every non-empty secret (and its JSON-escaped form) replaced."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
            escaped = json.dumps(secret)[1:-1]
            if escaped != secret:
                text = text.replace(escaped, REDACTED)
    return text


class Secret:
    """A string that never shows itself in ``repr`` or ``str``."""

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The secret itself (for the Authorization header only)."""
        return self._value

    def __repr__(self) -> str:
        return "Secret(***)" if self._value else "Secret(<empty>)"

    __str__ = __repr__


@dataclass(frozen=True)
class ToolCall:
    """A function call of the answer: its name and its raw ``arguments`` text."""

    name: str
    arguments: str


@dataclass(frozen=True)
class ChatReply:
    """One answer of the endpoint.

    Attributes
    ----------
    text : str
        The first choice's message content ('' when the answer is a tool call).
    model : str
        The model that answered (as reported by the server, else the one asked).
    input_tokens, output_tokens : int
        ``usage.prompt_tokens`` / ``usage.completion_tokens`` (0 when not reported).
    attempts : int
        Requests sent, the successful one included.
    seconds : float
        Wall time including retries.
    reasoning : str
        ``reasoning_content`` / ``reasoning`` of the message (never read as the answer).
    finish_reason : str
    tool_calls : tuple of ToolCall
    structured : str
        The structured-output level the request was sent with.
    """

    text: str
    model: str
    input_tokens: int
    output_tokens: int
    attempts: int
    seconds: float
    reasoning: str = ""
    finish_reason: str = ""
    tool_calls: Tuple[ToolCall, ...] = ()
    structured: str = NO_FORMAT

    @property
    def truncated(self) -> bool:
        """Whether the server cut the answer at the token limit."""
        return self.finish_reason == "length"


@dataclass(frozen=True)
class ChatRequest:
    """What to ask: the messages and how the answer should come.

    Attributes
    ----------
    messages : sequence of dict
        ``{"role": ..., "content": ...}``.
    model : str, optional
        Overrides the endpoint's default model (per-role models).
    schema : dict, optional
        ``{"name": ..., "schema": {...}}``: ask for JSON of this shape where the
        server supports structured output.
    tools : sequence of dict, optional
        OpenAI ``tools`` definitions (native function calling).
    """

    messages: Sequence[Message]
    model: Optional[str] = None
    schema: Optional[Mapping[str, Any]] = None
    tools: Sequence[Mapping[str, Any]] = ()


@dataclass(frozen=True)
class EndpointSettings:
    """Where the endpoint is and how patiently to talk to it.

    Attributes
    ----------
    base_url : str
        E.g. ``https://api.openai.com/v1`` or ``http://127.0.0.1:8000/v1``.
    model : str
        Default model name.
    retry : RetryPolicy
        Attempts, back-off and the timeout of one request.
    temperature : float, optional
    max_tokens : int, optional
        Sent as ``max_tokens`` when given.
    extra_body : mapping
        Extra top-level keys of every request (server options: vLLM
        ``chat_template_kwargs``, guided decoding, ``top_k`` ...).
    structured : str
        Strongest structured-output level to try (``json_schema``,
        ``json_object`` or ``off``).
    max_connection_failures : int
        Consecutive connection failures that stop the run (0: never).
    code_tool : bool
        Offer code requests a ``python`` function (native tool calling).
    seed : int, optional
        Sent as ``seed`` (repeated runs ask with different seeds).
    """

    base_url: str
    model: str
    retry: RetryPolicy = RetryPolicy(max_attempts=6, backoff_base=2.0, backoff_max=60.0,
                                     max_retry_after=120.0, timeout=300.0)
    temperature: Optional[float] = None
    max_tokens: Optional[int] = None
    extra_body: Mapping[str, Any] = field(default_factory=dict)
    structured: str = JSON_SCHEMA
    max_connection_failures: int = 4
    code_tool: bool = False
    seed: Optional[int] = None

    @property
    def url(self) -> str:
        """The chat-completions URL."""
        return self.base_url.rstrip("/") + "/chat/completions"

    @property
    def models_url(self) -> str:
        """The model-listing URL."""
        return self.base_url.rstrip("/") + "/models"


class _Failure(Exception):
    """One failed attempt: what to do and why."""

    def __init__(self, action: str, reason: str, retry_after: Optional[float] = None,
                 status: Optional[int] = None, connection: bool = False) -> None:
        super().__init__(reason)
        self.action, self.reason, self.retry_after = action, reason, retry_after
        self.status, self.connection = status, connection


class ChatClient:
    """Send chat requests to one endpoint (thread-safe).

    Parameters
    ----------
    settings : EndpointSettings
    api_key : str
        Sent as ``Authorization: Bearer``; empty for servers without keys.
    sleep, clock : callable, optional
        Injected in tests (default :func:`time.sleep`, :func:`time.monotonic`).
    seed : int
        Seed of the back-off jitter.
    limiter : RateLimiter, optional
        Shared by every client of the run (``--rpm``, ``--tpm``, 429 pauses).
    key_variable : str
        The environment variable the key came from: a copy of the client in
        another process (a cluster worker) reads the key from it there.
    offline : bool
        Never contact the server (a replayed run): requests raise
        :class:`EndpointError`, the probe answers without a request.
    """

    def __init__(self, settings: EndpointSettings, api_key: str = "",
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic, seed: int = 0,
                 limiter: Optional[RateLimiter] = None, key_variable: str = "",
                 offline: bool = False) -> None:
        if settings.structured not in STRUCTURED_LEVELS:
            raise ValueError(f"structured output must be one of {STRUCTURED_LEVELS}")
        self.settings = settings
        self.limiter = limiter if limiter is not None else RateLimiter(clock=clock, sleep=sleep)
        self.key_variable = key_variable
        self.offline = offline
        self._key_problem = ""
        self._key = Secret(api_key)
        self._sleep = sleep
        self._clock = clock
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._structured = settings.structured
        self._tools_refused = False
        self.breaker = CircuitBreaker(settings.max_connection_failures)

    def __repr__(self) -> str:
        return f"ChatClient({self.settings.url!r}, model={self.settings.model!r}, key={self._key})"

    def __reduce__(self) -> Tuple[Callable[..., "ChatClient"], Tuple[Any, ...]]:
        """Pickled without the key: the copy reads it from ``key_variable`` where it runs."""
        key = self._key.reveal()
        return _client_in_this_process, (self.settings, self.key_variable,
                                         key_digest(key) if key else "", self.limiter,
                                         self.offline, self._structured, self._tools_refused)

    @property
    def secrets(self) -> List[str]:
        """Strings every log, message and prompt must not contain."""
        return [self._key.reveal()] if self._key.reveal() else []

    @property
    def structured(self) -> str:
        """The structured-output level requests are sent with now."""
        return self._structured

    def _redact(self, text: str) -> str:
        return redact(text, self.secrets)

    # -- one HTTP exchange ------------------------------------------------------------
    def _headers(self) -> Dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key.reveal():
            headers["Authorization"] = "Bearer " + self._key.reveal()
        return headers

    def _http(self, url: str, payload: Optional[Dict[str, Any]], timeout: float) -> Any:
        """One request; the decoded JSON answer, or a :class:`_Failure`."""
        data = None if payload is None else json.dumps(payload).encode()
        request = urllib.request.Request(url, data=data, headers=self._headers(),
                                         method="GET" if payload is None else "POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:
            text = self._redact(exc.read().decode("utf-8", "replace"))
            action = classify_status(exc.code, text)
            raise _Failure(action, f"HTTP {exc.code}: {_short(text)}",
                           parse_retry_after(exc.headers.get("Retry-After")),
                           status=exc.code) from None
        except (OSError, ValueError) as exc:   # URLError, timeouts, resets, bad URLs
            if isinstance(exc, ValueError) and not isinstance(exc, urllib.error.URLError):
                raise _Failure(STOP_RUN, f"not a usable URL: {exc}") from None
            action, reason, connection = classify_exception(exc)
            raise _Failure(action, self._redact(reason), connection=connection) from None
        try:
            return json.loads(body)
        except ValueError:
            kind = "HTML" if body.lstrip()[:1] == b"<" else "not JSON"
            raise _Failure(RETRY, f"the answer is {kind}: "
                                  f"{_short(self._redact(body.decode('utf-8', 'replace')))}"
                           ) from None

    # -- requests ---------------------------------------------------------------------
    def _payload(self, request: ChatRequest, structured: str, tools: bool) -> Dict[str, Any]:
        settings = self.settings
        payload: Dict[str, Any] = dict(settings.extra_body)
        payload["model"] = request.model or settings.model
        payload["messages"] = [dict(m, content=self._redact(str(m["content"])))
                               if isinstance(m.get("content"), str) else dict(m)
                               for m in request.messages]
        if settings.temperature is not None:
            payload["temperature"] = settings.temperature
        if settings.max_tokens is not None:
            payload["max_tokens"] = settings.max_tokens
        if settings.seed is not None:
            payload["seed"] = settings.seed
        if request.schema is not None and structured == JSON_SCHEMA:
            payload["response_format"] = {"type": "json_schema", "json_schema": {
                "name": request.schema["name"], "schema": request.schema["schema"]}}
        elif request.schema is not None and structured == JSON_OBJECT:
            payload["response_format"] = {"type": "json_object"}
        if request.tools and tools:
            payload["tools"] = [dict(t) for t in request.tools]
        return payload

    def _step_down(self, request: ChatRequest, sent: Dict[str, Any], failure: _Failure) -> bool:
        """After a 400/422 to a request with a format or tools: use less; whether to resend."""
        if failure.status not in (400, 422):
            return False
        with self._lock:
            if "response_format" in sent:
                level = STRUCTURED_LEVELS[STRUCTURED_LEVELS.index(self._structured) + 1]
                logger.info("the server refused response_format %s (%s): using %s",
                            self._structured, failure.reason, level)
                self._structured = level
                return True
            if "tools" in sent:
                logger.info("the server refused tools (%s): code comes in fenced blocks",
                            failure.reason)
                self._tools_refused = True
                return True
        return False

    def complete(self, request: ChatRequest, deadline: Optional[float] = None) -> ChatReply:
        """Send ``request``; returns the first choice (the client's one seam).

        Parameters
        ----------
        request : ChatRequest
        deadline : float, optional
            ``clock()`` value after which no request is started or waited for.

        Raises
        ------
        EndpointError
            The endpoint cannot be used: the run must stop.
        LLMError
            This request failed (a refused request, or retries used up).
        DeadlineError
            The deadline came first.
        """
        if self.offline:
            raise EndpointError("replaying a run: the model endpoint "
                                f"{self.settings.base_url} is not contacted")
        if self._key_problem:
            raise EndpointError(self._key_problem)
        start = self._clock()
        policy = self.settings.retry
        attempt = 0
        while True:
            attempt += 1
            payload = self._payload(request, self._structured, not self._tools_refused)
            ticket = self._admit(payload)
            timeout = policy.timeout
            if deadline is not None:
                timeout = min(timeout, deadline - self._clock())
                if timeout <= 0:
                    ticket.settle(0)
                    raise DeadlineError("time limit reached before the model answered")
            try:
                document = self._http(self.settings.url, payload, timeout)
                reply = self._reply(document, payload["model"], attempt,
                                    self._clock() - start, payload)
            except _Failure as failure:
                ticket.settle(0)
                if self._step_down(request, payload, failure):
                    attempt -= 1
                    continue
                self._after_failure(failure, attempt, deadline)
                continue
            ticket.settle(reply.input_tokens + reply.output_tokens)
            self.breaker.success()
            return reply

    def _admit(self, payload: Mapping[str, Any]) -> Ticket:
        """Wait for the rate limiter to let this attempt start."""
        characters = sum(len(m.get("content") or "") for m in payload["messages"]
                         if isinstance(m.get("content"), str))
        return self.limiter.acquire(estimate_tokens(characters, self.settings.max_tokens))

    def adopt_structured(self, level: str) -> None:
        """Use ``level`` from now on when it is weaker than the current one (a replayed
        answer was sent at that level: the original client had stepped down)."""
        if level in STRUCTURED_LEVELS:
            with self._lock:
                if STRUCTURED_LEVELS.index(level) > STRUCTURED_LEVELS.index(self._structured):
                    self._structured = level

    def _after_failure(self, failure: _Failure, attempt: int, deadline: Optional[float]) -> None:
        """Raise for a failure that ends the request (or the run); else wait for the retry."""
        where = self.settings.base_url
        if failure.connection and self.breaker.failure():
            raise EndpointError(f"the model endpoint {where} failed "
                                f"{self.breaker.failures} times in a row: {failure.reason}")
        if failure.action == STOP_RUN:
            raise EndpointError(f"the model endpoint {where} cannot be used: {failure.reason}"
                                f"{_hint(failure)}")
        if failure.action == FAIL_TASK:
            raise LLMError(f"the model endpoint {where} refused the request: {failure.reason}")
        policy = self.settings.retry
        if attempt >= policy.max_attempts:
            raise LLMError(f"gave up after {attempt} attempts: {failure.reason}")
        delay = policy.delay(attempt, failure.retry_after, self._rng)
        if deadline is not None and self._clock() + delay >= deadline:
            raise DeadlineError(f"time limit reached while retrying: {failure.reason}")
        logger.info("model request failed (%s); retry %d in %.1f s", failure.reason, attempt,
                    delay)
        if failure.status == 429:
            # the server's limit holds for every worker: the others wait in the limiter
            self.limiter.pause(delay)
        self._sleep(delay)

    def chat(self, messages: Sequence[Message], model: Optional[str] = None,
             deadline: Optional[float] = None) -> ChatReply:
        """Send plain ``messages`` (:meth:`complete` without schema or tools)."""
        return self.complete(ChatRequest(messages, model), deadline)

    def _reply(self, document: Any, model: str, attempts: int, seconds: float,
               payload: Mapping[str, Any]) -> ChatReply:
        if isinstance(document, dict) and document.get("error") and not document.get("choices"):
            error = _short(self._redact(json.dumps(document["error"])))
            action = STOP_RUN if classify_status(400, error) == STOP_RUN else RETRY
            raise _Failure(action, f"the server answered with an error: {error}")
        try:
            choice = document["choices"][0]
            message = choice.get("message") or {}
        except (KeyError, IndexError, TypeError, AttributeError):
            raise _Failure(RETRY, "unexpected answer: "
                                  f"{_short(self._redact(json.dumps(document)))}") from None
        calls = tuple(ToolCall(str((c.get("function") or {}).get("name", "")),
                               self._redact(_as_text((c.get("function") or {}).get("arguments"))))
                      for c in message.get("tool_calls") or [] if isinstance(c, dict))
        usage = document.get("usage") or {}
        format_sent = (payload.get("response_format") or {}).get("type", NO_FORMAT)
        return ChatReply(
            text=self._redact(_as_text(message.get("content"))),
            model=str(document.get("model") or model),
            input_tokens=int(usage.get("prompt_tokens") or 0),
            output_tokens=int(usage.get("completion_tokens") or 0),
            attempts=attempts, seconds=seconds,
            reasoning=self._redact(_as_text(message.get("reasoning_content")
                                            or message.get("reasoning"))),
            finish_reason=str(choice.get("finish_reason") or ""), tool_calls=calls,
            structured=format_sent)

    # -- the probe --------------------------------------------------------------------
    def probe(self) -> str:
        """Check the endpoint before a run; a short description of what answered.

        ``GET {base_url}/models`` must list models; when it does not (or the model
        is not listed), a one-token chat request must succeed.

        Raises
        ------
        EndpointError
            Nothing listens, the key is refused, the URL is not an
            OpenAI-compatible API, or the model is unknown.
        """
        where = self.settings.base_url
        if self.offline:
            return f"{where}: not contacted (replaying a run)"
        if self._key_problem:
            raise EndpointError(self._key_problem)
        listed: Optional[List[str]] = None
        for attempt in (1, 2):
            try:
                document = self._http(self.settings.models_url, None,
                                      min(PROBE_TIMEOUT, self.settings.retry.timeout))
            except _Failure as failure:
                if failure.action == STOP_RUN and failure.status not in (404, 405, 501):
                    raise EndpointError(f"the model endpoint {where} cannot be used: "
                                        f"{failure.reason}{_hint(failure)}") from None
                if failure.action == RETRY and failure.connection and attempt == 1:
                    continue
                if failure.action == RETRY and failure.connection:
                    raise EndpointError(f"the model endpoint {where} cannot be used: "
                                        f"{failure.reason}") from None
                break
            data = document.get("data") if isinstance(document, dict) else None
            if isinstance(data, list):
                listed = [str(m.get("id")) for m in data if isinstance(m, dict)]
            break
        if listed is not None and self.settings.model in listed:
            return f"{where}: model {self.settings.model} listed"
        try:
            reply = self._one_token()
        except EndpointError:
            raise
        except LLMError as exc:
            raise EndpointError(f"the model endpoint {where} did not answer a one-token "
                                f"request: {exc}") from None
        return f"{where}: model {reply.model} answered"

    def _one_token(self) -> ChatReply:
        probe_settings = replace(self.settings, max_tokens=1,
                                 retry=replace(self.settings.retry, max_attempts=2))
        probe = ChatClient(probe_settings, self._key.reveal(), sleep=self._sleep,
                           clock=self._clock)
        return probe.complete(ChatRequest([{"role": "user", "content": "Say OK."}]))


def key_digest(key: str) -> str:
    """A short SHA-256 digest of a key (to check a copy's key without sending it)."""
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def _client_in_this_process(settings: EndpointSettings, variable: str, digest: str,
                            limiter: RateLimiter, offline: bool, structured: str,
                            tools_refused: bool) -> ChatClient:
    """Rebuild a pickled client; the key comes from this process's environment."""
    key = os.environ.get(variable, "") if variable else ""
    client = ChatClient(settings, key if digest else "", limiter=limiter, key_variable=variable,
                        offline=offline)
    client._structured, client._tools_refused = structured, tools_refused
    if digest and key_digest(key) != digest:
        where = f"${variable}" if variable else "an environment variable"
        client._key_problem = (f"the API key is not in {where} on this worker (process "
                               f"{os.getpid()}), or differs from the runner's: set it in the "
                               "environment of every worker")
    return client


def _as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):      # content parts
        return "".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in value)
    return value if isinstance(value, str) else json.dumps(value)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= ERROR_BODY_CHARS else text[:ERROR_BODY_CHARS] + " ..."


def _hint(failure: _Failure) -> str:
    if failure.status in (404, 405) and "model" not in failure.reason.lower():
        return " (is the base URL right? OpenAI-compatible servers answer below /v1)"
    if failure.status in (401, 403):
        return " (check the API key: --api-key-env)"
    return ""
