"""Result documents (utils.schemas.result): what regress.py writes, what readers accept."""

from __future__ import annotations

import copy
import json

import pytest

from tests.conftest import REPO_ROOT
from utils.io import dumps_json
from utils.schemas.base import FormatError
from utils.schemas.result import (parse_result, result_document, stored_provenance,
                                  write_result)

LASSO = {"significant_genes": {"Variable": ["TP53", "EGFR"], "Coefficient": [0.5, -0.25],
                               "Absolute Coefficient": [0.5, 0.25]},
         "cv_performance": {"prediction": {"accuracy": 80.0}, "selection": {"f1": 10.0}}}


def committed_results():
    paths = sorted((REPO_ROOT / "output" / "regress").glob("*/*.json"))
    assert paths
    return paths


def test_committed_results_round_trip_to_the_same_bytes():
    # the demo holds Lasso and LMM results, one-step and two-step ones
    models = set()
    for path in committed_results():
        text = path.read_text(encoding="utf-8")
        document = json.loads(text)
        models.add((document["analysis"]["model"], "regressors" in document["analysis"]))
        assert dumps_json(result_document(document)) == text, path
    assert models == {("Lasso", False), ("Lasso", True), ("LMM", False), ("LMM", True)}


def test_floats_are_rounded_and_keys_put_in_schema_order(tmp_path):
    document = {"cv_performance": {"prediction": {}, "selection": {}},
                "significant_genes": {"Absolute Coefficient": [0.1234567891],
                                      "Coefficient": [-0.1234567891], "Variable": ["A"]}}
    written = result_document(document)
    assert list(written) == ["significant_genes", "cv_performance"]
    assert written["significant_genes"] == {"Variable": ["A"], "Coefficient": [-0.123457],
                                            "Absolute Coefficient": [0.123457]}
    write_result(tmp_path / "r.json", document)
    assert json.loads((tmp_path / "r.json").read_text()) == written


@pytest.mark.parametrize("edit, expected", [
    (lambda d: d["significant_genes"].update(Coefficient=[0.5]),
     "'significant_genes.Coefficient' has 1 values for 2 genes"),
    (lambda d: d["significant_genes"].update(p_value=[0.1, 0.2]),
     "'significant_genes' must hold both 'p_value' and 'corrected_p_value', or neither"),
    (lambda d: d["significant_genes"].update(p_value=[0.1, 2.0], corrected_p_value=[0.1, 0.2]),
     "'significant_genes.p_value'[1] must be a finite number, found 2.0"),
    (lambda d: d["cv_performance"].update(other={}), "unexpected key 'cv_performance.other'"),
    (lambda d: d.pop("cv_performance"), "missing key 'cv_performance'"),
])
def test_invalid_documents_are_refused(edit, expected):
    document = copy.deepcopy(LASSO)
    edit(document)
    with pytest.raises(FormatError) as info:
        result_document(document)
    assert info.value.problem == expected


def test_non_finite_numbers_are_refused():
    document = copy.deepcopy(LASSO)
    document["cv_performance"]["prediction"]["r2"] = float("nan")
    with pytest.raises(ValueError, match="non-finite"):
        result_document(document)


def test_reading_needs_only_the_gene_list():
    reading = parse_result({"significant_genes": {"Variable": ["A", " "], "score": "x"},
                            "extra": 1})
    assert reading.significant_genes.variable == ["A", " "]
    assert reading.significant_genes.coefficient is None and reading.cv_performance is None


@pytest.mark.parametrize("genes, expected", [
    ({"Variable": "A"}, "'significant_genes.Variable' must be a list of strings, found 'A'"),
    ({"Variable": ["A"], "Coefficient": None},
     "'significant_genes.Coefficient' must be a list of finite numbers, found None"),
    ({"Variable": ["A"], "Absolute Coefficient": [True]},
     "'significant_genes.Absolute Coefficient'[0] must be a finite number, found True"),
    ({"Variable": ["A"], "corrected_p_value": [0.1, 0.2]},
     "'significant_genes.corrected_p_value' has 2 values for 1 genes"),
])
def test_reading_checks_the_lists_it_finds(genes, expected):
    with pytest.raises(FormatError) as info:
        parse_result({"significant_genes": genes})
    assert info.value.problem == expected


def test_stored_provenance():
    document = json.loads(committed_results()[0].read_text(encoding="utf-8"))
    stamp = stored_provenance(document)
    assert stamp.engine.startswith("genotex-regress/") and len(stamp.fingerprint) == 64
    assert stored_provenance(LASSO) is None
    assert stored_provenance({"analysis": {"engine": "x", "fingerprint": 3}}) is None
