"""The trait lexicon (:mod:`tools.preprocess.clinical_rules.knowledge`, trait_lexicon.toml).

Coverage of the real task info's traits, the shape of every entry, and how
entries are matched (phrases on canonical tokens, abbreviations on the raw
text, cell lines with punctuation squashed), on hand-written texts.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import shared_file
from tools.preprocess.clinical_rules import lexicon_sources, trait_knowledge
from tools.preprocess.clinical_rules.evidence import cell_evidence
from tools.preprocess.clinical_rules.knowledge import (CUTOFF_FIELDS, KINDS, PHRASE_FIELDS, SEXES,
                                                       RAW_FIELDS, near_word, other_traits_in,
                                                       parse_cutoff,
                                                       load_lexicon, looks_like_abbreviation,
                                                       squash)
from tools.preprocess.clinical_rules.lexicon import trait_lexicon
from tools.preprocess.clinical_rules.text import raw_tokens, text_tokens

FIELDS = set(PHRASE_FIELDS) | set(RAW_FIELDS) | set(CUTOFF_FIELDS) | {"kind", "follows", "sex"}


def fields_matched(trait, text):
    return {(m.field, m.text) for m in trait_knowledge(trait).find(text)}


def test_the_lexicon_covers_every_trait_of_the_real_task_info():
    task_info = json.loads(shared_file("opentargets/genomas_task_info.json").read_text("utf-8"))
    assert len(task_info) == 132
    assert set(load_lexicon()) == set(task_info)


def test_every_entry_is_well_formed_and_says_what_it_follows():
    lexicon = load_lexicon()
    assert len(lexicon) == 132
    for trait, entry in lexicon.items():
        assert entry["kind"] in KINDS, trait
        assert set(entry) <= FIELDS, (trait, set(entry) - FIELDS)
        assert entry.get("names") and entry.get("follows"), trait
        assert entry.get("sex", "female") in SEXES, trait
        for field, values in entry.items():
            if field not in ("kind", "sex"):
                assert isinstance(values, list) and all(isinstance(v, str) and v.strip()
                                                        for v in values), (trait, field)
    assert any("MeSH" in s for s in lexicon_sources())
    assert any("Disease Ontology" in s for s in lexicon_sources())


def test_traits_of_one_sex_are_those_of_a_sex_organ():
    # anatomy, not data: the organs only one sex has; breast cancer occurs in men too
    sexes = {trait: trait_knowledge(trait).sex for trait in load_lexicon()}
    assert {t for t, s in sexes.items() if s == "male"} == {"Prostate_Cancer",
                                                             "Testicular_Cancer"}
    assert {t for t, s in sexes.items() if s == "female"} == {
        "Cervical_Cancer", "Endometrioid_Cancer", "Endometriosis", "Ovarian_Cancer",
        "Polycystic_Ovary_Syndrome", "Uterine_Carcinosarcoma",
        "Uterine_Corpus_Endometrial_Carcinoma"}
    assert trait_knowledge("Breast_Cancer").sex is None
    assert trait_knowledge("Frobnication_Disorder").sex is None      # not in the file


def test_kinds():
    assert trait_knowledge("Heart_rate").is_quantity
    assert trait_knowledge("Acute_Myeloid_Leukemia").is_cancer
    assert trait_knowledge("Asthma").kind == "disease"
    unknown = trait_knowledge("Frobnication_Disorder")          # not in the file
    assert not unknown.listed and unknown.kind == "disease"
    assert fields_matched("Frobnication_Disorder", "group: frobnication disorder") == {
        ("names", "Frobnication Disorder")}


def test_phrases_match_on_canonical_tokens():
    # case, hyphens, plurals and apostrophes do not matter
    assert ("names", "Alzheimer's disease") in fields_matched(
        "Alzheimers_Disease", "diagnosis: ALZHEIMERS-DISEASE")
    assert ("subtypes", "geographic atrophy") in fields_matched(
        "Age-Related_Macular_Degeneration", "lesion: Geographic Atrophies")


def test_abbreviations_are_case_sensitive_up_to_three_characters():
    assert ("abbreviations", "AS") in fields_matched("Ankylosing_Spondylitis", "group: AS")
    assert not fields_matched("Ankylosing_Spondylitis", "group: treated as before")
    assert ("abbreviations", "COPD") in fields_matched(
        "Chronic_obstructive_pulmonary_disease_(COPD)", "status: copd")     # longer: any case
    # an abbreviation-like entry of another field is matched on the raw text too
    assert ("related", "PMF") in fields_matched("Essential_Thrombocythemia",
                                                "disease state: ET / PMF / PV")


def test_signed_entries_keep_their_sign():
    assert looks_like_abbreviation("HbSS") and not looks_like_abbreviation("PTSD-")
    assert not looks_like_abbreviation("normal karyotype")
    matched = fields_matched("Post-Traumatic_Stress_Disorder", "diagnostic group: PTSD patient")
    assert ("controls", "PTSD-") not in matched
    assert ("controls", "PTSD-") in fields_matched("Post-Traumatic_Stress_Disorder",
                                                   "status: PTSD-")


def test_cell_lines_ignore_punctuation_and_spaces():
    assert squash("MDA-MB-231") == squash("mda mb 231") == "mdamb231"
    assert ("cell_lines", "MDA-MB-231") in fields_matched("Breast_Cancer",
                                                          "cell line: MDA MB 231")
    assert ("control_cell_lines", "MCF10A") in fields_matched("Breast_Cancer",
                                                              "cell line: MCF-10A")


@pytest.mark.parametrize("trait, text, level, control, other", [
    # the misses: subtypes, related diagnoses and cell lines of unseen traits
    ("COVID-19", "Covid19_SDRA", 3, 0, True),       # SDRA: an abbreviation it does not know
    ("Essential_Thrombocythemia", "PMF", 2, 0, False),                # a related MPN
    ("Ovarian_Cancer", "HGSOC", 3, 0, False),
    ("Anxiety_disorder", "Obsessive-Compulsive Disorder", 2, 0, False),  # DSM-IV grouping
    ("Bladder_Cancer", "urothelial carcinoma cell line, RT4", 3, 0, False),
    # generic entries ("tumor", "responder") are weak; another organ's cancer is another disease
    ("Pancreatic_Cancer", "tumor", 1, 0, False),
    ("Pancreatic_Cancer", "Breast cancer", 0, 0, True),
    # differential diagnoses and control groups of the entry
    ("Crohns_Disease", "ulcerative colitis", 0, 0, True),
    ("Hypertension", "normotensive", 0, 2, False),
    ("Breast_Cancer", "MCF10A", 0, 2, False),
    # a name-derived mention inside a differential diagnosis is not the trait
    ("Adrenocortical_Cancer", "adrenocortical adenoma", 0, 0, True),
])
def test_evidence_from_the_lexicon(trait, text, level, control, other):
    ev = cell_evidence(text, trait_lexicon(trait))
    assert (ev.level, ev.control, ev.other_disease) == (level, control, other), ev
    if level:
        assert ev.words            # the evidence says which words matched


def _others(text, trait):
    return {m.field for m in other_traits_in(text_tokens(text), raw_tokens(text), trait)}


def test_names_and_cell_lines_of_other_traits_are_other_diseases():
    """The whole data file is knowledge: another trait's name or line is another disease."""
    assert _others("psoriatic arthritis", "Psoriasis") == {"Psoriatic_Arthritis"}
    assert "Glioblastoma" in _others("cell line: LN229", "Prostate_Cancer")
    assert _others("psoriatic arthritis", "Psoriatic_Arthritis") == set()
    assert _others("weight: 97.5", "Hypertension") == set()        # no all-digit "lines"
    assert cell_evidence("FaDu", trait_lexicon("Prostate_Cancer")).other_disease
    assert not cell_evidence("LNCaP", trait_lexicon("Prostate_Cancer")).other_disease


def test_cutoffs_are_guideline_thresholds_of_binary_traits():
    lexicon = load_lexicon()
    with_cutoffs = {t for t, e in lexicon.items() if e.get("cutoffs")}
    assert {"Hypertension", "Obesity", "Obstructive_sleep_apnea"} <= with_cutoffs
    for trait in with_cutoffs:
        assert lexicon[trait]["kind"] != "quantity", trait      # a quantity keeps its number
        assert trait_knowledge(trait).cutoffs                   # every entry parses
    osa = trait_knowledge("Obstructive_sleep_apnea")
    cutoff = osa.cutoff_for("apnea hyponea index")              # one slip forgiven
    assert cutoff is not None and cutoff.holds(5.0) and not cutoff.holds(4.9)
    assert osa.cutoff_for("age") is None
    assert trait_knowledge("Osteoporosis").cutoff_for("T-score").holds(-2.5)
    with pytest.raises(ValueError, match="not 'measure >= number'"):
        parse_cutoff("AHI high")


@pytest.mark.parametrize("a, b, near", [
    ("systolic", "sistolic", True), ("hypopnea", "hyponea", True), ("index", "indx", False),
    ("pressure", "pressures", True), ("diastolic", "systolic", False), ("age", "age", True),
])
def test_near_words_are_one_edit_apart_and_long_enough(a, b, near):
    assert near_word(a, b) is near and near_word(b, a) is near
