"""GenoAgent end to end against the scripted server (genotex/testing/fake_llm.py).

The scenarios of issue 15: a happy path on two demo cohorts (and their problem,
scored by eval.py); code that fails and is fixed after a reviewer rejection; a
planning "go back" decision; a reply without a code block; 429 with
Retry-After and a request timeout; a step that runs out of time. Plus the
ablation switches and the task time limit. Every model reply is canned
(:mod:`.canned`); every request is checked by what the server saw.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from genotex.cli.evaluate import main as evaluate
from genotex.methods.runlog import read_log
from genotex.testing import agent_harness as harness
from genotex.testing.fake_llm import FakeLLM, Script, request_fields
from genotex.testing.canned import (GEO_CODE, HYPERTENSION_CLINICAL, TCGA_CODE,
                                    block)
from utils.io.http import RetryPolicy
from utils.problems import Problem

HYPERTENSION = Problem("Hypertension")
GEO_KEYS = ("Hypertension/GSE9100601", "Hypertension/GSE9100602")
XENA = "Kidney_Chromophobe/Xena"


def events(run_dir: Path, kind: str):
    return [e for e in read_log(run_dir / "run_log.jsonl") if e["event"] == kind]


def executed_steps(run_dir: Path, task: str):
    return [(e["step"], e["status"]) for e in events(run_dir, "execute")
            if e["task"] == task and e["step"] != "setup"]


def notebook_code(path: Path):
    cells = json.loads(path.read_text("utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def tcga_script() -> Script:
    return harness.script_tcga_cohort(Script(), XENA)


# --------------------------------------------------------------------------- happy path
def test_happy_path_on_two_demo_cohorts(tmp_path):
    """Both Hypertension cohorts (array + RNA-seq) and the problem Hypertension|None.

    One run (about 20 s), checked from several sides (the helpers below), so that
    parallel workers never repeat it.
    """
    script = Script()
    for key in GEO_KEYS:
        harness.script_geo_cohort(script, key)
    harness.script_problems(script, [HYPERTENSION])
    with FakeLLM(script) as server:
        summary = harness.run_genoagent(tmp_path, server.base_url, [HYPERTENSION])
    report = tmp_path / "eval.json"
    assert evaluate(["-p", str(summary.tree), "--report", str(report), "--no-progress"]) == 0
    happy = {"summary": summary, "server": server, "script": script, "run_dir": tmp_path,
             "report": json.loads(report.read_text("utf-8"))}
    for check in (_finishes_every_task, _tree_scores_like_the_reference,
                  _roles_plan_review_and_skip, _context_carries_earlier_steps,
                  _notebooks_hold_the_executed_steps, _usage_and_cost):
        check(happy)


def _finishes_every_task(happy):
    outcomes = {o.key: o.status for o in happy["summary"].outcomes}
    assert outcomes == {GEO_KEYS[0]: "done", GEO_KEYS[1]: "done", "Hypertension|None": "done"}
    assert happy["script"].left() == {}
    prompts = events(happy["run_dir"], "system_prompt")
    assert len(prompts) == len({e["key"] for e in prompts}) >= 4    # each prompt logged once
    first = events(happy["run_dir"], "llm")[0]["messages"][0]["content"]
    assert first.startswith("[system prompt ") and first[15:27] in {e["key"] for e in prompts}


def _tree_scores_like_the_reference(happy):
    """The canned code takes the curator's decisions: eval.py scores 100 on these items."""
    report = happy["report"]
    for subtask in ("gene", "clinical", "linked"):
        scored = {(c["trait"], c["cohort"]): c for c in
                  report["preprocessing"][subtask]["cohorts"] if c["status"] == "ok"}
        assert set(scored) == {("Hypertension", "GSE9100601"), ("Hypertension", "GSE9100602")}
        assert all(c["csc"] > 0.999 for c in scored.values()), (subtask, scored)
    problem = next(p for p in report["analysis"]["problems"]
                   if (p["trait"], p["condition"]) == ("Hypertension", "None"))
    assert problem["status"] == "ok" and problem["f1"] == 100.0


def _roles_plan_review_and_skip(happy):
    seen = happy["script"].seen
    roles = {(s["role"], s["request"]) for s in seen}
    assert {("Data Engineer", "code"), ("Domain Expert", "code"), ("Code Reviewer", "review"),
            ("Data Engineer", "plan"), ("Statistician", "code"),
            ("Statistician", "plan")} <= roles
    expert_steps = {s["step"] for s in seen if s["role"] == "Domain Expert"}
    assert expert_steps == {"dataset_analysis", "gene_identifier_review"}
    # the RNA-seq series needs no probe mapping: the agent skipped those two steps
    assert [s for s, _ in executed_steps(happy["run_dir"], GEO_KEYS[1])] == [
        "initial_data_loading", "dataset_analysis", "gene_data_extraction",
        "gene_identifier_review", "data_normalization_and_linking"]
    assert len(executed_steps(happy["run_dir"], GEO_KEYS[0])) == 7


def _context_carries_earlier_steps(happy):
    """The request for a later step shows the code and output of the earlier ones."""
    request = next(r for r in happy["server"].requests
                   if request_fields(r)["step"] == "data_normalization_and_linking"
                   and request_fields(r)["request"] == "code"
                   and request_fields(r)["task"] == GEO_KEYS[0])
    text = request["messages"][-1]["content"]
    assert "## Step 1 done: initial_data_loading" in text
    assert "get_background_and_clinical_data(matrix_file)" in text
    assert "Sample characteristics" in text or "essential hypertension" in text


def _notebooks_hold_the_executed_steps(happy):
    tree = happy["summary"].tree
    for key in GEO_KEYS:
        trait, cohort = key.split("/")
        code = notebook_code(tree / "code" / trait / f"{cohort}.ipynb")
        assert code[0].startswith("from tools.preprocess import *")
        assert len(code) == 1 + len(executed_steps(happy["run_dir"], key))
    cells = json.loads((tree / "code" / "Hypertension" / "GSE9100601.ipynb").read_text())["cells"]
    outputs = [c for c in cells if c["cell_type"] == "code" and c["outputs"]]
    assert any("is_usable" in json.dumps(c["outputs"]) for c in outputs)
    assert (tree / "code" / "Hypertension" / "significant_genes_condition_None.ipynb").is_file()


def _usage_and_cost(happy):
    """Tokens are the server's usage counts; cost follows the price table."""
    server = happy["server"]
    expected_in = sum(sum(len(m["content"]) for m in r["messages"]) // 4
                      for r in server.requests)
    tasks = happy["summary"].outcomes
    assert sum(o.usage.input_tokens for o in tasks) == expected_in
    assert sum(o.usage.calls for o in tasks) == len(server.requests)
    rows = json.loads((happy["run_dir"] / "resources.json").read_text())["problems"]
    row = next(r for r in rows if r["problem"] == "Hypertension|None")
    total_in = sum(o.usage.input_tokens for o in tasks)
    total_out = sum(o.usage.output_tokens for o in tasks)
    # the run's only problem carries its own cost and all of its trait's preprocessing
    assert row["input_tokens"] == total_in and row["output_tokens"] == total_out
    assert row["cost_usd"] == pytest.approx((total_in * 1.0 + total_out * 2.0) / 1e6, rel=1e-6)
    assert row["success"] is True


# --------------------------------------------------------------------------- scenarios
def test_failing_code_is_fixed_after_a_reviewer_rejection(tmp_path):
    wrong = TCGA_CODE["select_demographic_features"].replace(
        '"age_at_initial_pathologic_diagnosis"', '"age"')
    script = Script()
    script.add("code", block(TCGA_CODE["initial_data_loading"]), step="initial_data_loading")
    script.add("code", block(wrong), step="select_demographic_features")
    script.add("revise", block(TCGA_CODE["select_demographic_features"]),
               step="select_demographic_features")
    script.add("review", "REJECTED\n1. There is no column 'age'; use "
                         "age_at_initial_pathologic_diagnosis.", step="select_demographic_features")
    script.add("code", block(TCGA_CODE["data_normalization_and_linking"]),
               step="data_normalization_and_linking")
    with FakeLLM(script) as server:
        outcome, ctx = harness.run_cohort(tmp_path, server.base_url, XENA)
    assert outcome.status == "done", outcome.reason
    assert executed_steps(tmp_path, XENA) == [
        ("initial_data_loading", "ok"), ("select_demographic_features", "error"),
        ("select_demographic_features", "ok"), ("data_normalization_and_linking", "ok")]
    reviews = [(e["step"], e["approved"]) for e in events(tmp_path, "review")]
    assert ("select_demographic_features", False) in reviews
    assert reviews.count(("select_demographic_features", True)) == 1
    revise = next(r for r in server.requests if request_fields(r)["request"] == "revise")
    assert request_fields(revise)["role"] == "Domain Expert"
    assert "There is no column 'age'" in revise["messages"][-1]["content"]
    assert "KeyError" in revise["messages"][-1]["content"]
    code = notebook_code(ctx.code_root / "Kidney_Chromophobe" / "Xena.ipynb")
    assert any("age_at_initial_pathologic_diagnosis" in c for c in code)
    assert not any('"age", "gender"' in c for c in code)
    info = json.loads((ctx.preprocess_root / "Kidney_Chromophobe" / "cohort_info.json").read_text())
    assert info["Xena"]["is_usable"] and info["Xena"]["has_age"]


def test_planning_go_back_redoes_an_earlier_step(tmp_path):
    script = tcga_script()
    script.add("code", block(TCGA_CODE["initial_data_loading"] + "print('second look')"),
               step="initial_data_loading")
    script.add("code", block(TCGA_CODE["select_demographic_features"]),
               step="select_demographic_features")
    script.add("plan", '{"action": "back", "step": "initial_data_loading"}',
               step="data_normalization_and_linking", task=XENA)
    with FakeLLM(script) as server:
        outcome, _ = harness.run_cohort(tmp_path, server.base_url, XENA)
    assert outcome.status == "done", outcome.reason
    assert [s for s, _ in executed_steps(tmp_path, XENA)] == [
        "initial_data_loading", "select_demographic_features", "initial_data_loading",
        "select_demographic_features", "data_normalization_and_linking"]
    plans = [(e["next"], e["action"]) for e in events(tmp_path, "plan")]
    assert plans[1] == ("data_normalization_and_linking", "back")
    # after going back, the later steps are pending again in the plan the agent sees
    later = [r for r in server.requests if request_fields(r)["request"] == "plan"][-1]
    assert "2. select_demographic_features [done]" in later["messages"][-1]["content"]
    assert "3. data_normalization_and_linking [pending]" in later["messages"][-1]["content"]
    assert script.left() == {}


def test_a_reply_without_a_code_block_is_asked_for_again(tmp_path):
    script = tcga_script()
    script.queues[("code", "initial_data_loading", XENA)].insert(
        0, "I would read the clinical matrix first and look at its columns.")
    with FakeLLM(script) as server:
        outcome, _ = harness.run_cohort(tmp_path, server.base_url, XENA)
    assert outcome.status == "done", outcome.reason
    (again,) = events(tmp_path, "ask_again")
    assert again["role"] == "Domain Expert" or again["role"] == "Data Engineer"
    assert "no ```python code block" in again["problem"]
    second = server.requests[1]["messages"]
    assert second[-2]["role"] == "assistant" and "I would read" in second[-2]["content"]
    assert "no ```python code block" in second[-1]["content"]


def test_replies_without_code_end_the_task_after_the_reminders(tmp_path):
    script = Script().add("code", "no code here", "still none", step="initial_data_loading")
    settings = replace(harness.TEST_SETTINGS, format_retries=1)
    with FakeLLM(script) as server:
        outcome, _ = harness.run_cohort(tmp_path, server.base_url, XENA, settings=settings)
    assert outcome.status == "failed"
    assert "without a code block 2 times" in outcome.reason
    assert len(server.requests) == 2
    assert outcome.usage.calls == 2 and outcome.usage.input_tokens > 0


def test_rate_limit_and_request_timeout_are_retried(tmp_path):
    """429 with Retry-After is waited out; a stalled answer times out and is asked again."""
    script = tcga_script()
    retry = RetryPolicy(max_attempts=3, backoff_base=0.01, backoff_max=0.05,
                        max_retry_after=5.0, timeout=1.0)
    with FakeLLM(script) as server:
        server.retry_after, server.stall = "1", 3.0
        server.fail("429", "stall")
        outcome, _ = harness.run_cohort(
            tmp_path, server.base_url, XENA,
            settings=replace(harness.TEST_SETTINGS, planning=False, reviewer=False),
            chat=harness.client(server.base_url, retry))
    assert outcome.status == "done", outcome.reason
    first = [e for e in events(tmp_path, "llm")][0]
    assert first["attempts"] == 3
    assert server.times[1] - server.times[0] >= 1.0      # Retry-After: 1 was honoured
    assert len(server.requests) == 3 + 2                 # three tries, then the other steps
    assert script.left() == {}


HANG = "import time\ntime.sleep(120)"
#: Seconds the steps that must succeed may take there: a hang guard, not a limit.
HANG_GUARD_SECONDS = 300.0


def only_the_hang_gets_the_step_timeout(monkeypatch) -> None:
    """The test's short ``step_timeout`` reaches the kernel for the hanging step only;
    every other execution (setup, the rewritten step, the later steps, the replay after
    the restart) runs under a hang guard. Before, they all had 2 s: about 0.1 s each on
    a quiet machine, but on a loaded one any could time out and ask for an unscripted
    rewrite."""
    from genotex.methods.sandbox.kernel import SandboxKernel

    original = SandboxKernel.execute

    def execute(self, code, timeout=None, hidden=False):
        if HANG not in code:
            timeout = max(timeout or 0.0, HANG_GUARD_SECONDS)
        return original(self, code, timeout=timeout, hidden=hidden)

    monkeypatch.setattr(SandboxKernel, "execute", execute)


def test_a_step_that_runs_out_of_time_is_rewritten(tmp_path, monkeypatch):
    only_the_hang_gets_the_step_timeout(monkeypatch)
    script = tcga_script()
    script.queues[("code", "initial_data_loading", XENA)].insert(0, block(HANG))
    script.add("revise", block(TCGA_CODE["initial_data_loading"]), step="initial_data_loading")
    settings = replace(harness.TEST_SETTINGS, reviewer=False, planning=False, step_timeout=2.0)
    with FakeLLM(script) as server:
        outcome, _ = harness.run_cohort(tmp_path, server.base_url, XENA, settings=settings)
    assert outcome.status == "done", outcome.reason
    first = events(tmp_path, "execute")[1]
    assert first["status"] == "timeout" and "Timeout" in first["error"]
    revise = next(r for r in server.requests if request_fields(r)["request"] == "revise")
    assert "did not finish within 2 s" in revise["messages"][-1]["content"]


def test_the_task_time_limit_stops_the_task(tmp_path):
    script = tcga_script()
    script.queues[("code", "initial_data_loading", XENA)].insert(
        0, block("import time\ntime.sleep(120)"))
    with FakeLLM(script) as server:
        outcome, ctx = harness.run_cohort(tmp_path, server.base_url, XENA, time_limit=2.0)
    assert outcome.status == "failed" and "time limit" in outcome.reason
    # the timed-out task keeps its accounting (every call the log shows) and its notebook
    llm = events(tmp_path, "llm")
    assert outcome.usage.calls == len(llm) and outcome.seconds >= 2
    assert outcome.usage.input_tokens == sum(e["input_tokens"] for e in llm)
    notebook = (ctx.code_root / "Kidney_Chromophobe" / "Xena.ipynb").read_text("utf-8")
    assert "The task failed" in notebook and "time limit" in notebook


# --------------------------------------------------------------------------- ablations
@pytest.mark.parametrize("switch, check", [
    ({"planning": False}, lambda seen: not any(s["request"] == "plan" for s in seen)),
    ({"reviewer": False}, lambda seen: not any(s["request"] == "review" for s in seen)),
    ({"review_rounds": 0}, lambda seen: not any(s["request"] == "review" for s in seen)),
    ({"domain_expert": False}, lambda seen: not any(s["role"] == "Domain Expert" for s in seen)
     and ("Data Engineer", "select_demographic_features") in {(s["role"], s["step"])
                                                             for s in seen}),
])
def test_ablation_switches(tmp_path, switch, check):
    script = tcga_script()
    with FakeLLM(script) as server:
        outcome, _ = harness.run_cohort(tmp_path, server.base_url, XENA,
                                        settings=replace(harness.TEST_SETTINGS, **switch))
    assert outcome.status == "done", outcome.reason
    assert check(script.seen), script.seen


def test_review_rounds_bound_the_reviews_of_a_step(tmp_path):
    """One round: a rejection is answered once; the revised, working code is accepted."""
    script = tcga_script()
    script.add("review", "REJECTED\n1. Print the number of samples too.\n2. Use a variable.\n"
                         "3. Add a comment.\n4. A fourth suggestion is never passed on.",
               step="initial_data_loading")
    script.add("revise", block(TCGA_CODE["initial_data_loading"] + "print(len(clinical_data))"),
               step="initial_data_loading")
    settings = replace(harness.TEST_SETTINGS, review_rounds=1, planning=False)
    with FakeLLM(script) as server:
        outcome, _ = harness.run_cohort(tmp_path, server.base_url, XENA, settings=settings)
    assert outcome.status == "done", outcome.reason
    reviews = [e["step"] for e in events(tmp_path, "review")]
    assert reviews.count("initial_data_loading") == 1
    revise = next(r for r in server.requests if request_fields(r)["request"] == "revise")
    assert "3. Add a comment." in revise["messages"][-1]["content"]
    assert "fourth suggestion" not in revise["messages"][-1]["content"]


def test_the_writer_may_keep_its_code(tmp_path):
    script = tcga_script()
    script.add("review", "REJECTED\n1. Rename the variables.", step="initial_data_loading")
    script.add("revise", "KEEP", step="initial_data_loading")
    with FakeLLM(script) as server:
        outcome, _ = harness.run_cohort(tmp_path, server.base_url, XENA,
                                        settings=replace(harness.TEST_SETTINGS, planning=False))
    assert outcome.status == "done", outcome.reason
    assert [e["step"] for e in events(tmp_path, "keep")] == ["initial_data_loading"]
    assert executed_steps(tmp_path, XENA)[0] == ("initial_data_loading", "ok")
    assert len(executed_steps(tmp_path, XENA)) == 3


# --------------------------------------------------------------------------- domain hints
def _clinical_request(server):
    return next(r for r in server.requests
                if request_fields(r)["step"] == "dataset_analysis"
                and request_fields(r)["request"] == "code")


@pytest.mark.parametrize("hints", [True, False])
def test_domain_hints_reach_the_domain_experts_prompt(tmp_path, hints):
    """The rules' proposal (rows, confidences, evidence, conversions) is in the request.

    Only the first two steps are scripted: the task stops after the clinical
    step, which is all this test needs to see.
    """
    key = GEO_KEYS[0]
    script = Script()
    script.add("code", block(GEO_CODE["initial_data_loading"]),
               step="initial_data_loading", task=key)
    script.add("code", block(HYPERTENSION_CLINICAL[key]), step="dataset_analysis",
               task=key)
    with FakeLLM(script) as server:
        harness.run_cohort(tmp_path, server.base_url, key,
                           settings=replace(harness.TEST_SETTINGS, domain_hints=hints))
    request = _clinical_request(server)
    assert request_fields(request)["role"] == "Domain Expert"
    text = request["messages"][-1]["content"]
    logged = [e for e in events(tmp_path, "hints") if e["task"] == key]
    if hints:
        # GSE9100601: "Diagnosis: essential hypertension / normotensive control" is row 2
        assert "## Rule-based hints" in text
        assert "Rule-based proposal for the trait Hypertension" in text
        assert "trait_row = 2" in text and "age_row = 3" in text and "gender_row = 1" in text
        assert "confidence" in text and "essential hypertension" in text
        assert "-> 1.0 (names the trait)" in text and "-> 0.0 (control)" in text
        assert len(logged) == 1 and logged[0]["role"] == "Domain Expert"
    else:
        assert "Rule-based" not in text and logged == []
