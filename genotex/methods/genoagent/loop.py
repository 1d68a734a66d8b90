"""GenoAgent's step loop: plan, write, execute, review or debug -- for one task.

For each action unit (:mod:`.steps`):

1. **plan** (when planning is on and a step has run): the programming agent
   sees the task context and the plan and chooses ``next``, ``skip`` (not for
   required steps) or ``back`` to an earlier step, after which the later steps
   are pending again. Without planning every unit runs once, in order.
2. **write**: the Domain Expert for ``expert`` units (unless switched off),
   else the programming agent, replies with a ```python block; a reply without
   one is asked for again (``format_retries``).
3. **execute** in the persistent kernel, with the step timeout (bounded by
   the task's time limit). A kernel that had to be restarted gets the setup
   cell and the accepted steps replayed, so the state is back.
4. **review** (``review_rounds`` times at most): the Code Reviewer approves, or
   rejects with at most three suggestions; the writer revises (the revised
   step runs again) or keeps its code. Without reviews left, a failed step is
   rewritten from its error (``debug_attempts``). A step that still fails ends
   the task.

The context every request carries: the task, its variables, the plan and the
code and output of every accepted step (outputs clipped).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from genotex.methods.base import Usage
from genotex.methods.genoagent import prompts
from genotex.methods.genoagent.replies import (BACK, SKIP, Review, parse_plan, parse_review,
                                               wants_to_keep)
from genotex.methods.genoagent.settings import CODE_REVIEWER, DOMAIN_EXPERT, AgentSettings
from genotex.methods.genoagent.steps import ActionUnit
from genotex.methods.llm.client import ChatClient
from genotex.methods.llm.exchange import ask
from genotex.methods.llm.replies import extract_code
from genotex.methods.runlog import clip
from genotex.methods.sandbox.kernel import ExecutionResult

#: Characters of a step's output shown in later requests.
CONTEXT_OUTPUT_CHARS = 4000
PENDING, DONE, SKIPPED = "pending", "done", "skipped"


class StepError(RuntimeError):
    """A step could not be completed; the task ends."""


class TimeLimitError(StepError):
    """The task's time limit ran out."""


@dataclass
class ExecutedStep:
    """An accepted step: what ran, who wrote it, what it printed."""

    unit: ActionUnit
    code: str
    result: ExecutionResult
    writer: str


@dataclass(frozen=True)
class TaskSpec:
    """What a programming agent works on.

    Attributes
    ----------
    key : str
        The task's name (``<Trait>/<cohort>`` or ``<Trait>|<Condition>``).
    description : str
    setup_code : str
        The Project Manager's first cell (task variables).
    programmer : str
        ``Data Engineer`` or ``Statistician``.
    units : tuple of ActionUnit
    system_prompts : mapping
        ``{role: system prompt}`` for this task's kind.
    """

    key: str
    description: str
    setup_code: str
    programmer: str
    units: Sequence[ActionUnit]
    system_prompts: Mapping[str, str]


class StepLoop:
    """Run one task's units (see module docstring).

    Parameters
    ----------
    spec : TaskSpec
    chat : ChatClient
    kernel : SandboxKernel
        Started, with the setup cell already run.
    settings : AgentSettings
    log : RunLog
    prices : mapping
    deadline : float, optional
        ``time.monotonic()`` value at which the task stops.
    clock : callable
    """

    def __init__(self, spec: TaskSpec, chat: ChatClient, kernel: Any, settings: AgentSettings,
                 log: Any, prices: Mapping[str, Any], deadline: Optional[float] = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.spec = spec
        self.chat = chat
        self.kernel = kernel
        self.settings = settings
        self.log = log
        self.prices = prices
        self.deadline = deadline
        self.clock = clock
        self.usage = Usage()
        self.history: List[ExecutedStep] = []
        self.status: List[str] = [PENDING] * len(spec.units)

    # -- model and kernel -------------------------------------------------------------
    def _check_time(self) -> None:
        if self.deadline is not None and self.clock() >= self.deadline:
            raise TimeLimitError("time limit of the task reached")

    def _ask(self, role: str, messages: List[Dict[str, str]]) -> str:
        self._check_time()
        reply, usage = ask(self.chat, messages, self.log, self.spec.key, role, self.prices,
                           model=self.settings.model_for(role), deadline=self.deadline)
        self.usage.add(usage)
        return reply.text

    def _messages(self, role: str, request: str) -> List[Dict[str, str]]:
        return [{"role": "system", "content": self.spec.system_prompts[role]},
                {"role": "user", "content": request}]

    def _execute(self, unit: ActionUnit, code: str, writer: str, attempt: int
                 ) -> ExecutionResult:
        self._check_time()
        timeout = self.settings.step_timeout
        if self.deadline is not None:
            timeout = max(1.0, min(timeout, self.deadline - self.clock()))
        result = self.kernel.execute(code, timeout=timeout)
        self.log.write("execute", task=self.spec.key, step=unit.name, role=writer,
                       attempt=attempt, code=code, status=result.status,
                       output=clip(result.text), error=clip(result.error),
                       seconds=round(result.seconds, 3), restarted=result.restarted)
        if result.restarted:
            self._restore()
        return result

    def _restore(self) -> None:
        """Replay the setup cell and the accepted steps in a restarted kernel."""
        for code in [self.spec.setup_code] + [step.code for step in self.history]:
            replay = self.kernel.execute(code, timeout=self.settings.step_timeout)
            self.log.write("replay", task=self.spec.key, status=replay.status,
                           error=clip(replay.error))

    # -- context ----------------------------------------------------------------------
    def context(self) -> str:
        """The task context: description, variables and every accepted step."""
        parts = [f"## Task\n{self.spec.description}",
                 "## Variables set by the first cell\n```python\n"
                 f"{self.spec.setup_code}```"]
        for number, step in enumerate(self.history, 1):
            output = clip(step.result.text, CONTEXT_OUTPUT_CHARS) or "(no output)"
            parts.append(f"## Step {number} done: {step.unit.name}\n```python\n{step.code}"
                         f"```\nOutput:\n```\n{output}\n```")
        return "\n\n".join(parts)

    # -- writing ----------------------------------------------------------------------
    def _code_reply(self, role: str, messages: List[Dict[str, str]], unit: ActionUnit,
                    allow_keep: bool = False) -> Optional[str]:
        """Code from a reply, asking again when it has none; None means "keep"."""
        for reminder in range(self.settings.format_retries + 1):
            text = self._ask(role, messages)
            if allow_keep and wants_to_keep(text):
                return None
            code = extract_code(text)
            if code is not None:
                return code
            self.log.write("format", task=self.spec.key, step=unit.name, role=role,
                           reminder=reminder + 1)
            reminder_text = prompts.format_reminder(self.spec.key, unit)
            messages = messages + [{"role": "assistant", "content": text},
                                   {"role": "user", "content": reminder_text}]
        raise StepError(f"step {unit.name}: {role} replied without a code block "
                         f"{self.settings.format_retries + 1} times")

    def _writer(self, unit: ActionUnit) -> str:
        return DOMAIN_EXPERT if unit.expert and self.settings.domain_expert \
            else self.spec.programmer

    def _review(self, unit: ActionUnit, code: str, result: ExecutionResult) -> Review:
        text = self._ask(CODE_REVIEWER, self._messages(CODE_REVIEWER, prompts.review_request(
            self.spec.key, unit, code, _shown_output(result))))
        review = parse_review(text)
        self.log.write("review", task=self.spec.key, step=unit.name, approved=review.approved,
                       suggestions=review.suggestions, understood=review.understood)
        return review

    def run_unit(self, unit: ActionUnit, number: int) -> ExecutedStep:
        """Write, execute and review one unit until it is accepted (or fail)."""
        writer = self._writer(unit)
        code = self._code_reply(writer, self._messages(writer, prompts.code_request(
            self.spec.key, self.context(), unit, number)), unit)
        reviews_left = self.settings.reviews
        debug_left = self.settings.debug_attempts
        attempt = 1
        while True:
            result = self._execute(unit, code, writer, attempt)
            if reviews_left > 0:
                reviews_left -= 1
                review = self._review(unit, code, result)
                if review.approved and result.ok:
                    break
                feedback = review.feedback() if not review.approved else \
                    "The reviewer approved, but the step failed:\n" + result.error
            elif result.ok:
                break
            elif debug_left > 0:
                debug_left -= 1
                feedback = "The step failed:\n" + clip(result.error, CONTEXT_OUTPUT_CHARS)
            else:
                raise StepError(f"step {unit.name} failed: {_first_line(result.error)}")
            revised = self._code_reply(writer, self._messages(writer, prompts.revise_request(
                self.spec.key, unit, code, _shown_output(result),
                f"{self.context()}\n\n{feedback}")), unit, allow_keep=True)
            if revised is None:
                self.log.write("keep", task=self.spec.key, step=unit.name, role=writer)
                if result.ok:
                    break
                raise StepError(f"step {unit.name} failed and its code was kept: "
                                 f"{_first_line(result.error)}")
            code, attempt = revised, attempt + 1
        return ExecutedStep(unit, code, result, writer)

    # -- planning ---------------------------------------------------------------------
    def _plan(self, position: int) -> int:
        """Index of the unit to run next (``len(units)`` when done)."""
        units = self.spec.units
        while position < len(units):
            if not (self.settings.planning and self.history):
                return position
            decision = parse_plan(self._ask(self.spec.programmer, self._messages(
                self.spec.programmer, prompts.plan_request(
                    self.spec.key, self.context(), units, self.status, units[position]))))
            self.log.write("plan", task=self.spec.key, next=units[position].name,
                           action=decision.action, step=decision.step,
                           understood=decision.understood)
            names = [u.name for u in units]
            if decision.action == BACK and decision.step in names[:position]:
                target = names.index(decision.step)
                for later in range(target, len(units)):
                    self.status[later] = PENDING
                return target
            if decision.action == SKIP and not units[position].required:
                self.status[position] = SKIPPED
                position += 1
                continue
            return position
        return position

    def run(self) -> List[ExecutedStep]:
        """Run the task's units; the accepted steps in execution order.

        Raises
        ------
        StepError
            A step failed for good, the time limit ran out, or the plan used more
            than ``max_actions`` actions.
        """
        position = 0
        for _ in range(self.settings.max_actions):
            position = self._plan(position)
            if position >= len(self.spec.units):
                return self.history
            step = self.run_unit(self.spec.units[position], len(self.history) + 1)
            self.history.append(step)
            self.status[position] = DONE
            position += 1
        if position < len(self.spec.units):
            raise StepError(f"the plan used {self.settings.max_actions} actions without "
                             "finishing")
        return self.history


def _shown_output(result: ExecutionResult) -> str:
    text = result.text if result.ok else f"{result.text}\n{result.error}"
    return clip(text.strip(), CONTEXT_OUTPUT_CHARS) or "(no output)"


def _first_line(text: str) -> str:
    return (text or "unknown error").strip().splitlines()[0]
