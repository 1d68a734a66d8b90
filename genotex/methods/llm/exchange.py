"""One logged, priced exchange with the model."""

from __future__ import annotations

import hashlib
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from genotex.methods.base import Usage
from genotex.methods.llm.client import ChatClient, ChatReply, LLMError, Message
from genotex.methods.resources import Price, cost_of
from genotex.methods.runlog import clip


def logged_messages(messages: Sequence[Message], log: Any) -> List[Dict[str, str]]:
    """Messages for the run log: system prompts by reference (written once), texts clipped."""
    shown = []
    for message in messages:
        content = message["content"]
        if message["role"] == "system":
            key = hashlib.sha256(content.encode()).hexdigest()[:12]
            log.write_once(key, "system_prompt", content=content)
            content = f"[system prompt {key}]"
        shown.append(dict(message, content=clip(content)))
    return shown


def ask(chat: ChatClient, messages: Sequence[Message], log: Any, task: str, role: str,
        prices: Mapping[str, Price], model: Optional[str] = None,
        deadline: Optional[float] = None) -> Tuple[ChatReply, Usage]:
    """Send ``messages``, log the exchange (``llm`` event) and price it.

    Raises
    ------
    LLMError
        As :meth:`ChatClient.chat`; the failure is logged (``llm_error`` event) first.
    """
    model = model or chat.settings.model
    try:
        reply = chat.chat(messages, model=model, deadline=deadline)
    except LLMError as exc:
        log.write("llm_error", task=task, role=role, model=model, error=str(exc),
                  messages=logged_messages(messages, log))
        raise
    usage = Usage(1, reply.input_tokens, reply.output_tokens,
                  cost_of(reply.model, reply.input_tokens, reply.output_tokens, prices))
    log.write("llm", task=task, role=role, model=reply.model,
              messages=logged_messages(messages, log),
              reply=clip(reply.text), input_tokens=reply.input_tokens,
              output_tokens=reply.output_tokens, attempts=reply.attempts,
              seconds=round(reply.seconds, 3), cost=usage.as_dict()["cost"])
    return reply, usage
