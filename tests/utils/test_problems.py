"""Trait normalization and problem enumeration (SPEC 2, 5.1)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import shared_file
from utils.errors import InputFileError
from utils.problems import (ONE_STEP, TWO_STEP, UNCONDITIONAL, Problem, TraitNameError,
                            enumerate_problems, load_task_info, normalize_trait, parse_problem,
                            result_file_name)
from utils.utils import get_question_pairs


@pytest.mark.parametrize("raw, expected", [
    ("Crohn's Disease", "Crohns_Disease"),
    ("Sjögren's  Syndrome", "Sjögrens_Syndrome"),
    ("Lupus (Systemic Lupus Erythematosus)", "Lupus_(Systemic_Lupus_Erythematosus)"),
    ("COVID-19", "COVID-19"),
    ("  Parkinson\u2019s disease ", "Parkinsons_disease"),
])
def test_normalize_trait(raw, expected):
    assert normalize_trait(raw) == expected


def test_problem_order_and_categories():
    task = {"B": {"related_genes": [], "conditions": ["Age", "A"]},
            "A": {"related_genes": [], "conditions": ["Gender"]}}
    problems = enumerate_problems(task)
    assert problems == [Problem("A"), Problem("A", "Gender"), Problem("B"),
                        Problem("B", "Age"), Problem("B", "A")]
    assert [p.category for p in problems] == [UNCONDITIONAL, ONE_STEP, UNCONDITIONAL,
                                              ONE_STEP, TWO_STEP]
    assert problems[0].result_name == "significant_genes_condition_None.json"
    assert result_file_name("Age") == "significant_genes_condition_Age.json"
    assert parse_problem("B|A") == Problem("B", "A")
    assert parse_problem("B|None") == parse_problem("B") == Problem("B")


def test_load_task_info_rejects_wrong_shapes(tmp_path):
    path = tmp_path / "task_info.json"
    path.write_text(json.dumps({"T": {"related_genes": "TP53", "conditions": []}}))
    with pytest.raises(InputFileError, match="task_info.json.*related_genes"):
        load_task_info(path)
    path.write_text(json.dumps(["T"]))
    with pytest.raises(InputFileError, match="must be a JSON object"):
        load_task_info(path)


def test_real_problem_set_has_1384_problems():
    path = shared_file("opentargets/genomas_task_info.json")
    pairs = get_question_pairs(path)
    # 132 unconditional problems + 1,252 conditions (SPEC 1)
    assert len(pairs) == 1384
    assert sum(1 for _, c in pairs if c is None) == 132
    assert pairs[0] == ("Acute_Myeloid_Leukemia", None)


@pytest.mark.parametrize("raw", ["../../x", "a/b", "a\\b", "..", ".", "", "   ", "x\x00y",
                                 "GSE1/../..", "/etc"])
def test_a_trait_name_that_cannot_be_a_folder_is_refused(raw):
    """Refused rather than cleaned: '../../x' stripped to 'x' would name another trait."""
    with pytest.raises(TraitNameError, match="cannot name a folder"):
        normalize_trait(raw)
    assert issubclass(TraitNameError, ValueError)
