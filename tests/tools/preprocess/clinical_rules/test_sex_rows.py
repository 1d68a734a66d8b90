"""The sex row's conventions (:func:`tools.preprocess.clinical_rules.row_scores.choose_gender_row`).

Each convention on a small dictionary written here, shaped like the
development split's series it was counted on (docs/preprocessing_clinical.md,
"The curators' conventions"): which row wins when the samples list their
characteristics in shifting orders, and when a row naming one sex only is the
sex row.
"""

import pytest

from tools.preprocess.clinical_rules import decide_clinical_rows, infer_clinical_rows
from tools.preprocess.clinical_rules.decisions import not_trait_rows
from tools.preprocess.clinical_rules.quantities import text_states_sex
from tools.preprocess.clinical_rules.row_scores import (VALUE_CAP, choose_age_row,
                                                        choose_gender_row, gender_row_score,
                                                        keeps_one_sex_row, one_sex_rows)

AGES = ["age: 48", "age: 54", "age: 61"]


def gender_row(characteristics, trait="Schizophrenia", background=""):
    return infer_clinical_rows(characteristics, trait, background)["gender_row"]


# -- shifting rows: the first sample's sex, else the earliest of the most ----------

def test_without_the_first_samples_sex_the_earliest_row_holding_the_sexes_wins():
    """The first sample records no sex (None everywhere past row 0); rows 2 and 4
    both hold both sexes: the earlier wins, though row 4 is mostly sexes."""
    chars = {0: ["tissue type: melanoma", "tissue type: nevus"],
             1: [None, "body-site: leg", "body-site: chest", "age at resection: 57y"],
             2: [None, "location: cutaneous", "organ: skin", "location: subcutaneous",
                 "organ: lymph node", "gender: male", "gender: female"],
             3: [None, "age at resection: 60y", "age at resection: 70y", "race: caucasian"],
             4: [None, "gender: female", "gender: male", "race: caucasian",
                 "clinical stage: 4"]}
    assert gender_row(chars) == 2
    # with less than half the most sexes (1 of 4 spellings) the earlier row loses
    chars[2] = [None, "location: cutaneous", "organ: skin", "location: subcutaneous",
                "organ: lymph node", "gender: male"]
    chars[4] = [None, "gender: female", "gender: male", "gender: f", "gender: m",
                "race: caucasian"]
    assert gender_row(chars) == 4


def test_the_first_sample_means_the_first_cell_not_the_first_present_one():
    values = [None, "gender: female", "gender: male", "race: caucasian"]
    assert gender_row_score(values)[1] is False
    assert gender_row_score(values[1:])[1] is True


# -- rows naming one sex ------------------------------------------------------

def test_a_constant_sex_row_is_kept_when_the_series_has_no_age_row():
    chars = {0: ["gender: male"], 1: ["protocol: resting muscle"],
             2: ["heart rate (bpm): 173", "heart rate (bpm): 155"]}
    assert gender_row(chars, "Heart_rate") == 0


def test_beside_an_age_row_an_unexplained_constant_sex_row_is_left_out():
    chars = {0: ["tissue: leukocytes"], 1: ["genotype: bipolar patient",
                                            "genotype: control subject"],
             2: AGES, 3: ["gender: male"]}
    assert gender_row(chars, "Bipolar_disorder", "Leukocyte expression in bipolar "
                      "disorder patients and matched controls.") is None


def test_beside_an_age_row_a_constant_sex_row_the_series_text_explains_is_kept():
    chars = {0: ["tissue: whole blood"], 1: ["gender: Male"], 2: AGES,
             3: ["treatment group: high lycopene", "treatment group: low lycopene"]}
    assert gender_row(chars, "Metabolic_Rate",
                      "A randomized trial in obese Japanese men.") == 1
    assert gender_row(chars, "Metabolic_Rate", "A randomized trial.") is None


def test_a_trait_of_one_sex_keeps_its_constant_sex_row_beside_an_age_row():
    """The demo's convention (Prostate_Cancer: every sample male, the sex kept so
    the bias step documents why it goes) and the dev split's (PCOS)."""
    chars = {0: ["tissue: prostate"], 1: ["Sex: male"], 2: AGES,
             3: ["group: prostate adenocarcinoma", "group: control"]}
    assert gender_row(chars, "Prostate_Cancer") == 1
    chars[3] = ["condition: polycystic ovary syndrome (PCOS)", "condition: control"]
    chars[1] = ["gender: Female"]
    assert gender_row(chars, "Polycystic_Ovary_Syndrome") == 1
    assert gender_row(chars, "Bone_Density") is None


def test_a_row_mixing_keys_that_names_one_sex_is_one_groups_sex_not_the_series():
    """Two cell lines; the donor's sex of one is recorded where the other has its
    cell type: not the sex row (no age row, so a constant row would be kept)."""
    chars = {0: ["cell line: Caco-2", "cell line: THP-1"],
             1: ["Sex: male", "cell type: macrophage"],
             2: ["treatment: medium", "treatment: LPS"]}
    assert gender_row(chars, "Acute_Myeloid_Leukemia") is None
    # for a trait of one sex the single sex is the design: kept
    chars[1] = ["gender: female", "gender history: female to male transsexual"]
    assert gender_row(chars, "Polycystic_Ovary_Syndrome") == 1
    # both sexes in the row: an ordinary sex row
    chars[1] = ["Sex: male", "cell type: macrophage", "Sex: female"]
    assert gender_row(chars, "Acute_Myeloid_Leukemia") == 1


def test_a_row_at_the_display_cap_is_not_known_to_name_one_sex():
    scores = ["fi score: 0.%02d" % i for i in range(VALUE_CAP - 1)]
    chars = {0: ["sex (female/male): Female"] + scores, 1: AGES}
    assert len(chars[0]) == VALUE_CAP
    assert one_sex_rows(chars, [0]) == []
    assert gender_row(chars, "Heart_rate") == 0
    chars[0] = chars[0][:10]                 # below the cap: one group's sex
    assert one_sex_rows(chars, [0]) == [0]
    assert gender_row(chars, "Heart_rate") is None


def test_sexes_shared_out_between_mixed_rows_are_not_one_sex():
    chars = {0: ["bmi: 21.5", "sex: F", "sex: M", "bmi: 30.2"],
             1: ["sex: F", "c-peptide: 0.54", "c-peptide: 0.69"]}
    assert one_sex_rows(chars, [0, 1]) == []
    assert one_sex_rows({0: ["Sex: M"], 1: ["sex: F", "bmi: 3"]}, [0, 1]) == [0]


def test_keeps_one_sex_row_directly():
    constant, mixed = ["gender: female"], ["gender: female", "tissue: liver"]
    assert keeps_one_sex_row(constant, None, "Asthma")
    assert not keeps_one_sex_row(constant, 3, "Asthma")
    assert keeps_one_sex_row(constant, 3, "Asthma", "32 women with asthma")
    assert keeps_one_sex_row(constant, 3, "Ovarian_Cancer")
    assert not keeps_one_sex_row(mixed, None, "Asthma")
    assert keeps_one_sex_row(mixed, 3, "Ovarian_Cancer")


@pytest.mark.parametrize("text, expected", [
    ("obese Japanese men", True), ("32 women with PTSD", True), ("sex (all male)", True),
    ("pre- and postmenopausal females", True), ("male and female mice", True),
    ("patients and controls", False), ("", False), ("German cohort; mental health", False),
])
def test_text_states_sex(text, expected):
    assert text_states_sex(text) is expected


# -- what the other decisions see ------------------------------------------------

def test_a_left_out_sex_row_is_still_no_trait_candidate():
    chars = {0: ["tissue: prefrontal cortex"], 1: ["diagnosis: schizophrenia",
                                                   "diagnosis: control"],
             2: AGES, 3: ["Sex: Male"]}
    age_row, _ = choose_age_row(chars)
    row, scores = choose_gender_row(chars, age_row, "Schizophrenia")
    assert (age_row, row) == (2, None) and 3 in scores
    assert not_trait_rows(chars, age_row, row, scores) == [2, 3]


def test_decisions_say_why_a_one_sex_row_was_left_out_or_kept():
    chars = {0: ["diagnosis: schizophrenia", "diagnosis: control"], 1: AGES,
             2: ["Sex: Male"]}
    left_out = decide_clinical_rows(chars, "Schizophrenia", "").get("gender")
    assert left_out.row is None and left_out.confidence == 0.6
    assert "beside an age row" in left_out.evidence[0]
    assert left_out.alternatives == ((2, None),)
    mixed = decide_clinical_rows({0: ["Sex: male", "cell type: macrophage"]},
                                 "Acute_Myeloid_Leukemia", "").get("gender")
    assert mixed.row is None and "one group of samples" in mixed.evidence[0]
    kept = decide_clinical_rows(chars, "Schizophrenia", "Brains of 20 men").get("gender")
    assert kept.row == 2 and kept.evidence == ("one sex for every sample",)
    assert kept.low_confidence


def test_one_sex_in_two_spellings_under_one_key_is_a_constant_row():
    chars = {0: ["Sex: M", "Sex: male"], 1: ["group: asthma", "group: control"]}
    assert one_sex_rows(chars, [0]) == [0]
    assert gender_row(chars, "Asthma") == 0                    # no age row: kept
    chars[2] = AGES
    assert gender_row(chars, "Asthma") is None                 # beside an age row: left out


def test_the_convention_counts_say_where_each_constant_sex_row_stood():
    from tools.preprocess.clinical_rules.devset import convention_counts
    series = [({0: ["gender: male"], 1: ["group: asthma", "group: control"]}, 0, ""),
              ({0: ["Sex: Male"], 1: AGES}, None, ""),
              ({0: ["gender: female"], 1: AGES}, 0, "Forty women with asthma."),
              ({0: ["Sex: male", "cell type: macrophage"]}, None, "")]
    records = [{"trait": "Asthma", "background": text, "trait_row": None, "age_row": None,
                "gender_row": gold, "characteristics": {str(k): v for k, v in chars.items()}}
               for chars, gold, text in series]
    counts = convention_counts(records)
    assert counts["constant sex row (no age row): chosen"] == 1
    assert counts["constant sex row (beside an age row, nothing names the sex): not chosen"] == 1
    assert counts["constant sex row (beside an age row, the trait or the text names the "
                  "sex): chosen"] == 1
    assert counts["row mixing keys naming one sex, no other sex row: not chosen"] == 1
