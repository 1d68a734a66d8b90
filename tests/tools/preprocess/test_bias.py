"""Bias rules for the trait and the Age / Gender covariates (SPEC 4.7)."""

from __future__ import annotations

import logging

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


# --------------------------------------------------------------------------- printed evidence
# The judges print what the original printed (SPEC Appendix A); the format is the one of
# docs/preprocessing_clinical.md, checked here line for line.

def test_binary_judge_prints_class_counts_shares_and_verdict(capsys):
    assert judge_binary_variable_biased(binary(4, 46), "T") is True
    assert capsys.readouterr().out == (
        "Bias check of 'T' (binary): 50 values, 0 missing\n"
        "  class 0: 46 (92.00%)\n"
        "  class 1: 4 (8.00%)\n"
        "  least common class 1: 4 (8.00%)\n"
        "Verdict for 'T': biased (least common class under 10.00% and under 5 samples)\n")


def test_binary_judge_prints_missing_values_and_a_single_class(capsys):
    table = pd.DataFrame({"Gender": [1.0] * 4 + [np.nan] * 2})
    assert judge_binary_variable_biased(table, "Gender") is True
    assert capsys.readouterr().out == (
        "Bias check of 'Gender' (binary): 4 values, 2 missing\n"
        "  class 1: 4 (100.00%)\n"
        "Verdict for 'Gender': biased (1 class present, 2 needed)\n")
    # 4 of 40 is exactly 10 %: not biased, and the reason says which bound holds.
    assert judge_binary_variable_biased(binary(4, 36), "T", min_num=3) is False
    assert capsys.readouterr().out.splitlines()[-1] == (
        "Verdict for 'T': not biased (least common class at least 10.00% or at least 3 samples)")


def test_continuous_judge_prints_quartiles_and_verdict(capsys):
    # Quartiles by linear interpolation of 20, 30, 40, 50: 25 % at position 0.75
    # between 20 and 30 -> 27.5; median 35; 75 % at position 2.25 -> 42.5.
    table = pd.DataFrame({"Age": [20.0, 50.0, np.nan, 40.0, 30.0]})
    assert judge_continuous_variable_biased(table, "Age") is False
    assert capsys.readouterr().out == (
        "Bias check of 'Age' (continuous): 4 values, 1 missing\n"
        "  min: 20\n"
        "  lower quartile (25%): 27.5\n"
        "  median (50%): 35\n"
        "  upper quartile (75%): 42.5\n"
        "  max: 50\n"
        "Verdict for 'Age': not biased (4 distinct values)\n")
    assert judge_continuous_variable_biased(pd.DataFrame({"Age": [61.25] * 3}), "Age") is True
    assert capsys.readouterr().out.splitlines()[-1] == \
        "Verdict for 'Age': biased (constant: 1 distinct value)"
    assert judge_continuous_variable_biased(pd.DataFrame({"Age": [np.nan]}), "Age") is True
    assert capsys.readouterr().out == ("Bias check of 'Age' (continuous): 0 values, 1 missing\n"
                                       "Verdict for 'Age': biased (no values)\n")


def test_judge_and_remove_prints_every_judgement_and_a_summary(capsys):
    table = linked([0, 1] * 25, [50.0] * 50, [1] * 2 + [0] * 48)
    judge_and_remove_biased_features(table, "Asthma")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Trait 'Asthma' has 2 distinct values: judged as binary"
    assert [line for line in out if line.startswith("Verdict for")] == [
        "Verdict for 'Asthma': not biased (least common class at least 10.00% or at least "
        "5 samples)",
        "Verdict for 'Age': biased (constant: 1 distinct value)",
        "Verdict for 'Gender': biased (least common class under 10.00% and under 5 samples)"]
    assert out[-1] == "Summary: trait 'Asthma' not biased; biased covariates removed: Age, Gender"
    judge_and_remove_biased_features(linked([0.5, 1.5, 2.5], [1, 2, 3], [0, 1, 0]), "Asthma")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Trait 'Asthma' has 3 distinct values: judged as continuous"
    assert out[-1] == "Summary: trait 'Asthma' not biased; biased covariates removed: none"


@pytest.mark.parametrize("n_minority, n_majority", [(4, 46), (5, 95), (0, 20), (10, 10)])
def test_printed_verdict_is_the_returned_one(capsys, n_minority, n_majority):
    biased = judge_binary_variable_biased(binary(n_minority, n_majority), "T")
    verdict = capsys.readouterr().out.splitlines()[-1]
    assert verdict.startswith(f"Verdict for 'T': {'biased' if biased else 'not biased'} (")


def test_verbose_false_only_logs(capsys, caplog):
    with caplog.at_level(logging.INFO, logger="tools.preprocess.bias"):
        judge_and_remove_biased_features(linked([0, 1] * 10, list(range(20)), [0, 1] * 10),
                                         "Asthma", verbose=False)
    assert capsys.readouterr().out == ""
    assert "Verdict for 'Asthma': not biased" in caplog.text
    assert "Summary: trait 'Asthma' not biased" in caplog.text


def test_many_valued_column_lists_ten_classes(capsys):
    judge_binary_variable_biased(pd.DataFrame({"T": np.arange(25.0)}), "T")
    out = capsys.readouterr().out.splitlines()
    assert sum(line.startswith("  class ") for line in out) == 10
    assert "  ... 15 more classes" in out


def test_a_trait_with_two_values_is_judged_by_the_class_rule_whatever_its_coding(capsys):
    # SPEC 4.7: "exactly two distinct values"; the same 3-of-50 split is biased as 0/1
    # and as 2.5/7.5 (the coding is checked by the analysis, not by the bias rule)
    assert judge_and_remove_biased_features(
        linked([1] * 3 + [0] * 47, list(range(50)), [0, 1] * 25), "Asthma")[0] is True
    assert judge_and_remove_biased_features(
        linked([2.5] * 3 + [7.5] * 47, list(range(50)), [0, 1] * 25), "Asthma")[0] is True


def test_a_two_valued_trait_not_coded_0_1_is_judged_as_binary(capsys):
    """The bias rule reads "binary" as two distinct values (utils.columns.is_two_valued),
    not as the 0/1 coding the analysis uses: 3 of 50 samples at 2.0, the rest at 1.0, is a
    minority of 6 % and 3 samples, biased; judged as continuous it would not be."""
    table = linked([2.0] * 3 + [1.0] * 47, list(range(50)), [0, 1] * 25)
    biased, _ = judge_and_remove_biased_features(table, "Asthma")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Trait 'Asthma' has 2 distinct values: judged as binary"
    assert biased is True
