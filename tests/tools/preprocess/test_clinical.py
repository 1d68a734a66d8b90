"""GEO clinical features: ready converters and feature tables (SPEC 4.5)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tests.conftest import shared_file
from tools.preprocess.clinical import (ROW_TAG_COLUMN, ConverterError, binary_trait_converter,
                                       convert_age, convert_gender,
                                       geo_select_clinical_features, get_feature_data,
                                       split_key_value, value_after_colon)
from tools.preprocess.geo import get_background_and_clinical_data

GSE4107 = "geo/GSE4107/GSE4107_series_matrix.txt.gz"


def gse4107_characteristics():
    """Characteristics table of GSE4107 plus its sample titles as one more row.

    The trait (patient vs healthy control) of GSE4107 lives only in
    ``!Sample_title``; the characteristics rows are 0 Gender, 1 Age, 2 Tissue,
    3 empty.
    """
    path = str(shared_file(GSE4107))
    _, table = get_background_and_clinical_data(path)
    _, titles = get_background_and_clinical_data(
        path, prefixes_b=["!Sample_geo_accession", "!Sample_title"])
    return pd.concat([table, titles], ignore_index=True)


# ----------------------------------------------------------------- converters
@pytest.mark.parametrize("cell, years", [
    ("49", 49.0), ("49y", 49.0), ("49 years", 49.0), ("Age:49", 49.0), ("Age: 49", 49.0),
    ("age (yrs): 49", 49.0), ("age(y): 62", 62.0), ("62 Y", 62.0), ("49 years old", 49.0),
    ("49yo", 49.0), ("Age: 49.5 y.o.", 49.5), ("age: age 49", 49.0),
    ("age (months): 18", 1.5), ("age: 18 months", 1.5), ("age (days): 365.25", 1.0),
    ("age group: 40-49", 44.5), ("40 to 49 years", 44.5),
    ("age: 0", 0.0), ("age: 130", 130.0),
])
def test_convert_age_spellings(cell, years):
    assert convert_age(cell) == pytest.approx(years)


@pytest.mark.parametrize("cell", [
    None, math.nan, "", "age:", "Age: NA", "age: unknown", "age: >80", "age: 80+",
    "age: 131", "age: 49-40", "age: adult", "age: 49,5", "sex: M",
])
def test_convert_age_unparseable_is_none(cell):
    assert convert_age(cell) is None


@pytest.mark.parametrize("cell, code", [
    ("Gender:M", 1.0), ("Gender: F", 0.0), ("Sex: F", 0.0), ("sex: m", 1.0),
    ("gender: female", 0.0), ("gender: Male", 1.0), ("FEMALE", 0.0), ("MALE", 1.0),
    ("gender: woman", 0.0), ("Sex: men", 1.0), ("gender: Male (XY)", 1.0),
    ("Sex:female", 0.0),
])
def test_convert_gender_spellings(cell, code):
    assert convert_gender(cell) == code


@pytest.mark.parametrize("cell", [None, math.nan, "", "Sex:", "gender: M/F",
                                  "sex: male and female", "gender: unknown", "sex: 1"])
def test_convert_gender_unclear_is_none(cell):
    assert convert_gender(cell) is None


def test_split_key_value_uses_first_colon_only():
    assert split_key_value("time: 10:30") == ("time", "10:30")
    assert split_key_value("  plain value ") == ("", "plain value")
    assert value_after_colon("key:   ") is None


def test_binary_trait_converter_longer_keyword_wins():
    convert = binary_trait_converter(["tumor", "Cancer"], ["normal", "non-tumor"])
    assert convert("tissue: Tumor") == 1.0
    assert convert("tissue: non-tumor") == 0.0
    assert convert("tissue: adjacent normal") == 0.0
    assert convert("tissue: breast_cancer") == 1.0
    assert convert("tissue: unknown") is None
    assert convert("tissue: cancer, normal") is None  # 6 vs 6 letters: ambiguous
    assert convert(None) is None


def test_binary_trait_converter_whole_word_default():
    whole = binary_trait_converter(["ra"], ["control"])
    assert whole("disease: RA") == 1.0
    assert whole("tissue: paracancerous") is None
    substring = binary_trait_converter(["tumor"], ["normal"], whole_word=False)
    assert substring("tissue: tumors") == 1.0


def test_binary_trait_converter_needs_both_sides():
    with pytest.raises(ValueError):
        binary_trait_converter([], ["normal"])


# ----------------------------------------------------------------- tables
def small_characteristics():
    return pd.DataFrame({
        ROW_TAG_COLUMN: ["!Sample_characteristics_ch1"] * 3,
        "GSM1": ["disease: RA", "age: 50", "Sex: F"],
        "GSM2": ["disease: control", "age: 61y", math.nan],
        "GSM3": ["disease: ?", "age: n/a", "Sex: M"],
    })


def test_get_feature_data_one_float_row():
    row = get_feature_data(small_characteristics(), 1, "Age", convert_age)
    assert list(row.index) == ["Age"]
    assert list(row.columns) == ["GSM1", "GSM2", "GSM3"]
    assert row.dtypes.unique().tolist() == [np.dtype("float64")]
    np.testing.assert_array_equal(row.to_numpy(), [[50.0, 61.0, np.nan]])


def test_get_feature_data_never_passes_missing_cells():
    seen = []
    get_feature_data(small_characteristics(), 2, "Gender",
                     lambda cell: seen.append(cell) or 1)
    assert seen == ["Sex: F", "Sex: M"]


def test_get_feature_data_errors_are_clear():
    table = small_characteristics()
    with pytest.raises(KeyError, match="row 7"):
        get_feature_data(table, 7, "Age", convert_age)
    with pytest.raises(ValueError, match="GSM1"):
        get_feature_data(table, 0, "RA", lambda cell: "case")
    def explode(cell):
        raise RuntimeError("boom")

    with pytest.raises(ValueError, match="GSM1.*boom"):
        get_feature_data(table, 0, "RA", explode)


def test_geo_select_clinical_features_rows_and_defaults():
    table = small_characteristics()
    trait = binary_trait_converter(["RA"], ["control"])
    selected = geo_select_clinical_features(table, "Rheumatoid_Arthritis", 0, trait,
                                            age_row=1, gender_row=2)
    assert list(selected.index) == ["Rheumatoid_Arthritis", "Age", "Gender"]
    expected = [[1.0, 0.0, np.nan], [50.0, 61.0, np.nan], [0.0, np.nan, 1.0]]
    np.testing.assert_array_equal(selected.to_numpy(), expected)
    only_trait = geo_select_clinical_features(table, "RA", 0, trait)
    assert list(only_trait.index) == ["RA"]


def test_geo_select_clinical_features_requires_trait():
    with pytest.raises(ValueError, match="trait"):
        geo_select_clinical_features(small_characteristics(), "RA", None, None)


# ----------------------------------------------------------------- real data
def test_gse4107_untidy_spellings():
    table = gse4107_characteristics()
    # Rows (from the file): 0 "Gender:M"/"Gender: F", 1 "Age:22"/"Age: 49",
    # 2 "Tissue: Mucosa", 3 an empty characteristics line, 4 the sample titles.
    assert table.shape == (5, 23)
    assert table.loc[3].drop(ROW_TAG_COLUMN).isna().all()
    trait = binary_trait_converter(["patient"], ["healthy control"])
    clinical = geo_select_clinical_features(table, "Colorectal_Cancer", 4, trait,
                                            age_row=1, convert_age=convert_age,
                                            gender_row=0, convert_gender=convert_gender)
    assert clinical.shape == (3, 22)
    assert not clinical.isna().any().any()
    # Golden values from the raw lines (zcat | grep '^!Sample_characteristics_ch1' |
    # tr '\t' '\n' | sort | uniq -c): 11 "Gender:F" + 1 "Gender: F", 10 "Gender:M";
    # the 22 ages sum to 886 (awk); titles: 12 "patient", 10 "healthy control".
    assert clinical.loc["Gender"].sum() == 10
    assert (clinical.loc["Gender"] == 0).sum() == 12
    assert clinical.loc["Age"].sum() == 886
    assert clinical.loc["Age", "GSM93789"] == 22  # "Age:22"
    assert clinical.loc["Age", "GSM93920"] == 49  # "Age: 49"
    assert clinical.loc["Gender", "GSM93920"] == 0  # "Gender: F"
    assert clinical.loc["Colorectal_Cancer"].sum() == 12
    empty_row = get_feature_data(table, 3, "Empty", convert_age)
    assert empty_row.isna().all().all()


@pytest.mark.parametrize("result", [math.inf, -math.inf, "inf", np.float64("-inf")])
def test_a_converter_returning_infinity_is_refused(result):
    with pytest.raises(ConverterError, match="converter for 'Age' returned .* for sample "
                                             "GSM1 .* must return a finite number or None"):
        get_feature_data(small_characteristics(), 1, "Age", lambda cell: result)


def test_a_converter_returning_nan_means_missing():
    row = get_feature_data(small_characteristics(), 1, "Age", lambda cell: math.nan)
    assert row.isna().all().all()
