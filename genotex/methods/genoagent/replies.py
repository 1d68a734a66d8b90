"""Reading GenoAgent's decisions from model replies: plans, reviews, "keep my code"."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Optional

from genotex.methods.genoagent.prompts import APPROVED, KEEP, MAX_SUGGESTIONS, REJECTED
from genotex.methods.llm.replies import extract_code, extract_json

NEXT, SKIP, BACK = "next", "skip", "back"
_SUGGESTION = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s*(?P<text>.+)$")


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


def parse_plan(text: str) -> PlanDecision:
    """A plan reply; anything unreadable means ``next`` (``understood`` False)."""
    value = extract_json(text)
    if isinstance(value, dict):
        action = str(value.get("action", "")).strip().lower()
        step = value.get("step")
        if action in (NEXT, SKIP) or (action == BACK and isinstance(step, str) and step):
            return PlanDecision(action, step if action == BACK else None)
    return PlanDecision(NEXT, understood=False)


def parse_review(text: str) -> Review:
    """A review reply: REJECTED (with suggestions) or APPROVED; unclear counts as approved."""
    upper = (text or "").upper()
    if REJECTED in upper:
        after = text[upper.index(REJECTED) + len(REJECTED):]
        suggestions = [m.group("text").strip() for m in map(_SUGGESTION.match,
                                                             after.splitlines()) if m]
        if not suggestions and after.strip(" :\n"):
            suggestions = [after.strip(" :\n")]
        return Review(False, suggestions[:MAX_SUGGESTIONS])
    return Review(True, understood=APPROVED in upper)


def wants_to_keep(text: str) -> bool:
    """Whether a revision reply keeps the code (the word KEEP and no code block)."""
    return extract_code(text) is None and (text or "").strip().upper().startswith(KEEP)
