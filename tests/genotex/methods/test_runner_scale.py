"""The runner at scale: concurrent tasks and their dependencies, budgets, token limits."""

from __future__ import annotations

import json
import math
import threading
from typing import List, Set

import pytest

from genotex.methods import build_method
from genotex.methods.base import (COHORT, DONE, PROBLEM, CohortTask, Method, MethodConfig,
                                  RunContext, TaskOutcome, Usage)
from genotex.methods.budget import Budget
from genotex.methods.inputs import traits_of
from genotex.methods.identity import reproducible_files
from genotex.methods.llm_no_data import LLMWithoutData
from genotex.methods.resources import Price
from genotex.methods.results import ranked_gene_document, write_result
from genotex.methods.runner import RunOptions, run_method
from genotex.testing.fake_llm import FakeLLM
from genotex.testing.agent_harness import client
from utils.paths import resolve_paths
from utils.problems import Problem, enumerate_problems, load_task_info
from utils.symbols import load_synonym_map

PATHS = resolve_paths()
PROBLEMS = enumerate_problems(load_task_info(PATHS.task_info))
HEART_RATE = [p for p in PROBLEMS if p.trait == "Heart_rate"]


class Watching(Method):
    """Notes which cohort tasks had ended when each problem started; the first two cohort
    tasks wait for each other (a barrier), which only works when they run at once."""

    name = "watching"
    preprocesses = True

    def __init__(self, together: int = 2) -> None:
        self.lock = threading.Lock()
        self.ended: Set[str] = set()
        self.seen: dict = {}
        self.barrier = threading.Barrier(together, timeout=60)
        self.cohorts: List[str] = []

    def preprocess_cohort(self, task: CohortTask, ctx: RunContext) -> TaskOutcome:
        with self.lock:
            self.cohorts.append(task.key)
            first_two = len(self.cohorts) <= 2
        if first_two:
            self.barrier.wait()
        with self.lock:
            self.ended.add(task.key)
        return TaskOutcome(COHORT, task.key, DONE, usage=Usage(1, 100, 10, 0.04))

    def answer_problem(self, problem: Problem, ctx: RunContext) -> TaskOutcome:
        with self.lock:
            self.seen[str(problem)] = set(self.ended)
        write_result(ctx.regress_root, problem, ranked_gene_document(["TNF"], self.name))
        return TaskOutcome(PROBLEM, str(problem), DONE, usage=Usage(1, 20, 2, 0.01))


def test_concurrent_tasks_start_problems_after_their_cohorts(tmp_path):
    method = Watching()
    summary = run_method(method, PATHS, HEART_RATE,
                         RunOptions(run_dir=tmp_path, progress=False, jobs=4))
    assert not summary.failures() and len(summary.outcomes) == 8
    heart_rate = {"Heart_rate/GSE9100501", "Heart_rate/GSE9100502"}
    hypertension = {"Hypertension/GSE9100601", "Hypertension/GSE9100602"}
    for problem in ("Heart_rate|None", "Heart_rate|Age", "Heart_rate|Gender"):
        assert heart_rate <= method.seen[problem]
    assert heart_rate | hypertension <= method.seen["Heart_rate|Hypertension"]
    # reports list tasks in run order, whatever order they ended in
    assert [o.key for o in summary.outcomes][:4] == sorted(heart_rate) + sorted(hypertension)
    assert "4 threads" in summary.backend


def test_the_budget_stops_new_tasks_and_says_so(tmp_path):
    summary = run_method(Watching(together=1), PATHS, HEART_RATE,
                         RunOptions(run_dir=tmp_path, progress=False, max_cost=0.1))
    # 0.04 per cohort: after the third (0.12 >= 0.1) nothing else starts
    assert [o.key for o in summary.outcomes] == ["Heart_rate/GSE9100501",
                                                 "Heart_rate/GSE9100502",
                                                 "Hypertension/GSE9100601"]
    assert summary.budget.stopped and summary.budget.not_started == 5
    assert "budget reached: 0.1200 USD spent of --max-cost 0.1 USD; 5 task(s) not started" \
        in summary.budget.message()
    saved = json.loads((tmp_path / "resources.json").read_text())["summary"]
    assert saved["budget"] == {"max_cost_usd": 0.1, "spent_usd": 0.12, "stopped": True,
                               "not_started": 5}
    # a larger budget resumes: the spent cost of the kept tasks counts
    again = run_method(Watching(together=1), PATHS, HEART_RATE,
                       RunOptions(run_dir=tmp_path, progress=False, max_cost=0.17))
    assert len(again.resumed) == 3
    assert [o.key for o in again.outcomes if o.key not in again.resumed] == [
        "Hypertension/GSE9100602", "Heart_rate|None"]             # 0.16, then 0.17
    assert again.budget.stopped and again.budget.not_started == 3


def test_budget_counts_live_calls_and_settles_outcomes():
    budget = Budget(max_cost=1.0)
    budget.charge("A/GSE1", 0.6)
    assert not budget.exhausted()
    budget.charge("A/GSE1", 0.5)                      # a running task goes over
    assert budget.exhausted() and budget.spent == pytest.approx(1.1)
    budget.settle(TaskOutcome(COHORT, "A/GSE1", DONE, usage=Usage(3, 1, 1, 1.1)))
    assert budget.spent == pytest.approx(1.1)         # settled, not counted twice
    budget.settle(TaskOutcome(PROBLEM, "A|None", DONE, usage=Usage(1, 1, 1, math.nan)))
    assert budget.spent == pytest.approx(1.1)         # unpriced: counted as 0
    replay = Budget(max_cost=0.0, replay=True)
    replay.charge("T", 5.0)
    replay.settle(TaskOutcome(PROBLEM, "T", DONE, usage=Usage(1, 1, 1, 5.0)))
    assert replay.spent == 0.0


def _no_data(server, synonyms):
    return LLMWithoutData(client(server.base_url), synonyms,
                          {"fake-model": Price(input=1000.0, output=2000.0)})


def test_a_task_over_its_token_limit_stops_with_its_accounting(tmp_path):
    synonyms = load_synonym_map(PATHS.gene_synonyms)
    with FakeLLM(lambda body: '["TNF", "IL6"]') as server:
        summary = run_method(_no_data(server, synonyms), PATHS, HEART_RATE[:2],
                             RunOptions(run_dir=tmp_path, progress=False,
                                        max_tokens_per_task=50))
    failed = summary.failures()
    assert len(failed) == 2
    assert all("more than --max-tokens-per-task 50" in o.reason for o in failed)
    assert all(o.usage.calls == 1 and o.usage.input_tokens > 50 for o in failed)
    rows = (tmp_path / "tasks.csv").read_text().splitlines()
    assert all(",1,0," in row for row in rows[1:])            # calls 1, failed calls 0


def test_llm_no_data_gives_the_same_bytes_with_one_or_eight_workers(tmp_path):
    synonyms = load_synonym_map(PATHS.gene_synonyms)

    def answer(body):
        last = body["messages"][-1]["content"]
        return '["TNF", "IL6", "TP53"]' if "Age" in last else '["MET", "EGFR"]'

    runs = {}
    for jobs in (1, 8):
        with FakeLLM(answer) as server:
            server.latency = 0.05
            summary = run_method(_no_data(server, synonyms), PATHS, PROBLEMS,
                                 RunOptions(run_dir=tmp_path / str(jobs), progress=False,
                                            jobs=jobs))
        assert not summary.failures()
        runs[jobs] = reproducible_files(tmp_path / str(jobs))
    assert runs[1] == runs[8]
    assert len([name for name in runs[1] if name.endswith(".json")]) == 37 + 1


def test_rules_in_worker_processes_gives_the_bytes_of_one_process(tmp_path):
    """``rules`` is CPU-bound: with ``-j 2`` its tasks run in two spawned worker
    processes (each building the method from its config) and write what one process
    writes, cohort tables and records included."""
    problems = [p for p in PROBLEMS if p.trait in ("Heart_rate", "Hypertension")]
    runs = {}
    for jobs in (1, 2):
        method = build_method("rules", MethodConfig(paths=PATHS))
        summary = run_method(method, PATHS, problems,
                             RunOptions(run_dir=tmp_path / str(jobs), progress=False, jobs=jobs))
        assert not summary.failures()
        runs[jobs] = (summary.backend, reproducible_files(tmp_path / str(jobs)))
    assert runs[1][0] == "this process, one task at a time"
    assert runs[2][0] == "2 worker processes"
    assert runs[1][1] == runs[2][1]
    # a record per trait read (condition traits included), a result per problem
    assert sum(name.endswith("cohort_info.json") for name in runs[2][1]) == \
        len(traits_of(problems)) >= 3
    assert sum("significant_genes_condition_" in name for name in runs[2][1]) == len(problems)
