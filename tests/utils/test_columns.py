"""The domain rules of a linked table's columns, written once (utils.columns)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from utils.columns import AGE, CLINICAL_COLUMNS, GENDER, gene_columns, is_binary, non_gene_columns
from utils.problems import Problem


def test_clinical_names_are_the_one_step_conditions():
    assert (AGE, GENDER) == CLINICAL_COLUMNS == ("Age", "Gender")
    assert Problem("T", AGE).category == Problem("T", GENDER).category == "conditional one-step"
    assert Problem("T", "Obesity").is_two_step


@pytest.mark.parametrize("columns, genes", [
    (["Asthma", "Age", "Gender", "TP53", "BRCA1"], ["TP53", "BRCA1"]),   # the usual layout
    (["Asthma", "TP53", "Age", "BRCA1"], ["TP53", "BRCA1"]),             # clinical in between
    (["TP53", "Asthma"], ["TP53"]),
    (["Asthma", "Age"], []),
    ([], []),
])
def test_gene_columns_are_all_but_trait_age_and_gender_in_order(columns, genes):
    assert gene_columns(columns, "Asthma") == genes
    assert gene_columns(pd.Index(columns, dtype=object), "Asthma") == genes
    assert non_gene_columns("Asthma") == {"Asthma", "Age", "Gender"}
    assert non_gene_columns(None) == {"Age", "Gender"}


@pytest.mark.parametrize("values, binary", [
    ([0.0, 1.0, 1.0], True),
    ([1.0, 1.0], True),                       # one class: still a 0/1 column
    ([0.0, np.nan, 1.0], True),               # missing values are ignored
    (pd.Series([0, 1, None]), True),
    ([1.0, 2.0], False),                      # two values, not 0/1: a measurement
    ([0.0, 0.5, 1.0], False),
    ([], False),
    ([np.nan], False),
    (["case", "control"], False),
])
def test_binary_means_coded_zero_one(values, binary):
    assert is_binary(values) is binary
