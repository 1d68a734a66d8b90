"""The ``random`` baseline: seeded, independent per problem, a valid tree eval.py scores."""

from __future__ import annotations

import json

from genotex.cli.evaluate import main as evaluate
from genotex.methods.random_baseline import RandomGenes
from genotex.methods.runner import RunOptions, run_method
from utils.paths import resolve_paths
from utils.problems import Problem, enumerate_problems, load_task_info

POOL = [f"G{i}" for i in range(1000)]


def test_same_seed_same_list_other_seed_other_list():
    problem = Problem("Asthma", "Age")
    first = RandomGenes(POOL, 20, seed=1).genes_for(problem)
    assert first == RandomGenes(list(reversed(POOL)), 20, seed=1).genes_for(problem)
    assert len(set(first)) == 20 and set(first) <= set(POOL)
    assert first != RandomGenes(POOL, 20, seed=2).genes_for(problem)
    assert first != RandomGenes(POOL, 20, seed=1).genes_for(Problem("Asthma"))


def test_a_tree_eval_scores(tmp_path):
    paths = resolve_paths()
    problems = enumerate_problems(load_task_info(paths.task_info))
    summary = run_method(RandomGenes(POOL[:5] + ["TNF"], n_genes=3), paths, problems,
                         RunOptions(run_dir=tmp_path, progress=False))
    assert len(summary.outcomes) == 37 and not summary.failures()
    report = tmp_path / "eval.json"
    assert evaluate(["-p", str(summary.tree), "-t", "analysis", "--report", str(report),
                     "--no-progress"]) == 0
    analysis = json.loads(report.read_text())["analysis"]
    assert analysis["status_counts"]["ok"] == 37
    assert all(p["predicted_genes"] == 3 for p in analysis["problems"])
