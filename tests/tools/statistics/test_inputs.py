"""AnalysisConfig validates its fields (issue 26): a bad value names the field."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tools.statistics.inputs import AnalysisConfig


def test_defaults_are_unchanged():
    assert AnalysisConfig().as_dict() == {
        "penalties": [1e-06, 1e-05, 0.0001, 0.001, 0.01, 0.1, 1.0], "n_folds": 5, "seed": 42,
        "fdr_threshold": 0.05, "batch_gap_numerator": 200.0, "fallback_penalty": 0.1}


@pytest.mark.parametrize("field, value", [
    ("penalties", ()), ("penalties", (0.1, -1.0)), ("penalties", (float("nan"),)),
    ("n_folds", 1), ("seed", -1), ("fdr_threshold", 0.0), ("fdr_threshold", 1.5),
    ("batch_gap_numerator", -1.0), ("fallback_penalty", -0.1), ("model", "Two Words"),
    ("model", ""),
])
def test_bad_values_name_the_field(field, value):
    with pytest.raises(ValidationError) as caught:
        AnalysisConfig(**{field: value})
    assert caught.value.errors()[0]["loc"][0] == field
    assert field in str(caught.value)


def test_unknown_field_is_refused():
    with pytest.raises(ValidationError, match="penalty"):
        AnalysisConfig(penalty=0.1)
