"""The eval.py command line (genotex.cli.evaluate)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.eval_tree_builder import write_task_info, write_tree
from tests.genotex.evaluation.helpers import RESULT_A, copy_tree


@pytest.fixture(scope="module")
def ref_root(tmp_path_factory) -> Path:
    return write_tree(tmp_path_factory.mktemp("reference") / "output")


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO_ROOT / "eval.py"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_cli_smoke(ref_root, tmp_path):
    task_info = write_task_info(tmp_path / "task_info.json")
    pred = copy_tree(ref_root, tmp_path)
    (pred / RESULT_A).write_text("{broken")
    result = run_cli("-p", str(pred), "-r", str(ref_root), "--task-info", str(task_info),
                     "--report", str(tmp_path / "rep.json"), "-j", "2", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Analysis" in result.stdout and "malformed" in result.stdout
    assert "significant_genes_condition_None.json" in result.stdout
    report = json.loads((tmp_path / "rep.json").read_text())
    assert report["analysis"]["summary"]["overall"]["succeeded"] == 5
    assert (tmp_path / "rep.analysis.csv").is_file()


def test_cli_task_and_subtask_filters_and_default_reference(ref_root, tmp_path):
    env_root = tmp_path
    pred = copy_tree(ref_root, tmp_path)
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "eval.py"), "-p", str(pred), "-t", "preprocessing",
         "-s", "gene", "--report", str(tmp_path / "r.json")],
        cwd=env_root, capture_output=True, text=True, timeout=120,
        env={**os.environ, "GENOTEX_OUTPUT": str(ref_root)})
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["tasks"] == ["preprocessing"] and list(report["preprocessing"]) == [
        "gene", "bytes_read"]
    assert "Selection" not in result.stdout


def test_cli_errors_and_help(tmp_path):
    result = run_cli("-p", str(tmp_path), "-r", str(tmp_path / "nope"), cwd=tmp_path)
    assert result.returncode == 2 and "reference tree" in result.stderr
    (tmp_path / "ref").mkdir()
    result = run_cli("-p", str(tmp_path), "-r", str(tmp_path / "ref"), "--task-info",
                     str(tmp_path / "missing.json"), cwd=tmp_path)
    assert result.returncode == 2 and "task info" in result.stderr
    help_text = run_cli("--help", cwd=tmp_path).stdout
    for flag in ("-p", "-r", "-t", "-s", "-g", "--report", "--task-info", "--jobs"):
        assert flag in help_text
