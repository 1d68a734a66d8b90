"""Converting the cells of one feature (:mod:`tools.preprocess.clinical_rules.values`)."""

import pytest

from tools.preprocess.clinical_rules import convert_sample_line, infer_clinical_values


def values(feature, cells, trait="Rheumatoid_Arthritis", background=""):
    return infer_clinical_values(feature, list(cells), trait, background)


def test_one_result_per_cell_in_order():
    cells = ["group: RA", None, "group: healthy control", "group: unknown", "group: RA"]
    assert values("trait", cells) == [1.0, None, 0.0, None, 1.0]


def test_two_kinds_of_value_complement():
    # "gastric mucosa tissue" carries no evidence; beside a specific case it is the control
    cells = ["tissue: primary gastric cancer", "tissue: gastric mucosa tissue"]
    assert values("trait", cells, "Stomach_Cancer") == [1.0, 0.0]
    # beside controls only, the rest is the marked group (a treatment used as the trait)
    cells = ["A375 cells 24h Control rep1", "A375 cells 24h Vemurafenib rep1"]
    assert convert_sample_line("!Sample_title", cells, "Melanoma", "melanoma") == [0.0, 1.0]


def test_continuous_trait_values():
    cells = ["resting heart rate: 77 bpm", "resting heart rate: NA",
             "resting heart rate: 64 bpm", "resting heart rate (bpm): 74.5"]
    assert values("trait", cells, "Heart_rate") == [77.0, None, 64.0, 74.5]
    cells = ["25(OH)D (ng/ml): 31.2", "25(OH)D (ng/ml): 12", "25(OH)D (ng/ml): <4"]
    assert values("trait", cells, "Vitamin_D_Levels") == [31.2, 12.0, None]


def test_a_measure_of_a_binary_trait_is_cut_at_the_guideline_threshold():
    """AASM: AHI >= 5 events/h is sleep apnoea; other numbers name nothing (0)."""
    cells = ["apnea hypopnea index: 3.2", "apnea hypopnea index: 5", "AHI: 31.5",
             "apnea hypopnea index: NA"]
    assert values("trait", cells, "Obstructive_sleep_apnea") == [0.0, 1.0, 1.0, None]
    cells = ["systolic blood pressure: 118", "systolic blood pressure: 152"]
    assert values("trait", cells, "Hypertension") == [0.0, 1.0]
    assert values("trait", ["age: 35", "age: 52"], "Hypertension") == [0.0, 0.0]


def test_yes_no_column_keyed_by_the_trait_is_binary():
    assert values("trait", ["diabetes: 1", "diabetes: 0", "diabetes: 1"],
                  "Type_2_Diabetes") == [1.0, 0.0, 1.0]


@pytest.mark.parametrize("cell, expected", [
    ("gender: F", 0.0), ("Gender:M", 1.0), ("Sex: male", 1.0), ("sex: Female", 0.0),
    ("female", 0.0), ("M", 1.0), ("woman", 0.0), ("man", 1.0), ("sex: XY", 1.0),
    ("Gender: Female (pregnant)", 0.0), ("sex: M/F", None), ("sex: unknown", None),
    ("sex: pooled", None), (None, None),
])
def test_gender(cell, expected):
    assert values("gender", [cell]) == [expected]


def test_mixed_key_rows_convert_only_their_key():
    assert values("age", ["age: 56", "Sex: Male", "bmi: 23", "age: 20"]) == [
        56.0, None, None, 20.0]
    assert values("gender", ["Sex: Male", "diagnosis2: ASTHMA", "Sex: Female"]) == [
        1.0, None, 0.0]


def test_unknown_feature_raises():
    with pytest.raises(ValueError, match="feature must be"):
        values("bmi", ["bmi: 23"])
