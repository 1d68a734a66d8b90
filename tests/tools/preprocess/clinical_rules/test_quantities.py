"""Ages and measured numbers in cells (:mod:`tools.preprocess.clinical_rules.quantities`)."""

import math

import pytest

from tools.preprocess.clinical_rules import parse_age, parse_number
from tools.preprocess.clinical_rules.quantities import age_key_class, is_sex_key


@pytest.mark.parametrize("cell, expected", [
    # spellings the library's convert_age reads
    ("age: 49", 49.0), ("Age:49", 49.0), ("Age: 49", 49.0), ("49y", 49.0), ("49 years", 49.0),
    ("age (yrs): 49.5", 49.5), ("49 yo", 49.0), ("age: 49 years old", 49.0),
    ("Age (y): 62", 62.0), ("age: 54y", 54.0),
    ("age at sampling (years): 74", 74.0), ("expired_age (years): 82", 82.0),
    ("40-49", 44.5), ("age: 40 to 50", 45.0),
    ("age (months): 18", 1.5), ("age: 18 months", 1.5),
    # spellings parse_age adds: decimal comma, decade (midpoint), years + months, unit in ()
    ("age: 49,5", 49.5), ("age: 40s", 44.5), ("age: 3 years 6 months", 3.5),
    ("age: 49 (years)", 49.0),
    # not ages
    ("age: NA", None), ("age: unknown", None), ("age: not available", None),
    ("age: >80", None), ("age: 90+", None), ("age: 49 M", None), ("age: adult", None),
    ("age: 250", None), (None, None), ("age:", None),
])
def test_parse_age(cell, expected):
    result = parse_age(cell)
    assert (result is None and expected is None) or math.isclose(result, expected)


@pytest.mark.parametrize("cell, expected", [
    ("resting heart rate: 77 bpm", 77.0), ("bmi: 31.2", 31.2), ("25(OH)D (ng/ml): 12", 12.0),
    ("value: 3,5", 3.5), ("level: <4", None), ("time: week 12", None), ("range: 1-2", None),
    ("level: NA", None),
])
def test_parse_number(cell, expected):
    assert parse_number(cell) == expected


@pytest.mark.parametrize("key, expected", [
    ("age", 3), ("Age (yrs)", 3), ("age in years", 3), ("age at sampling", 2),
    ("age at onset", 1), ("expired_age (years)", 2), ("stage", 0), ("tissue", 0),
])
def test_age_key_class(key, expected):
    assert age_key_class(key) == expected


def test_sex_keys():
    assert is_sex_key("Sex") and is_sex_key("donor gender") and not is_sex_key("sexual_activity")
