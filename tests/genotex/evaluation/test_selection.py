"""Dataset filtering and selection scores (genotex.evaluation.selection), golden values."""

from __future__ import annotations

import json

import pytest

from tests.genotex.evaluation.helpers import A_NONE, A_TWO_STEP, copy_tree, evaluate, write_json


def test_filtering_golden_values(ref_root, tmp_path):
    # Prediction calls GSE300 usable (reference: not) and GSE500 not usable (reference:
    # usable): tp 4, fp 1, fn 1, tn 0 -> precision 4/5, recall 4/5, F1 4/5, accuracy 4/6.
    pred = copy_tree(ref_root, tmp_path)
    info_a = json.loads((pred / "preprocess/Trait_A/cohort_info.json").read_text())
    info_a["GSE300"]["is_usable"] = True
    write_json(pred / "preprocess/Trait_A/cohort_info.json", info_a)
    info_b = json.loads((pred / "preprocess/Trait_B/cohort_info.json").read_text())
    info_b["GSE500"]["is_usable"] = False
    write_json(pred / "preprocess/Trait_B/cohort_info.json", info_b)
    summary = evaluate(pred, ref_root, tasks=("selection",))["selection"]["filtering"]["summary"]
    assert (summary["tp"], summary["fp"], summary["fn"], summary["tn"]) == (4, 1, 1, 0)
    assert summary["f1"] == pytest.approx(80.0)
    assert summary["accuracy"] == pytest.approx(400 / 6)


def test_dataset_selection_wrong_choice(ref_root, tmp_path):
    # GSE200 claims 20 samples: it now wins Trait_A|None and Trait_A|Age (reference
    # GSE100), but has no Gender, so Trait_A|Gender stays GSE100. Two-step: the pair
    # (GSE200, GSE400) has product 180 > 108 -> wrong too. 3 of 6 correct.
    pred = copy_tree(ref_root, tmp_path)
    info = json.loads((pred / "preprocess/Trait_A/cohort_info.json").read_text())
    info["GSE200"]["sample_size"] = 20
    write_json(pred / "preprocess/Trait_A/cohort_info.json", info)
    ds = evaluate(pred, ref_root, tasks=("selection",))["selection"]["dataset_selection"]
    by_key = {(i["trait"], i["condition"]): i for i in ds["problems"]}
    assert by_key[A_NONE]["predicted"] == "GSE200" and by_key[A_NONE]["reference"] == "GSE100"
    assert by_key[("Trait_A", "Gender")]["correct"] is True
    assert by_key[A_TWO_STEP]["predicted"] == "GSE200+GSE400"
    assert ds["summary"]["overall"] == {"mean": 50.0, "n": 6}
    assert ds["summary"]["two-step"] == {"mean": 0.0, "n": 1}
