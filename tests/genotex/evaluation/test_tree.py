"""Reading a tree's typed items (genotex.evaluation.tree)."""

from __future__ import annotations

import json

import pytest

from genotex.evaluation.statuses import MALFORMED, ItemError
from genotex.evaluation.tree import Limits, prediction_reader, reference_reader
from tests.genotex.evaluation.helpers import copy_tree, write_json
from utils.problems import Problem


def test_tcga_alias_of_predictions_only(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    path = pred / "preprocess/Trait_A/cohort_info.json"
    info = json.loads(path.read_text())
    info["TCGA"] = info.pop("Xena")
    write_json(path, info)
    (pred / "preprocess/Trait_A/Xena.csv").rename(pred / "preprocess/Trait_A/TCGA.csv")
    reader = prediction_reader(pred, Limits())
    assert "Xena" in reader.cohort_info("Trait_A").records
    assert reader.linked_header("Trait_A", "Xena")[0] == "Trait_A"
    assert "TCGA" in reference_reader(pred).cohort_info("Trait_A").records


def test_cohort_info_keeps_valid_records_and_problems(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    path = pred / "preprocess/Trait_B/cohort_info.json"
    info = json.loads(path.read_text())
    info["GSE400"]["sample_size"] = "9"
    write_json(path, info)
    reading = prediction_reader(pred, Limits()).cohort_info("Trait_B")
    assert list(reading.records) == ["GSE500"]
    assert reading.problems["GSE400"].startswith("'sample_size' must be")
    write_json(path, [info])
    with pytest.raises(ItemError) as error:
        prediction_reader(pred, Limits()).cohort_info("Trait_B")
    assert error.value.status == MALFORMED and str(error.value).startswith(str(path))


def test_regress_result_view(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    path = pred / "regress/Trait_A/significant_genes_condition_None.json"
    write_json(path, {"significant_genes": {"Variable": [" GENE7 ", "", "GENE1"]},
                      "cv_performance": {"prediction": {"accuracy": 70, "fold": {"a": 1.5},
                                                        "flag": True, "bad": None}}})
    result = prediction_reader(pred, Limits()).regress_result(Problem("Trait_A"))
    assert result.genes == ["GENE7", "GENE1"]
    assert result.prediction_metrics == {"accuracy": 70.0, "fold.a": 1.5}
    assert result.notes == ["blank gene names ignored"]
    write_json(path, {"significant_genes": {"Variable": ["A"], "Coefficient": [1, 2]}})
    with pytest.raises(ItemError, match="'significant_genes.Coefficient' has 2 values for 1"):
        prediction_reader(pred, Limits()).regress_result(Problem("Trait_A"))


def test_tables_are_features_by_samples(ref_root):
    reader = reference_reader(ref_root)
    gene = reader.table("Trait_A", "GSE100", "gene")
    linked = reader.table("Trait_A", "GSE100", "linked")
    assert gene.samples == linked.samples and len(gene.features) == 30
    assert linked.features[:3] == ["TRAIT_A", "AGE", "GENDER"]
    assert linked.values.shape == (33, 12) and gene.nbytes > 0
