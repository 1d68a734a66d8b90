"""cohort_info.json (utils.schemas.cohort_info): strict records, lenient reading."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO_ROOT
from utils.io import dumps_json
from utils.schemas.base import FormatError
from utils.schemas.cohort_info import (RECORD_KEYS, CohortRecord, CohortRecordReading,
                                       cohort_info_document, parse_cohort_info)

SPEC_KEYS = ["is_usable", "is_gene_available", "is_trait_available", "is_available",
             "is_biased", "has_age", "has_gender", "sample_size", "note"]


def final(**changes):
    record = {"is_usable": True, "is_gene_available": True, "is_trait_available": True,
              "is_available": True, "is_biased": False, "has_age": True, "has_gender": False,
              "sample_size": 40, "note": ""}
    return {**record, **changes}


def test_record_keys_in_spec_order():
    assert list(RECORD_KEYS) == SPEC_KEYS


def test_document_sorts_cohorts_and_keeps_key_order():
    early = {"note": "no trait", "is_usable": False, "is_gene_available": True,
             "is_trait_available": False, "is_available": False, "is_biased": None,
             "has_age": None, "has_gender": None, "sample_size": None}
    document = cohort_info_document({"GSE9": final(), "GSE10": early})
    assert list(document) == ["GSE10", "GSE9"]
    assert list(document["GSE10"]) == SPEC_KEYS


@pytest.mark.parametrize("changes, expected", [
    ({"is_available": False}, "'is_available' must be is_gene_available and is_trait_available"),
    ({"is_biased": True}, "'is_usable' must be is_available and not is_biased"),
    ({"sample_size": -1}, "'sample_size' must be a non-negative integer or null, found -1"),
    ({"note": None}, "'note' must be a string, found None"),
    ({"is_usable": 1}, "'is_usable' must be true or false, found 1"),
    ({"source": "GEO"}, "unexpected key 'source'"),
])
def test_written_records_are_checked(changes, expected):
    with pytest.raises(FormatError) as info:
        cohort_info_document({"GSE1": final(**changes)})
    assert info.value.problem == f"record of 'GSE1': {expected}"


def test_committed_files_round_trip_to_the_same_bytes():
    paths = sorted((REPO_ROOT / "output" / "preprocess").glob("*/cohort_info.json"))
    assert paths
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert dumps_json(cohort_info_document(json.loads(text))) == text, path


def test_reading_sorts_valid_records_from_problems():
    reading = parse_cohort_info({
        "ok": {"is_usable": True, "sample_size": 3, "unknown": [1]},
        "usable_word": {"is_usable": "yes"},
        "flag": {"is_usable": False, "has_age": "x"},
        "nan_size": {"is_usable": True, "sample_size": float("nan")},
        "float_size": {"is_usable": True, "sample_size": 10.0},
        "list": [1, 2]})
    assert list(reading.records) == ["ok"]
    assert reading.records["ok"].has_age is None and reading.records["ok"].sample_size == 3
    assert reading.problems == {
        "usable_word": "'is_usable' must be true or false, found 'yes'",
        "flag": "'has_age' must be true, false or null, found 'x'",
        "nan_size": "'sample_size' must be a non-negative integer or null, found nan",
        "float_size": "'sample_size' must be a non-negative integer or null, found 10.0",
        "list": "expected a JSON object, found list"}
    again = parse_cohort_info(reading.records)  # parsed records pass through
    assert again.records["ok"] is reading.records["ok"]


def test_reading_refuses_a_non_object_file():
    with pytest.raises(FormatError, match=r"expected a JSON object \{cohort: record\}, found list"):
        parse_cohort_info([])


def test_strict_record_is_a_valid_reading():
    record = CohortRecord(**final())
    assert CohortRecordReading.model_validate(record.model_dump()).sample_size == 40
