"""The reply-style corpus (:mod:`genotex.testing.reply_styles`) end to end.

Every style words the same answers its own way; what the methods do must not
change: the code that runs is the intended code (no draft, no output block),
verdicts, plans and "keep" are read as meant, gene lists give the intended
symbols, and the only extra requests are the re-asks a style provokes on
purpose (a cut-off or a hedging first answer).

* every style through the readers alone (fast);
* ``llm-no-data`` on the whole demo (37 problems) in every style;
* GenoAgent on one demo series (a rejection, a revision, a KEEP, skipped steps)
  in every style (slow);
* GenoAgent on the whole demo with the styles taking turns task by task (slow).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import List

import pytest

from genotex.methods.genoagent.loop import StepLoop
from genotex.methods.genoagent.replies import parse_plan, parse_review, wants_to_keep
from genotex.methods.llm.client import ChatReply, ToolCall
from genotex.methods.llm.genelists import read_gene_list
from genotex.methods.llm.reading import answer_text
from genotex.methods.llm_no_data import LLMWithoutData
from genotex.methods.runlog import read_log
from genotex.methods.runner import RunOptions, run_method
from genotex.testing import agent_harness as harness
from genotex.testing.fake_llm import FakeLLM
from genotex.testing.canned import GEO_CODE, HYPERTENSION_CLINICAL
from genotex.testing.reply_styles import (BY_NAME, STYLES, Code, Genes, Keep, Plan,
                                                StyledScript, Verdict, whole_demo_script)
from utils.paths import resolve_paths
from utils.problems import enumerate_problems, load_task_info
from utils.symbols import load_synonym_map

PATHS = resolve_paths()
TASK_INFO = load_task_info(PATHS.task_info)
SYNONYMS = load_synonym_map(PATHS.gene_synonyms)
NAMES = [style.name for style in STYLES]
UNITS = ["initial_data_loading", "dataset_analysis", "gene_data_extraction"]
SAMPLE_CODE = ("trait_row, age_row = 2, None\n"
               "selected = geo_select_clinical_features(\n    clinical_data, trait, trait_row)\n"
               "print(preview_df(selected))\n")


def as_reply(reply) -> ChatReply:
    message = {"content": reply} if isinstance(reply, str) else dict(reply)
    calls = tuple(ToolCall(c["function"]["name"], c["function"]["arguments"])
                  for c in message.get("tool_calls") or [])
    return ChatReply(text=message.get("content") or "", model="m", input_tokens=0,
                     output_tokens=0, attempts=1, seconds=0.0,
                     reasoning=message.get("reasoning_content") or message.get("reasoning") or "",
                     finish_reason=message.get("finish_reason", "stop"), tool_calls=calls)


def usable(replies, read) -> List:
    """What the readers make of each reply (None for an unusable or cut-off one)."""
    values = []
    for reply in map(as_reply, replies):
        value = read(reply)
        values.append(None if reply.truncated else value)
    return values


# --------------------------------------------------------------------------- readers only
@pytest.mark.parametrize("name", NAMES)
def test_every_style_reads_back_as_meant(name):
    style = BY_NAME[name]
    answers = {
        Code(SAMPLE_CODE): lambda r: StepLoop._read_code(r).value,
        Verdict(True): lambda r: (lambda v: v and v.approved)(parse_review(answer_text(r.text))),
        Verdict(False, ("Use row 3.", "Print the shape.")): lambda r: (
            lambda v: v and (v.approved, v.suggestions))(parse_review(answer_text(r.text))),
        Plan("skip"): lambda r: (lambda p: p and p.action)(parse_plan(answer_text(r.text), UNITS)),
        Plan("back", "initial_data_loading"): lambda r: (lambda p: p and (p.action, p.step))(
            parse_plan(answer_text(r.text), UNITS)),
        Keep(): lambda r: wants_to_keep(answer_text(r.text),
                                        StepLoop._read_code(r).value, "x = 1\n") or None,
        Genes(("TNF", "ACE", "MET")): lambda r: read_gene_list(answer_text(r.text),
                                                               SYNONYMS).symbols or None,
    }
    expected = {Code(SAMPLE_CODE): SAMPLE_CODE, Verdict(True): True,
                Verdict(False, ("Use row 3.", "Print the shape.")): (
                    False, ["Use row 3.", "Print the shape."]),
                Plan("skip"): "skip", Plan("back", "initial_data_loading"): (
                    "back", "initial_data_loading"),
                Keep(): True, Genes(("TNF", "ACE", "MET")): ["TNF", "ACE", "MET"]}
    for answer, read in answers.items():
        for structured in (False, True):
            values = usable(style.render(answer, structured), read)
            assert values[-1] == expected[answer], (name, answer, structured, values)
            assert all(v is None for v in values[:-1]), (name, answer, values)


def test_the_corpus_is_large_and_varied():
    assert len(STYLES) >= 25 and len(set(NAMES)) == len(NAMES)


# --------------------------------------------------------------------------- llm-no-data
def expected_genes(problem) -> List[str]:
    return [g for g in TASK_INFO[problem.trait]["related_genes"] if g in SYNONYMS][:4]


@pytest.mark.parametrize("name", NAMES)
def test_llm_no_data_on_the_whole_demo_in_every_style(tmp_path, name):
    problems = enumerate_problems(TASK_INFO)
    script = StyledScript(BY_NAME[name])
    for problem in problems:
        script.add("genes", Genes(tuple(expected_genes(problem))), task=str(problem))
    with FakeLLM(script) as server:
        if name == "gateway-error-body":
            server.fail("error-body", "error-body", "error-body")   # retried, then fine
        method = LLMWithoutData(harness.client(server.base_url), SYNONYMS, harness.PRICES)
        summary = run_method(method, PATHS, problems,
                             RunOptions(run_dir=tmp_path, progress=False))
    assert not summary.failures() and script.left() == {}
    for problem in problems:
        path = tmp_path / "prediction" / "regress" / problem.trait / \
            f"significant_genes_condition_{problem.condition}.json"
        document = json.loads(path.read_text("utf-8"))
        assert document["significant_genes"]["Variable"] == expected_genes(problem), name
    errors = 3 if name == "gateway-error-body" else 0
    assert len(server.requests) == len(problems) + script.followups + errors
    again = [e for e in read_log(tmp_path / "run_log.jsonl") if e["event"] == "ask_again"]
    assert len(again) == script.followups


# --------------------------------------------------------------------------- GenoAgent
SERIES = "Hypertension/GSE9100602"          # RNA-seq: the probe-mapping steps are skipped


def series_script(style) -> StyledScript:
    """One series with a rejection and its revision, a KEEP and two skipped steps."""
    script = StyledScript(style)
    first = GEO_CODE["initial_data_loading"]
    script.add("code", Code(first), step="initial_data_loading", task=SERIES)
    script.add("review", Verdict(False, ("Print the number of samples too.",
                                         "Keep the variable names.")),
               Verdict(True), step="initial_data_loading", task=SERIES)
    script.add("revise", Code(first + "print(clinical_data.shape)\n"),
               step="initial_data_loading", task=SERIES)
    script.add("code", Code(HYPERTENSION_CLINICAL[SERIES]), step="dataset_analysis", task=SERIES)
    script.add("code", Code(GEO_CODE["gene_data_extraction"]), step="gene_data_extraction",
               task=SERIES)
    script.add("review", Verdict(False, ("Use log2 counts per million.",)),
               step="gene_data_extraction", task=SERIES)
    script.add("revise", Keep(), step="gene_data_extraction", task=SERIES)
    script.add("code", Code("requires_gene_mapping = False\nprint(requires_gene_mapping)\n"),
               step="gene_identifier_review", task=SERIES)
    script.add("plan", Plan("skip"), step="gene_annotation", task=SERIES)
    script.add("plan", Plan("skip"), step="gene_identifier_mapping", task=SERIES)
    script.add("code", Code(GEO_CODE["data_normalization_and_linking"]),
               step="data_normalization_and_linking", task=SERIES)
    return script


def executed(run_dir: Path, task: str):
    return [(e["step"], e["code"]) for e in read_log(run_dir / "run_log.jsonl")
            if e["event"] == "execute" and e["task"] == task and e["step"] != "setup"]


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_genoagent_on_a_demo_series_in_every_style(tmp_path, name):
    style = BY_NAME[name]
    script = series_script(style)
    with FakeLLM(script) as server:
        if name == "gateway-error-body":
            server.fail("error-body", "error-body")
        chat = harness.client(server.base_url)
        if name == "native-tool-calls":
            chat = type(chat)(replace(chat.settings, code_tool=True), harness.API_KEY)
        outcome, ctx = harness.run_cohort(tmp_path, server.base_url, SERIES, chat=chat)
    assert outcome.status == "done", (name, outcome.reason)
    assert script.left() == {}
    first = GEO_CODE["initial_data_loading"].strip()
    steps = executed(tmp_path, SERIES)
    assert [s for s, _ in steps] == [
        "initial_data_loading", "initial_data_loading", "dataset_analysis",
        "gene_data_extraction", "gene_identifier_review", "data_normalization_and_linking"]
    ran = [code.strip() for _, code in steps]
    assert ran[0] == first and ran[1] == first + "\nprint(clinical_data.shape)"
    assert ran[2] == HYPERTENSION_CLINICAL[SERIES].strip()
    assert ran[3] == GEO_CODE["gene_data_extraction"].strip()
    assert "undefined_name" not in json.dumps(steps)           # no draft ever ran
    log = read_log(tmp_path / "run_log.jsonl")
    keeps = [e["step"] for e in log if e["event"] == "keep"]
    assert keeps == ["gene_data_extraction"]
    reviews = [(e["step"], e["approved"]) for e in log if e["event"] == "review"]
    assert reviews.count(("initial_data_loading", False)) == 1
    assert all(ok for step, ok in reviews if step not in ("initial_data_loading",
                                                          "gene_data_extraction"))
    assert [e["action"] for e in log if e["event"] == "plan"].count("skip") == 2
    if "tool-calls" in name:
        assert all("tools" in r for r in server.requests
                   if "REQUEST: code" in r["messages"][-1]["content"])
    asked_again = [e for e in log if e["event"] == "ask_again"]
    assert len(asked_again) == script.followups, (name, asked_again)
    # 6 code, 2 revise, 6 reviews, 5 plans; re-asks and retried gateway errors on top
    assert len(server.requests) == 19 + script.followups + (2 if "gateway" in name else 0)
    record = json.loads((ctx.preprocess_root / "Hypertension" / "cohort_info.json").read_text())
    assert record["GSE9100602"]["is_usable"]
    assert outcome.usage.calls == 19 + script.followups


@pytest.mark.slow
def test_genoagent_on_the_whole_demo_with_the_styles_taking_turns(tmp_path):
    """16 cohorts and 37 problems; the styles take turns task by task (each style answers
    one or two whole tasks); the tree must score like the rules' (same decisions)."""
    from genotex.cli.evaluate import main as evaluate

    order: dict = {}

    def style_for(task: str):
        order.setdefault(task, STYLES[len(order) % len(STYLES)])
        return order[task]

    script = whole_demo_script(style_for)
    problems = enumerate_problems(TASK_INFO)
    settings = replace(harness.TEST_SETTINGS, review_rounds=1)
    with FakeLLM(script) as server:
        summary = harness.run_genoagent(tmp_path, server.base_url, problems, settings=settings)
    failed = [(o.key, o.reason) for o in summary.outcomes if o.status == "failed"]
    assert not failed, failed
    assert len(set(order.values())) == len(STYLES)          # every style answered a task
    report = tmp_path / "eval.json"
    assert evaluate(["-p", str(summary.tree), "--report", str(report), "--no-progress"]) == 0
    log = read_log(tmp_path / "run_log.jsonl")
    assert len([e for e in log if e["event"] == "ask_again"]) == script.followups
    assert "undefined_name" not in json.dumps([e for e in log if e["event"] == "execute"])
    scores = json.loads(report.read_text())
    # the same decisions as the rules: the tree scores like the reference everywhere
    for subtask in ("gene", "clinical", "linked"):
        cohorts = [c for c in scores["preprocessing"][subtask]["cohorts"] if c["status"] == "ok"]
        assert len(cohorts) == 13 and all(c["csc"] > 0.999 for c in cohorts), subtask
    problems = scores["analysis"]["problems"]
    assert len(problems) == 37 and all(p["f1"] == 100.0 for p in problems), problems
