"""The evaluation report (utils.schemas.report)."""

from __future__ import annotations

import json

import pytest

from genotex.evaluation.evaluator import EvaluationSettings, Evaluator
from genotex.evaluation.report import json_ready
from genotex.evaluation.statuses import NO_REFERENCE, REFERENCE_ERROR, STATUSES
from genotex.evaluation.summary import OVERALL
from genotex.testing.eval_trees import TASK_INFO, write_tree
from utils.metrics import GENE_METRICS
from utils.problems import CATEGORIES
from utils.schemas.base import FormatError
from utils.schemas.report import CategoryOrOverall, CategorySummary, Status, report_document


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tree = write_tree(tmp_path_factory.mktemp("tree") / "output")
    return json_ready(Evaluator(tree, tree, TASK_INFO, EvaluationSettings()).run())


def test_report_round_trips_in_the_same_order(report):
    document = report_document(report)
    assert json.dumps(document) == json.dumps(report)


def test_report_needs_its_parts(report):
    broken = json.loads(json.dumps(report))
    del broken["analysis"]["problems"][0]["auroc"]
    with pytest.raises(FormatError, match="missing key 'analysis.problems'\\[0\\].auroc"):
        report_document(broken)
    broken = json.loads(json.dumps(report))
    broken["selection"]["filtering"]["cohorts"][0]["status"] = "fine"
    with pytest.raises(FormatError, match="must be one of 'ok'"):
        report_document(broken)


def test_names_agree_with_the_evaluator():
    assert set(Status.__args__) == {*STATUSES, REFERENCE_ERROR, NO_REFERENCE}
    assert CategoryOrOverall.__args__ == (*CATEGORIES, OVERALL)
    assert [name for name in CategorySummary.model_fields][:6] == list(GENE_METRICS)
