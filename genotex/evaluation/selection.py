"""Scoring the selection task (SPEC 6.1): dataset filtering and dataset selection.

* Filtering: one item per valid reference record; positive = usable. The
  prediction's record of the same cohort gives the predicted label; a missing or
  invalid file or record counts as "not usable", with that status. Scores over
  all cohorts, with a breakdown per trait.
* Selection: one item per problem; the cohort (or ordered pair) chosen on each tree
  by :mod:`genotex.evaluation.tree_selection`; correct = identical choice, scored
  over the problems where the reference selects something.

With the original evaluator's conventions (``legacy``, docs/evaluation.md
"Legacy conventions"): filtering labels are ``is_available``, the cohorts are those
of either tree, the scores are computed per trait (no positive on either side
scoring 0) and averaged over the traits; selection also scores the problems where
the reference selects nothing (correct when the prediction selects nothing too).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Sequence, Tuple

from genotex.evaluation.statuses import MALFORMED, MISSING, OK
from genotex.evaluation.summary import OVERALL, status_counts, summarize
from genotex.evaluation.tree_selection import CohortInfoState, TreeSelections
from utils.metrics import classification_metrics
from utils.problems import CATEGORIES, Problem
from utils.schemas.cohort_info import CohortRecordReading

Progress = Callable[[Iterable, int, str], Iterable]
USABLE_LABEL = "is_usable"
LEGACY_LABEL = "is_available"
#: Scores of a filtering summary that are averaged over traits with ``legacy``.
FILTERING_SCORES = ("f1", "precision", "recall", "accuracy")
COUNTS = ("tp", "fp", "fn", "tn", "n")


def positive(record: CohortRecordReading, legacy: bool) -> bool:
    """The filtering label of a record: ``is_usable``, or ``is_available`` with ``legacy``."""
    return record.is_available is True if legacy else record.is_usable


def score_filtering(pred: TreeSelections, ref: TreeSelections,
                    legacy: bool = False) -> Dict[str, Any]:
    """Dataset filtering: usable or not, for every reference cohort.

    Returns
    -------
    dict
        ``label`` (the record field classified), ``averaged_over`` (``cohorts``, or
        ``traits`` with ``legacy``), ``summary``
        (:func:`utils.metrics.classification_metrics`, counts over all cohorts),
        ``traits`` (the same per trait), ``status_counts`` and ``cohorts`` (one item
        per reference cohort; with ``legacy`` also per predicted cohort the
        reference lacks).
    """
    items = []
    reference_records = {}
    for trait, cohort, record in ref.valid_records():
        reference_records.setdefault(trait, {})[cohort] = record
    for trait, records in reference_records.items():
        state = pred.cohort_info(trait)
        for cohort, record in records.items():
            predicted, status, message = _predicted_label(pred, state, trait, cohort, legacy)
            items.append(_filtering_item(trait, cohort, positive(record, legacy), predicted,
                                         status, message))
        if legacy and state.status == OK:
            for cohort in sorted(set(state.valid) - set(records)):
                items.append(_filtering_item(
                    trait, cohort, False, positive(state.valid[cohort], True), OK,
                    f"{pred.reader.cohort_info_path(trait)}: cohort {cohort!r} is not in the "
                    "reference"))
    both_empty = 0.0 if legacy else 100.0
    by_trait = []
    for trait in reference_records:
        chosen = [i for i in items if i["trait"] == trait]
        by_trait.append({**_classify(chosen, both_empty), "trait": trait})
    summary = _classify(items, both_empty)
    if legacy:
        for score in FILTERING_SCORES:
            summary[score] = summarize(by_trait, [score])[score]["mean"]
    return {"label": LEGACY_LABEL if legacy else USABLE_LABEL,
            "averaged_over": "traits" if legacy else "cohorts", "summary": summary,
            "traits": by_trait, "status_counts": status_counts(items), "cohorts": items}


def _filtering_item(trait: str, cohort: str, reference: bool, predicted: bool, status: str,
                    message: str) -> Dict[str, Any]:
    return {"trait": trait, "cohort": cohort, "reference_positive": reference,
            "predicted_positive": predicted, "correct": predicted == reference,
            "status": status, "message": message}


def _classify(items: Sequence[Dict[str, Any]], both_empty: float) -> Dict[str, Any]:
    return classification_metrics([i["predicted_positive"] for i in items],
                                  [i["reference_positive"] for i in items], both_empty)


def _predicted_label(pred: TreeSelections, state: CohortInfoState, trait: str, cohort: str,
                     legacy: bool) -> Tuple[bool, str, str]:
    if state.status != OK:
        return False, state.status, state.message
    path = pred.reader.cohort_info_path(trait)
    if cohort in state.bad:
        return False, MALFORMED, f"{path}: record of {cohort!r}: {state.bad[cohort]}"
    if cohort not in state.valid:
        return False, MISSING, f"{path}: no record for cohort {cohort!r}"
    note = state.case_note(cohort)
    return positive(state.valid[cohort], legacy), OK, f"{path}: {note}" if note else ""


def score_dataset_selection(problems: Sequence[Problem], pred: TreeSelections,
                            ref: TreeSelections, progress: Progress,
                            legacy: bool = False) -> Dict[str, Any]:
    """Dataset selection accuracy per problem and by category.

    Parameters
    ----------
    problems : sequence of Problem
    pred, ref : TreeSelections
    progress : callable
        ``progress(iterable, total, description)`` wraps the loop (a progress bar).
    legacy : bool
        Also score the problems where the reference selects nothing.
    """
    items = []
    for problem in progress(problems, len(problems), "dataset selection"):
        reference = ref.select(problem)
        predicted = pred.select(problem)
        status, message = _selection_status(pred, problem)
        scored = reference.ok or legacy
        correct = predicted.cohorts == reference.cohorts
        items.append({
            "trait": problem.trait, "condition": problem.condition_label,
            "category": problem.category,
            "reference": "+".join(reference.cohorts) or None,
            "predicted": "+".join(predicted.cohorts) or None,
            "correct": correct if scored else None,
            "accuracy": 100.0 * correct if scored else float("nan"),
            "status": status,
            "message": message or _selection_note(pred, problem, predicted.cohorts,
                                                  predicted.reason),
        })
    summary = {}
    for category in (*CATEGORIES, OVERALL):
        chosen = [i for i in items if category in (OVERALL, i["category"])]
        summary[category] = summarize(chosen, ["accuracy"])["accuracy"]
    return {"summary": summary, "status_counts": status_counts(items), "problems": items}


def _selection_note(pred: TreeSelections, problem: Problem, cohorts: Tuple[str, ...],
                    reason: str) -> str:
    """Why nothing was selected, or which selected ids were matched despite their case."""
    if not cohorts:
        return reason
    traits = [problem.trait] + ([problem.condition] if problem.is_two_step else [])
    notes = [pred.cohort_info(trait).case_note(cohort) for trait, cohort in zip(traits, cohorts)]
    return "; ".join(note for note in notes if note)


def _selection_status(pred: TreeSelections, problem: Problem) -> Tuple[str, str]:
    """Status of a problem's prediction: its ``cohort_info.json`` files, then their
    records, then the linked tables read during selection."""
    traits: List[str] = [problem.trait] + ([problem.condition] if problem.is_two_step else [])
    states = [(trait, pred.cohort_info(trait)) for trait in traits]
    for _, state in states:
        if state.status != OK:
            return state.status, state.message
    for trait, state in states:
        if state.bad:
            cohort, reason = next(iter(state.bad.items()))
            return MALFORMED, (f"{pred.reader.cohort_info_path(trait)}: record of "
                               f"{cohort!r}: {reason}")
    errors = pred.errors(problem)
    if errors:
        return errors[0].status, str(errors[0])
    return OK, ""
