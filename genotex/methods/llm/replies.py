"""Reading model replies: code blocks, JSON answers, gene lists."""

from __future__ import annotations

import json
import re
from typing import Any, List, Optional

_FENCE = re.compile(r"```[ \t]*(?P<lang>[A-Za-z0-9_+-]*)[ \t]*\n(?P<body>.*?)```", re.DOTALL)
_SYMBOL = re.compile(r"^[A-Za-z][A-Za-z0-9-]{0,29}$")


def code_blocks(text: str) -> List[str]:
    """Bodies of fenced code blocks tagged ``python`` (or untagged), in order."""
    return [m.group("body").rstrip() + "\n" for m in _FENCE.finditer(text or "")
            if m.group("lang").lower() in ("", "python", "py", "python3", "ipython")]


def extract_code(text: str) -> Optional[str]:
    """The code of a reply: its fenced Python blocks joined, or None when there is none."""
    blocks = code_blocks(text)
    return "\n".join(blocks) if blocks else None


def extract_json(text: str) -> Optional[Any]:
    """The first JSON value of a reply: a ```json block, else the first ``{...}`` / ``[...]``."""
    for match in _FENCE.finditer(text or ""):
        if match.group("lang").lower() in ("json", ""):
            try:
                return json.loads(match.group("body"))
            except ValueError:
                continue
    decoder = json.JSONDecoder()
    for start, char in enumerate(text or ""):
        if char in "{[":
            try:
                return decoder.raw_decode(text[start:])[0]
            except ValueError:
                continue
    return None


def gene_symbols_from_reply(text: str) -> List[str]:
    """Gene symbols a reply lists, in order, without duplicates.

    A JSON list (or an object with a ``genes`` list) is read first; otherwise
    every line's first token that looks like a symbol (``1. TNF - reason``).
    """
    value = extract_json(text)
    if isinstance(value, dict):
        value = value.get("genes")
    if isinstance(value, list):
        candidates = [str(item).strip() for item in value]
    else:
        candidates = []
        for line in (text or "").splitlines():
            words = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).replace("*", " ").split()
            if words:
                candidates.append(words[0].strip(",;:"))
    return list(dict.fromkeys(c for c in candidates if _SYMBOL.match(c)))
