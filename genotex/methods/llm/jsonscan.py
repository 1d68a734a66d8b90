"""Find the JSON objects written inside a model reply, in linear time.

Models wrap JSON in prose, fences and reasoning. :func:`object_spans` looks at
every ``{`` once: it decodes a JSON object there (skipping past it when it
decodes, so nested objects are never decoded twice) or, for a Python-style
dict (``{'action': 'skip'}``, which models write often), finds its extent by
pairing brackets. Decoding reads a growing window of the text rather than the
whole rest of it: the standard decoder's error messages count the lines
before the error position, so decoding a long text from every ``{`` is
quadratic (a 1.3 MB reply took seconds); here a megabyte reply takes
milliseconds (``benchmarks/bench_reply_reading.py``).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple

#: First window decoded at a ``{`` (doubled while an object runs past it).
FIRST_WINDOW = 256
#: Longest object read as a Python literal (``ast.literal_eval`` is slower).
LITERAL_FALLBACK_CHARS = 4_000
#: Objects tried before each occurrence of a searched key (nearest first).
STARTS_PER_KEY = 4
#: Occurrences of a searched key looked at, from the end (the answer is near the end).
OCCURRENCES_PER_KEY = 256
_DECODER = json.JSONDecoder()
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
#: Where an object can start: ``{}`` or ``{`` and a quoted key.
_OBJECT_START = re.compile(r"\{\s*[\"'}]")
_STRUCTURAL = re.compile(r"[{}\[\]\"']")
_STRING = {'"': re.compile(r'"(?:[^"\\\n]|\\.)*"'), "'": re.compile(r"'(?:[^'\\\n]|\\.)*'")}


@dataclass(frozen=True)
class ObjectSpan:
    """A ``{...}`` of the text: ``text[start:end]`` and its value when it was JSON."""

    start: int
    end: int
    value: Any = None


class _Budget:
    """Characters the decoder may still read.

    Granted in proportion to the text, it keeps adversarial replies (thousands of
    unterminated nested objects) linear: once spent, nothing more is decoded.
    """

    def __init__(self, text: str) -> None:
        self.left = 2 * len(text) + 65_536

    def spend(self, chars: int) -> bool:
        """Take ``chars``; whether there were that many left."""
        self.left -= chars
        return self.left >= 0

    @property
    def spent(self) -> bool:
        """Whether nothing is left."""
        return self.left < 0


def _decode_at(text: str, start: int, budget: _Budget) -> Optional[Tuple[Any, int]]:
    """The JSON value starting at ``text[start]`` and its end, else None.

    A failure costs the characters the decoder read; a window that ran out is
    read again four times larger.
    """
    window = FIRST_WINDOW
    while not budget.spent:
        chunk = text[start:start + window]
        try:
            value, end = _DECODER.raw_decode(chunk)
            budget.spend(end)
            return value, start + end
        except RecursionError:
            budget.spend(len(chunk))
            return None
        except json.JSONDecodeError as error:
            ran_out = error.pos >= len(chunk) - 1 or error.msg.startswith("Unterminated")
            if not ran_out or start + window >= len(text):
                budget.spend(error.pos + 1)
                return None
            budget.spend(len(chunk))
        window *= 4
    return None


def _bracketed_end(text: str, start: int, budget: _Budget) -> Optional[int]:
    """End of the bracketed structure opened at ``text[start]`` (strings skipped), else None."""
    depth, position = 0, start
    limit = min(len(text), start + LITERAL_FALLBACK_CHARS)
    while position < limit:
        match = _STRUCTURAL.search(text, position, limit)
        if match is None or not budget.spend(match.end() - position):
            return None
        char = match.group()
        if char in "\"'":
            string = _STRING[char].match(text, match.start(), limit)
            if string is None:
                return None
            position = string.end()
            continue
        depth += 1 if char in "{[" else -1
        position = match.end()
        if depth == 0:
            return position
    return None


def object_spans(text: str) -> List[ObjectSpan]:
    """The outermost objects of ``text`` in order.

    JSON objects come decoded; objects that look like objects but are not JSON
    (Python-style dicts, trailing commas) come with their extent only, for
    :func:`decode_object`.
    """
    found: List[ObjectSpan] = []
    budget = _Budget(text)
    position = 0
    while not budget.spent:
        candidate = _OBJECT_START.search(text, position)
        if candidate is None:
            return found
        start = candidate.start()
        position = start + 1
        decoded = _decode_at(text, start, budget)
        if decoded is not None:
            found.append(ObjectSpan(start, decoded[1], decoded[0]))
            position = decoded[1]
            continue
        end = _bracketed_end(text, start, budget)
        if end is not None:
            found.append(ObjectSpan(start, end))
            position = end
    return found


def decode_object(text: str) -> Optional[Any]:
    """``text`` as JSON or as a Python literal (trailing commas forgiven), else None."""
    relaxed = _TRAILING_COMMA.sub(r"\1", text)
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(relaxed)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


def _value_at(text: str, start: int, budget: _Budget) -> Tuple[Any, int]:
    """The object starting at ``text[start]`` and its end (``(None, start)`` when none)."""
    decoded = _decode_at(text, start, budget)
    if decoded is not None:
        return decoded
    end = _bracketed_end(text, start, budget)
    return (None, start) if end is None else (decode_object(text[start:end]), end)


def objects_with_key(text: str, key: str) -> Iterator[Dict[str, Any]]:
    """The objects of ``text`` holding ``key`` (e.g. ``"action"``), last first.

    From each occurrence of the quoted key, backwards, the nearest object starts
    before it are decoded until one encloses the occurrence: the work depends on
    the occurrences, not on the length of the reply.
    """
    budget = _Budget(text)
    patterns = (f'"{key}"', f"'{key}'")
    latest = {pattern: text.rfind(pattern) for pattern in patterns}
    limit = len(text)
    for _ in range(OCCURRENCES_PER_KEY):
        for pattern in patterns:        # latest occurrence before the limit (rfind once each)
            if latest[pattern] >= limit:
                latest[pattern] = text.rfind(pattern, 0, limit)
        occurrence = max(latest.values())
        if occurrence < 0:
            return
        limit = occurrence
        start = occurrence
        for _ in range(STARTS_PER_KEY):
            start = text.rfind("{", 0, start)
            if start < 0:
                break
            value, end = _value_at(text, start, budget)
            if end > occurrence and isinstance(value, dict):
                yield value
                limit = start
                break


def json_objects(text: str) -> Iterator[Dict[str, Any]]:
    """The outermost objects of ``text``, last first, decoded lazily."""
    for span in reversed(object_spans(text)):
        value = span.value if span.value is not None else \
            decode_object(text[span.start:span.end])
        if isinstance(value, dict):
            yield value


def nested_dicts(value: Any) -> Iterator[Dict[str, Any]]:
    """``value`` and every dict inside it (depth first, in document order)."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from nested_dicts(item)
    elif isinstance(value, list):
        for item in value:
            yield from nested_dicts(item)
