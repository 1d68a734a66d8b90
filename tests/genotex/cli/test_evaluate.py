"""The eval.py command line (genotex.cli.evaluate)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from genotex.testing.eval_trees import write_task_info, write_tree
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
    assert "ANALYSIS" in result.stdout and "malformed" in result.stdout
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
    (tmp_path / "pred" / "regress").mkdir(parents=True)
    result = run_cli("-p", str(tmp_path / "pred"), "-r", str(tmp_path / "nope"), cwd=tmp_path)
    assert result.returncode == 2 and "reference folder" in result.stderr
    (tmp_path / "ref").mkdir()
    result = run_cli("-p", str(tmp_path / "pred"), "-r", str(tmp_path / "ref"), "--task-info",
                     str(tmp_path / "missing.json"), cwd=tmp_path)
    assert result.returncode == 2 and "task info" in result.stderr
    help_text = " ".join(run_cli("--help", cwd=tmp_path).stdout.split())
    for flag in ("-p", "--pred-dir", "-r", "--ref-dir", "-t", "--tasks", "-s",
                 "--preprocess-subtasks", "-g", "--report", "--html", "--legacy",
                 "--task-info", "--jobs"):
        assert flag in help_text
    # the default reference is described as it is resolved (utils.paths)
    assert "GENOTEX_OUTPUT" in help_text and "checkout that holds the working directory" \
        in help_text


def test_missing_prediction_folder_is_a_usage_error(ref_root, tmp_path):
    """Not zeros with exit 0: a typo in -p must not look like a (bad) evaluation."""
    result = run_cli("-p", str(tmp_path / "typo"), "-r", str(ref_root), cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert f"prediction folder {tmp_path / 'typo'} does not exist" in result.stderr
    (tmp_path / "file").write_text("x")
    result = run_cli("-p", str(ref_root), str(tmp_path / "file"), "-r", str(ref_root),
                     cwd=tmp_path)
    assert result.returncode == 2 and "is not a folder" in result.stderr


def test_a_file_as_reference_or_report_folder_is_named_without_traceback(ref_root, tmp_path):
    (tmp_path / "file").write_text("x")
    result = run_cli("-p", str(ref_root), "-r", str(tmp_path / "file"), cwd=tmp_path)
    assert result.returncode == 2
    assert f"reference folder {tmp_path / 'file'} is not a folder" in result.stderr
    task_info = write_task_info(tmp_path / "task_info.json")
    result = run_cli("-p", str(ref_root), "-r", str(ref_root), "--task-info", str(task_info),
                     "-t", "analysis", "-j", "1", "--no-progress",
                     "--report", str(tmp_path / "file" / "report.json"), cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"eval.py: error: {tmp_path / 'file'}: cannot create this folder: " \
        f"{tmp_path / 'file'} is a file, not a folder" in result.stderr
    assert result.stdout == ""  # said before evaluating, not after
    assert (tmp_path / "file").read_text() == "x"
    result = run_cli("-p", str(ref_root), "-r", str(ref_root), "--task-info", str(task_info),
                     "-t", "analysis", "--html", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert f"eval.py: error: {tmp_path}: is a folder" in result.stderr


def _not_a_tree(ref_root: Path, tmp_path: Path, case: str) -> tuple:
    """``(folder to pass, what the error must suggest)`` for each kind of wrong folder."""
    if case == "empty":
        (tmp_path / "empty").mkdir()
        return tmp_path / "empty", "is empty"
    if case == "run folder":
        shutil.copytree(ref_root, tmp_path / "runs" / "rules" / "prediction")
        return (tmp_path / "runs" / "rules",
                f"did you mean -p {tmp_path / 'runs' / 'rules' / 'prediction'}?")
    if case in ("regress folder", "preprocess folder"):
        tree = copy_tree(ref_root, tmp_path)
        part = case.split()[0]
        return tree / part, f"did you mean -p {tree}? (this is the {part}/ folder"
    if case == "tree below":
        shutil.copytree(ref_root, tmp_path / "outer" / "method_x")
        (tmp_path / "outer" / "notes").mkdir()
        return tmp_path / "outer", f"did you mean -p {tmp_path / 'outer' / 'method_x'}?"
    shutil.copytree(ref_root / "regress", tmp_path / "loose")  # trait folders, no regress/
    return tmp_path / "loose", "move them into <tree>/regress/"


@pytest.mark.parametrize("case", ["empty", "run folder", "regress folder",
                                  "preprocess folder", "tree below", "loose trait folders"])
def test_a_folder_that_is_not_a_tree_is_a_usage_error(ref_root, tmp_path, case):
    """No preprocess/ and no regress/: exit 2, one line naming the folder probably meant."""
    folder, hint = _not_a_tree(ref_root, tmp_path, case)
    result = run_cli("-p", str(folder), "-r", str(ref_root), cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1, result.stderr
    assert f"prediction folder {folder} " in result.stderr and "not a prediction tree" \
        in result.stderr
    assert hint in result.stderr


def test_a_partial_tree_gets_one_warning_per_missing_part(ref_root, tmp_path):
    task_info = write_task_info(tmp_path / "task_info.json")
    pred = copy_tree(ref_root, tmp_path)
    shutil.rmtree(pred / "preprocess")
    result = run_cli("-p", str(pred), "-r", str(ref_root), "--task-info", str(task_info),
                     "-j", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert warnings == [f"warning: {pred} has no preprocess/ folder: selection and "
                        "preprocessing score 0 on every item"]
    listed = [line for line in result.stdout.splitlines() if line.startswith("    [")]
    assert listed and len(listed) == len(set(listed)), listed  # no line repeated
    # the two cohorts of Trait_B share one missing cohort_info.json: one line, counted
    assert ("[filtering] missing (2 items): preprocess/Trait_B/cohort_info.json: file not "
            "found") in result.stdout
    analysis_only = run_cli("-p", str(pred), "-r", str(ref_root), "--task-info",
                            str(task_info), "-t", "analysis", cwd=tmp_path)
    assert analysis_only.returncode == 0 and "warning" not in analysis_only.stderr


def test_the_report_says_which_gene_symbol_reading_it_used(ref_root, tmp_path):
    """Without -g: the canonical reading (symbols as written); with -g: the map, named."""
    task_info = write_task_info(tmp_path / "task_info.json")
    synonyms = tmp_path / "synonyms.json"
    synonyms.write_text(json.dumps({"GENE7": "GENE7", "ALIAS7": "GENE7"}))
    plain = run_cli("-p", str(ref_root), "-r", str(ref_root), "--task-info", str(task_info),
                    "-t", "analysis", "--report", str(tmp_path / "plain.json"), cwd=tmp_path)
    mapped = run_cli("-p", str(ref_root), "-r", str(ref_root), "--task-info", str(task_info),
                     "-t", "analysis", "-g", str(synonyms), "--report",
                     str(tmp_path / "mapped.json"), cwd=tmp_path)
    assert plain.returncode == mapped.returncode == 0, plain.stderr + mapped.stderr
    assert "gene symbols as written, stripped and upper-cased (the canonical reading)" \
        in plain.stdout
    assert f"gene symbols mapped through {synonyms} (-g; the canonical reading maps none)" \
        in mapped.stdout
    assert json.loads((tmp_path / "plain.json").read_text())["gene_synonyms"] is None
    assert json.loads((tmp_path / "mapped.json").read_text())["gene_synonyms"] == str(synonyms)


def test_seed_interface_short_and_long_forms_agree(ref_root, tmp_path):
    """The seed README's command, with either flag form (and the older aliases)."""
    task_info = write_task_info(tmp_path / "task_info.json")
    pred = copy_tree(ref_root, tmp_path)
    (pred / RESULT_A).write_text("{broken")
    forms = {
        "short": ["-p", str(pred), "-r", str(ref_root), "-t", "selection", "preprocessing",
                  "analysis", "-s", "gene", "clinical", "linked"],
        "long": ["--pred-dir", str(pred), "--ref-dir", str(ref_root), "--tasks",
                 "selection", "preprocessing", "analysis", "--preprocess-subtasks", "gene",
                 "clinical", "linked"],
        "aliases": ["--pred", str(pred), "--ref", str(ref_root), "--subtasks", "gene",
                    "clinical", "linked"],
    }
    outputs = {}
    for name, flags in forms.items():
        result = run_cli(*flags, "--task-info", str(task_info), "--report",
                         str(tmp_path / f"{name}.json"), "-j", "1", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        outputs[name] = result.stdout
        assert json.loads((tmp_path / f"{name}.json").read_text())["subtasks"] == [
            "gene", "clinical", "linked"]
    assert outputs["short"] == outputs["long"] == outputs["aliases"]


def test_default_reference_is_the_checkout_holding_the_working_directory(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GENOTEX_")}
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "eval.py"), "-p", str(REPO_ROOT / "output"),
         "-t", "selection", "--no-progress"],
        cwd=REPO_ROOT / "code", capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert f"reference    {REPO_ROOT / 'output'}" in result.stdout


def test_several_methods_give_a_leaderboard_and_html(ref_root, tmp_path):
    task_info = write_task_info(tmp_path / "task_info.json")
    pred = copy_tree(ref_root, tmp_path)
    (pred / RESULT_A).unlink()
    result = run_cli("-p", f"broken={pred}", str(ref_root), "-r", str(ref_root),
                     "--task-info", str(task_info), "--report", str(tmp_path / "cmp.json"),
                     "--html", str(tmp_path / "cmp.html"), "-j", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "leaderboard of 2 methods" in result.stdout
    assert "broken: items not ok: missing 1" in result.stdout
    data = json.loads((tmp_path / "cmp.json").read_text())
    assert [row["method"] for row in data["leaderboard"]["rows"]] == ["broken", "output"]
    assert (tmp_path / "cmp.leaderboard.csv").is_file()
    page = (tmp_path / "cmp.html").read_text()
    assert 'data-method="broken"' in page and 'data-method="output"' in page


def test_legacy_flag_changes_the_conventions(ref_root, tmp_path):
    task_info = write_task_info(tmp_path / "task_info.json")
    result = run_cli("-p", str(ref_root), "-r", str(ref_root), "--task-info",
                     str(task_info), "--legacy", "-t", "selection", "--report",
                     str(tmp_path / "r.json"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["conventions"] == "legacy"
    assert report["selection"]["filtering"]["label"] == "is_available"
    assert "legacy" in result.stdout


@pytest.mark.slow
def test_readme_quotes_the_baseline_summary(tmp_path):
    """README.md's quoted summary of examples/baseline_prediction is the real output."""
    readme = (REPO_ROOT / "README.md").read_text()
    quoted = readme.split("```\nSELECTION", 1)[1].split("```", 1)[0]
    result = run_cli("-p", str(REPO_ROOT / "examples" / "baseline_prediction"),
                     "--no-progress", cwd=REPO_ROOT)
    assert result.returncode == 0, result.stderr
    assert "SELECTION" + quoted.rstrip("\n") in result.stdout
