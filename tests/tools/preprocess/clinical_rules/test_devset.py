"""Cross-validation by trait on the development split (:mod:`...clinical_rules.devset`).

The split is ``../shared/data/clinical_dev`` (233 real GEO series of 41 traits
with the GenoTEX curators' decisions, its scorer and a keyword baseline); the
tests that read it skip when it is absent. Every figure here is
cross-validated: the ranking weights that answer a trait were fitted without
that trait (leave one trait out).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, shared_file
from tools.preprocess.clinical_rules import devset
from utils.errors import InputFileError

#: The issue's targets (share of the clean subset, cross-validated by trait).
TARGETS = {"trait_row": 0.75, "trait_values": 0.75, "age_row": 0.97, "gender_row": 0.97,
           "all_rows": 0.65}
#: Targets the rules do not reach yet, with the figure measured when this was
#: written (leave one trait out, clean subset). Strict: reaching one fails the
#: test, so that the list is updated.
UNMET = {"trait_row": "73.1 %", "gender_row": "96.3 %"}
#: Regression floors (a little under the measured figures).
FLOORS = {"trait_row": 0.72, "trait_values": 0.82, "age_row": 0.97, "gender_row": 0.96,
          "all_rows": 0.69}
#: Figures that must never fall below the keyword baseline's.
VERSUS_BASELINE = ("trait_row", "trait_values", "age_row", "gender_row")


@pytest.fixture(scope="module")
def dev_dir() -> Path:
    return shared_file("clinical_dev/cohorts.jsonl").parent


@pytest.fixture(scope="module")
def records(dev_dir):
    return devset.read_corpus(dev_dir / devset.CORPUS_FILE, "clean")


@pytest.fixture(scope="module")
def scorer(dev_dir):
    return devset.load_module(dev_dir / devset.SCORER_FILE)


@pytest.fixture(scope="module")
def cross_validated_summary(scorer, records):
    return devset.cross_validate(scorer, records)


@pytest.fixture(scope="module")
def cross_validated(cross_validated_summary):
    return devset.headline(cross_validated_summary)


@pytest.fixture(scope="module")
def baseline_summary(dev_dir, scorer, records):
    module = devset.load_module(dev_dir / devset.BASELINE_FILE)
    return devset.score(scorer, records, module.pick_rows, module.convert)


@pytest.fixture(scope="module")
def baseline(baseline_summary):
    return devset.headline(baseline_summary)


@pytest.mark.slow
@pytest.mark.parametrize("metric", sorted(TARGETS))
def test_cross_validated_figures_reach_the_targets(cross_validated, metric):
    reached = cross_validated[metric] >= TARGETS[metric]
    if metric in UNMET:
        assert not reached, f"{metric} now reaches its target: take it out of UNMET"
        pytest.xfail(f"target {TARGETS[metric]:.0%} not reached: {UNMET[metric]} measured")
    assert reached, cross_validated


@pytest.mark.slow
def test_cross_validated_figures_stay_above_their_floors(cross_validated):
    for metric, floor in FLOORS.items():
        assert cross_validated[metric] >= floor, (metric, cross_validated)


@pytest.mark.slow
def test_never_below_the_keyword_baseline(cross_validated, baseline):
    for metric in VERSUS_BASELINE:
        assert cross_validated[metric] >= baseline[metric], (metric, cross_validated, baseline)


@pytest.mark.slow
@pytest.mark.parametrize("feature", ["age", "gender"])
def test_age_and_sex_rows_never_below_the_keyword_baseline_in_any_category(
        cross_validated_summary, baseline_summary, feature):
    """Per trait category too: a sex-row convention that wins overall by losing one
    category's curators (constant sex rows beside an age row) does not pass."""
    for category, summary in cross_validated_summary["by_category"].items():
        ours = summary[feature]["row_accuracy"]
        theirs = baseline_summary["by_category"][category][feature]["row_accuracy"]
        assert ours >= theirs, (category, ours, theirs)


@pytest.mark.slow
def test_held_out_weights_never_saw_their_trait(records):
    folds = devset.trait_folds(records)
    assert len(folds) == len({r["trait"] for r in records}) == 41
    models = devset.cross_validated_models(records, folds[:2])
    for fold in folds[:2]:
        (trait,) = fold
        assert models[trait].fitted_on == f"dev split without {trait}"
    whole = devset.fit_weights(records)
    assert models[next(iter(folds[0]))].weights != whole.weights


@pytest.mark.slow
def test_nested_cross_validation_chooses_the_penalty_without_the_held_out_trait(records):
    folds = devset.trait_folds(records)
    held_out = next(iter(folds[0]))
    # a penalty far too strong chooses the rows worse on the training traits
    assert devset.select_l2([r for r in records if r["trait"] != held_out],
                            grid=(1e4, 2.0)) == 2.0
    models = devset.cross_validated_models(records, folds[:1], l2=1e4, l2_grid=(3.0,))
    assert models[held_out].l2 == 3.0                       # the grid's, not ``l2``
    assert models[held_out].fitted_on == f"dev split without {held_out}"


def test_the_shipped_weights_are_the_whole_split_fit(records):
    """row_model.json is fit_weights on the clean subset (regenerate with --fit)."""
    shipped = json.loads((REPO_ROOT / "tools" / "preprocess" / "clinical_rules"
                          / "row_model.json").read_text("utf-8"))
    fitted = json.loads(devset.fit_weights(records, fitted_on=shipped["fitted_on"]).to_json())
    assert fitted["weights"] == pytest.approx(shipped["weights"], abs=1e-4)


def test_trait_balanced_weights_give_every_trait_the_same_share():
    weights = devset.trait_balanced_weights(["A", "A", "A", "B"])
    assert weights == pytest.approx([2 / 3, 2 / 3, 2 / 3, 2.0])   # 1/3, 1/3, 1/3, 1 scaled
    assert sum(weights[:3]) == pytest.approx(weights[3])           # trait A = trait B
    assert sum(weights) == pytest.approx(4)                        # mean 1: the L2 keeps its scale
    assert devset.trait_balanced_weights([]) == []


def test_trait_folds_are_fixed():
    records = [{"trait": t} for t in ("B", "A", "C", "D", "A")]
    assert devset.trait_folds(records) == [frozenset({t}) for t in "ABCD"]
    assert devset.trait_folds(records, 2) == [frozenset({"A", "C"}), frozenset({"B", "D"})]
    with pytest.raises(ValueError):
        devset.trait_folds(records, 1)


def test_read_corpus_names_the_file_and_line(tmp_path):
    path = tmp_path / "cohorts.jsonl"
    path.write_text('{"trait": "A", "label_quality": "clean"}\n{"trait": "B", '
                    '"label_quality": "suspect"}\nnot json\n', encoding="utf-8")
    with pytest.raises(InputFileError, match=r"cohorts.jsonl.*line 3"):
        devset.read_corpus(path, "all")
    path.write_text('{"trait": "A", "label_quality": "clean"}\n{"trait": "B", '
                    '"label_quality": "suspect"}\n', encoding="utf-8")
    assert [r["trait"] for r in devset.read_corpus(path, "clean")] == ["A"]
    assert len(devset.read_corpus(path, "all")) == 2
    with pytest.raises(InputFileError, match="not found"):
        devset.read_corpus(tmp_path / "missing.jsonl")


def test_no_method_module_reads_the_dev_split():
    """Only devset.py (tooling), tests and benchmarks may name the development split."""
    offenders = []
    for folder in ("tools", "genotex", "utils", "download"):
        for path in (REPO_ROOT / folder).rglob("*.py"):
            if path.name != "devset.py" and "clinical_dev" in path.read_text("utf-8"):
                offenders.append(str(path.relative_to(REPO_ROOT)))
    assert offenders == []


def _tiny_corpus(folder: Path) -> Path:
    """Two hand-written series of two traits, in the split's format."""
    records = [
        {"trait": "Asthma", "label_quality": "clean", "background": "",
         "characteristics": {"0": ["tissue: airway"], "1": ["Sex: F", "Sex: M"],
                             "2": ["disease: asthma", "disease: healthy control"]},
         "trait_row": 2, "age_row": None, "gender_row": 1},
        {"trait": "Migraine", "label_quality": "clean", "background": "",
         "characteristics": {"0": ["group: migraine", "group: control"],
                             "1": ["age: 31", "age: 45"]},
         "trait_row": 0, "age_row": 1, "gender_row": None,
         "conversions": {"gender": {"values": [], "converted": [], "failed": []}}},
    ]
    (folder / devset.CORPUS_FILE).write_text(
        "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


def test_the_command_line_fits_to_a_chosen_file_and_counts_conventions(tmp_path, capsys):
    corpus = _tiny_corpus(tmp_path)
    out = tmp_path / "weights.json"
    assert devset.main(["--corpus", str(corpus), "--fit", "--out", str(out)]) == 0
    model = json.loads(out.read_text("utf-8"))
    assert model["fitted_on"].startswith("cohorts.jsonl (clean: 2 series, 2 traits)")
    assert devset.main(["--corpus", str(corpus), "--conventions"]) == 0
    printed = capsys.readouterr().out
    assert "2  series" in printed and "trait row key: disease" in printed
    assert devset.main(["--corpus", str(tmp_path / "absent"), "--conventions"]) == 2
