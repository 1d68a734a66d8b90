"""Ages and measured numbers in cells (:mod:`tools.preprocess.clinical_rules.quantities`)."""

import math

import pytest

from tools.preprocess.clinical_rules import parse_age, parse_number
from tools.preprocess.clinical_rules.quantities import age_key_class, is_sex_key, parse_sex


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
    # an age and a sex in one cell (under a key that is no age key)
    ("subject: 60F", 60.0), ("donor: F/49", 49.0), ("patient: M, 71", 71.0),
    ("time: M6", None), ("visit: M0", None),
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
    ("expired_age (years)", 2), ("age at death", 2), ("age at surgery (yrs)", 2),
    ("age at diagnosis", 1),
    # not the sample's age: never the age row (curators' convention)
    ("age at onset", 0), ("age of psoriasis onset", 0), ("gestational age", 0),
    ("age at menarche", 0), ("stage", 0), ("tissue", 0),
])
def test_age_key_class(key, expected):
    assert age_key_class(key) == expected


def test_sex_keys():
    assert is_sex_key("Sex") and is_sex_key("donor gender") and not is_sex_key("sexual_activity")
    assert is_sex_key("female") and is_sex_key("Male") and not is_sex_key("females treated")


@pytest.mark.parametrize("cell, expected", [
    ("Sex: F", 0.0), ("gender: Male", 1.0), ("sex: unknown", None), ("sex: M/F", None),
    ("gender: W", 0.0), ("Geschlecht: weiblich", 0.0),          # German "W" / weiblich
    ("subject: 64M", 1.0), ("donor: F/49", 0.0),                  # age and sex in one cell
    ("female: 1", 0.0), ("female: 0", 1.0), ("male: yes", 1.0),  # indicator keys
    (None, None),
])
def test_parse_sex(cell, expected):
    assert parse_sex(cell) == expected
