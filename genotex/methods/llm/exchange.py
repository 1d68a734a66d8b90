"""A task's exchanges with the model: logged, priced, accounted, read and asked again.

:class:`Exchange` is what every method uses to talk to the model. Each call

* is written to the run log (``llm`` or ``llm_error``; system prompts once);
* is added to the task's :class:`~genotex.methods.base.Usage` at once -- also
  when a later call fails, so a failed task still reports what it spent;
* is read by one reader (:mod:`.reading`); when the reader finds nothing usable
  (no code block, an unclear verdict, a cut-off answer), the model is asked
  again with a note saying why, a bounded number of times
  (:meth:`Exchange.ask_until`);
* is kept in the run folder's exchanges (:mod:`.cache`), or -- replaying a
  run -- answered from the original run's, without the network;
* counts against the task's token limit (``--max-tokens-per-task``): the call
  that goes over it ends the task (:class:`TokenLimitError`, its accounting
  kept), and its cost is reported to the run's budget as it is spent.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, Generic, List, Mapping, Optional, Sequence, Tuple, TypeVar

from genotex.methods.base import RunContext, Usage
from genotex.methods.llm.client import (NO_FORMAT, ChatClient, ChatReply, ChatRequest, LLMError,
                                        Message)
from genotex.methods.llm.cache import TaskExchanges
from genotex.methods.llm.reading import answer_text
from genotex.methods.resources import Price, cost_of
from genotex.methods.runlog import clip

Value = TypeVar("Value")
#: Note added when an answer was cut at the server's token limit.
TRUNCATED_NOTE = ("Your previous answer was cut off at the output-token limit before it was "
                  "complete. Answer again, shorter: no explanation, only what is asked.")


def logged_messages(messages: Sequence[Message], log: Any) -> List[Dict[str, Any]]:
    """Messages for the run log: system prompts by reference (written once), texts clipped."""
    shown = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, str):
            shown.append(dict(message))
            continue
        if message["role"] == "system":
            key = hashlib.sha256(content.encode()).hexdigest()[:12]
            log.write_once(key, "system_prompt", content=content)
            content = f"[system prompt {key}]"
        shown.append(dict(message, content=clip(content)))
    return shown


class TokenLimitError(LLMError):
    """The task used more tokens than ``--max-tokens-per-task`` allows: it stops."""


@dataclass(frozen=True)
class Reading(Generic[Value]):
    """What a reader made of a reply: a value, or the problem to tell the model."""

    value: Optional[Value]
    problem: str = ""


def schema_note(schema: Mapping[str, Any]) -> str:
    """The line asking for JSON of a schema's shape (the schema's ``example``)."""
    return f"\n\nAnswer with JSON only, of this shape: {json.dumps(schema['example'])}"


@dataclass
class Exchange:
    """One task's conversation with the endpoint.

    Attributes
    ----------
    chat : ChatClient
    log : RunLog
    task : str
        The task's key (run log).
    prices : mapping
    usage : Usage
        Accumulated over every call of the task (failed ones counted in
        ``failed_calls``).
    deadline : float, optional
        The task's time limit (``time.monotonic()`` value).
    exchanges : TaskExchanges, optional
        Where the task's exchanges are kept (and, replaying, answered from).
    token_limit : int
        Input plus output tokens the task may use (0: no limit).
    charge : callable, optional
        ``charge(task, cost)``: told the cost of every answered call (the run's budget).
    """

    chat: ChatClient
    log: Any
    task: str
    prices: Mapping[str, Price]
    usage: Usage = field(default_factory=Usage)
    deadline: Optional[float] = None
    exchanges: Optional[TaskExchanges] = None
    token_limit: int = 0
    charge: Optional[Callable[[str, float], None]] = None

    @classmethod
    def for_task(cls, ctx: RunContext, chat: ChatClient, task: str,
                 prices: Mapping[str, Price], deadline: Optional[float] = None) -> "Exchange":
        """A task's exchange under its run: the run's log, cache, token limit and budget."""
        return cls(chat, ctx.log, task, prices, deadline=deadline,
                   exchanges=ctx.cache.task(task) if ctx.cache is not None else None,
                   token_limit=ctx.max_tokens_per_task,
                   charge=ctx.budget.charge if ctx.budget is not None else None)

    def _complete(self, role: str, request: ChatRequest) -> ChatReply:
        """The answer: from the endpoint (kept), or from the replayed run."""
        exchanges = self.exchanges
        if exchanges is None:
            return self.chat.complete(request, deadline=self.deadline)
        document = exchanges.document(request, self.chat.settings)
        try:
            if exchanges.replaying:
                reply = exchanges.replay(role, document)
                if request.schema is not None:      # the original client had stepped down
                    self.chat.adopt_structured(reply.structured)
            else:
                reply = self.chat.complete(request, deadline=self.deadline)
        except LLMError as exc:
            exchanges.record(role, request, document, error=exc)
            raise
        exchanges.record(role, request, document, reply=reply)
        return reply

    def send(self, role: str, request: ChatRequest) -> ChatReply:
        """One call: logged, priced and added to :attr:`usage`.

        Raises
        ------
        LLMError
            As :meth:`ChatClient.complete` (logged as ``llm_error`` first).
        """
        model = request.model or self.chat.settings.model
        if request.schema is not None and self.chat.structured != NO_FORMAT:
            request = _with_note(request, schema_note(request.schema))
        try:
            reply = self._complete(role, request)
        except LLMError as exc:
            self.usage.add(Usage(failed_calls=1))
            self.log.write("llm_error", task=self.task, role=role, model=model,
                           error=str(exc), messages=logged_messages(request.messages, self.log))
            raise
        usage = Usage(1, reply.input_tokens, reply.output_tokens,
                      cost_of(reply.model, reply.input_tokens, reply.output_tokens,
                              self.prices))
        self.usage.add(usage)
        entry: Dict[str, Any] = {
            "task": self.task, "role": role, "model": reply.model,
            "messages": logged_messages(request.messages, self.log), "reply": clip(reply.text),
            "input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens,
            "attempts": reply.attempts, "seconds": round(reply.seconds, 3),
            "cost": usage.as_dict()["cost"], "finish_reason": reply.finish_reason}
        if reply.reasoning:
            entry["reasoning"] = clip(reply.reasoning)
        if reply.tool_calls:
            entry["tool_calls"] = [{"name": c.name, "arguments": clip(c.arguments)}
                                   for c in reply.tool_calls]
        if reply.structured != NO_FORMAT:
            entry["response_format"] = reply.structured
        self.log.write("llm", **entry)
        if self.charge is not None:
            self.charge(self.task, usage.cost)
        used = self.usage.input_tokens + self.usage.output_tokens
        if self.token_limit and used > self.token_limit:
            raise TokenLimitError(f"the task used {used} tokens, more than "
                                  f"--max-tokens-per-task {self.token_limit}")
        return reply

    def ask_until(self, role: str, request: ChatRequest,
                  read: Callable[[ChatReply], Reading[Value]], remind: Callable[[str], str],
                  retries: int) -> Tuple[Reading[Value], ChatReply]:
        """Ask until ``read`` finds a value, at most ``retries`` more times.

        Each further request repeats the conversation with the model's answer
        and ``remind(problem)`` (a user message that must start with the
        request's header lines). A cut-off answer (``finish_reason: length``) is
        asked again even when something could be read from it (but the last).

        Returns
        -------
        (Reading, ChatReply)
            The last reading (its value None when the model never gave one) and reply.
        """
        messages = list(request.messages)
        for attempt in range(retries + 1):
            reply = self.send(role, replace(request, messages=messages))
            reading = read(reply)
            if reading.value is not None and (not reply.truncated or attempt == retries):
                return reading, reply
            problem = TRUNCATED_NOTE if reply.truncated else reading.problem
            self.log.write("ask_again", task=self.task, role=role, problem=problem,
                           attempt=attempt + 1, finish_reason=reply.finish_reason)
            if attempt < retries:
                shown = answer_text(reply.text) or "(no answer)"
                messages = messages + [{"role": "assistant", "content": clip(shown, 4000)},
                                       {"role": "user", "content": remind(problem)}]
        return reading, reply


def _with_note(request: ChatRequest, note: str) -> ChatRequest:
    """``request`` with ``note`` appended to its last user message."""
    messages = [dict(m) for m in request.messages]
    for message in reversed(messages):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            if not message["content"].endswith(note):
                message["content"] += note
            break
    return replace(request, messages=messages)
