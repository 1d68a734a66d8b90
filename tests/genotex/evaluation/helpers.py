"""Shared helpers of the evaluator tests: run an evaluation, key its items, compare."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Dict

from genotex.evaluation.evaluator import EvaluationSettings, Evaluator
from genotex.evaluation.report import json_ready
from genotex.testing.eval_trees import TASK_INFO
from utils.metrics import GENE_METRICS

PARTS = ("filtering", "dataset_selection", "preprocessing", "analysis")
A_NONE = ("Trait_A", "None")
A_TWO_STEP = ("Trait_A", "Trait_B")
A_PROBLEMS = [("Trait_A", c) for c in ("None", "Age", "Gender", "Trait_B")]
B_PROBLEMS = [("Trait_B", c) for c in ("None", "Age")]
A_USABLE = ("GSE100", "GSE200", "Xena")
B_USABLE = ("GSE400", "GSE500")
RESULT_A = "regress/Trait_A/significant_genes_condition_None.json"


def evaluate(pred: Path, ref: Path, method: str = None, **kwargs) -> Dict[str, Any]:
    options = {"jobs": 1, **kwargs}
    return Evaluator(pred, ref, TASK_INFO, EvaluationSettings(**options), method).run()


def items_by_key(report: Dict[str, Any]) -> Dict[str, Dict[tuple, Dict[str, Any]]]:
    """Every scored item of a report, keyed per task part."""
    selection = report["selection"]
    keyed = {
        "filtering": {(i["trait"], i["cohort"]): i for i in selection["filtering"]["cohorts"]},
        "dataset_selection": {(i["trait"], i["condition"]): i
                              for i in selection["dataset_selection"]["problems"]},
        "preprocessing": {(i["subtask"], i["trait"], i["cohort"]): i
                          for s in report["subtasks"]
                          for i in report["preprocessing"][s]["cohorts"]},
        "analysis": {(i["trait"], i["condition"]): i for i in report["analysis"]["problems"]},
    }
    return keyed


def same(first: Any, second: Any) -> bool:
    """Deep equality where NaN equals NaN."""
    return json.dumps(json_ready(first), sort_keys=True) == json.dumps(json_ready(second),
                                                                       sort_keys=True)


def is_zero_score(part: str, item: Dict[str, Any]) -> bool:
    if part == "filtering":
        return item["predicted_positive"] is False
    if part == "dataset_selection":
        return item["accuracy"] == 0.0
    if part == "preprocessing":
        return item["aj"] == item["sj"] == item["csc"] == 0.0
    return all(item[m] == 0.0 for m in GENE_METRICS)


def write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj))


def copy_tree(ref_root: Path, tmp_path: Path) -> Path:
    pred = tmp_path / "pred"
    shutil.copytree(ref_root, pred)
    return pred


def items_by_key_pre(report: Dict[str, Any]) -> Dict[tuple, Dict[str, Any]]:
    return {(i["subtask"], i["trait"], i["cohort"]): i
            for s in report["subtasks"] for i in report["preprocessing"][s]["cohorts"]}


def items_by_key_analysis(report):
    return {(i["trait"], i["condition"]): i for i in report["analysis"]["problems"]}
