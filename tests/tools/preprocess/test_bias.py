"""Bias rules for the trait and the Age / Gender covariates (SPEC 4.7)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tools.preprocess.bias import (judge_and_remove_biased_features, judge_binary_variable_biased,
                                   judge_continuous_variable_biased)


def binary(n_minority, n_majority, col="T"):
    return pd.DataFrame({col: [1.0] * n_minority + [0.0] * n_majority})


@pytest.mark.parametrize("n_minority, n_majority, biased", [
    (4, 46, True),    # 8 % and 4 samples: both below -> biased
    (5, 95, False),   # 5 % but exactly 5 samples: count not below min_num
    (4, 36, False),   # exactly 10 % (4 of 40): share not below min_proportion
    (3, 27, False),   # exactly 10 % with 3 samples
    (3, 28, True),    # 9.7 % and 3 samples
    (10, 10, False),
    (0, 20, True),    # one class only
])
def test_binary_rule_boundaries(n_minority, n_majority, biased):
    assert judge_binary_variable_biased(binary(n_minority, n_majority), "T") is biased


def test_binary_rule_parameters_and_missing_values():
    table = binary(4, 46)
    assert judge_binary_variable_biased(table, "T", min_proportion=0.05) is False
    assert judge_binary_variable_biased(table, "T", min_num=4) is False
    # Missing values are not a class and not counted in the share: 4 of 40 = 10 %.
    with_nan = pd.DataFrame({"T": [1.0] * 4 + [0.0] * 36 + [np.nan] * 10})
    assert judge_binary_variable_biased(with_nan, "T") is False
    assert judge_binary_variable_biased(pd.DataFrame({"T": [np.nan] * 3}), "T") is True


@pytest.mark.parametrize("values, biased", [
    ([40.0, 40.0, 40.0], True), ([40.0, 41.0, 40.0], False), ([], True),
    ([np.nan, 5.0, np.nan], True), ([np.nan, np.nan], True),
])
def test_continuous_rule(values, biased):
    table = pd.DataFrame({"Age": pd.Series(values, dtype="float64")})
    assert judge_continuous_variable_biased(table, "Age") is biased


def linked(trait, age, gender):
    return pd.DataFrame({"Asthma": trait, "Age": age, "Gender": gender,
                         "TP53": np.arange(len(trait), dtype=float)})


def test_unbiased_trait_keeps_covariates():
    table = linked([0, 1] * 10, list(range(20)), [0, 1] * 10)
    biased, result = judge_and_remove_biased_features(table, "Asthma")
    assert biased is False
    pd.testing.assert_frame_equal(result, table)


def test_biased_covariates_are_dropped_cohort_stays_usable():
    table = linked([0, 1] * 25, [50.0] * 50, [1] * 2 + [0] * 48)
    biased, result = judge_and_remove_biased_features(table, "Asthma")
    assert biased is False
    assert list(result.columns) == ["Asthma", "TP53"]
    assert list(table.columns) == ["Asthma", "Age", "Gender", "TP53"]  # input untouched


def test_biased_binary_trait():
    table = linked([1] * 3 + [0] * 47, list(range(50)), [0, 1] * 25)
    biased, result = judge_and_remove_biased_features(table, "Asthma")
    assert biased is True
    assert list(result.columns) == ["Asthma", "Age", "Gender", "TP53"]


def test_trait_with_one_value_and_continuous_trait():
    assert judge_and_remove_biased_features(linked([1] * 6, [1] * 6, [0, 1] * 3),
                                            "Asthma")[0] is True
    continuous = linked([0.5, 1.5, 2.5, 3.5], [1, 2, 3, 4], [0, 1, 0, 1])
    assert judge_and_remove_biased_features(continuous, "Asthma")[0] is False
    constant = linked([2.5] * 4, [1, 2, 3, 4], [0, 1, 0, 1])
    assert judge_and_remove_biased_features(constant, "Asthma")[0] is True


def test_gender_with_one_sex_is_dropped_age_with_two_values_is_kept():
    table = linked([0, 1] * 10, [30.0, 60.0] * 10, [0] * 20)
    _, result = judge_and_remove_biased_features(table, "Asthma")
    assert list(result.columns) == ["Asthma", "Age", "TP53"]


def test_empty_table_trait_is_biased():
    table = linked([], [], [])
    biased, _ = judge_and_remove_biased_features(table, "Asthma")
    assert biased is True


def test_a_trait_is_binary_when_coded_zero_one():
    # the same 3-of-50 split: a 0/1 trait is judged by the class rule (biased), a
    # measurement taking two other values by the continuous rule (not constant)
    assert judge_and_remove_biased_features(
        linked([1] * 3 + [0] * 47, list(range(50)), [0, 1] * 25), "Asthma")[0] is True
    assert judge_and_remove_biased_features(
        linked([2.5] * 3 + [7.5] * 47, list(range(50)), [0, 1] * 25), "Asthma")[0] is False
