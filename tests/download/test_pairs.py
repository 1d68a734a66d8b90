"""Pair selection (download/pairs.py, download/select_pairs.py)."""

from __future__ import annotations

import json

import pytest
from tests.conftest import shared_file

from download import select_pairs
from download.pairs import (PairRules, build_task_info, compare_conditions, jaccard,
                            select_conditions, threshold_sweep)


def genes(*names: str) -> list[str]:
    return list(names)


def rules(threshold: float = 0.1, **kw) -> PairRules:
    return PairRules(threshold=threshold, cancers=frozenset({"Lung_Cancer", "Breast_Cancer",
                                                             "Prostate_Cancer",
                                                             "Ovarian_Cancer"}), **kw)


TOY = {
    # Asthma/Eczema share 1 of 10 genes (J = 0.1 exactly); Asthma/Lupus 0
    "Asthma": genes("A", "B", "C", "D", "E", "F"),
    "Eczema": genes("A", "X1", "X2", "X3", "X4"),
    "Lupus": genes("L1"),
    "Obesity": genes("O1"),
    "Hypertension": genes("H1"),
    "Lung_Cancer": genes("K", "M"),
    "Breast_Cancer": genes("K", "M"),            # identical to Lung_Cancer: cancer x cancer
    "Prostate_Cancer": genes("P", "Q"),          # male
    "Ovarian_Cancer": genes("P", "Q"),           # female: never with Prostate_Cancer
    "Endometriosis": genes("P", "Q"),            # female, not a cancer here
    "LDL_Cholesterol_Levels": genes("A", "B", "C", "D", "E", "F"),
}


def test_rules_on_a_toy_set():
    chosen = select_conditions(TOY, rules())
    assert chosen["LDL_Cholesterol_Levels"] == []                  # condition-only entity
    # LDL is identical to Asthma (J = 1) so it is Asthma's first trait condition;
    # Eczema (J = 0.1) is kept by the inclusive rule
    assert chosen["Asthma"] == ["Age", "Gender", "LDL_Cholesterol_Levels", "Eczema",
                                "Hypertension", "Obesity"]
    assert chosen["Lupus"] == ["Age", "Gender", "Hypertension", "Obesity"]
    assert "Breast_Cancer" not in chosen["Lung_Cancer"]            # no cancer x cancer
    assert chosen["Prostate_Cancer"] == ["Age", "Hypertension", "Obesity"]  # no Gender
    assert chosen["Endometriosis"][:1] == ["Age"] and "Gender" not in chosen["Endometriosis"]
    assert "Prostate_Cancer" not in chosen["Endometriosis"]        # never across sexes
    assert "Endometriosis" in chosen["Ovarian_Cancer"]             # same sex, J = 1
    assert chosen["Obesity"] == ["Age", "Gender", "Hypertension"]
    assert chosen["Hypertension"] == ["Age", "Gender", "Obesity"]


def test_strict_threshold_drops_the_tie():
    assert "Eczema" not in select_conditions(TOY, rules(inclusive=False))["Asthma"]
    assert "Eczema" not in select_conditions(TOY, rules(threshold=0.2))["Asthma"]


def test_jaccard_and_exact_comparison():
    assert jaccard(frozenset(), frozenset()) == 0.0
    assert jaccard(frozenset("ab"), frozenset("bc")) == pytest.approx(1 / 3)
    # 24/240 is exactly 0.1: rational comparison keeps it, float noise cannot drop it
    assert PairRules(threshold=0.1).passes(24, 240)
    assert not PairRules(threshold=0.1, inclusive=False).passes(24, 240)
    assert not PairRules().passes(0, 0)


def test_build_task_info_shape():
    info = build_task_info(TOY, rules())
    assert set(info) == set(TOY)
    assert info["Asthma"]["related_genes"] == TOY["Asthma"]
    assert list(info["Asthma"]) == ["related_genes", "conditions"]


# --- reproduction of the real benchmark (132 traits, 1,252 conditions) ------------------
# Golden numbers derived by running select_conditions on the related_genes of
# ../shared/data/opentargets/genomas_task_info.json with utils/data/cancer_traits.txt and
# comparing the ordered (trait, condition) pairs with the file's own conditions.
# The 1,252 = Age 130 + Gender 121 + Obesity 129 + Hypertension 129 + 743 trait pairs.
GOLDEN = {  # threshold: (computed conditions, reproduced of 1,252, extra)
    0.05: (2171, 1252, 919),
    0.08: (1483, 1252, 231),
    0.09: (1356, 1252, 104),
    0.1: (1252, 1252, 0),
    0.11: (1180, 1180, 0),
    0.15: (921, 921, 0),
    0.2: (744, 744, 0),
    0.3: (579, 579, 0),
}


@pytest.fixture(scope="module")
def real():
    path = shared_file("opentargets/genomas_task_info.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    related = {t: e["related_genes"] for t, e in data.items()}
    reference = {t: e["conditions"] for t, e in data.items()}
    return path, related, reference


def test_threshold_sweep_on_the_real_task_info(real):
    _, related, reference = real
    rows = threshold_sweep(related, reference, sorted(GOLDEN))
    got = {t: (c.predicted, c.reproduced, c.extra) for t, c in rows}
    assert got == GOLDEN
    assert all(c.reference == 1252 for _, c in rows)


def test_strict_reading_loses_exactly_the_tie_pairs(real):
    _, related, reference = real
    strict = select_conditions(related, PairRules(threshold=0.1, inclusive=False))
    cmp = compare_conditions(strict, reference)
    assert (cmp.predicted, cmp.reproduced, cmp.missing) == (1250, 1250, 2)
    assert "Congestive_heart_failure" not in strict["Chronic_kidney_disease"]


def test_default_rules_reproduce_lists_up_to_tie_order(real):
    _, related, reference = real
    ours = select_conditions(related)
    genes = {t: frozenset(g) for t, g in related.items()}
    identical = 0
    for trait, conditions in reference.items():
        assert set(ours[trait]) == set(conditions)
        demographic = [c for c in ours[trait] if c in ("Age", "Gender")]
        assert ours[trait][:len(demographic)] == demographic           # Age/Gender first
        mine = [c for c in ours[trait] if c not in ("Age", "Gender")]
        theirs = [c for c in conditions if c not in ("Age", "Gender")]
        # the benchmark orders by decreasing Jaccard too; only ties may differ
        assert [jaccard(genes[trait], genes[c]) for c in mine] == \
            [jaccard(genes[trait], genes[c]) for c in theirs]
        identical += mine == theirs
    assert identical == 115  # of 130 traits with conditions; 15 differ in tie order only


def test_cli_reports_and_writes(real, tmp_path, capsys):
    path, _, _ = real
    out = tmp_path / "task_info.json"
    code = select_pairs.main(["--task-info", str(path), "--compare", str(path),
                              "--sweep", "0.1", "0.2", "--output", str(out)])
    text = capsys.readouterr().out
    assert code == 0
    assert "reproduced 1252 of 1252 (recall 100.0%), 0 extra" in text
    assert "| 0.2 | 744 | 744 / 1252 | 59.4% | 0 | 100.0% |" in text
    written = json.loads(out.read_text(encoding="utf-8"))
    assert len(written) == 132 and sum(len(e["conditions"]) for e in written.values()) == 1252


def test_cli_bad_input_is_reported(tmp_path, capsys):
    bad = tmp_path / "t.json"
    bad.write_text("{not json")
    assert select_pairs.main(["--task-info", str(bad), "--dry-run"]) == 2
    assert "t.json:1: invalid JSON" in capsys.readouterr().err
