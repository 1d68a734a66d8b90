"""The trait-row ranking (:mod:`tools.preprocess.clinical_rules.ranker`, features, decisions).

Hand-written series only (the development split is used by test_devset.py).
"""

from __future__ import annotations

import json
import math

import pytest

from tools.preprocess.clinical_rules import decide_clinical_rows, infer_clinical_rows
from tools.preprocess.clinical_rules.decisions import LOW_CONFIDENCE
from tools.preprocess.clinical_rules.features import (NONE_FEATURES, ROW_FEATURES,
                                                      feature_names, key_categories,
                                                      profile_row, row_features)
from tools.preprocess.clinical_rules.ranker import (Alternative, RowModel, alternatives,
                                                   best_alternative, fit_row_model,
                                                   load_row_model, score_alternatives)

ASTHMA = {0: ["tissue: bronchial brushing"], 1: ["Sex: F", "Sex: M"],
          2: ["disease state: asthma", "disease state: healthy control"],
          3: ["age: 31", "age: 55", "age: 47"]}


def test_the_shipped_model_names_only_known_features_and_says_where_it_comes_from():
    model = load_row_model()
    assert set(model.weights) <= set(feature_names())
    assert "dev" in model.fitted_on or "cohorts" in model.fitted_on
    assert json.loads(model.to_json())["features"] == list(feature_names())
    assert set(ROW_FEATURES).isdisjoint(NONE_FEATURES)


def test_probabilities_sum_to_one_and_the_best_wins():
    options = alternatives(ASTHMA, "Asthma", "", exclude=[1, 3])
    assert [a.row for a in options] == [0, 2, None]          # rows in order, then "no row"
    scored = score_alternatives(options, load_row_model())
    assert math.isclose(sum(a.probability for a in scored), 1.0)
    assert best_alternative(scored).row == 2


def test_fitting_learns_a_preference_deterministically():
    """Two features; the curator always takes the alternative with feature ``control``."""
    def option(row, **features):
        return Alternative(row, dict(features))
    examples = []
    for i in range(20):
        opts = [option(0, strong=1.0), option(1, control=1.0), option(None, none_bias=1.0)]
        examples.append((opts, 1))
    first = fit_row_model(examples, l2=1.0)
    again = fit_row_model(examples, l2=1.0)
    assert first.weights == again.weights
    assert first.weights["control"] > first.weights["strong"]
    assert first.weights["control"] > first.weights["none_bias"]
    # a stronger penalty shrinks the weights
    shrunk = fit_row_model(examples, l2=50.0)
    assert abs(shrunk.weights["control"]) < abs(first.weights["control"])


def test_an_example_of_weight_two_counts_as_the_example_twice():
    """``example_weights`` scale each series' log-likelihood (trait-balanced fits)."""
    def option(row, **features):
        return Alternative(row, dict(features))
    takes_control = ([option(0, strong=1.0), option(1, control=1.0)], 1)
    takes_strong = ([option(0, strong=1.0), option(1, control=1.0)], 0)
    twice = fit_row_model([takes_control, takes_control, takes_strong], l2=1.0)
    weighted = fit_row_model([takes_control, takes_strong], l2=1.0, example_weights=[2.0, 1.0])
    assert weighted.weights == pytest.approx(twice.weights, abs=1e-6)
    assert weighted.weights["control"] > weighted.weights["strong"]
    # the weights decide: the other way round the other alternative wins
    reverse = fit_row_model([takes_control, takes_strong], l2=1.0, example_weights=[1.0, 2.0])
    assert reverse.weights["strong"] > reverse.weights["control"]
    with pytest.raises(ValueError, match="one non-negative weight per example"):
        fit_row_model([takes_control], example_weights=[1.0, 1.0])
    with pytest.raises(ValueError, match="at least one example"):
        fit_row_model([])


def test_a_model_without_weights_ties_and_keeps_the_first_row():
    scored = score_alternatives(alternatives(ASTHMA, "Asthma", "", exclude=[1, 3]),
                                RowModel(weights={}))
    assert {round(a.probability, 6) for a in scored} == {round(1 / 3, 6)}
    assert best_alternative(scored).row == 0


def test_profile_reads_each_value_once_whatever_its_spelling():
    profile = profile_row(0, ["Tissue: Mucosa", "tissue:mucosa", None, "Tissue: NA"],
                          "Colon_and_Rectal_Cancer", "")
    assert profile.n_values == 1 and profile.key == "tissue"


def test_custom_weights_change_the_answer():
    """The model is a parameter: weights preferring "no row" give no row."""
    shy = RowModel(weights={"none_bias": 50.0})
    assert infer_clinical_rows(ASTHMA, "Asthma", "", shy)["trait_row"] is None


def test_decisions_carry_confidence_evidence_and_conversions():
    decisions = decide_clinical_rows(ASTHMA, "Asthma", "")
    trait = decisions.get("trait")
    assert decisions.rows() == {"trait_row": 2, "age_row": 3, "gender_row": 1}
    assert trait.confidence > LOW_CONFIDENCE and not trait.low_confidence
    assert any("asthma" in e for e in trait.evidence)               # which words matched
    assert dict((cell, value) for cell, value, _ in trait.values) == {
        "disease state: asthma": 1.0, "disease state: healthy control": 0.0}
    assert decisions.get("age").evidence == ("key 'age'",)
    assert trait.alternatives[0][0] == 2 and len(trait.alternatives) == 3
    text = decisions.describe()
    assert "trait_row = 2" in text and "confidence" in text and "'disease state: asthma' -> 1.0" in text
    assert decisions.note() == ""
    assert json.dumps(decisions.as_dict())                           # JSON-friendly


def test_low_confidence_decisions_are_named():
    """One sex for every sample: the sex row is kept, with a low confidence."""
    chars = {0: ["Sex: M"], 1: ["age: 61", "age: 70"],
             2: ["group: control", "group: prostate adenocarcinoma"]}
    decisions = decide_clinical_rows(chars, "Prostate_Cancer", "")
    gender = decisions.get("gender")
    assert gender.row == 0 and gender.low_confidence
    assert "gender row 0" in decisions.note() and "LOW CONFIDENCE" in decisions.describe()


@pytest.mark.parametrize("chars, trait, expected", [
    # a numeric row whose key names a measured trait
    ({0: ["tissue: blood"], 1: ["resting heart rate (bpm): 61", "resting heart rate (bpm): 74"]},
     "Heart_rate", 1),
    # a genotype row used as the trait (a causal gene of the trait)
    ({0: ["cell type: iPSC-derived neurons"],
      1: ["genotype: wild type", "genotype: APP V717F", "genotype: PSEN1 M146V"]},
     "Alzheimers_Disease", 1),
    # nothing names the trait and nothing contrasts: no row
    ({0: ["tissue: PBMC"], 1: ["time: 0 h", "time: 4 h"]}, "Migraine", None),
])
def test_rows_of_hand_written_series(chars, trait, expected):
    assert infer_clinical_rows(chars, trait, "")["trait_row"] == expected


@pytest.mark.parametrize("key, expected", [
    ("disease state", {"disease"}),
    ("response to r-chop", {"response"}),
    ("efs.event", {"survival"}),            # survival is not a response to treatment
    ("vital status", {"survival"}),
    ("bestresponse", {"response"}),         # run-together words
    ("diseasestatus", {"disease"}),
])
def test_key_categories(key, expected):
    assert key_categories(key) >= expected
    if "survival" in expected:
        assert "response" not in key_categories(key)


def test_a_numeric_row_under_a_measure_of_a_binary_trait_names_it():
    """Blood pressure is a measure of hypertension (data file: measures)."""
    row = ["systolic blood pressure: 118", "systolic blood pressure: 151",
           "systolic blood pressure: 137"]
    profile = profile_row(2, row, "Hypertension", "")
    features = row_features(profile, [], False, 0, "Hypertension")
    assert profile.key_staging
    assert features["numeric_trait"] == features["key_staging"] == 1.0
    assert features["unnamed"] == 0.0
    other = row_features(profile_row(2, [c.replace("systolic blood pressure", "height")
                                         for c in row], "Hypertension", ""),
                         [], False, 0, "Hypertension")
    assert other["numeric_trait"] == other["key_staging"] == 0.0 and other["unnamed"] == 1.0
