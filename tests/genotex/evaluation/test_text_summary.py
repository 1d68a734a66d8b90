"""The stdout summary and the text leaderboard (genotex.evaluation.text_summary)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from genotex.evaluation.leaderboard import build_leaderboard
from genotex.evaluation.text_summary import WIDTH, format_leaderboard, format_report
from tests.genotex.evaluation.helpers import RESULT_A, copy_tree, evaluate

SCREEN_LINES = 60


def damaged_report(ref_root, tmp_path):
    """GSE100 called unusable (a flipped label, which also moves the selections), a noisy
    gene table of GSE400, a missing result file."""
    pred = copy_tree(ref_root, tmp_path)
    info_path = pred / "preprocess/Trait_A/cohort_info.json"
    info = json.loads(info_path.read_text())
    info["GSE100"]["is_usable"] = False
    info_path.write_text(json.dumps(info))
    gene = pred / "preprocess/Trait_B/gene_data/GSE400.csv"
    table = pd.read_csv(gene, index_col=0)
    table += np.random.default_rng(0).normal(0, 2, table.shape)
    table.to_csv(gene)
    (pred / RESULT_A).unlink()
    return evaluate(pred, ref_root)


def test_summary_fits_one_screen_and_shows_what_went_wrong(ref_root, tmp_path):
    text = format_report(damaged_report(ref_root, tmp_path))
    lines = text.splitlines()
    assert len(lines) <= SCREEN_LINES
    assert all(len(line) <= WIDTH for line in lines[4:]), [x for x in lines if len(x) > WIDTH]
    assert "TP 4  FP 0  FN 1  TN 1" in text                    # confusion counts
    assert "1 flipped: Trait_A/GSE100 (FN)" in text             # ok but wrong
    assert "4 wrong: Trait_A|None Xena (reference GSE100)" in text
    assert "below CSC 100: gene Trait_B/GSE400" in text
    assert "coverage" in text and "correlation" in text
    assert "[analysis] missing: regress/Trait_A/significant_genes_condition_None.json" in text
    for category in ("unconditional", "one-step", "two-step", "overall"):
        assert category in text
    assert "(5/6)" in text  # analysis success with its denominator


def test_perfect_prediction_has_no_worst_items(baseline):
    text = format_report(baseline)
    assert "WORST ITEMS" not in text
    assert "TP 5  FP 0  FN 0  TN 1" in text


def test_leaderboard_text(baseline, ref_root, tmp_path):
    damaged = damaged_report(ref_root, tmp_path)
    damaged["method"] = "damaged"
    text = format_leaderboard(build_leaderboard([baseline, damaged]), [baseline, damaged])
    rows = {}
    for line in text.splitlines():  # the first table's rows
        if line.startswith(("  pred ", "  damaged ")):
            rows.setdefault(line.split()[0], line.split()[1:])
    assert len(text.splitlines()) <= SCREEN_LINES
    assert "damaged: items not ok: missing 1" in text
    # the first table: DF F1, DS accuracy, then AJ/SJ/CSC per subtask
    assert rows["pred"][:2] == ["100.00", "100.00"]
    assert rows["damaged"][0] == f"{100 * 2 * 4 / (2 * 4 + 1):.2f}"  # F1 = 2TP/(2TP+FP+FN)
