"""The ``rules`` method end to end on the bundled demo (run_agent.py --method rules).

The scores below are what the README reports: the rules reproduce the curator's
tables and the reference results on every item of the demo. The demo is
synthetic and the clinical rules were tuned on it (docs/methods.md), so this is a
regression check, not a measure of accuracy on real cohorts.
"""

from __future__ import annotations

import filecmp
import json
import shutil
from pathlib import Path

import pytest

from genotex.cli.agent import main as run_agent
from genotex.cli.evaluate import main as evaluate
from tests.conftest import REPO_ROOT


def tree_files(tree: Path):
    return sorted(p.relative_to(tree) for p in tree.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def rules_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("rules") / "run"
    assert run_agent(["--method", "rules", "--run-dir", str(run_dir), "--no-progress"]) == 0
    report = run_dir / "eval.json"
    assert evaluate(["-p", str(run_dir / "prediction"), "--report", str(report),
                     "--no-progress"]) == 0
    return run_dir, json.loads(report.read_text("utf-8"))


def test_eval_scores_all_three_tasks(rules_run):
    _, report = rules_run
    filtering = report["selection"]["filtering"]["summary"]
    assert filtering["f1"] == 100.0 and filtering["accuracy"] == 100.0
    selection = report["selection"]["dataset_selection"]["summary"]
    assert selection["overall"]["mean"] == 100.0 and selection["overall"]["n"] == 37
    for subtask in ("gene", "clinical", "linked"):
        summary = report["preprocessing"][subtask]["summary"]
        assert summary["cohorts"] == 13
        assert summary["csc"]["mean"] == pytest.approx(100.0, abs=1e-6), subtask
    analysis = report["analysis"]
    assert analysis["status_counts"]["ok"] == 37
    assert analysis["summary"]["overall"]["f1"]["mean"] == pytest.approx(100.0)


def test_the_tree_holds_only_the_documented_files(rules_run):
    run_dir, _ = rules_run
    names = {p.name for p in (run_dir / "prediction").rglob("*") if p.is_file()}
    assert not {n for n in names if n.endswith((".lock", ".tmp"))}
    assert {p.name for p in run_dir.iterdir()} >= {"prediction", "run_log.jsonl",
                                                   "resources.csv", "resources.json",
                                                   "tasks.csv", "state.json"}


def test_deterministic_and_reads_only_inputs_and_metadata(rules_run, tmp_path, monkeypatch):
    """A second run writes the same bytes, from copies of input/ and metadata/.

    GENOTEX_OUTPUT points at an empty folder: there is no reference tree to peek at.
    """
    first, _ = rules_run
    shutil.copytree(REPO_ROOT / "input", tmp_path / "input")
    shutil.copytree(REPO_ROOT / "metadata", tmp_path / "metadata")
    (tmp_path / "empty_output").mkdir()
    monkeypatch.setenv("GENOTEX_OUTPUT", str(tmp_path / "empty_output"))
    second = tmp_path / "run"
    assert run_agent(["--method", "rules", "--run-dir", str(second), "--no-progress",
                      "--input-dir", str(tmp_path / "input"),
                      "--metadata-dir", str(tmp_path / "metadata")]) == 0
    a, b = first / "prediction", second / "prediction"
    assert tree_files(a) == tree_files(b)
    _, mismatch, errors = filecmp.cmpfiles(a, b, [str(p) for p in tree_files(a)],
                                           shallow=False)
    assert not mismatch and not errors


def test_a_resumed_run_does_nothing_again(rules_run, capsys):
    run_dir, _ = rules_run
    before = (run_dir / "prediction" / "preprocess" / "Heart_rate" / "GSE9100501.csv").stat()
    assert run_agent(["--method", "rules", "--run-dir", str(run_dir), "--no-progress"]) == 0
    assert "52 task(s) finished in an earlier run were kept" in capsys.readouterr().out
    after = (run_dir / "prediction" / "preprocess" / "Heart_rate" / "GSE9100501.csv").stat()
    assert before.st_mtime_ns == after.st_mtime_ns
