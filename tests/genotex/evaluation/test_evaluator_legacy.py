"""The original evaluator's conventions (EvaluationSettings(legacy=True), eval.py --legacy),
point by point as docs/evaluation.md "Legacy conventions" lists them."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.genotex.evaluation.helpers import (RESULT_A, copy_tree, evaluate, items_by_key_pre,
                                              write_json)
from utils.metrics import classification_metrics


def _edit_info(root, trait, edit):
    path = root / "preprocess" / trait / "cohort_info.json"
    info = json.loads(path.read_text())
    edit(info)
    path.write_text(json.dumps(info))


def test_filtering_is_available_union_of_cohorts_and_mean_over_traits(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)

    def edit(info):
        info["GSE100"]["is_usable"] = False  # available but (say) biased
        info["GSE999"] = {**info["GSE200"]}  # a cohort the reference does not have

    _edit_info(pred, "Trait_A", edit)
    spec = evaluate(pred, ref_root, tasks=("selection",))["selection"]["filtering"]
    legacy = evaluate(pred, ref_root, tasks=("selection",), legacy=True)["selection"][
        "filtering"]
    # SPEC 6.1: is_usable over the 6 reference cohorts: GSE100 is a FN -> TP 4 FN 1 TN 1,
    # F1 = 2*4 / (2*4 + 1) = 88.89; GSE999 is ignored.
    assert spec["label"] == "is_usable" and spec["averaged_over"] == "cohorts"
    assert (spec["summary"]["tp"], spec["summary"]["fn"]) == (4, 1)
    assert spec["summary"]["f1"] == pytest.approx(800 / 9)
    # Legacy: is_available; Trait_A: GSE100, GSE200, Xena TP, GSE300 TN, GSE999 FP ->
    # precision 75, recall 100, F1 2*3/(2*3+1) = 85.714, accuracy 80; Trait_B all 100.
    # Means over the two traits: precision 87.5, recall 100, F1 92.857, accuracy 90.
    assert legacy["label"] == "is_available" and legacy["averaged_over"] == "traits"
    summary = legacy["summary"]
    assert summary["precision"] == pytest.approx(87.5)
    assert summary["recall"] == pytest.approx(100.0)
    assert summary["f1"] == pytest.approx((600 / 7 + 100) / 2)
    assert summary["accuracy"] == pytest.approx(90.0)
    assert (summary["tp"], summary["fp"], summary["tn"], summary["n"]) == (5, 1, 1, 7)
    extra = [i for i in legacy["cohorts"] if i["cohort"] == "GSE999"][0]
    assert extra["predicted_positive"] and not extra["reference_positive"]
    assert "not in the reference" in extra["message"]


def test_legacy_scores_a_trait_without_positives_zero():
    # The original divided by zero as 0: no positive predicted nor in the reference
    # scores 0 (SPEC 6.3's empty-set rule scores it 100).
    assert classification_metrics([False], [False])["f1"] == 100.0
    assert classification_metrics([False], [False], both_empty=0.0)["f1"] == 0.0


def test_selection_scores_problems_the_reference_leaves_empty(ref_root, tmp_path):
    ref = tmp_path / "ref"
    shutil.copytree(ref_root, ref)

    def no_age(info):
        for record in info.values():
            record["has_age"] = False

    _edit_info(ref, "Trait_B", no_age)  # Trait_B|Age selects nothing in the reference
    pred = copy_tree(ref, tmp_path)
    spec = evaluate(pred, ref, tasks=("selection",))["selection"]["dataset_selection"]
    legacy = evaluate(pred, ref, tasks=("selection",), legacy=True)["selection"][
        "dataset_selection"]
    assert spec["summary"]["overall"]["n"] == 5     # scored where the reference selects
    assert legacy["summary"]["overall"]["n"] == 6   # also nothing == nothing: correct
    item = [i for i in legacy["problems"] if i["condition"] == "Age"
            and i["trait"] == "Trait_B"][0]
    assert item["reference"] is None and item["correct"] is True


def test_preprocessing_leaves_missing_tables_out_and_compares_every_table(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    (pred / "preprocess/Trait_A/gene_data/GSE200.csv").unlink()
    spec = evaluate(pred, ref_root, tasks=("preprocessing",))["preprocessing"]
    legacy = evaluate(pred, ref_root, tasks=("preprocessing",), legacy=True)["preprocessing"]
    # SPEC: 5 usable cohorts, the missing table scores 0 -> mean CSC 80 over 5.
    assert spec["gene"]["summary"]["csc"] == {"mean": pytest.approx(80.0), "n": 5}
    # Legacy: the unusable GSE300's gene table is compared too (6 items) and the missing
    # one is left out of the mean -> 100 over 5.
    assert len(legacy["gene"]["cohorts"]) == 6
    assert legacy["gene"]["summary"]["csc"] == {"mean": pytest.approx(100.0), "n": 5}
    assert items_by_key_pre({"subtasks": ["gene"], "preprocessing": legacy})[
        ("gene", "Trait_A", "GSE300")]["status"] == "ok"
    assert len(legacy["linked"]["cohorts"]) == 5  # GSE300 has no reference linked table


def test_analysis_virtual_universe_and_failures_left_out(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    (pred / RESULT_A).unlink()
    write_json(pred / "regress/Trait_B/significant_genes_condition_None.json",
               {"significant_genes": {"Variable": ["GENE29"]}})  # one miss, no hit
    spec = evaluate(pred, ref_root, tasks=("analysis",))["analysis"]
    legacy = evaluate(pred, ref_root, tasks=("analysis",), legacy=True)["analysis"]
    assert {i["universe"] for i in spec["problems"]} == {"reference"}
    scored = [i for i in legacy["problems"] if i["status"] == "ok"]
    assert {(i["universe"], i["universe_size"]) for i in scored} == {("virtual", 20000)}
    # The failed problem counts 0 under SPEC 6.3 and is left out under legacy.
    assert spec["summary"]["overall"]["f1"]["n"] == 6
    assert legacy["summary"]["overall"]["f1"]["n"] == 5
    assert legacy["summary"]["overall"]["success_rate"] == pytest.approx(500 / 6)
    # GSEA ES is never the original's (negative) value for a list without hits.
    miss = [i for i in legacy["problems"] if (i["trait"], i["condition"]) ==
            ("Trait_B", "None")][0]
    assert miss["gsea_es"] == 0.0 and miss["f1"] == 0.0
