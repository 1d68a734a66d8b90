"""A corpus of reply styles: the same answers worded the way real models and servers send them.

A scripted test "model" decides *what* to answer (:class:`Code`, :class:`Verdict`,
:class:`Plan`, :class:`Keep`, :class:`Genes`); a :class:`Style` decides *how* it
reaches the client: fences and tags, prose around the code, reasoning blocks
(``<think>``, ``reasoning_content``), decision words, JSON wrapped in prose, gene
lists as tables, native tool calls, cut-off answers asked again... Sources of
the shapes: the issue 24 cases, and the documented behaviour of OpenAI-compatible
servers -- vLLM's reasoning parsers (``reasoning_content``, later ``reasoning``),
DeepSeek-R1 and Qwen3 ``<think>`` blocks (also only closed when the chat template
opens them), gpt-oss harmony channels, Hermes-style ``<tool_call>`` text,
OpenAI tool calls with ``content: null``, ``finish_reason: "length"``, gateways
answering 200 with an error body, servers refusing ``response_format``.

A style renders one answer as a list of replies: the first is sent, the others
answer the client's re-asks (a cut-off or unclear first answer). A reply is a
text, or a message dict for :func:`genotex.testing.fake_llm.completion`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

Reply = Union[str, Dict[str, Any]]


@dataclass(frozen=True)
class Code:
    """Code of a step."""

    code: str


@dataclass(frozen=True)
class Verdict:
    """A review: approved, or rejected with suggestions."""

    approved: bool
    suggestions: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """A plan decision."""

    action: str
    step: Optional[str] = None


@dataclass(frozen=True)
class Keep:
    """The writer keeps its code."""


@dataclass(frozen=True)
class Genes:
    """A ranked gene list."""

    symbols: Tuple[str, ...]


Answer = Union[Code, Verdict, Plan, Keep, Genes]
DRAFT_CODE = "result = undefined_name + 1   # a draft that must never run"


def fence(code: str, tag: str = "python", mark: str = "```") -> str:
    return f"{mark}{tag}\n{code.strip()}\n{mark}"


def plan_json(plan: Plan) -> str:
    value: Dict[str, Any] = {"action": plan.action}
    if plan.step:
        value["step"] = plan.step
    return json.dumps(value)


def numbered(items: Sequence[str]) -> str:
    return "\n".join(f"{i}. {s}" for i, s in enumerate(items, 1))


class Style:
    """The answer exactly as the prompts ask (the base every style varies)."""

    name = "plain"

    def render(self, answer: Answer, structured: bool = False) -> List[Reply]:
        """The replies of one answer (``structured``: the request asked for JSON)."""
        if isinstance(answer, Code):
            return [self.code(answer.code)]
        if isinstance(answer, Verdict):
            return [self.verdict(answer.approved, list(answer.suggestions))]
        if isinstance(answer, Plan):
            return [self.plan(answer)]
        if isinstance(answer, Keep):
            return [self.keep()]
        return [self.genes(list(answer.symbols))]

    def code(self, code: str) -> Reply:
        return fence(code)

    def verdict(self, approved: bool, suggestions: List[str]) -> Reply:
        return "APPROVED" if approved else "REJECTED\n" + numbered(suggestions)

    def plan(self, plan: Plan) -> Reply:
        return plan_json(plan)

    def keep(self) -> Reply:
        return "KEEP"

    def genes(self, symbols: List[str]) -> Reply:
        return json.dumps(symbols)


class PyTag(Style):
    name = "py-tag-bold-verdict"

    def code(self, code):
        return "Sure! Here's the step:\n\n" + fence(code, "py")

    def verdict(self, approved, suggestions):
        return "**APPROVED**" if approved else "**REJECTED**\n\n" + numbered(
            [f"**{s}**" for s in suggestions])

    def keep(self):
        return "**KEEP**"


class BareFence(Style):
    name = "bare-fence-verdict-line"

    def code(self, code):
        return fence(code, "")

    def verdict(self, approved, suggestions):
        word = "APPROVED" if approved else "REJECTED"
        return f"Verdict: {word}\n" + numbered(suggestions)


class ProseAround(Style):
    name = "prose-around"

    def code(self, code):
        return ("Let me look at what the previous step printed. The variables we need are "
                "already defined, so this step only has to build on them.\n\n"
                + fence(code) + "\n\nThis code does the following:\n- reads what is needed\n"
                "- prints the result so the next step can check it\n\nLet me know if you "
                "want any changes!")

    def plan(self, plan):
        return ("Looking at the outputs so far, everything went as expected. I'll answer "
                f"with my decision:\n\n{plan_json(plan)}\n\nThis keeps the analysis on track.")

    def verdict(self, approved, suggestions):
        if approved:
            return ("I checked the code against the instruction and the printed output; the "
                    "step does what it should.\n\nAPPROVED")
        return ("I checked the code against the instruction; there are problems.\n\nREJECTED\n"
                + numbered(suggestions) + "\n\nOnce these are addressed it should be fine.")

    def genes(self, symbols):
        return ("Based on the literature, these genes are the most consistently reported:\n\n"
                + json.dumps(symbols) + "\n\nNote that associations vary between cohorts.")


class SplitBlocks(Style):
    name = "split-blocks"

    def code(self, code):
        lines = code.strip().split("\n")
        cut = next((i for i in range(len(lines) // 2, len(lines))
                    if lines[i] and not lines[i][0].isspace() and not lines[i].startswith(")")),
                   len(lines))
        head, tail = "\n".join(lines[:cut]), "\n".join(lines[cut:])
        if not tail.strip():
            return "First:\n" + fence(head)
        return "First, the set-up:\n" + fence(head) + "\n\nThen the rest:\n" + fence(tail)


class ExpectedOutput(Style):
    name = "expected-output-block"

    def code(self, code):
        return (fence(code) + "\n\nExpected output:\n```\n(120, 5)\n['GSM1', 'GSM2', 'GSM3']"
                "\nTraceback-like lines are not code: x = ???\n```")

    def plan(self, plan):
        return f"Steps [1, 2, 3, 4] are done and their outputs look right. {plan_json(plan)}"


class ThinkDraft(Style):
    name = "think-draft-qwen"

    def _think(self, draft: str) -> str:
        return f"<think>\nLet me draft this first.\n{draft}\nHmm, let me reconsider.\n</think>\n\n"

    def code(self, code):
        return self._think(fence(DRAFT_CODE)) + fence(code)

    def verdict(self, approved, suggestions):
        thought = self._think("Should this be rejected? The row could be wrong... REJECTED? "
                              "No: it is the right row, APPROVED seems fair." if approved else
                              "At first glance I would have APPROVED it.")
        return thought + ("APPROVED" if approved else "REJECTED\n" + numbered(suggestions))

    def plan(self, plan):
        return self._think('{"action": "back", "step": "initial_data_loading"}') + \
            plan_json(plan)

    def keep(self):
        return self._think(fence(DRAFT_CODE)) + "KEEP"

    def genes(self, symbols):
        return self._think("1. WAS\n2. MET\n3. XYZ") + json.dumps(symbols)


class ReasoningContent(Style):
    """DeepSeek-R1 behind vLLM / the DeepSeek API: reasoning in ``reasoning_content``."""

    name = "reasoning-content-field"

    def render(self, answer, structured=False):
        return [{"content": text if isinstance(text, str) else text["content"],
                 "reasoning_content": "Draft:\n" + fence(DRAFT_CODE) + "\nREJECTED? APPROVED?"}
                for text in super().render(answer, structured)]


class ReasoningField(Style):
    """Newer vLLM and Ollama-style ``reasoning`` field."""

    name = "reasoning-field"

    def render(self, answer, structured=False):
        return [{"content": text, "reasoning": '{"action": "skip"} maybe? ' + DRAFT_CODE}
                for text in super().render(answer, structured)]


class ThinkClosedOnly(Style):
    """The chat template opened ``<think>``: the reply starts inside it."""

    name = "think-close-only"

    def render(self, answer, structured=False):
        prefix = ("Okay, the user wants this step. Draft: " + fence(DRAFT_CODE)
                  + '\nMaybe {"action": "skip"}; maybe REJECTED.\n</think>\n\n')
        return [prefix + text for text in super().render(answer, structured)]


class TildeFence(Style):
    name = "tilde-fence-decision"

    def code(self, code):
        return fence(code, "python", "~~~")

    def verdict(self, approved, suggestions):
        return ("Decision: APPROVED" if approved else
                "Decision: REJECTED\n" + "\n".join(f"- {s}" for s in suggestions))


class TagVariants(Style):
    name = "python3-tag-info-string"

    def code(self, code):
        return "```Python3 title=\"step.py\"\n" + code.strip() + "\n```"

    def plan(self, plan):
        return "```json\n" + json.dumps({"action": plan.action, "step": plan.step,
                                         "reason": "see the outputs"}, indent=2) + "\n```"


class ConsoleOutput(Style):
    name = "console-and-text-blocks"

    def code(self, code):
        return ("Install nothing; just run:\n```bash\npip install pandas\n```\n\n" + fence(code)
                + "\n\nWhich prints:\n```text\n   age  gender\n0   54       1\n```\n"
                "```console\n$ python step.py\n```")


class OutputLabelledPython(Style):
    name = "output-in-python-block"

    def code(self, code):
        return fence(code) + "\n\nOutput:\n" + fence("(120, 5)\n['TP53', 'TNF']")


class MarkdownHeavy(Style):
    name = "markdown-heavy"

    def code(self, code):
        return "### Step code\n\n> Uses the task variables.\n\n" + fence(code) + \
            "\n\n---\n**Notes**: none."

    def verdict(self, approved, suggestions):
        if approved:
            return "## Review\n\n**Verdict: APPROVED** ✅\n\nThe step is correct."
        return "## Review\n\n**Verdict: REJECTED** ❌\n\n" + numbered(
            [f"**{s}**" for s in suggestions])

    def plan(self, plan):
        return "## Plan\n\n```json\n" + plan_json(plan) + "\n```"

    def keep(self):
        return "### Decision\n\n**KEEP** — the reviewer's point does not apply here."


class NegationReview(Style):
    name = "negations"

    def verdict(self, approved, suggestions):
        if approved:
            return ("The converter maps both groups and the output shows 0/1 values; I see "
                    "no reason for this to be rejected. APPROVED.")
        return "Not approved.\n" + numbered(suggestions)


class SentenceVerdict(Style):
    name = "sentence-verdicts"

    def verdict(self, approved, suggestions):
        if approved:
            return "The code does what the instruction asks, and I approve it."
        return "I cannot approve this step yet:\n" + "\n".join(f"- {s}" for s in suggestions)

    def keep(self):
        return "I'll keep my code as it is: the reviewer's concern does not apply."

    def plan(self, plan):
        return f"My decision: {plan_json(plan)}."


class PythonDict(Style):
    name = "python-dict-plan-lowercase"

    def plan(self, plan):
        value = {"action": plan.action.upper()}
        if plan.step:
            value["step"] = plan.step
        return f"I choose {value!r}"

    def verdict(self, approved, suggestions):
        return "approved" if approved else "rejected:\n" + numbered(suggestions)


class Harmony(Style):
    """gpt-oss's harmony format passed through raw (no reasoning parser)."""

    name = "harmony-channels"

    def render(self, answer, structured=False):
        return ["<|channel|>analysis<|message|>Draft: " + fence(DRAFT_CODE)
                + " REJECTED?<|end|><|start|>assistant<|channel|>final<|message|>" + text
                + "<|return|>" for text in super().render(answer, structured)]


class Truncated(Style):
    """The first answer is cut at the token limit (``finish_reason: length``)."""

    name = "truncated-then-complete"

    def render(self, answer, structured=False):
        full = super().render(answer, structured)[0]
        cut = {"content": full[:max(1, len(full) // 2)], "finish_reason": "length"}
        return [cut, full] if isinstance(answer, (Code, Genes)) else [full]


class UnclearFirst(Style):
    """The reviewer hedges first; asked again, it answers."""

    name = "unclear-then-clear"

    def verdict(self, approved, suggestions):
        return super().verdict(approved, suggestions)

    def render(self, answer, structured=False):
        replies = super().render(answer, structured)
        if isinstance(answer, (Verdict, Plan)):
            return ["Mostly fine, though I have some thoughts about the approach."] + replies
        return replies


class Structured(Style):
    """The server honours ``response_format``: plans, verdicts and genes come as JSON."""

    name = "structured-json"

    def render(self, answer, structured=False):
        if not structured:
            return super().render(answer, structured)
        if isinstance(answer, Verdict):
            return [json.dumps({"verdict": "APPROVED" if answer.approved else "REJECTED",
                                "suggestions": list(answer.suggestions)})]
        if isinstance(answer, Genes):
            return [json.dumps({"genes": list(answer.symbols)})]
        return super().render(answer, structured)


class ToolCalls(Style):
    """OpenAI-style native tool calls: code as a ``python`` call, content null."""

    name = "native-tool-calls"

    def code(self, code):
        return {"content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {
            "name": "python", "arguments": json.dumps({"code": code})}}]}


class HermesToolCall(Style):
    """Qwen / Hermes ``<tool_call>`` text when the server has no tool parser."""

    name = "hermes-tool-call-text"

    def code(self, code):
        call = json.dumps({"name": "python", "arguments": {"code": code}})
        return f"<tool_call>\n{call}\n</tool_call>"


class WindowsNewlines(Style):
    name = "crlf-newlines"

    def render(self, answer, structured=False):
        return [text.replace("\n", "\r\n") if isinstance(text, str) else text
                for text in super().render(answer, structured)]


class IndentedInList(Style):
    name = "fence-indented-in-list"

    def code(self, code):
        body = "\n".join("   " + line if line else line for line in code.strip().split("\n"))
        return "1. Run the step:\n\n   ```python\n" + body + "\n   ```\n\n2. Check the output."


class NumberedGenes(Style):
    name = "genes-numbered-with-names"

    def genes(self, symbols):
        lines = []
        for i, s in enumerate(symbols, 1):
            lines.append(f"{i}. Protein encoded by ({s}) – implicated in the trait.")
            lines.append("   Was reported in several cohorts; see also MAPK signalling.")
        return "Here are the genes, strongest first:\n\n" + "\n".join(lines)

    def plan(self, plan):
        if plan.step:
            return json.dumps({"action": plan.action, "step": plan.step})
        return json.dumps({"action": plan.action, "reason": "Step 3 [done] looks right"})


class TableGenes(Style):
    name = "genes-markdown-table"

    def genes(self, symbols):
        rows = "\n".join(f"| {i} | **{s}** | reported in GWAS |" for i, s in enumerate(symbols, 1))
        return "| Rank | Gene symbol | Evidence |\n|---:|:---|---|\n" + rows


class CommaGenes(Style):
    name = "genes-comma-line"

    def genes(self, symbols):
        return "Genes: " + ", ".join(symbols) + "\n\nThese are ranked by evidence."


class ObjectGenes(Style):
    name = "genes-json-object"

    def genes(self, symbols):
        return json.dumps({"gene_symbols": [{"symbol": s, "evidence": "GWAS"} for s in symbols],
                           "notes": ["ranked by evidence"]}, indent=2)


class ErrorBodyFirst(Style):
    """A gateway answers 200 with an error body first (the fake server's fault queue does it)."""

    name = "gateway-error-body"


STYLES: Tuple[Style, ...] = (
    Style(), PyTag(), BareFence(), ProseAround(), SplitBlocks(), ExpectedOutput(), ThinkDraft(),
    ReasoningContent(), ReasoningField(), ThinkClosedOnly(), TildeFence(), TagVariants(),
    ConsoleOutput(), OutputLabelledPython(), MarkdownHeavy(), NegationReview(),
    SentenceVerdict(), PythonDict(), Harmony(), Truncated(), UnclearFirst(), Structured(),
    ToolCalls(), HermesToolCall(), WindowsNewlines(), IndentedInList(), NumberedGenes(),
    TableGenes(), CommaGenes(), ObjectGenes(), ErrorBodyFirst(),
)
BY_NAME = {style.name: style for style in STYLES}


class StyledScript:
    """A :class:`genotex.testing.fake_llm.Script` of answers, sent in one style (or a style per task).

    Re-asks (requests saying "could not be used") get the style's next reply for
    the same request; :attr:`followups` counts them.
    """

    def __init__(self, style: Any) -> None:
        from genotex.testing.fake_llm import Script

        self.script = Script()
        self.script.DEFAULTS = {"plan": Plan("next"), "review": Verdict(True)}
        self.style = style
        self.pending: Dict[Tuple[str, str, str], List[Reply]] = {}
        self.followups = 0

    def add(self, request: str, *answers: Answer, step: str = "", task: str = ""
            ) -> "StyledScript":
        """Queue answers (see :meth:`Script.add`)."""
        self.script.add(request, *answers, step=step, task=task)
        return self

    def style_for(self, task: str) -> Style:
        """The style of a task (one style, or a callable choosing per task)."""
        return self.style if isinstance(self.style, Style) else self.style(task)

    def __call__(self, body: dict) -> Reply:
        from genotex.testing.fake_llm import request_fields

        fields = request_fields(body)
        key = (fields["request"], fields["step"], fields["task"])
        last = next((m["content"] for m in reversed(body["messages"]) if m["role"] == "user"), "")
        if "could not be used" in last and self.pending.get(key):
            self.followups += 1
            return self.pending[key].pop(0)
        answer = self.script(body)
        if isinstance(answer, str):
            return answer
        replies = self.style_for(fields["task"]).render(answer, "response_format" in body)
        self.pending[key] = list(replies[1:])
        return replies[0]

    def left(self):
        """Answers queued but never asked for."""
        return self.script.left()


def whole_demo_script(style_for: Any) -> StyledScript:
    """Every demo cohort and problem, each task answered in ``style_for(task)`` (or one style).

    The code is :mod:`genotex.testing.canned`'s ``DEMO_*`` code, which
    takes the decisions with the library's own rules, so the tree matches ``rules``.
    """
    from genotex.methods.inputs import cohort_tasks
    from genotex.testing.canned import (DEMO_GEO_CODE, DEMO_STATISTICS_CODE,
                                                        DEMO_TCGA_CODE)
    from utils.paths import resolve_paths
    from utils.problems import enumerate_problems, load_task_info

    paths = resolve_paths()
    task_info = load_task_info(paths.task_info)
    script = StyledScript(style_for)
    for task in cohort_tasks(paths, sorted(task_info)):
        code = DEMO_GEO_CODE if task.source == "GEO" else DEMO_TCGA_CODE
        for step, text in code.items():
            script.add("code", Code(text), step=step, task=task.key)
        if task.source == "GEO":
            script.add("plan", Plan("skip"), step="gene_annotation", task=task.key)
            script.add("plan", Plan("skip"), step="gene_identifier_mapping", task=task.key)
    for problem in enumerate_problems(task_info):
        for step, text in DEMO_STATISTICS_CODE.items():
            script.add("code", Code(text), step=step, task=str(problem))
    return script
