"""The shared reply readers (:mod:`genotex.methods.llm.reading`, ``jsonscan``, ``genelists``).

The cases of issue 24 first, then the edges: reasoning variants, output-shaped
blocks, cut-off fences, JSON inside prose, megabyte replies (their speed is
measured by ``benchmarks/bench_reply_reading.py``; here only the results).
"""

from __future__ import annotations

import json

from genotex.methods.llm.genelists import read_gene_list
from genotex.methods.llm.jsonscan import (decode_object, json_objects, object_spans,
                                          objects_with_key)
from genotex.methods.llm.reading import (KEEP_WORDS, answer_text, fenced_blocks,
                                         is_output_label, read_code, read_decision, read_plan)

SYNONYMS = {"TNF": "TNF", "TP53": "TP53", "P53": "TP53", "MET": "MET", "WAS": "WAS",
            "IL6": "IL6", "ACE": "ACE", "C1ORF112": "C1orf112", "HLA-B": "HLA-B"}


# --------------------------------------------------------------------------- reasoning
def test_reasoning_is_removed_in_every_form():
    assert answer_text("<think>draft REJECTED</think>\nAPPROVED") == "APPROVED"
    assert answer_text("<THINKING>a</THINKING>b<reasoning>c</reasoning>d") == "bd"
    assert answer_text("the template opened it\n</think>\n\nKEEP") == "KEEP"
    assert answer_text("answer\n<think>cut off while thinking") == "answer"
    assert answer_text("<|channel|>analysis<|message|>x<|end|><|start|>assistant"
                       "<|channel|>final<|message|>done<|return|>") == "done"
    assert answer_text("a\r\nb") == "a\nb" and answer_text(None) == ""


# --------------------------------------------------------------------------- code
def test_code_blocks_tagged_untagged_and_output():
    """Issue 24: an "Expected output" block after the code ran as code."""
    text = "Here:\n```python\nx = 1\nprint(x)\n```\nExpected output:\n```\n1\n```"
    assert read_code(text).code == "x = 1\nprint(x)\n"
    # untagged blocks count only when nothing is tagged, and never when shaped as output
    assert read_code("```\nprint(2)\n```\n```\n(120, 5)\n```").code == "print(2)\n"
    assert read_code("```\n   GSM1  GSM2\n0  1.2  3.4\n```").code is None
    assert read_code("```py\na = 1\n```\n```\nb = 2\n```").code == "a = 1\n"
    # a python-tagged block labelled as output and holding only values is not run
    assert read_code("```python\nx = 2\n```\nOutput:\n```python\n(120, 5)\n```").code == \
        "x = 2\n"
    # a tagged block with a syntax error still runs (its error goes back to the model)
    assert read_code("```python\nx = (\n```").code == "x = (\n"
    assert read_code("```bash\npip install x\n```").code is None
    assert "no ```python" in read_code("no code").problem


def test_fences_tilde_indented_info_strings_and_cut_off():
    blocks = fenced_blocks("~~~python\na\n~~~\n1. item\n   ```py title=x.py\n   b\n   ```")
    assert [(b.lang, b.body) for b in blocks] == [("python", "a"), ("py", "b")]
    assert fenced_blocks("````python\n```\ninner\n```\n````")[0].body == "```\ninner\n```"
    cut = "```python\nx = 1\nfor i in"
    assert read_code(cut).code == "x = 1\nfor i in\n"           # a missing fence: read
    assert read_code(cut, truncated=True).code is None          # cut off: asked again
    assert "cut off" in read_code(cut, truncated=True).problem


def test_output_labels():
    for label in ("expected output:", "output:", "this prints:", "sample output",
                  "which prints:", "result:"):
        assert is_output_label(label), label
    for label in ("here is the code that prints the shape:", "step code", "", "first:"):
        assert not is_output_label(label), label


def test_code_in_tool_call_text():
    text = '<tool_call>\n{"name": "python", "arguments": {"code": "print(1)"}}\n</tool_call>'
    assert read_code(text).code == "print(1)\n"


# --------------------------------------------------------------------------- decisions
def test_decisions_read_from_a_decision_line_or_the_words():
    cases = {"APPROVED": "APPROVED", "**REJECTED**\n1. x": "REJECTED",
             "Final verdict: approved.": "APPROVED", "Not approved. 1. trait row": "REJECTED",
             "> **Verdict:** REJECTED": "REJECTED",
             "no reason for it to be rejected. APPROVED.": "APPROVED",
             "I can't approve it as it is.": "REJECTED", "LGTM": "APPROVED",
             "The reviewer should accept the FDA-approved list": None,
             "hmm": None, "APPROVED\nREJECTED": None}
    for text, expected in cases.items():
        assert read_decision(text).decision == expected, text
    reading = read_decision("REJECTED: use row 2\n1. and print it")
    assert reading.rest == "use row 2\n1. and print it"
    assert read_decision('{"verdict": "rejected", "suggestions": []}').decision == "REJECTED"


def test_keep_decisions():
    for text, expected in {"KEEP": "KEEP", "**KEEP**": "KEEP", "Decision: keep": "KEEP",
                           "I won't keep it; revised below.": "REVISE",
                           "I'd rather keep my code.": "KEEP", "nothing": None}.items():
        assert read_decision(text, KEEP_WORDS).decision == expected, text


# --------------------------------------------------------------------------- plans and JSON
def test_the_plan_is_the_last_object_with_an_action():
    """Issue 24: "Steps [1, 2, 3, 4] are done" was read as the plan."""
    assert read_plan('Steps [1, 2, 3, 4] are done… {"action": "skip"}') == {"action": "skip"}
    assert read_plan('{"action": "next"} no wait {"action": "back", "step": "x"}') == {
        "action": "back", "step": "x"}
    assert read_plan('{"plan": {"action": "skip"}, "why": "RNA-seq"}') == {"action": "skip"}
    assert read_plan("{'action': 'skip'}") == {"action": "skip"}
    assert read_plan('{"action": "next",}') == {"action": "next"}
    assert read_plan("no plan {here}") is None


def test_json_scanning_survives_prose_and_broken_structures():
    text = "it's {x} and {\"a\": \"it's\"} then { \"plan\": {\"action\": \"skip\"} oops"
    assert list(json_objects(text)) == [{"action": "skip"}, {"a": "it's"}]
    assert list(objects_with_key(text, "action")) == [{"action": "skip"}]
    assert [s.value for s in object_spans('{"a": {"b": 1}}')] == [{"a": {"b": 1}}]
    assert decode_object("{'a': True, 'b': None,}") == {"a": True, "b": None}
    assert decode_object("{not json") is None


def test_megabyte_replies_are_read_whole():
    """A 1.3 MB reply (issue 24) with the plan at the end; the adversarial shapes terminate."""
    prose = ("Looking at {x} the outputs [1, 2] of 'each' step, \"quoted\" {dict: 1} "
             "and {'k': [1, {'j': 2}]} ") * 15_000
    assert len(prose) > 1_300_000
    assert read_plan(prose + '\n{"action": "skip"}') == {"action": "skip"}
    genes = '{"genes": [' + ", ".join(f'"G{i}"' for i in range(100_000)) + "]}"
    assert len(next(json_objects("Here: " + genes))["genes"]) == 100_000
    assert read_plan('{"action": ' * 100_000) is None
    assert list(json_objects("{'a': " * 100_000)) == []


# --------------------------------------------------------------------------- gene lists
def test_gene_lists_in_every_form():
    """The gene-list cases of issue 24."""
    def symbols(text):
        return read_gene_list(answer_text(text), SYNONYMS).symbols

    assert symbols("TNF, TP53, MET") == ["TNF", "TP53", "MET"]
    assert symbols("Genes: TNF, IL6") == ["TNF", "IL6"]
    assert symbols('{"gene_symbols": ["TNF", "p53"]}') == ["TNF", "TP53"]
    assert symbols('{"top": [{"symbol": "MET", "why": "x"}], "n": 1}') == ["MET"]
    assert symbols("1. Tumor necrosis factor (TNF) – inflammation\n"
                   "   Was reported in many cohorts.\n2. MET") == ["TNF", "MET"]
    assert symbols("| Rank | Gene | Evidence |\n|---|---|---|\n| 1 | **IL6** | x |\n"
                   "| 2 | ACE | y |") == ["IL6", "ACE"]
    assert symbols("<think>\n1. WAS\n2. ACE\n</think>\n[\"TNF\"]") == ["TNF"]
    assert symbols("- C1orf112: a gene\n- HLA-B") == ["C1orf112", "HLA-B"]
    reading = read_gene_list("1. The first\n2. TNF\n3. Was", SYNONYMS)
    assert reading.symbols == ["TNF"] and reading.rejected == ["The", "Was"]
    assert read_gene_list(json.dumps(["TNF", "NOTAGENE"]), SYNONYMS).rejected == ["NOTAGENE"]
