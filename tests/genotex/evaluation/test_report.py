"""The report files and the text summary (genotex.evaluation.report)."""

from __future__ import annotations

import copy
import json

import pandas as pd

from genotex.evaluation.report import format_report, json_ready, write_report


def test_report_files(ref_root, tmp_path, baseline):
    written = write_report(baseline, tmp_path / "out" / "report.json")
    names = sorted(p.name for p in written)
    assert names == ["report.analysis.csv", "report.dataset_selection.csv",
                     "report.filtering.csv", "report.json", "report.preprocessing.csv"]
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert data["analysis"]["summary"]["overall"]["precision"]["mean"] == 100.0
    table = pd.read_csv(tmp_path / "out" / "report.preprocessing.csv")
    assert len(table) == 15 and set(table["status"]) == {"ok"}
    text = format_report(baseline)
    assert "dataset filtering" in text and "two-step" in text and "GSEA ES" in text


def test_json_ready_replaces_non_finite():
    assert json_ready({"a": [float("nan"), 1.0, float("inf")]}) == {"a": [None, 1.0, None]}
    assert copy.deepcopy(json_ready({"b": (1, 2)})) == {"b": [1, 2]}
