"""The report files (genotex.evaluation.report): JSON, per-task CSVs with fixed columns."""

from __future__ import annotations

import copy
import json

import jsonschema
import pandas as pd

from genotex.evaluation.leaderboard import build_leaderboard
from genotex.evaluation.report import (PREDICTION_METRICS, csv_columns, json_ready,
                                       write_comparison, write_report)
from tests.conftest import REPO_ROOT
from tests.genotex.evaluation.helpers import RESULT_A, copy_tree, evaluate


def test_report_files(ref_root, tmp_path, baseline):
    written = write_report(baseline, tmp_path / "out" / "report.json")
    names = sorted(p.name for p in written)
    assert names == ["report.analysis.csv", "report.dataset_selection.csv",
                     "report.filtering.csv", "report.json", "report.preprocessing.csv"]
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert data["analysis"]["summary"]["overall"]["precision"]["mean"] == 100.0
    assert data["conventions"] == "genotex" and data["method"] == "pred"
    schema = json.loads((REPO_ROOT / "schemas" / "report.schema.json").read_text())
    jsonschema.validate(data, schema)
    table = pd.read_csv(tmp_path / "out" / "report.preprocessing.csv")
    assert len(table) == 15 and set(table["status"]) == {"ok"}
    assert set(table["coverage"]) == {100.0}


def test_csv_columns_are_the_same_in_every_run(ref_root, tmp_path, baseline):
    """A run whose predictions carry no cv_performance, and a run with only some tasks
    and no items at all, write the same columns as a complete run."""
    pred = copy_tree(ref_root, tmp_path)
    for path in (pred / "regress").rglob("*.json"):
        document = json.loads(path.read_text())
        document.pop("cv_performance")
        path.write_text(json.dumps(document))
    (pred / RESULT_A).unlink()
    stripped = evaluate(pred, ref_root)
    empty = evaluate(pred, ref_root)
    empty["analysis"]["problems"] = []
    empty["selection"]["filtering"]["cohorts"] = []
    columns = csv_columns()
    for name, report in (("full", baseline), ("stripped", stripped), ("empty", empty)):
        for path in write_report(report, tmp_path / name / "r.json")[1:]:
            part = path.name.split(".")[1]
            assert list(pd.read_csv(path).columns) == columns[part], (name, part)
    assert [f"predicted_cv.{m}" for m in PREDICTION_METRICS] == [
        c for c in columns["analysis"] if c.startswith("predicted_cv.")]
    analysis = pd.read_csv(tmp_path / "full" / "r.analysis.csv")
    assert analysis["predicted_cv.accuracy"].notna().all()


def test_comparison_files(ref_root, tmp_path, baseline):
    other = copy.deepcopy(baseline)
    other["method"] = "other"
    leaderboard = build_leaderboard([baseline, other])
    written = write_comparison(leaderboard, [baseline, other], tmp_path / "cmp.json")
    assert [p.name for p in written] == [
        "cmp.json", "cmp.leaderboard.csv", "cmp.filtering.csv", "cmp.dataset_selection.csv",
        "cmp.preprocessing.csv", "cmp.analysis.csv"]
    data = json.loads((tmp_path / "cmp.json").read_text())
    schema = json.loads((REPO_ROOT / "schemas" / "comparison.schema.json").read_text())
    jsonschema.validate(data, schema)
    assert [r["method"] for r in data["leaderboard"]["rows"]] == ["pred", "other"]
    board = pd.read_csv(tmp_path / "cmp.leaderboard.csv")
    assert list(board["method"]) == ["pred", "other"]
    assert board["analysis.overall.f1"].tolist() == [100.0, 100.0]
    analysis = pd.read_csv(tmp_path / "cmp.analysis.csv")
    assert analysis.columns[0] == "method" and len(analysis) == 12


def test_json_ready_replaces_non_finite():
    assert json_ready({"a": [float("nan"), 1.0, float("inf")]}) == {"a": [None, 1.0, None]}
    assert copy.deepcopy(json_ready({"b": (1, 2)})) == {"b": [1, 2]}
