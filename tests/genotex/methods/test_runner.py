"""The method runner: isolation, resuming, forcing, the run log and the report."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import List, Sequence

import pytest

from genotex.methods.base import (COHORT, DONE, PROBLEM, SKIPPED, CohortTask, Method,
                                  RunContext, TaskOutcome, Usage)
from genotex.methods.results import ranked_gene_document, write_result
from genotex.methods.runlog import read_log
from genotex.methods.runner import RunOptions, RunState, run_method
from utils.errors import InputFileError
from utils.paths import resolve_paths
from utils.problems import Problem, enumerate_problems, load_task_info

PATHS = resolve_paths()
HEART_RATE = [p for p in enumerate_problems(load_task_info(PATHS.task_info))
              if p.trait == "Heart_rate"]


class Recording(Method):
    """Preprocesses by writing nothing; answers with a fixed list; can be told to fail."""

    name = "recording"
    preprocesses = True

    def __init__(self, fail: Sequence[str] = ()) -> None:
        self.fail = set(fail)
        self.cohorts: List[str] = []
        self.problems: List[str] = []

    def preprocess_cohort(self, task: CohortTask, ctx: RunContext) -> TaskOutcome:
        self.cohorts.append(task.key)
        if task.key in self.fail:
            raise RuntimeError(f"boom in {task.cohort}")
        return TaskOutcome(COHORT, task.key, DONE, usage=Usage(1, 100, 10, 0.04))

    def answer_problem(self, problem: Problem, ctx: RunContext) -> TaskOutcome:
        self.problems.append(str(problem))
        if str(problem) in self.fail:
            raise ValueError("no answer")
        write_result(ctx.regress_root, problem, ranked_gene_document(["TNF"], self.name))
        return TaskOutcome(PROBLEM, str(problem), DONE, usage=Usage(1, 20, 2, 0.01))


def run(method: Method, run_dir: Path, problems=HEART_RATE, **options):
    return run_method(method, PATHS, problems, RunOptions(run_dir=run_dir, progress=False,
                                                          **options))


def test_cohorts_of_the_problems_traits_then_problems(tmp_path):
    method = Recording()
    summary = run(method, tmp_path)
    # Heart_rate|Hypertension is two-step: the Hypertension cohorts are preprocessed too
    assert method.cohorts == ["Heart_rate/GSE9100501", "Heart_rate/GSE9100502",
                              "Hypertension/GSE9100601", "Hypertension/GSE9100602"]
    assert method.problems == [str(p) for p in HEART_RATE]
    assert [o.status for o in summary.outcomes] == ["done"] * 8
    assert summary.tree == tmp_path.resolve() / "prediction"
    assert (summary.tree / "regress" / "Heart_rate" / "significant_genes_condition_Age.json"
            ).is_file()


def test_failures_are_isolated_with_their_reason(tmp_path):
    method = Recording(fail=["Heart_rate/GSE9100502", "Heart_rate|Age"])
    summary = run(method, tmp_path)
    failed = {o.key: o.reason for o in summary.failures()}
    assert failed == {"Heart_rate/GSE9100502": "RuntimeError: boom in GSE9100502",
                      "Heart_rate|Age": "ValueError: no answer"}
    assert len(method.cohorts) == 4 and len(method.problems) == 4


def test_a_second_run_resumes(tmp_path):
    run(Recording(fail=["Heart_rate/GSE9100502", "Heart_rate|Age"]), tmp_path)
    again = Recording()
    summary = run(again, tmp_path)
    assert again.cohorts == ["Heart_rate/GSE9100502"] and again.problems == ["Heart_rate|Age"]
    assert len(summary.resumed) == 6 and not summary.failures()
    assert len(summary.outcomes) == 8


def test_skipped_problems_are_tried_again(tmp_path):
    class Skipping(Recording):
        def answer_problem(self, problem, ctx):
            self.problems.append(str(problem))
            return TaskOutcome(PROBLEM, str(problem), SKIPPED, "no usable cohort")

    run(Skipping(), tmp_path)
    again = Recording()
    run(again, tmp_path)
    assert again.cohorts == [] and len(again.problems) == 4


def test_force_starts_afresh(tmp_path):
    run(Recording(), tmp_path)
    stale = tmp_path / "prediction" / "regress" / "Old" / "significant_genes_condition_None.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    again = Recording()
    run(again, tmp_path, force=True)
    assert len(again.cohorts) == 4 and not stale.exists()


def test_a_run_folder_belongs_to_one_method(tmp_path):
    run(Recording(), tmp_path)
    with pytest.raises(InputFileError, match="belongs to method 'recording'"):
        RunState(tmp_path / "state.json", "rules")


def test_a_crashing_problem_fails_that_problem_only(tmp_path):
    class Crashing(Recording):
        def answer_problem(self, problem, ctx) -> TaskOutcome:
            if problem.condition == "Age":
                raise MemoryError("out of memory")
            return super().answer_problem(problem, ctx)

    summary = run(Crashing(), tmp_path)
    statuses = {o.key: o.status for o in summary.outcomes if o.kind == PROBLEM}
    assert statuses == {"Heart_rate|None": "done", "Heart_rate|Age": "failed",
                        "Heart_rate|Gender": "done", "Heart_rate|Hypertension": "done"}
    assert summary.failures()[0].reason == "MemoryError: out of memory"


def test_log_and_report(tmp_path):
    summary = run(Recording(), tmp_path)
    entries = read_log(tmp_path / "run_log.jsonl")
    assert [e["event"] for e in entries][0] == "run" and entries[-1]["event"] == "end"
    assert sum(e["event"] == "task" for e in entries) == 8
    rows = json.loads((tmp_path / "resources.json").read_text())["problems"]
    assert [r["problem"] for r in rows] == [str(p) for p in HEART_RATE]
    # each problem: its own 20 input tokens + a quarter of the 2 Heart_rate cohorts' 200
    assert all(r["input_tokens"] == 20 + 200 / 4 for r in rows)
    assert all(math.isclose(r["cost_usd"], 0.01 + 0.08 / 4) for r in rows)
    assert summary.report["success_rate"] == 100.0
    assert summary.report["cohort_tasks"] == 4
    header = (tmp_path / "resources.csv").read_text().splitlines()[0]
    assert header == ("problem,category,success,seconds,input_tokens,output_tokens,cost_usd,"
                      "status,reason")
    assert len((tmp_path / "tasks.csv").read_text().splitlines()) == 9
