"""JSON Schema export (utils.schemas.export, python -m utils.schemas) and the committed
schemas/ folder, checked against the demo's files with the jsonschema package."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from genotex.evaluation.evaluator import EvaluationSettings, Evaluator
from genotex.evaluation.report import json_ready
from tests.conftest import REPO_ROOT
from utils.io import dumps_json
from utils.problems import load_task_info
from utils.schemas import FORMATS
from utils.schemas.__main__ import build_parser, main
from utils.schemas.export import json_schema, schema_file_name

SCHEMAS = REPO_ROOT / "schemas"


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / schema_file_name(name)).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def assert_valid(name: str, paths) -> None:
    check = validator(name)
    assert paths
    for path in paths:
        errors = list(check.iter_errors(json.loads(Path(path).read_text(encoding="utf-8"))))
        assert not errors, f"{path}: {errors[0].message} at {list(errors[0].absolute_path)}"


@pytest.mark.parametrize("name", list(FORMATS))
def test_committed_schemas_are_up_to_date(name):
    # regenerate with: python -m utils.schemas
    committed = (SCHEMAS / schema_file_name(name)).read_text(encoding="utf-8")
    assert committed == dumps_json(json_schema(name), indent=2), name


def test_command_writes_every_schema(tmp_path, capsys):
    assert main(["--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        schema_file_name(name) for name in FORMATS)
    assert "wrote" in capsys.readouterr().out


def test_command_help_names_every_format():
    description = build_parser().description
    assert all(name in description for name in FORMATS), description


def test_demo_files_follow_the_schemas():
    output = REPO_ROOT / "output"
    baseline = REPO_ROOT / "examples" / "baseline_prediction"
    assert_valid("cohort_info", sorted(output.glob("preprocess/*/cohort_info.json"))
                 + sorted(baseline.glob("preprocess/*/cohort_info.json")))
    assert_valid("result", sorted(output.glob("regress/**/*.json"))
                 + sorted(baseline.glob("regress/*/*.json")))
    assert_valid("task_info", [REPO_ROOT / "metadata" / "task_info.json"])


def test_evaluation_report_of_the_baseline_follows_the_schema():
    task_info = load_task_info(REPO_ROOT / "metadata" / "task_info.json")
    report = Evaluator(REPO_ROOT / "examples" / "baseline_prediction", REPO_ROOT / "output",
                       task_info, EvaluationSettings()).run()
    errors = list(validator("report").iter_errors(json_ready(report)))
    assert not errors, errors[0].message
    assert report["analysis"]["summary"]["overall"]["problems"] > 0


def test_schemas_reject_what_the_models_reject():
    path = next((REPO_ROOT / "output" / "regress").glob("*/*.json"))
    document = json.loads(path.read_text(encoding="utf-8"))
    document["significant_genes"]["Variable"][0] = 7
    assert list(validator("result").iter_errors(document))
    record = {"GSE1": {"is_usable": "yes"}}
    assert list(validator("cohort_info").iter_errors(record))
