"""Selections on an evaluated tree (genotex.evaluation.tree_selection)."""

from __future__ import annotations

import json

from genotex.evaluation.statuses import MALFORMED
from genotex.evaluation.tree import Limits, prediction_reader, reference_reader
from genotex.evaluation.tree_selection import LinkedHeaders, TreeSelections
from genotex.testing.eval_trees import TASK_INFO
from tests.genotex.evaluation.helpers import copy_tree, write_json
from utils.problems import enumerate_problems
from utils.selection import select_in_tree


def test_same_choices_as_regress(ref_root):
    # the evaluator's selection on a tree is the one regress.py makes on it
    selections = TreeSelections(reference_reader(ref_root), TASK_INFO)
    cache: dict = {}
    for problem in enumerate_problems(TASK_INFO):
        ours = selections.select(problem)
        theirs = select_in_tree(problem, ref_root / "preprocess", TASK_INFO,
                                cohort_info_cache=cache, strict=True)
        assert (ours.cohorts, ours.regressors) == (theirs.cohorts, theirs.regressors), problem
        assert not selections.errors(problem)


def test_headers_are_read_once_failures_included(ref_root, tmp_path, monkeypatch):
    pred = copy_tree(ref_root, tmp_path)
    (pred / "preprocess/Trait_A/GSE200.csv").write_bytes(b"\x00\x01")
    reader = prediction_reader(pred, Limits())
    calls = []
    original = reader.linked_header
    monkeypatch.setattr(reader, "linked_header",
                        lambda *key: calls.append(key) or original(*key))
    headers = LinkedHeaders(reader)
    for _ in range(2):
        assert headers.gene_columns("Trait_A", "GSE100")[:2] == ["GENE1", "GENE2"]
        assert "GENE30" in headers.gene_set("Trait_A", "GSE100")
        try:
            headers.header("Trait_A", "GSE200")
        except Exception as exc:  # noqa: BLE001 - the cached ItemError
            assert exc.status == MALFORMED
    assert calls == [("Trait_A", "GSE100"), ("Trait_A", "GSE200")]


def test_unreadable_linked_table_is_kept_for_the_status(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    (pred / "preprocess/Trait_B/GSE400.csv").write_bytes(b"\x00")
    info = json.loads((pred / "preprocess/Trait_A/cohort_info.json").read_text())
    info["GSE300"]["is_usable"] = "no"
    write_json(pred / "preprocess/Trait_A/cohort_info.json", info)
    selections = TreeSelections(prediction_reader(pred, Limits()), TASK_INFO)
    problem = [p for p in enumerate_problems(TASK_INFO) if p.is_two_step][0]
    # pairs by sample product: (GSE100, GSE400) 108 and (Xena, GSE400) 90 fail, then
    # (GSE100, GSE500) 72 is chosen; the unreadable table is reported once
    assert selections.select(problem).cohorts == ("GSE100", "GSE500")
    errors = selections.errors(problem)
    assert [error.status for error in errors] == [MALFORMED]
    assert "GSE400.csv" in str(errors[0])
    assert "GSE300" in selections.cohort_info("Trait_A").bad
    assert [c for t, c, _ in selections.valid_records() if t == "Trait_A"] == [
        "GSE100", "GSE200", "Xena"]
