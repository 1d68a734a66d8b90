"""A client for OpenAI-compatible chat-completions endpoints (standard library only).

Any server speaking ``POST {base_url}/chat/completions`` works: a hosted API,
vLLM, Ollama (``http://localhost:11434/v1``), llama.cpp's server. The client

* retries ``429``, ``408``, ``5xx``, timeouts and dropped connections with
  exponential back-off (``download.fetch.RetryPolicy``), honouring a server's
  ``Retry-After`` (seconds or HTTP date, capped);
* never puts the API key in a message, an exception or its ``repr``: error
  texts from the server are passed through :func:`redact` first;
* stops waiting at a deadline (the per-problem time limit): a request that
  cannot start or finish in time raises :class:`DeadlineError`.
"""

from __future__ import annotations

import http.client
import json
import logging
import random
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from download.fetch import RetryPolicy, parse_retry_after

logger = logging.getLogger(__name__)

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
#: Characters of a server's error body kept in an error message.
ERROR_BODY_CHARS = 300
REDACTED = "[redacted]"

Message = Mapping[str, str]


class LLMError(RuntimeError):
    """The endpoint could not give an answer (after retries when they apply)."""


class DeadlineError(LLMError):
    """The time limit of the task ran out while waiting for the endpoint."""


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every non-empty secret replaced by ``[redacted]``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
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
class ChatReply:
    """One answer of the endpoint.

    Attributes
    ----------
    text : str
        The first choice's message content.
    model : str
        The model that answered (as reported by the server, else the one asked).
    input_tokens, output_tokens : int
        ``usage.prompt_tokens`` / ``usage.completion_tokens`` (0 when not reported).
    attempts : int
        Requests sent, the successful one included.
    seconds : float
        Wall time including retries.
    """

    text: str
    model: str
    input_tokens: int
    output_tokens: int
    attempts: int
    seconds: float


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
        Sent when given.
    max_tokens : int, optional
        Sent as ``max_tokens`` when given.
    """

    base_url: str
    model: str
    retry: RetryPolicy = RetryPolicy(max_attempts=6, backoff_base=2.0, backoff_max=60.0,
                                     max_retry_after=120.0, timeout=300.0)
    temperature: Optional[float] = None
    max_tokens: Optional[int] = None

    @property
    def url(self) -> str:
        """The chat-completions URL."""
        return self.base_url.rstrip("/") + "/chat/completions"


class _RetryableError(Exception):
    def __init__(self, reason: str, retry_after: Optional[float] = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class ChatClient:
    """Send chat requests to one endpoint.

    Parameters
    ----------
    settings : EndpointSettings
    api_key : str
        Sent as ``Authorization: Bearer``; empty for servers without keys.
    sleep, clock : callable, optional
        Injected in tests (default :func:`time.sleep`, :func:`time.monotonic`).
    seed : int
        Seed of the back-off jitter.
    """

    def __init__(self, settings: EndpointSettings, api_key: str = "",
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.monotonic, seed: int = 0) -> None:
        self.settings = settings
        self._key = Secret(api_key)
        self._sleep = sleep
        self._clock = clock
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"ChatClient({self.settings.url!r}, model={self.settings.model!r}, key={self._key})"

    @property
    def secrets(self) -> List[str]:
        """Strings every log and message must not contain."""
        return [self._key.reveal()] if self._key.reveal() else []

    def _redact(self, text: str) -> str:
        return redact(text, self.secrets)

    def _request(self, payload: Dict[str, Any], timeout: float) -> Dict[str, Any]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key.reveal():
            headers["Authorization"] = "Bearer " + self._key.reveal()
        request = urllib.request.Request(self.settings.url, data=json.dumps(payload).encode(),
                                         headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:
            text = self._redact(exc.read().decode("utf-8", "replace")[:ERROR_BODY_CHARS])
            reason = f"HTTP {exc.code} from {self.settings.url}: {text.strip()}"
            if exc.code in RETRY_STATUSES:
                raise _RetryableError(reason, parse_retry_after(exc.headers.get("Retry-After")))
            raise LLMError(reason) from None
        except (socket.timeout, TimeoutError) as exc:
            raise _RetryableError(f"timeout after {timeout:g} s ({type(exc).__name__})") from None
        except urllib.error.URLError as exc:
            raise _RetryableError(f"connection failed: {self._redact(str(exc.reason))}") from None
        except (http.client.HTTPException, ConnectionError, OSError) as exc:
            raise _RetryableError(f"connection failed: {type(exc).__name__}: "
                             f"{self._redact(str(exc))}") from None
        try:
            return json.loads(body)
        except ValueError:
            raise LLMError(f"not JSON from {self.settings.url}: "
                           f"{self._redact(body[:ERROR_BODY_CHARS].decode('utf-8', 'replace'))}"
                           ) from None

    def _delay(self, attempt: int, failure: _RetryableError) -> float:
        policy = self.settings.retry
        if failure.retry_after is not None:
            return min(failure.retry_after, policy.max_retry_after)
        return policy.backoff(attempt, self._rng)

    def chat(self, messages: Sequence[Message], model: Optional[str] = None,
             deadline: Optional[float] = None) -> ChatReply:
        """Send ``messages``; returns the first choice.

        Parameters
        ----------
        messages : sequence of dict
            ``{"role": "system" | "user" | "assistant", "content": text}``.
        model : str, optional
            Overrides the settings' model (per-role models).
        deadline : float, optional
            ``clock()`` value after which no request is started or waited for.

        Raises
        ------
        LLMError
            A permanent error (4xx), an unreadable answer, or retries used up.
        DeadlineError
            The deadline came first.
        """
        model = model or self.settings.model
        payload: Dict[str, Any] = {"model": model, "messages": [dict(m) for m in messages]}
        if self.settings.temperature is not None:
            payload["temperature"] = self.settings.temperature
        if self.settings.max_tokens is not None:
            payload["max_tokens"] = self.settings.max_tokens
        start = self._clock()
        policy = self.settings.retry
        for attempt in range(1, policy.max_attempts + 1):
            timeout = policy.timeout
            if deadline is not None:
                timeout = min(timeout, deadline - self._clock())
                if timeout <= 0:
                    raise DeadlineError("time limit reached before the model answered")
            try:
                document = self._request(payload, timeout)
            except _RetryableError as failure:
                if attempt == policy.max_attempts:
                    raise LLMError(f"gave up after {attempt} attempts: {failure}") from None
                delay = self._delay(attempt, failure)
                if deadline is not None and self._clock() + delay >= deadline:
                    raise DeadlineError(f"time limit reached while retrying: {failure}")
                logger.info("model request failed (%s); retry %d in %.1f s", failure,
                            attempt, delay)
                self._sleep(delay)
                continue
            return self._reply(document, model, attempt, self._clock() - start)
        raise LLMError("no attempt was made")  # max_attempts < 1

    def _reply(self, document: Any, model: str, attempts: int, seconds: float) -> ChatReply:
        try:
            text = document["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise LLMError(f"unexpected answer from {self.settings.url}: "
                           f"{self._redact(json.dumps(document)[:ERROR_BODY_CHARS])}") from None
        usage = document.get("usage") or {}
        return ChatReply(text=str(text), model=str(document.get("model") or model),
                         input_tokens=int(usage.get("prompt_tokens") or 0),
                         output_tokens=int(usage.get("completion_tokens") or 0),
                         attempts=attempts, seconds=seconds)
