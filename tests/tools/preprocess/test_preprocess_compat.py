"""``tools.preprocess`` keeps the original names and signatures (SPEC Appendix A)."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pandas as pd
import pytest

import tools.preprocess as preprocess
from tests.conftest import shared_file

NO_DEFAULT = inspect.Parameter.empty

# name -> [(parameter, default or NO_DEFAULT), ...] exactly as in SPEC Appendix A.
APPENDIX_A = {
    "geo_get_relevant_filepaths": [("cohort_dir", NO_DEFAULT)],
    "tcga_get_relevant_filepaths": [("cohort_dir", NO_DEFAULT)],
    "get_background_and_clinical_data": [
        ("file_path", NO_DEFAULT),
        ("prefixes_a", ["!Series_title", "!Series_summary", "!Series_overall_design"]),
        ("prefixes_b", ["!Sample_geo_accession", "!Sample_characteristics_ch1"])],
    "get_unique_values_by_row": [("dataframe", NO_DEFAULT), ("max_len", 30)],
    "get_gene_annotation": [("file_path", NO_DEFAULT), ("prefixes", ["^", "!", "#"])],
    "get_gene_mapping": [("annotation", NO_DEFAULT), ("prob_col", NO_DEFAULT),
                         ("gene_col", NO_DEFAULT)],
    "get_genetic_data": [("file_path", NO_DEFAULT),
                         ("marker", "!series_matrix_table_begin")],
    "extract_human_gene_symbols": [("text", NO_DEFAULT)],
    "apply_gene_mapping": [("expression_df", NO_DEFAULT), ("mapping_df", NO_DEFAULT)],
    "normalize_gene_symbols_in_index": [("gene_df", NO_DEFAULT)],
    "get_feature_data": [("clinical_df", NO_DEFAULT), ("row_id", NO_DEFAULT),
                         ("feature", NO_DEFAULT), ("convert_fn", NO_DEFAULT)],
    "geo_select_clinical_features": [
        ("clinical_df", NO_DEFAULT), ("trait", NO_DEFAULT), ("trait_row", NO_DEFAULT),
        ("convert_trait", NO_DEFAULT), ("age_row", None), ("convert_age", None),
        ("gender_row", None), ("convert_gender", None)],
    "geo_link_clinical_genetic_data": [("clinical_df", NO_DEFAULT),
                                       ("genetic_df", NO_DEFAULT)],
    "tcga_convert_trait": [("row_index", NO_DEFAULT)],
    "tcga_convert_gender": [("cell", NO_DEFAULT)],
    "tcga_convert_age": [("cell", NO_DEFAULT)],
    "tcga_select_clinical_features": [("clinical_df", NO_DEFAULT), ("trait", NO_DEFAULT),
                                      ("age_col", None), ("gender_col", None)],
    "handle_missing_values": [("df", NO_DEFAULT), ("trait_col", NO_DEFAULT)],
    "judge_binary_variable_biased": [("dataframe", NO_DEFAULT), ("col_name", NO_DEFAULT),
                                     ("min_proportion", 0.1), ("min_num", 5)],
    "judge_continuous_variable_biased": [("dataframe", NO_DEFAULT),
                                         ("col_name", NO_DEFAULT)],
    "judge_and_remove_biased_features": [("df", NO_DEFAULT), ("trait", NO_DEFAULT)],
    "validate_and_save_cohort_info": [
        ("is_final", NO_DEFAULT), ("cohort", NO_DEFAULT), ("info_path", NO_DEFAULT),
        ("is_gene_available", NO_DEFAULT), ("is_trait_available", NO_DEFAULT),
        ("is_biased", None), ("df", None), ("note", "")],
    "preview_df": [("df", NO_DEFAULT), ("n", 5), ("max_items", 200)],
}


def _same_default(actual, expected):
    if expected is NO_DEFAULT or actual is NO_DEFAULT:
        return actual is expected
    if isinstance(expected, list):
        return isinstance(actual, (list, tuple)) and list(actual) == expected
    return type(actual) is type(expected) and actual == expected


def test_star_import_gives_every_name():
    namespace: dict = {}
    exec("from tools.preprocess import *", namespace)
    missing = [name for name in APPENDIX_A if not callable(namespace.get(name))]
    assert missing == []
    assert set(APPENDIX_A) <= set(preprocess.__all__)
    assert len(preprocess.__all__) == len(set(preprocess.__all__))
    assert all(hasattr(preprocess, name) for name in preprocess.__all__)


@pytest.mark.parametrize("name", sorted(APPENDIX_A))
def test_signature_matches_appendix_a(name):
    parameters = list(inspect.signature(getattr(preprocess, name)).parameters.values())
    expected = APPENDIX_A[name]
    assert [p.name for p in parameters[:len(expected)]] == [n for n, _ in expected]
    for parameter, (_, default) in zip(parameters, expected):
        assert parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, parameter
        assert _same_default(parameter.default, default), (parameter, default)
    extra = parameters[len(expected):]
    # Additions are allowed only when optional, so old calls keep working.
    assert all(p.default is not NO_DEFAULT or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in extra), extra


def test_preview_df():
    table = pd.DataFrame({f"G{i}": [1.5, np.nan, 3.0] for i in range(300)},
                         index=["a", "b", "c"])
    preview = preprocess.preview_df(table, n=2)
    assert len(preview) == 200
    assert preview["G0"] == [1.5, None]
    assert json.dumps(preview)  # plain Python values only
    assert preprocess.preview_df(table, n=5, max_items=3) == {
        "G0": [1.5, None, 3.0], "G1": [1.5, None, 3.0], "G2": [1.5, None, 3.0]}


def test_original_notebook_flow_keyword_calls(tmp_path):
    """A GEO notebook written against the original library, keyword for keyword."""
    clinical_df = pd.DataFrame({
        "!Sample_geo_accession": ["!Sample_characteristics_ch1"] * 2,
        **{f"GSM{i}": [f"disease: {'RA' if i % 2 else 'control'}", f"age: {30 + i}y"]
           for i in range(12)}})

    def convert_trait(value):
        value = value.split(":", 1)[1].strip()
        return 1 if value == "RA" else 0 if value == "control" else None

    selected = preprocess.geo_select_clinical_features(
        clinical_df=clinical_df, trait="Rheumatoid_Arthritis", trait_row=0,
        convert_trait=convert_trait, age_row=1, convert_age=preprocess.convert_age,
        gender_row=None, convert_gender=None)
    genes = pd.DataFrame(np.arange(36, dtype=float).reshape(3, 12),
                         index=pd.Index(["TP53", "EGFR", "KRAS"], name="Gene"),
                         columns=[f"GSM{i}" for i in range(12)])
    linked = preprocess.geo_link_clinical_genetic_data(clinical_df=selected,
                                                       genetic_df=genes)
    linked = preprocess.handle_missing_values(df=linked, trait_col="Rheumatoid_Arthritis")
    is_biased, linked = preprocess.judge_and_remove_biased_features(
        df=linked, trait="Rheumatoid_Arthritis")
    info_path = tmp_path / "Rheumatoid_Arthritis" / "cohort_info.json"
    usable = preprocess.validate_and_save_cohort_info(
        is_final=True, cohort="GSE1", info_path=str(info_path), is_gene_available=True,
        is_trait_available=True, is_biased=is_biased, df=linked, note="")
    assert usable is True
    assert list(linked.columns) == ["Rheumatoid_Arthritis", "Age", "TP53", "EGFR", "KRAS"]
    assert json.loads(info_path.read_text())["GSE1"]["sample_size"] == 12


def test_gse4107_through_compat_names(tmp_path):
    """Real series matrix: characteristics + probe table -> linked -> cohort_info."""
    path = str(shared_file("geo/GSE4107/GSE4107_series_matrix.txt.gz"))
    background, clinical_df = preprocess.get_background_and_clinical_data(path)
    assert "early onset colorectal cancer" in background
    rows = preprocess.get_unique_values_by_row(clinical_df)
    assert set(rows) >= {0, 1}
    _, titles = preprocess.get_background_and_clinical_data(
        path, prefixes_b=["!Sample_geo_accession", "!Sample_title"])
    clinical_df = pd.concat([clinical_df, titles], ignore_index=True)
    trait_row = len(clinical_df) - 1
    selected = preprocess.geo_select_clinical_features(
        clinical_df, "Colorectal_Cancer", trait_row,
        preprocess.binary_trait_converter(["patient"], ["healthy control"]),
        age_row=1, convert_age=preprocess.convert_age,
        gender_row=0, convert_gender=preprocess.convert_gender)
    probes = preprocess.get_genetic_data(path)
    assert probes.shape == (54675, 22)
    linked = preprocess.geo_link_clinical_genetic_data(selected, probes)
    assert linked.shape == (22, 3 + 54675)
    linked = preprocess.handle_missing_values(linked, "Colorectal_Cancer")
    biased, linked = preprocess.judge_and_remove_biased_features(linked, "Colorectal_Cancer")
    # 12 patients / 10 controls, 10 men / 12 women, ages 22-49: nothing biased.
    assert biased is False
    assert list(linked.columns[:3]) == ["Colorectal_Cancer", "Age", "Gender"]
    info_path = tmp_path / "Colorectal_Cancer" / "cohort_info.json"
    assert preprocess.validate_and_save_cohort_info(True, "GSE4107", info_path, True, True,
                                                    biased, linked) is True
    record = json.loads(info_path.read_text())["GSE4107"]
    assert record["sample_size"] == 22 and record["has_age"] and record["has_gender"]
