"""One cohort by rule (:mod:`genotex.methods.rules.cohorts`)."""

from __future__ import annotations

import json

import pandas as pd

from genotex.methods.base import CohortTask
from genotex.methods.rules.cohorts import clinical_converters, preprocess_geo
from tests.conftest import REPO_ROOT
from utils.paths import resolve_paths
from utils.symbols import load_synonym_map


def test_converters_decide_with_the_whole_row():
    clinical = pd.DataFrame({"!Sample_geo_accession": ["!Sample_characteristics_ch1"] * 2,
                             "GSM1": ["tissue: primary gastric cancer", "age: 61"],
                             "GSM2": ["tissue: gastric mucosa tissue", "age: 58y"]})
    rows = {"trait_row": 0, "age_row": 1, "gender_row": None, "trait_source": None}
    convert = clinical_converters(clinical, rows, "Stomach_Cancer", "")
    # "gastric mucosa tissue" alone names nothing; beside the cancer row it is the control
    assert convert["trait"]("tissue: gastric mucosa tissue") == 0.0
    assert convert["trait"]("tissue: primary gastric cancer") == 1.0
    assert convert["age"]("age: 58y") == 58.0 and convert["gender"] is None


def test_a_series_without_trait_gets_a_record_and_its_gene_table(tmp_path):
    task = CohortTask("Sjögrens_Syndrome", "GSE9100102", "GEO",
                      REPO_ROOT / "input" / "GEO" / "Sjögrens_Syndrome" / "GSE9100102")
    decisions = preprocess_geo(task, tmp_path, resolve_paths().gene_synonyms,
                               load_synonym_map())
    record = json.loads((tmp_path / "cohort_info.json").read_text())["GSE9100102"]
    assert record["is_trait_available"] is False and record["is_gene_available"] is True
    assert record["is_usable"] is False and "separates cases from controls" in record["note"]
    assert (tmp_path / "gene_data" / "GSE9100102.csv").is_file()
    assert not (tmp_path / "clinical_data" / "GSE9100102.csv").exists()
    assert decisions["rows"]["trait_row"] is None


def test_low_confidence_decisions_go_to_the_cohort_note(tmp_path):
    """Every sample of the demo prostate series is male: the sex row is kept, with low
    confidence, and the record's note says so; the run log gets every confidence."""
    task = CohortTask("Prostate_Cancer", "GSE9100701", "GEO",
                      REPO_ROOT / "input" / "GEO" / "Prostate_Cancer" / "GSE9100701")
    decisions = preprocess_geo(task, tmp_path, resolve_paths().gene_synonyms,
                               load_synonym_map())
    record = json.loads((tmp_path / "cohort_info.json").read_text())["GSE9100701"]
    assert "low-confidence clinical decisions (characteristics rows): gender row 1" \
        in record["note"]
    assert decisions["confidence"]["gender"] < 0.6 <= decisions["confidence"]["trait"]
    assert record["is_usable"] is True
