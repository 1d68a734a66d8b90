"""GenoAgent's step loop: plan, write, execute, review or debug -- for one task.

For each action unit (:mod:`.steps`):

1. **plan** (when planning is on and a step has run): the programming agent
   sees the task context and the plan and chooses ``next``, ``skip`` (not for
   required steps) or ``back`` to an earlier step, after which the later steps
   are pending again. Without planning every unit runs once, in order.
2. **write**: the Domain Expert for ``expert`` units (unless switched off),
   else the programming agent, replies with a ```python block (or a ``python``
   tool call); a reply without usable code, a cut-off reply, an unclear verdict
   or plan is asked for again with the reason (``format_retries`` times).
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
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from genotex.methods.base import Usage
from genotex.methods.genoagent import prompts
from genotex.methods.genoagent.replies import (BACK, NEXT, PLAN_SCHEMA, REVIEW_SCHEMA, SKIP,
                                               PlanDecision, Review, parse_plan, parse_review,
                                               unclear_review, wants_to_keep)
from genotex.methods.genoagent.settings import CODE_REVIEWER, DOMAIN_EXPERT, AgentSettings
from genotex.methods.genoagent.steps import ActionUnit
from genotex.methods.llm.client import ChatClient, ChatReply, ChatRequest
from genotex.methods.llm.exchange import Exchange, Reading
from genotex.methods.llm.reading import PYTHON_TOOL, answer_text, code_from_tool_arguments, \
    read_code
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
    exchange : Exchange, optional
        The task's exchanges with the model (default: a plain one;
        :meth:`RunContext.exchange` adds the run's cache, token limit and budget).
    """

    def __init__(self, spec: TaskSpec, chat: ChatClient, kernel: Any, settings: AgentSettings,
                 log: Any, prices: Mapping[str, Any], deadline: Optional[float] = None,
                 clock: Callable[[], float] = time.monotonic,
                 exchange: Optional[Exchange] = None) -> None:
        self.spec = spec
        self.chat = chat
        self.kernel = kernel
        self.settings = settings
        self.log = log
        self.prices = prices
        self.deadline = deadline
        self.clock = clock
        self.exchange = exchange if exchange is not None else \
            Exchange(chat, log, spec.key, prices, deadline=deadline)
        self.history: List[ExecutedStep] = []
        self.status: List[str] = [PENDING] * len(spec.units)
        #: The last executed attempt that was not accepted (shown in a failed task's notebook).
        self.attempt: Optional[ExecutedStep] = None

    @property
    def usage(self) -> Usage:
        """Every model call of the task so far (failed calls included)."""
        return self.exchange.usage

    # -- model and kernel -------------------------------------------------------------
    def _check_time(self) -> None:
        if self.deadline is not None and self.clock() >= self.deadline:
            raise TimeLimitError("time limit of the task reached")

    def _ask(self, role: str, kind: str, unit: ActionUnit, text: str,
             read: Callable[[ChatReply], Reading[Any]], schema: Any = None,
             tools: Sequence[Any] = ()) -> Tuple[Reading[Any], ChatReply]:
        """Ask ``role``; asked again (with the reason) while ``read`` finds nothing."""
        self._check_time()
        request = ChatRequest(self._messages(role, text), self.settings.model_for(role),
                              schema, tools)
        return self.exchange.ask_until(
            role, request, read,
            lambda note: prompts.ask_again(kind, self.spec.key, unit, note),
            self.settings.format_retries)

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
        self.attempt = ExecutedStep(unit, code, result, writer)
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
    def _tools(self) -> Tuple[Any, ...]:
        return (PYTHON_TOOL,) if self.chat.settings.code_tool else ()

    @staticmethod
    def _read_code(reply: ChatReply) -> Reading[str]:
        calls = [code_from_tool_arguments(call.arguments) for call in reply.tool_calls]
        if any(calls):
            return Reading("\n\n".join(c for c in calls if c).rstrip() + "\n")
        found = read_code(answer_text(reply.text), truncated=reply.truncated)
        return Reading(found.code, found.problem)

    def _code_reply(self, role: str, unit: ActionUnit, request: str) -> str:
        """The code of a step (asked again while the answer has none)."""
        reading, _ = self._ask(role, "code", unit, request, self._read_code,
                               tools=self._tools())
        if reading.value is None:
            raise StepError(f"step {unit.name}: {role} replied without a code block "
                            f"{self.settings.format_retries + 1} times ({reading.problem})")
        return reading.value

    def _revision(self, role: str, unit: ActionUnit, request: str, previous: str
                  ) -> Optional[str]:
        """Revised code, or None when the writer keeps its code."""
        def read(reply: ChatReply) -> Reading[Tuple[str, str]]:
            code = self._read_code(reply)
            if wants_to_keep(answer_text(reply.text), code.value, previous):
                return Reading(("keep", ""))
            if code.value is None:
                return Reading(None, f"{code.problem}, and no {prompts.KEEP}")
            return Reading(("code", code.value))

        reading, _ = self._ask(role, "revise", unit, request, read, tools=self._tools())
        if reading.value is None:
            raise StepError(f"step {unit.name}: {role} replied without a code block or "
                            f"{prompts.KEEP} {self.settings.format_retries + 1} times")
        return None if reading.value[0] == "keep" else reading.value[1]

    def _writer(self, unit: ActionUnit) -> str:
        return DOMAIN_EXPERT if unit.expert and self.settings.domain_expert \
            else self.spec.programmer

    def _review(self, unit: ActionUnit, code: str, result: ExecutionResult) -> Review:
        def read(reply: ChatReply) -> Reading[Review]:
            return Reading(parse_review(answer_text(reply.text)),
                           f"no clear verdict: {prompts.APPROVED} or {prompts.REJECTED}?")

        reading, reply = self._ask(CODE_REVIEWER, "review", unit, prompts.review_request(
            self.spec.key, unit, code, _shown_output(result)), read, schema=REVIEW_SCHEMA)
        review = reading.value if reading.value is not None else \
            unclear_review(answer_text(reply.text))
        self.log.write("review", task=self.spec.key, step=unit.name, approved=review.approved,
                       suggestions=review.suggestions, understood=review.understood)
        return review

    def run_unit(self, unit: ActionUnit, number: int) -> ExecutedStep:
        """Write, execute and review one unit until it is accepted (or fail)."""
        writer = self._writer(unit)
        code = self._code_reply(writer, unit, prompts.code_request(
            self.spec.key, self.context(), unit, number))
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
            revised = self._revision(writer, unit, prompts.revise_request(
                self.spec.key, unit, code, _shown_output(result),
                f"{self.context()}\n\n{feedback}"), code)
            if revised is None:
                self.log.write("keep", task=self.spec.key, step=unit.name, role=writer)
                if result.ok:
                    break
                raise StepError(f"step {unit.name} failed and its code was kept: "
                                 f"{_first_line(result.error)}")
            code, attempt = revised, attempt + 1
        self.attempt = None
        return ExecutedStep(unit, code, result, writer)

    # -- planning ---------------------------------------------------------------------
    def _plan(self, position: int) -> int:
        """Index of the unit to run next (``len(units)`` when done)."""
        units = self.spec.units
        while position < len(units):
            if not (self.settings.planning and self.history):
                return position
            decision = self._decide(position)
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

    def _decide(self, position: int) -> PlanDecision:
        """The programming agent's plan decision (``next`` when it never gives one)."""
        units = self.spec.units
        names = [u.name for u in units]

        def read(reply: ChatReply) -> Reading[PlanDecision]:
            return Reading(parse_plan(answer_text(reply.text), names),
                           'no JSON object with an "action" key')

        reading, _ = self._ask(self.spec.programmer, "plan", units[position],
                               prompts.plan_request(self.spec.key, self.context(), units,
                                                    self.status, units[position]),
                               read, schema=PLAN_SCHEMA)
        return reading.value or PlanDecision(NEXT, understood=False)

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
