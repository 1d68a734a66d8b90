"""task_info.json (utils.schemas.task_info)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO_ROOT
from utils.schemas.base import FormatError
from utils.schemas.task_info import parse_task_info, task_info_document, write_task_info


def test_reading_fills_absent_lists_and_drops_other_keys():
    assert parse_task_info({"T": {"related_genes": ["A"], "note": "x"}, "U": {}}) == {
        "T": {"related_genes": ["A"], "conditions": []},
        "U": {"related_genes": [], "conditions": []}}


@pytest.mark.parametrize("data, expected", [
    ([], "task info must be a JSON object {trait: {...}}, found list"),
    ({"T": []}, "trait 'T': expected a JSON object, found list"),
    ({"T": {"related_genes": "TP53"}},
     "trait 'T': 'related_genes' must be a list of strings, found 'TP53'"),
    ({"T": {"conditions": ["Age", None]}},
     "trait 'T': 'conditions'[1] must be a string, found None"),
])
def test_reading_errors_name_trait_and_key(data, expected):
    with pytest.raises(FormatError) as info:
        parse_task_info(data)
    assert info.value.problem == expected


def test_written_task_info_needs_both_lists(tmp_path):
    with pytest.raises(FormatError, match="missing key 'conditions'"):
        task_info_document({"T": {"related_genes": []}})
    path = REPO_ROOT / "metadata" / "task_info.json"
    write_task_info(tmp_path / "t.json", json.loads(path.read_text(encoding="utf-8")))
    assert (tmp_path / "t.json").read_bytes() == path.read_bytes()
