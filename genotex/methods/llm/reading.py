"""Reading model replies the way models write them: one reader for every role and method.

Chat models rarely answer exactly in the format a prompt asks for. The readers
here take replies as hosted and local models word them:

* **reasoning** is removed first (:func:`answer_text`): ``<think>...</think>``
  (also ``<thinking>``, ``<reasoning>``), a reply that starts inside the
  reasoning and only closes it (templates that open ``<think>`` in the prompt),
  an unclosed block (cut off), and the final channel of gpt-oss's harmony
  format. Servers that split reasoning off (``reasoning_content`` /
  ``reasoning`` fields) never reach the readers: the client keeps it apart.
* **code** (:func:`read_code`): fenced blocks (```` ``` ```` or ``~~~``, indented
  in lists or not) tagged ``python`` / ``py`` / ``python3`` / ``ipython``; untagged
  blocks only when no block is tagged; blocks labelled as output ("Expected
  output:", "Output:") or shaped like output (literals only, or not Python at
  all when untagged) never run. Of several blocks, the last one announced as
  the whole answer ("Final answer", "complete code", "corrected version") and
  those after it count; blocks quoted as the old code, or offered as
  alternatives ("Alternatively", "You can also", "If that raises an error"),
  do not; the rest are joined in order. A native tool call (``python``
  function), a ``<tool_call>`` block or Llama's ``<|python_tag|>`` holds code too.
* **decisions** (:func:`read_decision`): a decision line ("APPROVED",
  "**Verdict:** REJECTED", "Not approved.") wins; otherwise the decision words of
  the text, negations understood ("no reason to reject" is not a rejection,
  "cannot approve" is one, within its own sentence); a word weighed, not taken
  ("whether to approve", "Reject it?"), counts for nothing; contradictory or
  missing words give None, so the caller asks again -- nothing is approved by
  default. Structured answers (``{"verdict": ...}``, ``{"approved": false}``)
  are read first.
* **plans** (:func:`read_plan`): the last JSON object with an ``action`` key
  (:mod:`.jsonscan`, linear time; typeset quotes read too).

Gene lists are read by :mod:`.genelists`.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from genotex.methods.llm.jsonscan import json_objects, nested_dicts, objects_with_key

PYTHON_TAGS = frozenset({"python", "py", "python3", "py3", "ipython", "ipython3", "jupyter"})
_REASONING = re.compile(r"<(think|thinking|reasoning|reflection)>.*?</\1\s*>",
                        re.DOTALL | re.IGNORECASE)
_REASONING_CLOSE = re.compile(r"</(?:think|thinking|reasoning|reflection)\s*>", re.IGNORECASE)
_REASONING_OPEN = re.compile(r"<(?:think|thinking|reasoning|reflection)>", re.IGNORECASE)
_HARMONY_FINAL = "<|channel|>final<|message|>"
_HARMONY_END = re.compile(r"<\|(?:end|return|call)\|>.*", re.DOTALL)
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*?)[ \t]*$")
_TOOL_CALL = re.compile(r"<tool_call>(?P<body>.*?)</tool_call>", re.DOTALL)
_MISTRAL_CALLS = "[TOOL_CALLS]"
#: Markdown emphasis, code marks, headings, quotes and table bars (not the ``_`` of names).
_MARKUP = re.compile(r"[*`#>|]+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
_OUTPUT_WORDS = re.compile(r"\b(?:output|outputs|result|results|stdout|prints?|printed|console|"
                           r"displays?|returns)\b")
_CODE_WORDS = re.compile(r"\b(?:code|script|snippet|implementation|solution|python|function|"
                         r"step)\b")
_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*•+])\s+(?P<text>.+)$")
_NEGATION = re.compile(r"\b(?:not|no|never|cannot|can't|won't|wouldn't|shouldn't|don't|"
                       r"doesn't|isn't|without|nothing|none|neither|nor)\b|n't\b",
                       re.IGNORECASE)
#: Words before a decision word searched for a negation.
NEGATION_WINDOW = 5
_LINE_PREFIX = re.compile(r"^(?:final\s+|my\s+|overall\s+)?(?:verdict|decision|answer|review|"
                          r"result|status|conclusion|assessment|recommendation)\s*[:\-–—]\s*",
                          re.IGNORECASE)


# ----------------------------------------------------------------------------- reasoning
def answer_text(text: Optional[str]) -> str:
    """The answer of a reply without its reasoning (see module docstring)."""
    text = (text or "").replace("\r\n", "\n")
    if _HARMONY_FINAL in text:
        text = _HARMONY_END.sub("", text.rsplit(_HARMONY_FINAL, 1)[1])
    text = _REASONING.sub("", text)
    closing = None
    for closing in _REASONING_CLOSE.finditer(text):
        pass
    if closing is not None:                    # the reply began inside the reasoning
        text = text[closing.end():]
    opening = _REASONING_OPEN.search(text)
    if opening is not None:                    # reasoning never closed (cut off)
        text = text[:opening.start()]
    return text.strip()


# ----------------------------------------------------------------------------- code
@dataclass(frozen=True)
class Block:
    """A fenced block of a reply.

    Attributes
    ----------
    lang : str
        First word of the info string, lower case (``""`` when untagged).
    body : str
        The block's text, dedented to its fence.
    label : str
        The last line of prose before the block (markup removed, lower case).
    closed : bool
        False when the reply ended inside the block.
    """

    lang: str
    body: str
    label: str
    closed: bool = True


def _language(info: str) -> str:
    word = info.strip().split(maxsplit=1)[0] if info.strip() else ""
    return word.strip("{}.").lower()


def fenced_blocks(text: str) -> List[Block]:
    """The fenced blocks of ``text`` in order (CommonMark-like: the closing fence has
    the opening character, at least as many of them, and nothing else)."""
    blocks: List[Block] = []
    label = ""
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            if lines[index].strip():
                label = _MARKUP.sub("", lines[index]).strip().lower()
            index += 1
            continue
        fence, indent = opening.group("fence"), len(opening.group("indent"))
        body: List[str] = []
        index += 1
        closed = False
        while index < len(lines):
            line = lines[index]
            stripped = line.strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                closed = True
                index += 1
                break
            body.append(line[indent:] if line[:indent].strip() == "" else line.lstrip())
            index += 1
        blocks.append(Block(_language(opening.group("info")), "\n".join(body), label, closed))
        label = ""
    return blocks


def is_output_label(label: str) -> bool:
    """Whether a block's label announces output ("Expected output:", "This prints:")."""
    if not label or _CODE_WORDS.search(label):
        return False
    return bool(_OUTPUT_WORDS.search(label)) and (label.endswith(":") or len(label.split()) <= 4)


def _statements(body: str) -> Optional[List[ast.stmt]]:
    """The statements of ``body`` (IPython ``%`` / ``!`` lines left out), None if not Python."""
    source = "\n".join(line for line in body.split("\n")
                       if not line.lstrip().startswith(("%", "!")))
    try:
        return ast.parse(source).body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _literal_only(statements: Sequence[ast.stmt]) -> bool:
    """Whether every statement is a bare literal (a printed value, not code)."""
    return bool(statements) and all(
        isinstance(s, ast.Expr) and not any(isinstance(n, (ast.Name, ast.Call, ast.Attribute,
                                                           ast.Await, ast.Lambda))
                                            for n in ast.walk(s.value))
        for s in statements)


#: A name used, assigned or called: code, not a printed value (no parse needed).
_CODE_SIGN = re.compile(r"(?m)^\s*(?:import|from|def|class|for|if|with|while|try)\b|"
                        r"[A-Za-z_]\w*\s*(?:\(|=[^=]|\.\w)")


def _runnable(block: Block, tagged: bool) -> bool:
    if not block.body.strip():
        return False
    if tagged and not is_output_label(block.label) and _CODE_SIGN.search(block.body):
        return True
    statements = _statements(block.body)
    output_shaped = statements is None or _literal_only(statements)
    if tagged:       # a tagged block with a syntax error runs (its error goes back to the model)
        return not (statements is not None and _literal_only(statements)) and \
            not (is_output_label(block.label) and output_shaped)
    return not output_shaped and not is_output_label(block.label)


#: The function offered in native tool-calling mode: code comes as its ``code`` argument.
PYTHON_TOOL = {"type": "function", "function": {
    "name": "python",
    "description": "Run this step's Python code in the task's persistent Jupyter kernel.",
    "parameters": {"type": "object", "properties": {"code": {"type": "string"}},
                   "required": ["code"]}}}


@dataclass(frozen=True)
class CodeReading:
    """Code found in a reply (None when there is none) and why not."""

    code: Optional[str]
    problem: str = ""


def code_from_tool_arguments(arguments: Any) -> Optional[str]:
    """Code of a ``python`` tool call: ``{"code": ...}`` (or its only string), or raw code."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return arguments if arguments.strip() else None
    if isinstance(arguments, dict):
        code = arguments.get("code")
        if not isinstance(code, str):
            strings = [v for v in arguments.values() if isinstance(v, str)]
            code = strings[0] if len(strings) == 1 else None
        return code if code and code.strip() else None
    return None


def _tool_call_bodies(text: str) -> List[str]:
    """The call texts of ``<tool_call>...</tool_call>`` blocks (Hermes style) and of a
    ``[TOOL_CALLS][...]`` answer (Mistral's tool calls left in the text)."""
    bodies = [match.group("body") for match in _TOOL_CALL.finditer(text)]
    if text.lstrip().startswith(_MISTRAL_CALLS):
        bodies.append(text.lstrip()[len(_MISTRAL_CALLS):])
    return bodies


def _tool_call_text(text: str) -> Optional[str]:
    """Code of the tool calls written in the text (see :func:`_tool_call_bodies`)."""
    parts = []
    for body in _tool_call_bodies(text):
        for call in json_objects(body):
            code = code_from_tool_arguments(call.get("arguments", call.get("parameters")))
            if code:
                parts.append(code)
    return "\n\n".join(parts) if parts else None


#: A block offered besides the answer: "Alternatively, ...", "If that raises a KeyError, ...".
_ALTERNATIVE_LABEL = re.compile(
    r"^or\b|\b(?:more\s+simply|a\s+simpler\s+(?:way|version|option)|alternative(?:ly|s)?|"
    r"instead|or\s+you\s+(?:can|could|may|might)|you\s+(?:can|could|"
    r"may|might)\s+also|optional(?:ly)?|if\s+you\s+prefer|if\b.{0,80}?\b(?:fails?|errors?|"
    r"raises?|exceptions?|(?:does\s+not|doesn't|won't|does\s*n't)\s+work|differs?|"
    r"differently))\b")
#: A block that replaces the blocks before it: "Final answer:", "Here is the complete code:".
_WHOLE_LABEL = re.compile(
    r"\b(?:final\s+answer|(?:final|complete|full|whole|entire|corrected|fixed|revised|updated)"
    r"\s+(?:\w+\s+)?(?:code|version|solution|script|implementation)|putting\s+it\s+"
    r"(?:all\s+)?together)\b")
#: A block quoted as the code being replaced ("Original code:", "Your current code:").
_OLD_LABEL = re.compile(r"\b(?:original|old|buggy|current|previous|existing)\s+"
                        r"(?:\w+\s+)?(?:code|version|implementation)\b")
_PYTHON_TAG = "<|python_tag|>"
_SPECIAL_TOKEN = re.compile(r"<\|(?:eom_id|eot_id|end|return|call)\|>.*", re.DOTALL)


def _answer_blocks(blocks: Sequence[Block]) -> List[Block]:
    """The blocks that make the answer when a reply holds several.

    A careful reader runs the last block announced as the whole answer ("final
    answer", "complete code", "corrected version") and what follows it; blocks
    quoted as the old code, and blocks offered as alternatives or fixes for a
    case that may not arise, are not part of the answer (unless nothing else is).
    """
    if len(blocks) < 2:
        return list(blocks)
    whole = [i for i, b in enumerate(blocks) if _WHOLE_LABEL.search(b.label)]
    chosen = list(blocks[whole[-1]:]) if whole else list(blocks)
    kept = [chosen[0]] + [b for b in chosen[1:] if not _ALTERNATIVE_LABEL.search(b.label)]
    newer = [b for b in kept if not (_OLD_LABEL.search(b.label) and
                                     not _WHOLE_LABEL.search(b.label))]
    return newer or kept


def _python_tag_code(text: str) -> Optional[str]:
    """Code after Llama 3.1's ``<|python_tag|>`` (its code-interpreter call left in the text)."""
    if _PYTHON_TAG not in text:
        return None
    code = _SPECIAL_TOKEN.sub("", text.split(_PYTHON_TAG, 1)[1]).strip("\n")
    return code + "\n" if code.strip() and _statements(code) is not None else None


def read_code(text: str, truncated: bool = False) -> CodeReading:
    """The Python code of a reply's answer (reasoning already removed).

    Parameters
    ----------
    text : str
        The answer text.
    truncated : bool
        The reply was cut off: a block left open is not used.
    """
    tool = _tool_call_text(text)
    if tool is not None:
        return CodeReading(tool.rstrip() + "\n")
    blocks = [b for b in fenced_blocks(text) if b.closed or not truncated]
    if not blocks and not truncated:
        tagged_code = _python_tag_code(text)
        if tagged_code is not None:
            return CodeReading(tagged_code)
    tagged = [b for b in blocks if b.lang in PYTHON_TAGS]
    chosen = _answer_blocks([b for b in tagged if _runnable(b, True)] if tagged else
                            [b for b in blocks if not b.lang and _runnable(b, False)])
    if chosen:
        return CodeReading("\n".join(b.body.strip("\n") for b in chosen) + "\n")
    if truncated:
        return CodeReading(None, "the reply was cut off before its code block was complete")
    if blocks:
        return CodeReading(None, "the reply had no ```python block with code to run (only "
                                 "blocks of other languages or of output)")
    return CodeReading(None, "the reply had no ```python code block")


# ----------------------------------------------------------------------------- decisions
@dataclass(frozen=True)
class DecisionWords:
    """The words of a two-way decision.

    Attributes
    ----------
    yes, no : str
        The decisions (``APPROVED`` / ``REJECTED``, ``KEEP`` / ``REVISE``).
    yes_words, no_words : tuple of str
        Words (lower case; phrases allowed) that mean each decision.
    negated_yes : str or None
        What a negated yes word means (``"not approved"`` -> ``no``); None: nothing.
    negated_no : str or None
        What a negated no word means (``"no reason to reject"`` -> nothing).
    json_keys : tuple of str
        Keys of a structured answer holding the decision.
    strong_only : tuple of str
        Words that count in running text only when written in capitals
        (``ACCEPTED``; "should accept None" is no verdict).
    flag_keys : tuple of str
        Keys of a structured answer holding the decision as a boolean
        (``{"approved": false}``).
    """

    yes: str
    no: str
    yes_words: Tuple[str, ...]
    no_words: Tuple[str, ...]
    negated_yes: Optional[str] = None
    negated_no: Optional[str] = None
    json_keys: Tuple[str, ...] = ("verdict", "decision")
    strong_only: Tuple[str, ...] = ()
    flag_keys: Tuple[str, ...] = ()

    def pattern(self) -> "re.Pattern[str]":
        """A regex for any of the words (whole words, longest first)."""
        words = sorted(self.yes_words + self.no_words, key=len, reverse=True)
        return re.compile(r"(?<![-\w])(?:" + "|".join(re.escape(w).replace(r"\ ", r"\s+")
                                                     for w in words) + r")(?![-\w])",
                          re.IGNORECASE)

    def meaning(self, word: str, negated: bool) -> Optional[str]:
        """The decision a (possibly negated) word stands for."""
        normal = " ".join(word.lower().split())
        if normal in self.yes_words:
            return self.negated_yes if negated else self.yes
        return self.negated_no if negated else self.no


REVIEW_WORDS = DecisionWords(
    "APPROVED", "REJECTED",
    yes_words=("approved", "approve", "approving", "accepted", "accept", "lgtm"),
    no_words=("rejected", "reject", "rejecting", "changes requested", "needs changes",
              "needs revision", "request changes"),
    negated_yes="REJECTED", negated_no=None,
    strong_only=("accepted", "accept", "lgtm", "changes requested", "needs changes",
                 "needs revision", "request changes"),
    flag_keys=("approved", "approve", "accepted", "accept", "lgtm", "passed", "pass"))
KEEP_WORDS = DecisionWords(
    "KEEP", "REVISE",
    yes_words=("keep", "keeping", "kept", "no changes needed", "no change needed",
               "no changes are needed", "no changes required", "no changes are required",
               "no changes necessary", "no changes are necessary"),
    no_words=("revise", "revised", "revising", "revision"),
    negated_yes="REVISE", negated_no=None, json_keys=("decision", "action", "verdict"),
    strong_only=("revision", "revised", "revising"), flag_keys=("keep",))


@dataclass(frozen=True)
class DecisionReading:
    """A decision read from a reply.

    Attributes
    ----------
    decision : str or None
        ``words.yes`` / ``words.no``, or None when unclear.
    rest : str
        The text after the decision line (suggestions), or the whole answer.
    structured : dict or None
        The JSON answer it came from.
    """

    decision: Optional[str]
    rest: str = ""
    structured: Optional[Dict[str, Any]] = None


def _word_matches(text: str, words: DecisionWords) -> List[Tuple[int, int]]:
    """Spans of the decision words in ``text`` (whole words, any case), in order.

    ``str.find`` on the lower-cased text: a case-insensitive regex alternation is
    about a hundred times slower on megabyte replies.
    """
    lower = text.lower()
    spans = set()
    for word in sorted(words.yes_words + words.no_words, key=len, reverse=True):
        at = lower.find(word)
        while at >= 0:
            end = at + len(word)
            before = lower[at - 1] if at else " "
            after = lower[end] if end < len(lower) else " "
            if not (before.isalnum() or before in "-_") and not (after.isalnum() or after in "-_"):
                spans.add((at, end))      # whole words: "approve" never matches in "approved"
            at = lower.find(word, at + 1)
    return sorted(spans)


def _clean_line(line: str) -> str:
    return _LINE_PREFIX.sub("", _MARKUP.sub("", line).strip(" \t:.-")).strip()


def _clause_before(text: str, start: int) -> str:
    """The last words before ``start`` within its sentence (a negation or a "whether" there
    bears on the word; "Reject it? No. I approve." approves)."""
    window = re.split(r"[.!?;\n]", text[max(0, start - 60):start])[-1]
    return " ".join(window.split()[-NEGATION_WINDOW:])


def _negated(text: str, start: int) -> bool:
    return bool(_NEGATION.search(_clause_before(text, start)))


#: A decision word used as a label and answered: "Approve: No", "Approved? yes".
_LABEL_ANSWER = re.compile(r"\s*[:?=]\s*(yes|no|true|false)\s*(?:[.!,;]|$)", re.IGNORECASE)
_WHETHER = re.compile(r"\b(?:whether|if\s+(?:i|we)\s+should)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?\n]")


def _undecided(text: str, start: int, end: int) -> bool:
    """Whether a decision word is weighed, not taken: "whether to approve", "Approve?"."""
    if _WHETHER.search(_clause_before(text, start)):
        return True
    stop = _SENTENCE_END.search(text, end)
    return stop is not None and stop.group() == "?"


def _structured_decision(text: str, words: DecisionWords) -> Optional[DecisionReading]:
    keys = words.json_keys + words.flag_keys
    values = [v for key in keys for v in objects_with_key(text, key)]
    for value in values:
        for candidate in nested_dicts(value):
            for key in keys:
                raw = candidate.get(key)
                if isinstance(raw, bool) and key in words.flag_keys:
                    return DecisionReading(words.yes if raw else words.no, text, candidate)
                if isinstance(raw, str):
                    match = words.pattern().search(raw)
                    if match is not None:
                        meaning = words.meaning(match.group(), _negated(raw, match.start()))
                        if meaning is not None:
                            return DecisionReading(meaning, text, candidate)
    return None


def read_decision(text: str, words: DecisionWords = REVIEW_WORDS) -> DecisionReading:
    """The decision of a reply's answer (see module docstring); ``decision`` None when unclear."""
    structured = _structured_decision(text, words) if "{" in text else None
    if structured is not None:
        return structured
    pattern = words.pattern()
    matches = _word_matches(text, words)
    on_lines: List[Tuple[str, int, int]] = []           # (decision, line start, line end)
    for match_start, _ in matches:
        start = text.rfind("\n", 0, match_start) + 1
        if on_lines and on_lines[-1][1] == start:
            continue
        end = text.find("\n", match_start)
        end = len(text) if end < 0 else end
        cleaned = _clean_line(text[start:end])
        negation = re.match(r"(?:not|no)\s+", cleaned, re.IGNORECASE)
        head = cleaned[negation.end():] if negation else cleaned
        first = pattern.match(head)
        if first is not None:
            answer = _LABEL_ANSWER.match(head, first.end())  # "Approve: No"
            said_no = answer is not None and answer.group(1).lower() in ("no", "false")
            meaning = words.meaning(first.group(), (negation is not None) != said_no)
            if meaning is not None:
                on_lines.append((meaning, start, end))
    if on_lines:
        decisions = {meaning for meaning, _, _ in on_lines}
        if len(decisions) == 1:
            _, start, end = on_lines[0]
            tail = pattern.split(_clean_line(text[start:end]), maxsplit=1)[-1].strip(" :.-–—")
            return DecisionReading(decisions.pop(), (tail + "\n" + text[end + 1:]).strip())
        return DecisionReading(None, text)
    strong, weak = set(), set()
    for match_start, match_end in matches:
        word = text[match_start:match_end]
        capitals = word.isupper() and len(word) > 2
        if not capitals and " ".join(word.lower().split()) in words.strong_only:
            continue
        if _undecided(text, match_start, match_end):
            continue
        meaning = words.meaning(word, _negated(text, match_start))
        if meaning is not None:
            (strong if capitals else weak).add(meaning)
    found = strong or weak
    return DecisionReading(found.pop() if len(found) == 1 else None, text)


def _inline_items(line: str) -> List[str]:
    """A numbered item split where the numbering goes on in the same line ("1) a. 2) b.")."""
    first = re.match(r"^\s*(\d+)([.)])\s+", line)
    if first is None:
        return [line]
    number, mark = int(first.group(1)), re.escape(first.group(2))
    parts, rest = [], line[first.end():]
    while True:
        after = re.search(rf"(?<=[.;!?])\s+{number + 1}{mark}\s+", rest)
        if after is None:
            return parts + [rest]
        parts.append(rest[:after.start()])
        rest, number = rest[after.end():], number + 1


def list_items(text: str, limit: Optional[int] = None) -> List[str]:
    """The numbered or bulleted items of ``text`` (markup removed), in order.

    Numbering that goes on within a line ("1) Use x. 2) Use y.") makes one item
    per number.
    """
    items = []
    for line in text.split("\n"):
        match = _ITEM.match(line)
        if match is None:
            continue
        for part in _inline_items(line):
            item = _MARKUP.sub("", _ITEM.sub(r"\g<text>", part) if part is line
                               else part).strip()
            if item:
                items.append(item)
    return items[:limit] if limit is not None else items


# ----------------------------------------------------------------------------- plans
_TYPESET_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})


def read_plan(text: str) -> Optional[Dict[str, Any]]:
    """The last JSON object with an ``action`` key (nested ones included), or None.

    JSON written with typeset quotes (``{“action”: “skip”}``) is read when the
    reply holds no object with plain quotes.
    """
    for typeset in (False, True):
        if typeset and "\u201c" not in text and "\u2018" not in text:
            break
        source = text.translate(_TYPESET_QUOTES) if typeset else text
        for value in objects_with_key(source, "action"):
            for candidate in reversed(list(nested_dicts(value))):
                if "action" in candidate:
                    return candidate
    return None


def strings_of(values: Any) -> List[str]:
    """The strings of a JSON list (``str`` items, or a name-like field of dict items)."""
    out = []
    for item in values if isinstance(values, list) else []:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            name = next((item[k] for k in ("symbol", "gene", "gene_symbol", "name", "text",
                                           "suggestion") if isinstance(item.get(k), str)), None)
            if name is not None:
                out.append(name)
    return out


def first_list(value: Mapping[str, Any], preferred: Sequence[str] = ()) -> Optional[List[Any]]:
    """The list under the first preferred key, else the first list-valued key."""
    for key in preferred:
        if isinstance(value.get(key), list):
            return value[key]
    return next((v for v in value.values() if isinstance(v, list)), None)
