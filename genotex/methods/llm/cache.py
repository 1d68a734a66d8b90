"""Every exchange with the model, kept in the run folder, and a run replayed from them.

Layout (below the run folder)::

    exchanges/<task>.jsonl          one file per task, appended to, one JSON object a line
    exchanges/prompts/<sha256>.txt  each distinct system prompt once

A task file holds a ``{"begin": <session>}`` line each time the task starts
talking to the model (a task redone by a resumed run supersedes its earlier
lines), then one line per exchange: the request's **key** -- the SHA-256 of
the model, the messages and the parameters (structured-output schema, tools,
temperature, ``max_tokens``, ``seed``, ``--extra-body``) --, the request itself
(system prompts by reference) and the answer (text, reasoning, tool calls,
usage, finish reason), or the error that ended the exchange.

* Crash-safe: a line is written with one ``write`` to a file opened for
  appending, then flushed and synced; a line cut short by a crash is ignored
  when read. Concurrent writers are safe: a task runs in one worker at a time and
  owns its file; system prompts are written atomically (same content, any
  writer).
* The run folder's own path is replaced by ``<run>`` in the key (a step that
  prints a path of the tree asks the same question wherever the run folder is).
* Replay (:class:`ExchangeCache` with ``replay_from``): a request is answered
  from the source run's exchanges of the same task -- the k-th request with a
  key gets the k-th answer recorded for that key --, never from the network. A
  request the source never made is a :class:`ReplayMiss` (the run stops), with
  the task, the request's header lines and where it departs from the original.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
from dataclasses import asdict
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from genotex.methods.base import RunAborted
from genotex.methods.llm.client import (ChatReply, ChatRequest, DeadlineError, EndpointError,
                                        EndpointSettings, LLMError, ToolCall, redact)
from utils.io import atomic_write_text

FOLDER = "exchanges"
PROMPTS = "prompts"
RUN_PLACEHOLDER = "<run>"
#: Characters of each side shown where a replayed request departs from the original.
EXCERPT_CHARS = 160
_ERRORS = {"LLMError": LLMError, "DeadlineError": DeadlineError, "EndpointError": EndpointError}
_HEADER = re.compile(r"^(REQUEST|STEP|TASK): .*$", re.M)


class ReplayMiss(RunAborted):
    """A replayed run asked something the original run never asked: the run stops."""


def task_file_name(task: str) -> str:
    """The file of a task's exchanges: its key made file-safe, plus a digest (unique)."""
    readable = re.sub(r"[^A-Za-z0-9_.-]+", "_", task)[:80]
    return f"{readable}-{hashlib.sha256(task.encode()).hexdigest()[:10]}.jsonl"


def _prompt_ref(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def request_document(request: ChatRequest, settings: EndpointSettings,
                     run_dir: Optional[Path] = None) -> Dict[str, Any]:
    """What identifies a request: model, messages (system prompts by reference) and parameters."""
    places = [str(run_dir)] if run_dir is not None else []
    messages = []
    for message in request.messages:
        content = message.get("content")
        if isinstance(content, str):
            for place in places:
                content = content.replace(place, RUN_PLACEHOLDER)
            if message.get("role") == "system":
                content = _prompt_ref(content)
        messages.append(dict(message, content=content))
    return {"model": request.model or settings.model, "messages": messages,
            "schema": dict(request.schema) if request.schema is not None else None,
            "tools": [dict(t) for t in request.tools],
            "parameters": {"temperature": settings.temperature,
                           "max_tokens": settings.max_tokens, "seed": settings.seed,
                           "extra_body": dict(settings.extra_body)}}


def request_key(document: Mapping[str, Any]) -> str:
    """SHA-256 of a request document (canonical JSON)."""
    text = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def reply_document(reply: ChatReply) -> Dict[str, Any]:
    """A reply as JSON (every field, tool calls as objects)."""
    document = asdict(reply)
    document["tool_calls"] = [asdict(call) for call in reply.tool_calls]
    return document


def reply_from_document(document: Mapping[str, Any]) -> ChatReply:
    """Inverse of :func:`reply_document`."""
    fields = dict(document)
    fields["tool_calls"] = tuple(ToolCall(**call) for call in fields.get("tool_calls", ()))
    return ChatReply(**fields)


def headers(document: Mapping[str, Any]) -> str:
    """The ``REQUEST:`` / ``STEP:`` / ``TASK:`` lines of a request's last user message."""
    last = next((m.get("content") for m in reversed(document["messages"])
                 if m.get("role") == "user" and isinstance(m.get("content"), str)), "")
    return "; ".join(match.group(0) for match in _HEADER.finditer(last or "")) or "no header"


def read_task_file(path: Path) -> List[Dict[str, Any]]:
    """The exchanges of a task's latest session (lines after its last ``begin``).

    A last line cut short by a crash is ignored; damage elsewhere is an error.
    """
    if not path.is_file():
        return []
    lines = path.read_text("utf-8").splitlines()
    entries: List[Dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            if number == len(lines):
                break
            raise ValueError(f"{path}: line {number} is not JSON") from None
        if "begin" in entry:
            entries = []
        else:
            entries.append(entry)
    return entries


def _departure(ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> str:
    """Where two request documents differ first (for the miss message)."""
    for name in ("model", "schema", "tools", "parameters"):
        if ours.get(name) != theirs.get(name):
            return f"the {name} differs ({ours.get(name)!r} vs {theirs.get(name)!r})"
    a, b = ours["messages"], theirs["messages"]
    for index, (x, y) in enumerate(zip(a, b)):
        if x != y:
            one, two = str(x.get("content")), str(y.get("content"))
            at = next((i for i, (p, q) in enumerate(zip(one, two)) if p != q),
                      min(len(one), len(two)))
            start = max(0, at - 40)
            return (f"message {index + 1} ({x.get('role')}) differs at character {at}: now "
                    f"{one[start:start + EXCERPT_CHARS]!r}, originally "
                    f"{two[start:start + EXCERPT_CHARS]!r}")
    return f"{len(a)} messages now, {len(b)} originally"


class TaskExchanges:
    """The exchanges of one task: recorded as they happen, or replayed."""

    def __init__(self, cache: "ExchangeCache", task: str) -> None:
        self.cache = cache
        self.task = task
        self.path = cache.folder / task_file_name(task)
        self._begun = False
        self._count = 0
        self._asked = 0
        self._recorded: Optional[List[Dict[str, Any]]] = None
        self._used: Dict[str, int] = {}

    @property
    def replaying(self) -> bool:
        """Whether answers come from the source run."""
        return self.cache.replay_from is not None

    def document(self, request: ChatRequest, settings: EndpointSettings) -> Dict[str, Any]:
        """The request document (see :func:`request_document`)."""
        return request_document(request, settings, self.cache.run_dir)

    # -- recording --------------------------------------------------------------------
    def _append(self, entry: Mapping[str, Any]) -> None:
        line = redact(json.dumps(entry, ensure_ascii=False, default=str),
                      self.cache.secrets) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self._begun:
            self._begun = True
            self._append({"begin": self.cache.session, "task": self.task})
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)

    def record(self, role: str, request: ChatRequest, document: Mapping[str, Any],
               reply: Optional[ChatReply] = None, error: Optional[BaseException] = None
               ) -> None:
        """Keep one exchange: its answer, or the error that ended it."""
        self.cache.keep_prompts(m["content"] for m in request.messages
                                if m.get("role") == "system" and isinstance(m.get("content"), str))
        entry: Dict[str, Any] = {"key": request_key(document), "n": self._count, "role": role,
                                 "request": document}
        if reply is not None:
            entry["reply"] = reply_document(reply)
        else:
            name = type(error).__name__
            entry["error"] = str(error)
            entry["error_type"] = name if name in _ERRORS else "LLMError"
        self._count += 1
        self._append(entry)

    # -- replaying --------------------------------------------------------------------
    def replay(self, role: str, document: Mapping[str, Any]) -> ChatReply:
        """The source run's answer to this request.

        Raises
        ------
        ReplayMiss
            The source run never asked it (the message says where the runs part).
        LLMError
            The source's exchange ended with this error (raised again, same kind).
        """
        assert self.cache.replay_from is not None
        if self._recorded is None:
            self._recorded = read_task_file(self.cache.replay_from / task_file_name(self.task))
        key = request_key(document)
        index = self._asked
        self._asked += 1
        matches = [e for e in self._recorded if e.get("key") == key]
        used = self._used.get(key, 0)
        if used >= len(matches):
            raise ReplayMiss(self._miss_message(role, document, index))
        self._used[key] = used + 1
        entry = matches[used]
        if "reply" not in entry:
            raise _ERRORS.get(entry.get("error_type", ""), LLMError)(entry.get("error", ""))
        return reply_from_document(entry["reply"])

    def _miss_message(self, role: str, document: Mapping[str, Any], index: int) -> str:
        source = self.cache.replay_from
        where = (f"replay of {source.parent}: no recorded answer for request {index + 1} of "
                 f"task {self.task} ({role}; {headers(document)}; key "
                 f"{request_key(document)[:12]})")
        recorded = self._recorded or []
        if not recorded:
            return f"{where}: the original run has no exchange of this task"
        if index >= len(recorded):
            return (f"{where}: the original task asked {len(recorded)} requests only (does "
                    "this run use the original's settings and inputs?)")
        original = recorded[index]["request"]
        return (f"{where}: the original's request {index + 1} ({headers(original)}) differs: "
                f"{_departure(document, original)}")


class ExchangeCache:
    """The exchanges of a run folder (record), optionally answering from another's (replay).

    Parameters
    ----------
    run_dir : Path
        The run folder (exchanges are kept in ``<run_dir>/exchanges``).
    session : str
        This run's id (``begin`` lines).
    secrets : sequence of str
        Never written (the API key).
    replay_from : Path, optional
        The ``exchanges`` folder of the run to replay.
    """

    def __init__(self, run_dir: Path, session: str, secrets: Sequence[str] = (),
                 replay_from: Optional[Path] = None) -> None:
        self.run_dir = Path(run_dir)
        self.folder = self.run_dir / FOLDER
        self.session = session
        self.secrets = [s for s in secrets if s]
        self.replay_from = Path(replay_from) if replay_from is not None else None
        self._kept: set = set()
        self._lock = threading.Lock()

    def __reduce__(self) -> Tuple[type, Tuple[Any, ...]]:
        # sent to worker processes without the secrets: they set their own (their key)
        return ExchangeCache, (self.run_dir, self.session, (), self.replay_from)

    def task(self, key: str) -> TaskExchanges:
        """The exchanges of one task (a new object per task run)."""
        return TaskExchanges(self, key)

    def keep_prompts(self, texts: Iterable[str]) -> None:
        """Write each system prompt of a request once (``prompts/<sha256>.txt``)."""
        for text in texts:
            ref = _prompt_ref(text)
            with self._lock:
                if ref in self._kept:
                    continue
                self._kept.add(ref)
            path = self.folder / PROMPTS / f"{ref.split(':', 1)[1]}.txt"
            if not path.is_file():
                atomic_write_text(path, redact(text, self.secrets))


def replay_source(run_dir: Path) -> Path:
    """The ``exchanges`` folder of a run folder to replay (checked).

    Raises
    ------
    FileNotFoundError
        Naming the folder, when the run kept no exchanges.
    """
    folder = Path(run_dir) / FOLDER
    if not folder.is_dir():
        raise FileNotFoundError(f"{run_dir}: no {FOLDER}/ folder: not a run folder, or a run "
                                "made before exchanges were kept")
    return folder
