"""Gene-list scoring (genotex.evaluation.analysis): golden values, repeats, synonyms,
universes, missing references.
"""

from __future__ import annotations

import pytest

from genotex.evaluation.statuses import OK
from genotex.testing.eval_trees import regress_json
from tests.genotex.evaluation.helpers import (A_NONE, copy_tree, evaluate, items_by_key,
                                              items_by_key_analysis, write_json)


def test_analysis_golden_values(ref_root, tmp_path):
    # Reference Trait_A|None = [GENE7, GENE3, GENE12, GENE1]; universe = the 30 gene
    # columns of the selected reference table GSE100. Prediction [gene7, GENE99, GENE1]:
    # case is ignored; GENE99 is outside U and is added (|U| = 31, Nh = 4, 27 negatives).
    # P = 2/3, R = 2/4, F1 = 2*2/(3+4), J = 2/5.
    # AUROC: GENE7 (score 3) beats GENE99 and the 26 unpredicted negatives = 27;
    # GENE1 (score 1) beats 26; the 2 unpredicted positives tie 26 negatives: 2*13 = 26.
    # (27 + 26 + 26) / (4 * 27) = 79/108.
    # ES: +1/4, -1/27, +1/4 -> max = 1/2 - 1/27.
    pred = copy_tree(ref_root, tmp_path)
    write_json(pred / "regress/Trait_A/significant_genes_condition_None.json",
               regress_json(["gene7", "GENE99", "GENE1"]))
    item = items_by_key(evaluate(pred, ref_root))["analysis"][A_NONE]
    assert item["status"] == OK and item["universe"] == "reference"
    assert item["universe_size"] == 31
    assert item["precision"] == pytest.approx(200 / 3)
    assert item["recall"] == pytest.approx(50.0)
    assert item["f1"] == pytest.approx(400 / 7)
    assert item["jaccard"] == pytest.approx(40.0)
    assert item["auroc"] == pytest.approx(79 / 108)
    assert item["gsea_es"] == pytest.approx(0.5 - 1 / 27)


def test_duplicate_genes_in_result_keep_first_rank(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    genes = ["GENE7", "GENE3", "gene7", "GENE12", "GENE1", "GENE3"]
    write_json(pred / "regress/Trait_A/significant_genes_condition_None.json",
               regress_json(genes))
    item = items_by_key(evaluate(pred, ref_root))["analysis"][A_NONE]
    assert item["status"] == OK and "2 repeated gene(s)" in item["message"]
    assert item["f1"] == 100.0 and item["auroc"] == 1.0


def test_synonym_map_applies_to_analysis(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    write_json(pred / "regress/Trait_A/significant_genes_condition_None.json",
               regress_json(["OLDNAME7", "GENE3", "GENE12", "GENE1"]))
    plain = items_by_key(evaluate(pred, ref_root))["analysis"][A_NONE]
    assert plain["recall"] == 75.0
    mapped = items_by_key(evaluate(pred, ref_root, synonyms={"OLDNAME7": "GENE7"}))
    assert mapped["analysis"][A_NONE]["recall"] == 100.0


def test_virtual_universe_when_reference_tables_absent(ref_root, tmp_path):
    ref = copy_tree(ref_root, tmp_path / "r")
    (ref / "preprocess/Trait_A/GSE100.csv").unlink()
    report = evaluate(ref_root, ref, tasks=("analysis",))
    item = items_by_key_analysis(report)[A_NONE]
    assert item["universe"] == "virtual" and item["universe_size"] == 20_000


def test_missing_reference_results_are_not_scored(ref_root, tmp_path):
    ref = copy_tree(ref_root, tmp_path / "r")
    (ref / "regress/Trait_B/significant_genes_condition_Age.json").unlink()
    report = evaluate(ref_root, ref, tasks=("analysis",))
    item = items_by_key_analysis(report)[("Trait_B", "Age")]
    assert item["status"] == "no-reference"
    assert report["analysis"]["summary"]["overall"]["problems"] == 5
