"""The committed TCGA cohort table and cancer list (utils.tcga_cohorts)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import REPO_ROOT
from utils.errors import InputFileError
from utils.tcga_cohorts import (XenaCohort, read_cancer_traits, read_cohort_table,
                                trait_cohort_map)

SHARED_TASK_INFO = REPO_ROOT.parent / "shared" / "data" / "opentargets" / "genomas_task_info.json"


def test_table_maps_cancer_traits_only():
    cohorts = read_cohort_table()
    cancers = set(read_cancer_traits())
    mapping = trait_cohort_map(cohorts)
    assert set(mapping) <= cancers
    assert mapping["Lung_Cancer"] == "TCGA_Lung_Cancer_(LUNG)"
    assert mapping["Large_B-cell_Lymphoma"] == "TCGA_Large_Bcell_Lymphoma_(DLBC)"
    assert mapping["Endometrioid_Cancer"] == mapping["Uterine_Corpus_Endometrial_Carcinoma"]
    # every cancer trait but Retinoblastoma (no TCGA project) has exactly one cohort
    assert cancers - set(mapping) == {"Retinoblastoma"}
    assert len(cohorts) == 36 and len(mapping) == 34


def test_cancer_list_matches_the_real_trait_names():
    if not SHARED_TASK_INFO.exists():
        pytest.skip(f"real task info not available: {SHARED_TASK_INFO}")
    traits = set(json.loads(SHARED_TASK_INFO.read_text(encoding="utf-8")))
    assert set(read_cancer_traits()) <= traits
    assert len(read_cancer_traits()) == 35


def test_table_rejects_non_cancer_traits(tmp_path):
    table = tmp_path / "t.tsv"
    table.write_text("code\txena_cohort\tfolder\ttraits\n"
                     "LUAD\tTCGA Lung Adenocarcinoma (LUAD)\tTCGA_Lung_(LUAD)\tAsthma\n")
    with pytest.raises(InputFileError, match=r"t\.tsv:2: LUAD: TCGA cohorts serve cancer"):
        read_cohort_table(table)


def test_names_and_urls():
    cohort = XenaCohort("LUAD", "TCGA Lung Adenocarcinoma (LUAD)", "TCGA_Lung_(LUAD)", ())
    assert cohort.file_name("clinicalMatrix") == "TCGA.LUAD.sampleMap_LUAD_clinicalMatrix"
    assert cohort.file_name("HiSeqV2_PANCAN") == "TCGA.LUAD.sampleMap_HiSeqV2_PANCAN.gz"
    assert cohort.url("https://hub/download/", "HiSeqV2") == \
        "https://hub/download/TCGA.LUAD.sampleMap%2FHiSeqV2.gz"
