"""The trait in titles, source names and descriptions.

Tests of :mod:`tools.preprocess.clinical_rules.sample_lines`.
"""

import pytest

from tests.conftest import REPO_ROOT
from tests.tools.preprocess.clinical_rules import scoring
from tools.preprocess import get_background_and_clinical_data, get_unique_values_by_row
from tools.preprocess.clinical_rules import (infer_clinical_rows_with_sample_lines,
                                             sample_lines_from_matrix)

AS = "Ankylosing_Spondylitis"


def test_extension_renumbers_rows_like_the_reader():
    lines = [("!Sample_title", ["AS_patient_001", "control_005"]),
             ("!Sample_source_name_ch1", ["whole blood"]),
             ("!Sample_characteristics_ch1", ["tissue: whole blood"]),
             ("!Sample_characteristics_ch1", ["gender: female", "gender: male"]),
             ("!Sample_description", ["synthetic sample"])]
    result = infer_clinical_rows_with_sample_lines(lines, AS, "ankylosing spondylitis")
    assert result["extra_rows"] == ("!Sample_title",)
    assert result["prefixes_b"] == ["!Sample_geo_accession", "!Sample_title",
                                    "!Sample_characteristics_ch1"]
    assert (result["trait_row"], result["age_row"], result["gender_row"]) == (0, None, 2)
    assert result["trait_source"] == "!Sample_title"


def test_characteristics_first():
    lines = [("!Sample_title", ["RA_1", "control_2"]),
             ("!Sample_characteristics_ch1", ["disease: RA", "disease: healthy"])]
    result = infer_clinical_rows_with_sample_lines(lines, "Rheumatoid_Arthritis", "")
    assert result["extra_rows"] == () and result["trait_row"] == 0


def test_rows_address_the_re_read_demo_table():
    """GSE9100302 keeps its group in the titles: the returned rows index the re-read table."""
    matrix = next((REPO_ROOT / "input" / "GEO" / AS / "GSE9100302").glob("*series_matrix*"))
    background, _ = get_background_and_clinical_data(matrix)
    result = infer_clinical_rows_with_sample_lines(sample_lines_from_matrix(matrix), AS,
                                                   background)
    _, table = get_background_and_clinical_data(matrix, prefixes_b=result["prefixes_b"])
    values = get_unique_values_by_row(table)
    assert result["extra_rows"] == ("!Sample_title",)
    assert any("patient" in str(v) for v in values[result["trait_row"]])
    assert all(str(v).lower().startswith(("sex", "gender"))
               for v in values[result["gender_row"]] if v is not None)


@pytest.mark.parametrize("index", range(13))
def test_demo_cohort(demo_cohorts, index):
    """Every row and every value of the curator's tables (the rules were tuned on these)."""
    result = scoring.score(demo_cohorts[index], "ext")
    assert result.perfect, (demo_cohorts[index].name, result)


@pytest.mark.parametrize("index", range(11))
def test_real_series(real_cohorts, index):
    """Every row and value of the hand-made truth (seen while the rules were written)."""
    from tests.tools.preprocess.clinical_rules.test_rows import REAL_MISSES
    if real_cohorts[index].name in REAL_MISSES:
        pytest.xfail("known miss: " + REAL_MISSES[real_cohorts[index].name])
    result = scoring.score(real_cohorts[index], "ext")
    assert result.perfect, (real_cohorts[index].name, result)
