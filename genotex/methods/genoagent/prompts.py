"""GenoAgent's prompts: one system prompt per role and the requests of the step loop.

Every request starts with machine-readable header lines -- ``REQUEST: code |
revise | plan | review``, ``STEP: <unit>``, ``TASK: <key>`` -- so run logs can
be filtered and a scripted test server can answer by request kind; the prose
follows. The library reference in the system prompts is generated from the
library itself (names, signatures, first docstring line), so it never drifts
from the code the agents call.
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from typing import Iterable, List, Sequence

from genotex.methods.genoagent.settings import (CODE_REVIEWER, DATA_ENGINEER, DOMAIN_EXPERT,
                                                STATISTICIAN)
from genotex.methods.genoagent.steps import ActionUnit

MAX_SUGGESTIONS = 3
APPROVED = "APPROVED"
REJECTED = "REJECTED"
KEEP = "KEEP"

_ROLE_TEXT = {
    DATA_ENGINEER: (
        "You are the Data Engineer of a team of agents analysing gene expression. You "
        "preprocess one cohort (a GEO series or a TCGA cohort) step by step in a persistent "
        "Jupyter kernel: every step's code runs after the earlier steps, so their variables "
        "exist. Write short, correct Python that uses the library functions listed below "
        "(they are already imported) and prints what the next step needs to see."),
    STATISTICIAN: (
        "You are the Statistician of a team of agents analysing gene expression. You answer "
        "one gene-trait association problem step by step in a persistent Jupyter kernel, "
        "with the library functions listed below (already imported): select the cohort(s), "
        "fit the model the data calls for, interpret it and save the result."),
    DOMAIN_EXPERT: (
        "You are the Domain Expert (a biomedical scientist) of a team of agents analysing "
        "gene expression. You take the decisions that need biomedical knowledge: which "
        "sample characteristics hold the trait, age and sex, how each recorded value "
        "encodes cases and controls, whether row ids are gene symbols. You write those "
        "decisions as Python code for a persistent Jupyter kernel, using the library "
        "functions listed below (already imported)."),
    CODE_REVIEWER: (
        "You are the Code Reviewer of a team of agents analysing gene expression. You read "
        "one step's instruction, its code and the output it printed, and judge whether the "
        "step does what the instruction asks, correctly. Answer with APPROVED on the first "
        "line, or REJECTED followed by at most three numbered, concrete suggestions."),
}


def library_reference(module_name: str, names: Iterable[str]) -> str:
    """``name(signature)  first docstring line`` of each public function of a module."""
    import importlib

    module = importlib.import_module(module_name)
    lines = []
    for name in names:
        value = getattr(module, name, None)
        if not callable(value):
            continue
        try:
            signature = str(inspect.signature(value))
        except (TypeError, ValueError):
            signature = "(...)"
        doc = (inspect.getdoc(value) or "").strip().splitlines()
        lines.append(f"- {name}{signature}" + (f": {doc[0]}" if doc else ""))
    return "\n".join(lines)


def system_prompt(role: str, reference: str) -> str:
    """The system prompt of ``role`` with the library reference appended."""
    text = f"ROLE: {role}\n{_ROLE_TEXT[role]}"
    return text + ("\n\nLibrary functions:\n" + reference if reference else "")


HINTS_HEADER = "## Rule-based hints"


def with_domain_hints(unit: ActionUnit, hints: str) -> ActionUnit:
    """``unit`` with the rules' clinical proposal appended to its instruction."""
    return replace(unit, instruction=(
        f"{unit.instruction}\n\n{HINTS_HEADER}\n{hints}\nThe proposal comes from the "
        "rule-based clinical step (tools.preprocess.clinical_rules); check it against "
        "the printed characteristics and background, and decide yourself."))


def _step_header(request: str, task: str, unit: ActionUnit) -> str:
    return f"REQUEST: {request}\nSTEP: {unit.name}\nTASK: {task}\n"


def code_request(task: str, context: str, unit: ActionUnit, number: int) -> str:
    """Ask for the code of one step."""
    return (_step_header("code", task, unit) + f"\n{context}\n\n## Your step\n"
            f"Step {number}: {unit.name}\n{unit.instruction}\n\n"
            "Reply with the code of this step only, in one ```python block.")


_ANSWER_FORMATS = {
    "code": "Reply with the complete code of this step in one ```python block.",
    "revise": ("Reply with the revised code of the whole step in one ```python block, or "
               f"with the single word {KEEP} to keep your code as it is."),
    "plan": ('Answer with JSON only: {"action": "next"}, {"action": "skip"} or '
             '{"action": "back", "step": "<name>"}.'),
    "review": (f"Answer with {APPROVED} or {REJECTED} on the first line ({REJECTED} followed "
               f"by at most {MAX_SUGGESTIONS} numbered suggestions)."),
}


def ask_again(request: str, task: str, unit: ActionUnit, note: str) -> str:
    """Ask again after an answer that could not be used; ``note`` says why."""
    return (_step_header(request, task, unit) +
            f"Your previous answer could not be used: {note}\n{_ANSWER_FORMATS[request]}")


def revise_request(task: str, unit: ActionUnit, code: str, output: str, feedback: str) -> str:
    """Ask the step's writer to revise its code from an error or a review."""
    return (_step_header("revise", task, unit) + "\nYour code for this step:\n```python\n"
            f"{code}```\nIts output:\n```\n{output}\n```\nFeedback:\n{feedback}\n\n"
            "Reply with the revised code of the whole step in one ```python block (it runs "
            f"again in the same kernel), or with the single word {KEEP} to keep your code "
            "as it is.")


def plan_request(task: str, context: str, units: Sequence[ActionUnit], status: List[str],
                 next_unit: ActionUnit) -> str:
    """Ask the programming agent what to do next (planning)."""
    listing = "\n".join(f"{i + 1}. {u.name} [{s}]" + (" (required)" if u.required else "")
                        for i, (u, s) in enumerate(zip(units, status)))
    return (f"REQUEST: plan\nSTEP: {next_unit.name}\nTASK: {task}\n\n{context}\n\n"
            f"## Plan\n{listing}\n\nThe next step in order is {next_unit.name}. Decide what "
            'to do and answer with JSON only: {"action": "next"} to do it, {"action": '
            '"skip"} to skip it (not for required steps), or {"action": "back", "step": '
            '"<name>"} to redo an earlier step whose result the outputs show to be wrong.')


def review_request(task: str, unit: ActionUnit, code: str, output: str) -> str:
    """Ask the Code Reviewer about one executed step."""
    return (_step_header("review", task, unit) + f"\nInstruction:\n{unit.instruction}\n\n"
            f"Code:\n```python\n{code}```\nOutput:\n```\n{output}\n```\n\n"
            f"Answer {APPROVED}, or {REJECTED} with at most {MAX_SUGGESTIONS} numbered "
            "suggestions.")
