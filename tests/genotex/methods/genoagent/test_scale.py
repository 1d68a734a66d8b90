"""GenoAgent at scale: concurrent tasks sharing warm kernels, replayed offline, same bytes."""

from __future__ import annotations

import json

from genotex.cli.evaluate import main as evaluate
from genotex.methods.identity import reproducible_files
from genotex.methods.runlog import read_log
from genotex.testing import agent_harness as harness
from genotex.testing.fake_llm import FakeLLM
from genotex.testing.reply_styles import Style, whole_demo_script
from utils.paths import resolve_paths
from utils.problems import enumerate_problems, load_task_info

PROBLEMS = [p for p in enumerate_problems(load_task_info(resolve_paths().task_info))
            if p.trait in ("Hypertension", "Kidney_Chromophobe") and not p.is_two_step]


def scores(tree, target):
    assert evaluate(["-p", str(tree), "--report", str(target), "--no-progress"]) == 0
    return json.loads(target.read_text().replace(str(tree), "<tree>"))


def test_a_concurrent_run_replayed_offline_gives_the_same_bytes_and_scores(tmp_path):
    """Three cohorts and their problems with -j 3 against the scripted server; then the
    same run replayed with -j 2, the server stopped: the prediction tree (notebooks
    included) and the report are the original's, at no cost and without a request."""
    original, replayed = tmp_path / "original", tmp_path / "replayed"
    with FakeLLM(whole_demo_script(Style())) as server:
        first = harness.run_genoagent(original, server.base_url, PROBLEMS, jobs=3)
    sent = len(server.requests)
    assert not first.failures() and first.backend == "3 threads"
    kernels = [e for e in read_log(original / "run_log.jsonl") if e["event"] == "kernel"]
    # warm kernels were shared: fewer kernels than tasks, each let go with its peak memory
    assert len(kernels) == 3 and sum(e["tasks"] for e in kernels) == len(first.outcomes)
    second = harness.run_genoagent(replayed, server.base_url, PROBLEMS, jobs=2,
                                   replay=original)
    assert not second.failures() and len(server.requests) == sent
    assert reproducible_files(original) == reproducible_files(replayed)
    assert sum(name.endswith(".ipynb") for name in reproducible_files(original)) == \
        len(first.outcomes)
    assert scores(original / "prediction", tmp_path / "a.json") == \
        scores(replayed / "prediction", tmp_path / "b.json")
    assert second.report["budget"]["spent_usd"] == 0.0
    assert second.report["total_cost_usd"] == first.report["total_cost_usd"] > 0
