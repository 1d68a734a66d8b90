"""GenoAgent's decisions in model replies: plans, reviews, "keep my code".

Thin mappings of the shared readers (:mod:`genotex.methods.llm.reading`) onto the
step loop's vocabulary, and the JSON shapes asked for where the server
supports structured output. Every function takes the *answer* text (reasoning
removed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence

from genotex.methods.genoagent.prompts import APPROVED, KEEP, MAX_SUGGESTIONS
from genotex.methods.llm.reading import (KEEP_WORDS, REVIEW_WORDS, list_items, read_decision,
                                         read_plan, strings_of)

NEXT, SKIP, BACK = "next", "skip", "back"
_ACTIONS = {
    NEXT: ("next", "continue", "proceed", "do", "run", "go", "next_step", "do_next", "execute"),
    SKIP: ("skip", "skip_step", "pass", "omit"),
    BACK: ("back", "go_back", "goback", "revert", "redo", "return", "previous", "back_to",
           "revisit", "go back"),
}

PLAN_SCHEMA = {
    "name": "plan",
    "schema": {"type": "object", "properties": {
        "action": {"type": "string", "enum": [NEXT, SKIP, BACK]},
        "step": {"type": ["string", "null"]}}, "required": ["action"]},
    "example": {"action": "next"},
}
REVIEW_SCHEMA = {
    "name": "review",
    "schema": {"type": "object", "properties": {
        "verdict": {"type": "string", "enum": ["APPROVED", "REJECTED"]},
        "suggestions": {"type": "array", "items": {"type": "string"},
                        "maxItems": MAX_SUGGESTIONS}}, "required": ["verdict"]},
    "example": {"verdict": "APPROVED", "suggestions": []},
}


@dataclass(frozen=True)
class PlanDecision:
    """What the agent chose: ``next``, ``skip`` or ``back`` (to ``step``)."""

    action: str
    step: Optional[str] = None
    understood: bool = True


@dataclass(frozen=True)
class Review:
    """The Code Reviewer's verdict and its suggestions (at most three)."""

    approved: bool
    suggestions: List[str] = field(default_factory=list)
    understood: bool = True

    def feedback(self) -> str:
        """The suggestions as numbered lines."""
        return "\n".join(f"{i + 1}. {s}" for i, s in enumerate(self.suggestions))


def _action(value: Any) -> Optional[str]:
    word = re.sub(r"[\s\-]+", "_", str(value).strip().lower())
    return next((action for action, words in _ACTIONS.items()
                 if word in words or word.replace("_", " ") in words), None)


def _step_name(value: Any, units: Sequence[str]) -> Optional[str]:
    """A unit named by name, number (1-based, as the plan lists them) or ``"2. name"``."""
    if isinstance(value, bool) or value is None:
        return None
    text = str(value).strip()
    words = "_".join(re.findall(r"[a-z0-9]+", text.lower()))   # "Dataset Analysis" too
    for name in units:
        if name.lower() in text.lower() or name.lower() in words:
            return name
    number = re.match(r"^(?:step\s*)?(\d+)", text, re.IGNORECASE)
    if number and 1 <= int(number.group(1)) <= len(units):
        return units[int(number.group(1)) - 1]
    return text or None


def parse_plan(text: str, units: Sequence[str] = ()) -> Optional[PlanDecision]:
    """A plan answer (the last object with an ``action``); None when there is none.

    ``units`` (the task's unit names) resolve a ``back`` target given by number.
    """
    value = read_plan(text)
    if value is None:
        return None
    action = _action(value.get("action"))
    if action is None:
        return None
    step = _step_name(value.get("step", value.get("target")), units) if action == BACK else None
    if action == BACK and not step:
        return None
    return PlanDecision(action, step)


def parse_review(text: str) -> Optional[Review]:
    """A review answer, or None when its verdict is unclear (never approved by default)."""
    reading = read_decision(text, REVIEW_WORDS)
    if reading.decision is None:
        return None
    if reading.decision == APPROVED:
        return Review(True)
    if reading.structured is not None:
        listed = reading.structured.get("suggestions")
        suggestions = strings_of(listed) if not isinstance(listed, str) else \
            (list_items(listed) or [listed.strip()])
    else:
        suggestions = list_items(reading.rest)
        if not suggestions and reading.rest.strip(" :\n"):
            suggestions = [" ".join(reading.rest.split())]
    return Review(False, [s for s in suggestions if s][:MAX_SUGGESTIONS])


def unclear_review(text: str) -> Review:
    """The review after every ask was unclear: not approved, the answer as feedback."""
    shown = " ".join(text.split())[:500] or "(no answer)"
    return Review(False, [f"The reviewer's verdict was unclear: {shown}"], understood=False)


def wants_to_keep(text: str, code: Optional[str], previous: str) -> bool:
    """Whether a revision answer keeps the code.

    KEEP (a decision line, ``**KEEP**``, "I'll keep my code", "No changes are
    needed") with no code block, or with a block that is the previous code again.
    """
    if read_decision(text, KEEP_WORDS).decision != KEEP:
        return False
    return code is None or _normal(code) == _normal(previous)


def _normal(code: str) -> str:
    return "\n".join(line.rstrip() for line in code.strip().splitlines())
