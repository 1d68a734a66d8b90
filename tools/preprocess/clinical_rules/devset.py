"""Development tooling on a corpus of curators' decisions: fit, cross-validate, score.

The corpus is a JSON-lines file of GEO series with the curators' rows and
conversions (``../shared/data/clinical_dev/cohorts.jsonl``, the "dev split";
its README gives the fields); it comes with its own scorer (``score.py``) and
a keyword baseline. This module

* reads the corpus (:func:`read_corpus`) and builds the ranking's training
  examples from it (:func:`training_examples`);
* fits the trait-row weights (:func:`fit_weights`; every trait weighs the
  same in the likelihood, :func:`trait_balanced_weights`) -- the shipped
  ``row_model.json`` is :func:`fit_weights` on the whole split;
* cross-validates by trait (:func:`cross_validate`): the traits are split
  into folds (:func:`trait_folds`: one trait per fold, or *k* folds), the
  weights are fitted on the training folds only and the held-out fold's
  series are answered with those weights; the corpus's own scorer then scores
  every answer. So a figure from here is always "fitted without the traits it
  is scored on".

Only tests, benchmarks and this module's command line read the corpus: no
method reads it at run time.

Command line::

    python -m tools.preprocess.clinical_rules.devset --corpus DIR --cv [--folds 5] [--nested]
    python -m tools.preprocess.clinical_rules.devset --corpus DIR --fit   # rewrite row_model.json
    python -m tools.preprocess.clinical_rules.devset --corpus DIR --conventions
    python -m tools.preprocess.clinical_rules.devset --corpus DIR --label-audit
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import sys
from importlib import resources
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

from tools.preprocess.clinical_rules.decisions import decide_clinical_rows, not_trait_rows
from tools.preprocess.clinical_rules.evidence import background_level
from tools.preprocess.clinical_rules.label_audit import audit_labels
from tools.preprocess.clinical_rules.ranker import (DEFAULT_L2, MODEL_FILE, Alternative,
                                                   best_alternative, score_alternatives,
                                                   RowModel, alternatives, fit_row_model)
from tools.preprocess.clinical_rules.row_scores import choose_age_row, choose_gender_row
from tools.preprocess.clinical_rules.values import infer_clinical_values
from utils.errors import InputFileError
from utils.io import atomic_write_text

logger = logging.getLogger(__name__)

CORPUS_FILE = "cohorts.jsonl"
SCORER_FILE = "score.py"
BASELINE_FILE = "keyword_baseline.py"
#: Subsets the corpus's scorer knows.
SUBSETS = ("all", "clean", "verified")

Record = Dict[str, Any]
Example = Tuple[List[Alternative], int]


def read_corpus(path: Path, subset: str = "clean") -> List[Record]:
    """The corpus records of ``subset`` (the scorer's definition).

    Raises
    ------
    InputFileError
        When the file is missing or a line is not a JSON object.
    """
    if subset not in SUBSETS:
        raise ValueError(f"subset must be one of {', '.join(SUBSETS)}, not {subset!r}")
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "corpus file not found")
    records = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputFileError(path, f"line {number} is not JSON ({exc.msg})") from exc
            if not isinstance(record, dict):
                raise InputFileError(path, f"line {number} is not a JSON object")
            if subset == "clean" and record.get("label_quality") != "clean":
                continue
            if subset == "verified" and not record.get("verified_by_preview"):
                continue
            records.append(record)
    return records


def characteristics_of(record: Record) -> Dict[int, List[Any]]:
    """A record's characteristics dictionary with integer rows (as the scorer passes it)."""
    return {int(row): list(values) for row, values in record["characteristics"].items()}


def trait_folds(records: Sequence[Record], n_folds: Optional[int] = None
                ) -> List[FrozenSet[str]]:
    """Folds of traits: one trait per fold (None), or ``n_folds`` folds.

    With ``n_folds``, the traits in name order are dealt round-robin, so the
    folds are the same on every machine and every run.
    """
    traits = sorted({r["trait"] for r in records})
    if n_folds is None or n_folds >= len(traits):
        return [frozenset({t}) for t in traits]
    if n_folds < 2:
        raise ValueError("n_folds must be at least 2")
    return [frozenset(traits[i::n_folds]) for i in range(n_folds)]


def series_alternatives(characteristics: Dict[int, List[Any]], trait: str, background: str
                        ) -> List[Alternative]:
    """The ranking's alternatives of one series, as :func:`decide_clinical_rows` sees them."""
    age_row, _ = choose_age_row(characteristics)
    gender_row, gender_scores = choose_gender_row(characteristics, age_row, trait, background)
    exclude = not_trait_rows(characteristics, age_row, gender_row, gender_scores)
    return alternatives(characteristics, trait, background, exclude,
                        background_level(background, trait))


def training_examples(records: Sequence[Record]) -> List[Example]:
    """``(alternatives, index of the curator's choice)`` of every usable record.

    A record whose curator chose a row the rules never offer (an age or sex
    row) teaches nothing and is left out.
    """
    examples = []
    for record in records:
        options = series_alternatives(characteristics_of(record), record["trait"],
                                      record.get("background") or "")
        rows = [option.row for option in options]
        if record.get("trait_row") in rows:
            examples.append((options, rows.index(record["trait_row"])))
    return examples


def trait_balanced_weights(traits: Sequence[str]) -> List[float]:
    """One weight per example so that every trait weighs the same in the fit.

    Each example weighs ``1 / (examples of its trait)``, scaled so that the
    weights average 1 (the L2 penalty keeps its scale). Without it the traits
    with many series (1 to 10 per trait on the dev split) would set the weights
    that must answer traits never seen.
    """
    counts: Dict[str, int] = {}
    for trait in traits:
        counts[trait] = counts.get(trait, 0) + 1
    raw = [1.0 / counts[trait] for trait in traits]
    scale = len(raw) / sum(raw) if raw else 1.0
    return [w * scale for w in raw]


def _fit(pairs: Sequence[Tuple[Record, Example]], l2: float, fitted_on: str,
         balance: bool) -> RowModel:
    examples = [example for _, example in pairs]
    weights = (trait_balanced_weights([record["trait"] for record, _ in pairs])
               if balance else None)
    return fit_row_model(examples, l2=l2, fitted_on=fitted_on, example_weights=weights)


def fit_weights(records: Sequence[Record], l2: float = DEFAULT_L2, fitted_on: str = "",
                balance: bool = True) -> RowModel:
    """The ranking weights fitted to the curators' choices of ``records``.

    With ``balance`` (the default) every trait weighs the same
    (:func:`trait_balanced_weights`); otherwise every series does.
    """
    pairs = [(r, e) for r, e in zip(records, _examples_by_record(records)) if e is not None]
    return _fit(pairs, l2, fitted_on, balance)


def cross_validated_models(records: Sequence[Record], folds: Sequence[FrozenSet[str]],
                           l2: float = DEFAULT_L2, balance: bool = True,
                           l2_grid: Optional[Sequence[float]] = None) -> Dict[str, RowModel]:
    """``{trait: weights fitted without the trait's fold}`` -- the held-out models.

    With ``l2_grid`` the penalty too is chosen without the fold: by
    :func:`select_l2` on the training traits only (nested cross-validation);
    ``l2`` is then ignored.
    """
    examples = {id(r): e for r, e in zip(records, _examples_by_record(records))}
    models: Dict[str, RowModel] = {}
    for fold in folds:
        kept = [r for r in records if r["trait"] not in fold]
        penalty = l2 if l2_grid is None else select_l2(kept, l2_grid, balance=balance,
                                                        examples=examples)
        training = [(r, examples[id(r)]) for r in kept if examples[id(r)] is not None]
        model = _fit(training, penalty, f"dev split without {', '.join(sorted(fold))}", balance)
        for trait in fold:
            models[trait] = model
    return models


#: Penalties :func:`select_l2` chooses from by default.
L2_GRID = (1.0, 2.0, 3.0, 4.0)
#: Folds of traits of the inner cross-validation of :func:`select_l2`.
INNER_FOLDS = 5


def select_l2(records: Sequence[Record], grid: Sequence[float] = L2_GRID,
              n_folds: int = INNER_FOLDS, balance: bool = True,
              examples: Optional[Dict[int, Optional[Example]]] = None) -> float:
    """The penalty of ``grid`` whose weights choose the curators' trait rows best.

    Cross-validation by trait within ``records`` (``n_folds`` folds of
    traits, :func:`trait_folds`); the score is the share of series whose
    trait row (or "no row") the ranking gets right. Ties go to the smaller
    penalty. ``examples`` (``{id(record): example}``) saves rebuilding them.
    """
    if examples is None:
        examples = {id(r): e for r, e in zip(records, _examples_by_record(records))}
    folds = trait_folds(records, n_folds)
    best, best_hits = grid[0], -1
    for penalty in grid:
        hits = 0
        for fold in folds:
            training = [(r, examples[id(r)]) for r in records
                        if r["trait"] not in fold and examples[id(r)] is not None]
            model = _fit(training, penalty, "", balance)
            hits += sum(_ranked_row(examples[id(r)], model) == r.get("trait_row")
                        for r in records if r["trait"] in fold and examples[id(r)] is not None)
        if hits > best_hits:
            best, best_hits = penalty, hits
    return best


def _ranked_row(example: Example, model: RowModel) -> Any:
    options, _ = example
    return best_alternative(score_alternatives(options, model)).row


def _examples_by_record(records: Sequence[Record]) -> List[Optional[Example]]:
    out: List[Optional[Example]] = []
    for record in records:
        examples = training_examples([record])
        out.append(examples[0] if examples else None)
    return out


@dataclass
class HeldOutRules:
    """The contract's two functions answering each trait with its held-out weights.

    ``rows`` and ``values`` have the scorer's interface; ``rows`` raises for a
    trait that has no held-out model (a trait not in the folds).
    """

    models: Dict[str, RowModel]

    def rows(self, characteristics: Dict[int, List[Any]], trait: str, background: str) -> dict:
        """``infer_clinical_rows`` with the weights fitted without ``trait``."""
        return decide_clinical_rows(characteristics, trait, background,
                                    self.models[trait]).rows()

    @staticmethod
    def values(feature: str, values: List[str], trait: str, background: str) -> list:
        """``infer_clinical_values`` (conversions have no fitted parameters)."""
        return infer_clinical_values(feature, values, trait, background)


def load_module(path: Path) -> ModuleType:
    """Import a Python file by path (the corpus's scorer or baseline)."""
    path = Path(path)
    if not path.is_file():
        raise InputFileError(path, "file not found")
    spec = importlib.util.spec_from_file_location(f"_devset_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def score(scorer: ModuleType, records: Sequence[Record], rows_fn: Callable,
          values_fn: Callable) -> Dict[str, Any]:
    """Run the corpus's scorer; ``{"overall", "by_category", "errors"}`` summaries."""
    overall, by_category, errors, _ = scorer.evaluate(list(records), rows_fn, values_fn,
                                                      0, False)
    return {"overall": overall.summary(),
            "by_category": {k: v.summary() for k, v in sorted(by_category.items())},
            "errors": errors}


def cross_validate(scorer: ModuleType, records: Sequence[Record],
                   n_folds: Optional[int] = None, l2: float = DEFAULT_L2,
                   balance: bool = True, l2_grid: Optional[Sequence[float]] = None
                   ) -> Dict[str, Any]:
    """The scorer's figures with every trait answered by weights fitted without it.

    ``l2_grid``: choose the penalty inside each fold too (nested, :func:`select_l2`).
    """
    rules = held_out_rules(records, n_folds, l2, balance, l2_grid)
    return score(scorer, records, rules.rows, rules.values)


def held_out_rules(records: Sequence[Record], n_folds: Optional[int] = None,
                   l2: float = DEFAULT_L2, balance: bool = True,
                   l2_grid: Optional[Sequence[float]] = None) -> HeldOutRules:
    """The rules answering each trait of ``records`` with weights fitted without it.

    The arguments are those of :func:`cross_validate`, which scores them on
    every record; score them on part of the records (say, one trait
    category, or the cohorts the curators judged usable) with :func:`score`.
    """
    return HeldOutRules(cross_validated_models(records, trait_folds(records, n_folds), l2,
                                               balance, l2_grid))


#: The curators' verdicts on a cohort's usability, as :func:`usability_groups` names them.
USABILITY_GROUPS = ("usable", "not usable", "no verdict")


def usability_groups(records: Sequence[Record]) -> Dict[str, List[Record]]:
    """The records by the curators' verdict on the cohort (``usable``: True / False / None).

    A cohort judged not usable (a biased trait, no gene data) never enters a
    benchmark problem, so its rows matter less to the benchmark than the
    usable cohorts' rows do.
    """
    verdicts = {True: "usable", False: "not usable", None: "no verdict"}
    groups: Dict[str, List[Record]] = {name: [] for name in USABILITY_GROUPS}
    for record in records:
        groups[verdicts[record.get("usable")]].append(record)
    return groups


def headline(summary: Dict[str, Any]) -> Dict[str, float]:
    """The figures of the targets: trait / age / gender rows, trait values, all rows."""
    overall = summary["overall"]
    return {"trait_row": overall["trait"]["row_accuracy"],
            "trait_values": overall["trait"]["conversion_value_accuracy"],
            "age_row": overall["age"]["row_accuracy"],
            "gender_row": overall["gender"]["row_accuracy"],
            "all_rows": overall["all_rows_accuracy"]}


def convention_counts(records: Sequence[Record]) -> Dict[str, int]:
    """How often the curators took each decision the conventions describe.

    The counts of ``docs/preprocessing_clinical.md`` ("The curators' conventions"):
    which row won when a row says every sample has the trait, constant rows,
    the keys of the chosen rows, measured traits, other diseases in the trait
    row, age and sex rows and spellings.
    """
    from collections import Counter

    from tools.preprocess.clinical import split_key_value
    from tools.preprocess.clinical_rules.features import profile_row, says_all_cases
    from tools.preprocess.clinical_rules.knowledge import trait_knowledge
    from tools.preprocess.clinical_rules.quantities import (age_key_class, is_sex_key,
                                                            text_states_sex)
    from tools.preprocess.clinical_rules.row_scores import (age_row_score, gender_row_score,
                                                            is_constant, mixes_keys,
                                                            one_sex_rows)

    counts: Counter = Counter()
    for record in records:
        chars = characteristics_of(record)
        trait, background = record["trait"], record.get("background") or ""
        gold = record.get("trait_row")
        profiles = {row: profile_row(row, values, trait, background)
                    for row, values in chars.items()}
        counts["series"] += 1
        counts["trait row: none" if gold is None else "trait row: a row"] += 1
        if gold is not None:
            chosen = profiles[gold]
            if chosen.n_values == 1:
                counts["trait row: constant (one value for every sample)"] += 1
            for category in sorted(chosen.categories):
                counts[f"trait row key: {category}"] += 1
            if trait_knowledge(trait).is_quantity:
                counts["measured trait: numeric row" if chosen.numeric
                       else "measured trait: row of words (high / low, groups)"] += 1
        for row, profile in profiles.items():
            if profile.n_values == 1 and profile.best_level >= 3 \
                    and row not in (record.get("age_row"), record.get("gender_row")):
                counts["constant row naming the trait: " + (
                    "chosen" if gold == row else "no row chosen" if gold is None
                    else "another row chosen")] += 1
        all_cases = [row for row, p in profiles.items() if says_all_cases(p)]
        if all_cases:
            counts["a row says every value is a case: " + (
                "that row chosen" if gold in all_cases else "no row chosen" if gold is None
                else "a row splitting the cases chosen")] += 1
        conversion = (record.get("conversions") or {}).get("trait")
        if conversion and gold is not None:
            cells = {c.cell: c for c in profiles[gold].cells}
            for value, converted, failed in zip(conversion["values"], conversion["converted"],
                                                conversion["failed"]):
                cell = cells.get(value) if isinstance(value, str) and not failed else None
                if cell is not None and cell.evidence.other_disease and cell.label != 1.0:
                    counts[f"another disease in the trait row -> {converted}"] += 1
        age_row, _ = choose_age_row(chars)
        sex_rows = [r for r, v in chars.items() if gender_row_score(v) is not None]
        one_sex = one_sex_rows(chars, sex_rows)
        for row, values in chars.items():
            chosen = "chosen" if record.get("gender_row") == row else "not chosen"
            if row in sex_rows and is_constant(values):
                counts["constant sex row: " + chosen] += 1
                explained = (trait_knowledge(trait).sex is not None
                             or text_states_sex(background))
                context = ("no age row" if age_row is None else
                           "beside an age row, the trait or the text names the sex"
                           if explained else "beside an age row, nothing names the sex")
                counts[f"constant sex row ({context}): {chosen}"] += 1
            elif row in one_sex and len(sex_rows) == len(one_sex) and mixes_keys(values):
                counts["row mixing keys naming one sex, no other sex row: " + chosen] += 1
            if age_row_score(values) is not None and is_constant(values):
                counts["constant age row: " + ("chosen" if record.get("age_row") == row
                                               else "not chosen")] += 1
        for feature in ("age", "gender"):
            conversion = (record.get("conversions") or {}).get(feature)
            if not conversion:
                continue
            for value, converted in zip(conversion["values"], conversion["converted"]):
                if not isinstance(value, str):
                    continue
                key, text = split_key_value(value)
                text = (text or "").strip().lower()
                if feature == "gender" and (is_sex_key(key) or not age_key_class(key)):
                    if len(text) <= 8 and not any(ch.isdigit() for ch in text[:1]):
                        counts[f"sex spelling {text!r} -> {converted}"] += 1
                    elif text[:1].isdigit() and text[-1:] in ("f", "m"):
                        counts[f"sex in an age-and-sex cell -> {converted}"] += 1
                if feature == "age" and "month" in (key + text).lower():
                    counts[f"age in months -> {converted}"] += 1
    return dict(sorted(counts.items()))


def build_parser() -> argparse.ArgumentParser:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(
        description="Fit or cross-validate the clinical rules on a corpus of curators' "
                    "decisions (the dev split).")
    parser.add_argument("--corpus", required=True, type=Path, metavar="DIR",
                        help=f"folder holding {CORPUS_FILE} and {SCORER_FILE}")
    parser.add_argument("--subset", default="clean", choices=SUBSETS,
                        help="records to use (default: clean)")
    parser.add_argument("--folds", type=int, default=None,
                        help="folds of traits for --cv (default: one trait per fold)")
    parser.add_argument("--out", type=Path, default=None, metavar="FILE",
                        help=f"with --fit: where to write the weights (default: the "
                             f"package's {MODEL_FILE})")
    parser.add_argument("--l2", type=float, default=DEFAULT_L2,
                        help=f"L2 penalty of the weights (default: {DEFAULT_L2})")
    parser.add_argument("--nested", action="store_true",
                        help=f"with --cv: choose the L2 penalty inside each fold from "
                             f"{', '.join(map(str, L2_GRID))} by {INNER_FOLDS}-fold "
                             f"cross-validation on the fold's training traits (--l2 ignored)")
    parser.add_argument("--per-series", action="store_true",
                        help="weigh every series the same in the fit (default: every "
                             "trait the same)")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--cv", action="store_true",
                        help="print the cross-validated headline figures")
    action.add_argument("--fit", action="store_true",
                        help=f"fit on the whole subset and rewrite the package's {MODEL_FILE}")
    action.add_argument("--conventions", action="store_true",
                        help="print how often the curators took each conventional decision")
    action.add_argument("--label-audit", action="store_true",
                        help="print the decisions the corpus itself contradicts: series "
                             "with identical characteristics but different rows, and "
                             "rows in which nothing reads as their feature")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point; 0 on success, 2 on bad input."""
    args = build_parser().parse_args(argv)
    try:
        records = read_corpus(args.corpus / CORPUS_FILE, args.subset)
        if args.fit:
            traits = sorted({r["trait"] for r in records})
            model = fit_weights(records, args.l2, fitted_on=(
                f"{CORPUS_FILE} ({args.subset}: {len(records)} series, {len(traits)} traits)"),
                balance=not args.per_series)
            target = args.out or Path(str(resources.files(
                "tools.preprocess.clinical_rules").joinpath(MODEL_FILE)))
            atomic_write_text(target, model.to_json())
            print(f"wrote {target}")
            return 0
        if args.conventions:
            for name, count in convention_counts(records).items():
                print(f"{count:5d}  {name}")
            return 0
        if args.label_audit:
            findings = audit_labels(records)
            for finding in findings:
                print(finding.describe())
            print(f"{len(findings)} finding(s) in {len(records)} series")
            return 0
        summary = cross_validate(load_module(args.corpus / SCORER_FILE), records,
                                 args.folds, args.l2, balance=not args.per_series,
                                 l2_grid=L2_GRID if args.nested else None)
    except InputFileError as exc:
        print(f"devset: error: {exc}", file=sys.stderr)
        return 2
    for name, value in headline(summary).items():
        print(f"{name:13s} {100 * value:5.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
