"""Run the held-out replies (:mod:`.held_out_replies`) through the methods' readers.

Each reply goes the way the methods read it -- GenoAgent's code reading
(:meth:`StepLoop._read_code`: tool calls, then the answer text), its revision
reading (:func:`wants_to_keep` then the code), :func:`parse_review`,
:func:`parse_plan`, and ``llm-no-data``'s :func:`read_gene_list` -- always
after :func:`answer_text` removed the reasoning. The outcome is compared with
what a human reads:

* ``correct`` -- the same meaning (or both ask again);
* ``asked`` -- the reader found nothing and the method asks again where a human
  would have understood (a cost, not a wrong result);
* ``misread`` -- the reader took a different meaning, or acted on a reply a
  human would have asked again about (the defect).

``python -m genotex.testing.reply_audit`` prints the figures per reader and
every reply that is not read correctly (``--round-two``: the second set,
written after the fixes).
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from genotex.methods.genoagent.loop import StepLoop
from genotex.methods.genoagent.replies import parse_plan, parse_review, wants_to_keep
from genotex.methods.llm.client import ChatReply, ToolCall
from genotex.methods.llm.genelists import read_gene_list
from genotex.methods.llm.reading import answer_text
from genotex.testing.held_out_replies import (ASK, CODE, GENES, HELD_OUT, KEEP_CODE, PLAN,
                                              PREVIOUS, READERS, REVIEW, REVISE, ROUND_TWO,
                                              SYNONYMS, UNITS, HeldOutReply)

CORRECT, ASKED, MISREAD = "correct", "asked", "misread"
OUTCOMES = (CORRECT, MISREAD, ASKED)


def as_reply(case: HeldOutReply) -> ChatReply:
    """The reply as the client hands it to the methods."""
    return ChatReply(text=case.text, model="held-out", input_tokens=0, output_tokens=0,
                     attempts=1, seconds=0.0, reasoning=case.reasoning,
                     finish_reason=case.finish_reason,
                     tool_calls=tuple(ToolCall(name, arguments)
                                      for name, arguments in case.tool_calls))


def read(case: HeldOutReply, synonyms: Mapping[str, str] = SYNONYMS) -> Any:
    """What the methods make of ``case`` (None when they would ask again)."""
    reply = as_reply(case)
    answer = answer_text(reply.text)
    if case.reader == CODE:
        return StepLoop._read_code(reply).value
    if case.reader == REVISE:
        code = StepLoop._read_code(reply).value
        return KEEP_CODE if wants_to_keep(answer, code, PREVIOUS) else code
    if case.reader == REVIEW:
        review = parse_review(answer)
        return None if review is None else (review.approved, list(review.suggestions))
    if case.reader == PLAN:
        plan = parse_plan(answer, UNITS)
        return None if plan is None else (plan.action, plan.step)
    if case.reader == GENES:
        return read_gene_list(answer, synonyms).symbols or None
    raise ValueError(f"unknown reader {case.reader!r} in held-out reply {case.name}")


def _code_lines(code: str) -> List[str]:
    return [line.rstrip() for line in code.replace("\r\n", "\n").split("\n") if line.strip()]


def same_meaning(case: HeldOutReply, value: Any) -> bool:
    """Whether a (non-None) reading means what ``case.expected`` says."""
    expected = case.expected
    if case.reader in (CODE, REVISE):
        if expected == KEEP_CODE or value == KEEP_CODE:
            return value == expected
        return _code_lines(value) == _code_lines(expected)
    if case.reader == REVIEW:
        approved, suggestions = value
        want_approved, want_count = expected
        return approved == want_approved and (want_count is None
                                              or len(suggestions) == want_count)
    if case.reader == PLAN:
        action, step = value
        want_action, want_step = expected
        return action == want_action and (want_step is None or step == want_step)
    return list(value) == list(expected)


def judge(case: HeldOutReply, value: Any) -> str:
    """``correct``, ``asked`` or ``misread`` (see module docstring)."""
    if value is None:
        return CORRECT if case.expected is ASK else ASKED
    if case.expected is ASK:
        return MISREAD
    return CORRECT if same_meaning(case, value) else MISREAD


def audit(cases: Iterable[HeldOutReply] = HELD_OUT,
          synonyms: Mapping[str, str] = SYNONYMS) -> Dict[str, Dict[str, Any]]:
    """Outcome of every case by name: ``{"case", "value", "outcome"}``."""
    results = {}
    for case in cases:
        value = read(case, synonyms)
        results[case.name] = {"case": case, "value": value, "outcome": judge(case, value)}
    return results


def tally(results: Mapping[str, Mapping[str, Any]]) -> Dict[str, Counter]:
    """Outcome counts per reader."""
    counts: Dict[str, Counter] = {reader: Counter() for reader in READERS}
    for result in results.values():
        counts[result["case"].reader][result["outcome"]] += 1
    return counts


def report(results: Mapping[str, Mapping[str, Any]]) -> str:
    """The figures per reader and every reply not read correctly."""
    counts = tally(results)
    lines = [f"{'reader':8} {'replies':>7} " + " ".join(f"{o:>8}" for o in OUTCOMES)]
    total: Counter = Counter()
    for reader in READERS:
        total.update(counts[reader])
        lines.append(f"{reader:8} {sum(counts[reader].values()):7d} " +
                     " ".join(f"{counts[reader][o]:8d}" for o in OUTCOMES))
    lines.append(f"{'all':8} {sum(total.values()):7d} " +
                 " ".join(f"{total[o]:8d}" for o in OUTCOMES))
    for name, result in results.items():
        if result["outcome"] != CORRECT:
            lines.append(f"{result['outcome']:8} {name}: read {_short(result['value'])}, "
                         f"meant {_short(result['case'].expected)}")
    return "\n".join(lines)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 90 else text[:87] + "..."


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Print the audit of the held-out replies."""
    parser = argparse.ArgumentParser(description=(
        "Run the held-out model replies (genotex/testing/held_out_replies.py) through "
        "the methods' readers and print correct / misread / asked-again per reader."))
    parser.add_argument("--round-two", action="store_true", help=(
        "audit the second set (ROUND_TWO, written after the readers were fixed) instead of "
        "the held-out set"))
    parser.add_argument("--synonyms", metavar="FILE", help=(
        "gene_synonym.json to read the gene lists against (default: the map entries "
        "stored with the held-out set)"))
    args = parser.parse_args(argv)
    synonyms: Mapping[str, str] = SYNONYMS
    if args.synonyms:
        from utils.symbols import load_synonym_map
        synonyms = load_synonym_map(args.synonyms)
    print(report(audit(ROUND_TWO if args.round_two else HELD_OUT, synonyms)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
