"""Decisions a curators' corpus contradicts (:mod:`...clinical_rules.label_audit`).

The hand-made records below are in the dev split's format; the last tests read
the split itself (``../shared/data/clinical_dev``) and skip when it is absent.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Optional

import pytest

from tests.conftest import shared_file
from tools.preprocess.clinical_rules import devset
from tools.preprocess.clinical_rules.label_audit import (LabelFinding, audit_labels,
                                                         conflicting_twins,
                                                         rows_without_their_feature)

CHARACTERISTICS = {"0": ["gender: female", "gender: male"], "1": ["age: 31", "age: 45"],
                   "2": ["disease: asthma", "disease: healthy control"]}


def record(series: str, trait_row: Optional[int] = 2, age_row: Optional[int] = 1,
           gender_row: Optional[int] = 0, characteristics: Optional[Dict] = None,
           converted: Optional[list] = None, trait: str = "Asthma") -> Dict[str, Any]:
    """One series as the corpus stores it (a trait conversion when ``converted``)."""
    chars = characteristics or CHARACTERISTICS
    result = {"id": f"{trait}/{series}", "trait": trait, "characteristics": chars,
              "trait_row": trait_row, "age_row": age_row, "gender_row": gender_row}
    if converted is not None:
        values = chars[str(trait_row)]
        result["conversions"] = {"trait": {"row": trait_row, "values": values,
                                           "converted": converted,
                                           "failed": [False] * len(values)}}
    return result


def test_consistent_records_give_no_finding():
    records = [record("GSE1", converted=[1.0, 0.0]), record("GSE2", converted=[1.0, 0.0])]
    assert audit_labels(records) == []


def test_twins_with_different_rows_are_found_on_the_later_series():
    records = [record("GSE1"), record("GSE2", gender_row=None, trait_row=None)]
    findings = conflicting_twins(records)
    assert [(f.series, f.feature, f.kind) for f in findings] == [
        ("Asthma/GSE2", "trait", "twin"), ("Asthma/GSE2", "gender", "twin")]
    assert "same characteristics as Asthma/GSE1" in findings[0].detail


def test_twins_are_twins_only_within_one_trait_and_with_equal_values():
    other_values = dict(CHARACTERISTICS, **{"2": ["disease: asthma", "disease: copd"]})
    records = [record("GSE1"), record("GSE2", trait_row=None, trait="Migraine"),
               record("GSE3", trait_row=None, characteristics=other_values)]
    assert conflicting_twins(records) == []


def test_a_sex_row_holding_no_sex_and_an_age_row_holding_no_age_are_found():
    chars = {"0": ["tissue: liver", "sample type: blank"], "1": ["state: premenopausal"],
             "2": ["disease: asthma", "disease: healthy control"]}
    findings = rows_without_their_feature([record("GSE1", characteristics=chars)])
    assert [(f.feature, f.kind) for f in findings] == [("gender", "no gender"),
                                                        ("age", "no age")]
    assert "'tissue: liver'" in findings[0].detail


def test_a_sex_row_in_age_and_sex_cells_holds_a_sex():
    chars = dict(CHARACTERISTICS, **{"0": ["subject: 60F", "subject: 64M"]})
    assert rows_without_their_feature([record("GSE1", characteristics=chars)]) == []


def test_the_age_row_as_trait_row_is_found_only_when_its_conversion_is_constant():
    constant = record("GSE1", trait_row=1, converted=[0.0, 0.0])
    informative = record("GSE2", trait_row=1, converted=[0.0, 1.0])
    findings = rows_without_their_feature([constant, informative])
    assert [(f.series, f.kind) for f in findings] == [("Asthma/GSE1",
                                                       "trait row is the age row")]


def test_the_sex_row_as_trait_row_is_found():
    findings = rows_without_their_feature([record("GSE1", trait_row=0, converted=[1.0, 1.0])])
    assert [f.kind for f in findings] == ["trait row is the sex row"]
    assert LabelFinding("s", "trait", "k", "d").describe() == "s  trait row  k: d"


def test_the_command_line_prints_the_findings(tmp_path, capsys):
    records = [record("GSE1"), record("GSE2", gender_row=None)]
    for r in records:
        r["label_quality"] = "clean"
    (tmp_path / devset.CORPUS_FILE).write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert devset.main(["--corpus", str(tmp_path), "--label-audit"]) == 0
    printed = capsys.readouterr().out
    assert "Asthma/GSE2  gender row  twin" in printed
    assert "1 finding(s) in 2 series" in printed


@pytest.fixture(scope="module")
def dev_records():
    path = shared_file("clinical_dev/cohorts.jsonl")
    return devset.read_corpus(Path(path), "clean")


def test_the_dev_split_contradicts_itself_in_eight_decisions(dev_records):
    """Found by reading the split (2026-11-27): two pairs of twins (a SuperSeries
    and its sub-series), two sex rows holding no sex, a menopause row as the age,
    and two polycystic-ovary series whose trait row is their age row, every age
    converted to 0."""
    found = {(f.series, f.feature, f.kind) for f in audit_labels(dev_records)}
    assert found == {
        ("Bone_Density/GSE56816", "age", "twin"),
        ("Bone_Density/GSE56816", "gender", "twin"),
        ("Polycystic_Kidney_Disease/GSE74453", "trait", "twin"),
        ("Bone_Density/GSE56816", "age", "no age"),
        ("Liver_Cancer/GSE66843", "gender", "no gender"),
        ("Polycystic_Ovary_Syndrome/GSE151158", "gender", "no gender"),
        ("Polycystic_Ovary_Syndrome/GSE151158", "trait", "trait row is the age row"),
        ("Polycystic_Ovary_Syndrome/GSE43322", "trait", "trait row is the age row"),
    }


def test_usability_groups_split_the_dev_split_by_the_curators_verdict(dev_records):
    groups = devset.usability_groups(dev_records)
    assert {name: len(group) for name, group in groups.items()} == {
        "usable": 105, "not usable": 106, "no verdict": 8}
