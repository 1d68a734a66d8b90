"""The ``llm-no-data`` baseline against the scripted server: prompts, parsing, a valid tree."""

from __future__ import annotations

import json

from genotex.cli.evaluate import main as evaluate
from genotex.methods.llm_no_data import LLMWithoutData, gene_question
from genotex.methods.runlog import read_log
from genotex.methods.runner import RunOptions, run_method
from genotex.testing.fake_llm import FakeLLM
from genotex.testing.agent_harness import PRICES, client
from utils.paths import resolve_paths
from utils.problems import Problem, enumerate_problems, load_task_info
from utils.symbols import load_synonym_map

PATHS = resolve_paths()
TASK_INFO = load_task_info(PATHS.task_info)


def answer(body: dict) -> str:
    """The first three known genes of the asked trait, an alias and a made-up symbol."""
    question = body["messages"][-1]["content"]
    trait = next(t for t in sorted(TASK_INFO, key=len, reverse=True)
                 if f"'{t.replace('_', ' ')}'" in question)
    genes = TASK_INFO[trait]["related_genes"][:3]
    return json.dumps(genes + ["NOTAGENE1", genes[0].lower()])


def test_questions_name_the_trait_and_condition():
    assert "'Heart rate'" in gene_question(Problem("Heart_rate"), 10)
    question = gene_question(Problem("Heart_rate", "Hypertension"), 10)
    assert "condition 'Hypertension'" in question and "up to 10" in question


def test_a_tree_eval_scores(tmp_path):
    problems = enumerate_problems(TASK_INFO)
    with FakeLLM(answer) as server:
        method = LLMWithoutData(client(server.base_url), load_synonym_map(PATHS.gene_synonyms),
                                PRICES, n_genes=10)
        summary = run_method(method, PATHS, problems,
                             RunOptions(run_dir=tmp_path, progress=False))
    assert len(server.requests) == 37 and not summary.failures()
    document = json.loads((summary.tree / "regress" / "Heart_rate" /
                           "significant_genes_condition_None.json").read_text())
    expected = TASK_INFO["Heart_rate"]["related_genes"][:3]
    assert document["significant_genes"]["Variable"] == expected     # alias deduplicated
    assert document["method"] == {"name": "llm-no-data", "model": "fake-model", "listed": 5,
                                  "rejected": 1}          # NOTAGENE1; the alias is known
    report = tmp_path / "eval.json"
    assert evaluate(["-p", str(summary.tree), "-t", "analysis", "--report", str(report),
                     "--no-progress"]) == 0
    analysis = json.loads(report.read_text())["analysis"]
    assert analysis["status_counts"]["ok"] == 37
    llm = [e for e in read_log(tmp_path / "run_log.jsonl") if e["event"] == "llm"]
    assert len(llm) == 37 and all(e["input_tokens"] > 0 for e in llm)
    assert summary.report["cost_per_problem_usd"] > 0


def test_a_reply_without_known_genes_fails_its_problem(tmp_path):
    with FakeLLM(lambda body: "I cannot say.") as server:
        method = LLMWithoutData(client(server.base_url), load_synonym_map(PATHS.gene_synonyms),
                                PRICES)
        summary = run_method(method, PATHS, [Problem("Heart_rate")],
                             RunOptions(run_dir=tmp_path, progress=False))
    (outcome,) = summary.outcomes
    assert outcome.status == "failed" and "no known gene symbol" in outcome.reason
    assert outcome.usage.calls == 2                  # asked again once, both calls counted
    assert "REQUEST: genes" in server.requests[1]["messages"][-1]["content"]
