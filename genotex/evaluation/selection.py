"""Scoring the selection task (SPEC 6.1): dataset filtering and dataset selection.

* Filtering: one item per valid reference record; positive = usable. The
  prediction's record of the same cohort gives the predicted label; a missing or
  invalid file or record counts as "not usable", with that status.
* Selection: one item per problem; the cohort (or ordered pair) chosen on each tree
  by :mod:`genotex.evaluation.tree_selection`; correct = identical choice, scored
  over the problems where the reference selects something.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Sequence, Tuple

from genotex.evaluation.statuses import MALFORMED, MISSING, OK
from genotex.evaluation.summary import OVERALL, status_counts, summarize
from genotex.evaluation.tree_selection import CohortInfoState, TreeSelections
from utils.metrics import classification_metrics
from utils.problems import CATEGORIES, Problem

Progress = Callable[[Iterable, int, str], Iterable]


def score_filtering(pred: TreeSelections, ref: TreeSelections) -> Dict[str, Any]:
    """Dataset filtering: usable or not, for every reference cohort.

    Returns
    -------
    dict
        ``summary`` (:func:`utils.metrics.classification_metrics`),
        ``status_counts`` and ``cohorts`` (one item per reference cohort).
    """
    items = []
    for trait, cohort, record in ref.valid_records():
        predicted, status, message = _predicted_usable(pred, pred.cohort_info(trait), trait,
                                                       cohort)
        items.append({"trait": trait, "cohort": cohort, "reference_usable": record.is_usable,
                      "predicted_usable": predicted, "correct": predicted == record.is_usable,
                      "status": status, "message": message})
    scores = classification_metrics([i["predicted_usable"] for i in items],
                                    [i["reference_usable"] for i in items])
    return {"summary": scores, "status_counts": status_counts(items), "cohorts": items}


def _predicted_usable(pred: TreeSelections, state: CohortInfoState, trait: str,
                      cohort: str) -> Tuple[bool, str, str]:
    if state.status != OK:
        return False, state.status, state.message
    path = pred.reader.cohort_info_path(trait)
    if cohort in state.bad:
        return False, MALFORMED, f"{path}: record of {cohort!r}: {state.bad[cohort]}"
    if cohort not in state.valid:
        return False, MISSING, f"{path}: no record for cohort {cohort!r}"
    return state.valid[cohort].is_usable, OK, ""


def score_dataset_selection(problems: Sequence[Problem], pred: TreeSelections,
                            ref: TreeSelections, progress: Progress) -> Dict[str, Any]:
    """Dataset selection accuracy per problem and by category.

    Parameters
    ----------
    problems : sequence of Problem
    pred, ref : TreeSelections
    progress : callable
        ``progress(iterable, total, description)`` wraps the loop (a progress bar).
    """
    items = []
    for problem in progress(problems, len(problems), "dataset selection"):
        reference = ref.select(problem)
        predicted = pred.select(problem)
        status, message = _selection_status(pred, problem)
        scored = reference.ok
        items.append({
            "trait": problem.trait, "condition": problem.condition_label,
            "category": problem.category,
            "reference": "+".join(reference.cohorts) or None,
            "predicted": "+".join(predicted.cohorts) or None,
            "correct": (predicted.cohorts == reference.cohorts) if scored else None,
            "accuracy": (100.0 * (predicted.cohorts == reference.cohorts)
                         if scored else float("nan")),
            "status": status,
            "message": message or (predicted.reason if not predicted.ok else ""),
        })
    summary = {}
    for category in (*CATEGORIES, OVERALL):
        chosen = [i for i in items if category in (OVERALL, i["category"])]
        summary[category] = summarize(chosen, ["accuracy"])["accuracy"]
    return {"summary": summary, "status_counts": status_counts(items), "problems": items}


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
