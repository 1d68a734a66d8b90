"""The run log: one JSON object per line for every model exchange and executed step.

Each line has ``time`` (UTC, ISO 8601), ``event`` and the event's fields, e.g.

* ``{"event": "llm", "task": "Heart_rate/GSE1", "role": "Data Engineer",
  "model": ..., "messages": [...], "reply": ..., "input_tokens": ...}``;
* ``{"event": "execute", "task": ..., "step": ..., "code": ..., "status": "ok",
  "output": ...}``;
* ``{"event": "task", "kind": "cohort", "key": ..., "status": "done", ...}``.

System prompts are long and repeat in every request: they are written once, as a
``system_prompt`` event keyed by their SHA-256 prefix, and ``llm`` events show
``[system prompt <key>]`` in their place.

Every line is checked for the run's secrets (the API key) before it is
written: they are replaced by ``[redacted]``, in plain and in JSON-escaped
form, so a server that echoes the key back cannot put it in the log.

The log is appended to, one flushed line per event (an append-only log cannot be
replaced atomically; a crash leaves whole lines behind, at most the last one cut),
and read back by the guarded text reader (:func:`read_log`).

A task run in another process (``-j`` with a CPU-bound method, a cluster)
writes to a :class:`MemoryLog`; its events travel back with the task's outcome
and are added to the run log with their own times (:meth:`RunLog.add`).
"""

from __future__ import annotations

import json
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from genotex.methods.llm.client import redact
from utils.io import open_text

#: Longest text field kept in a log line (model outputs are usually far shorter).
MAX_FIELD_CHARS = 20_000


def clip(text: str, limit: int = MAX_FIELD_CHARS) -> str:
    """``text`` cut to ``limit`` characters, keeping its start and end."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters left out ...]\n{text[-half:]}"


class RunLog:
    """Append JSON lines to ``path`` (thread-safe; flushed after every line).

    Parameters
    ----------
    path : Path
    secrets : sequence of str
        Strings that must never be written.
    """

    def __init__(self, path: Path, secrets: Sequence[str] = ()) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._secrets = [s for s in secrets if s]
        self._secrets += [json.dumps(s)[1:-1] for s in self._secrets]
        self._lock = threading.Lock()
        self._written_once: set = set()
        self._handle: Optional[Any] = self.path.open("a", encoding="utf-8")

    def write(self, event: str, **fields: Any) -> None:
        """Append one event."""
        self._write_entry({"time": _now(), "event": event, **fields})

    def _write_entry(self, entry: Dict[str, Any]) -> None:
        line = redact(json.dumps(entry, ensure_ascii=False, default=str), self._secrets)
        with self._lock:
            if self._handle is not None:
                self._handle.write(line + "\n")
                self._handle.flush()

    def write_once(self, key: str, event: str, **fields: Any) -> None:
        """Append an event the first time ``key`` is seen by this log object."""
        with self._lock:
            if key in self._written_once:
                return
            self._written_once.add(key)
        self.write(event, key=key, **fields)

    def add(self, records: Sequence[Tuple[Optional[str], Dict[str, Any]]]) -> None:
        """Append the events of a :class:`MemoryLog` (times kept; ``write_once`` keys
        deduplicated against this log's)."""
        for key, entry in records:
            if key is not None:
                with self._lock:
                    if key in self._written_once:
                        continue
                    self._written_once.add(key)
            self._write_entry(dict(entry))

    def close(self) -> None:
        """Close the file (later writes are dropped)."""
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None


class MemoryLog:
    """The run log of a task run in another process: events kept in memory, in order.

    Same interface as :class:`RunLog` (``write``, ``write_once``); :attr:`records`
    go back to the runner with the outcome (:meth:`RunLog.add`).
    """

    def __init__(self) -> None:
        self.records: List[Tuple[Optional[str], Dict[str, Any]]] = []
        self._lock = threading.Lock()

    def write(self, event: str, **fields: Any) -> None:
        """Keep one event."""
        with self._lock:
            self.records.append((None, {"time": _now(), "event": event, **fields}))

    def write_once(self, key: str, event: str, **fields: Any) -> None:
        """Keep an event that the run log writes once per ``key``."""
        with self._lock:
            self.records.append((key, {"time": _now(), "event": event, "key": key, **fields}))

    def close(self) -> None:
        """Nothing to close."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def read_log(path: Path) -> list:
    """Every entry of a run log (for tests and reports), read by the guarded text reader."""
    with open_text(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]
