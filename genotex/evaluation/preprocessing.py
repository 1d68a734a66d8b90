"""Scoring the preprocessing task (SPEC 6.2): AJ, SJ, CSC and coverage of each table.

One item per usable reference cohort and subtask (``gene``, ``clinical``,
``linked``). Both tables are read as features x samples; a predicted table that
looks transposed relative to the reference is malformed (it violates the format
contract). Missing predicted values cost (:func:`utils.metrics.coverage_aware_correlation`)
and the coverage of the reference's values is reported. Cohorts are compared in
worker processes: :func:`compare_cohort_tables` is the unit of work and opens its
own readers. The workers are spawned (as ``regress.py``'s), never forked: the
evaluator's process runs threads (OpenBLAS's, a progress bar's), and forking a
multi-threaded process may deadlock the child (Python 3.12 and later warn about it).

With the original evaluator's conventions (``legacy``), every reference cohort
whose table exists is compared (usable or not) and a predicted table that does
not exist is left out of the means instead of scoring 0.
"""

from __future__ import annotations

import contextlib
import logging
from concurrent.futures import as_completed
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from genotex.evaluation.allocator import retain_freed_memory
from genotex.evaluation.statuses import MALFORMED, MISSING, OK, REFERENCE_ERROR, ItemError
from genotex.evaluation.summary import status_counts, summarize
from genotex.evaluation.tree import LabeledMatrix, TreeReader, prediction_reader, reference_reader
from genotex.evaluation.untrusted import Limits
from utils.logs import LOG_FORMAT
from utils.metrics import failed_table_metrics, table_similarity
from utils.runtime import worker_pool

logger = logging.getLogger(__name__)

TABLE_METRICS = ("aj", "sj", "csc")
#: Averaged beside the three scores: the mean correlation and the coverage (percent).
TABLE_DETAILS = ("correlation", "coverage")
LAYOUTS = {"gene": "genes (rows) x samples (columns)",
           "clinical": "features (rows) x samples (columns)",
           "linked": "samples (rows) x features (columns)"}
#: ``(prediction root, reference root, limits, trait, cohort, subtasks, legacy, usable)``.
CohortJob = Tuple[str, str, Limits, str, str, Tuple[str, ...], bool, bool]
Progress = Callable[[Iterable, int, str], Iterable]


def check_orientation(predicted: LabeledMatrix, reference: LabeledMatrix,
                      layout: str) -> None:
    """Refuse a predicted table that looks transposed relative to the reference.

    A table is called transposed when its row and column labels overlap the
    reference's swapped roles more than its own roles.

    Raises
    ------
    ItemError
        ``malformed`` naming the expected layout.
    """
    ref_features, ref_samples = set(reference.features), set(reference.samples)
    straight = (len(ref_features.intersection(predicted.features))
                + len(ref_samples.intersection(predicted.samples)))
    swapped = (len(ref_samples.intersection(predicted.features))
               + len(ref_features.intersection(predicted.samples)))
    if swapped > straight:
        raise ItemError(predicted.path, MALFORMED, f"table looks transposed: expected {layout}")


def compare_table(pred: TreeReader, ref: TreeReader, trait: str, cohort: str,
                  subtask: str, legacy: bool = False, reference_optional: bool = False
                  ) -> Optional[Dict[str, Any]]:
    """Compare one predicted table with its reference; never raises on bad input.

    Parameters
    ----------
    pred, ref : TreeReader
    trait, cohort, subtask : str
    legacy : bool
        The original evaluator's conventions: a predicted table that does not exist
        is left out of the means (NaN scores), and the correlation follows
        :func:`utils.metrics.coverage_aware_correlation` with ``legacy``.
    reference_optional : bool
        Return None when the reference table does not exist (the tables of
        unusable cohorts, compared with ``legacy`` only).

    Returns
    -------
    dict or None
        ``trait``, ``cohort``, ``subtask``, ``status``, ``aj``, ``sj``, ``csc``,
        ``coverage`` (percent), ``correlation``, ``common_features``,
        ``common_samples``, ``correlated_features``, ``message``, ``bytes_read``.
    """
    item: Dict[str, Any] = {"trait": trait, "cohort": cohort, "subtask": subtask,
                            "status": OK, **failed_table_metrics(), "correlation": 0.0,
                            "common_features": 0, "common_samples": 0,
                            "correlated_features": 0, "message": "", "bytes_read": 0}
    try:
        reference = ref.table(trait, cohort, subtask)
    except ItemError as exc:
        if reference_optional and exc.status == MISSING:
            return None
        logger.warning("reference table unusable: %s", exc)
        item.update(dict.fromkeys(("aj", "sj", "csc", *TABLE_DETAILS), float("nan")),
                    status=REFERENCE_ERROR, message=str(exc))
        return item
    item["bytes_read"] = reference.nbytes
    try:
        predicted = pred.table(trait, cohort, subtask,
                               cap=pred.limits.table_cap(reference.nbytes))
        check_orientation(predicted, reference, LAYOUTS[subtask])
    except ItemError as exc:
        item.update(status=exc.status, message=str(exc))
        if legacy and exc.status == MISSING:
            item.update(dict.fromkeys(("aj", "sj", "csc", *TABLE_DETAILS), float("nan")))
        return item
    scores = table_similarity(reference.features, reference.samples, reference.values,
                              predicted.features, predicted.samples, predicted.values,
                              legacy=legacy)
    notes = list(predicted.notes)
    if scores["common_features"] == 0:
        notes.append("no feature label in common with the reference")
    if scores["common_samples"] == 0:
        notes.append("no sample id in common with the reference")
    item.update(scores, message=f"{predicted.path}: {'; '.join(notes)}" if notes else "",
                bytes_read=reference.nbytes + predicted.nbytes)
    return item


def compare_cohort_tables(pred_root: str, ref_root: str, limits: Limits, trait: str,
                          cohort: str, subtasks: Sequence[str], legacy: bool = False,
                          usable: bool = True) -> List[Dict[str, Any]]:
    """Compare every requested table of one cohort (a unit of parallel work).

    The tables of a cohort the reference does not call usable (``usable`` False,
    compared with ``legacy`` only) are compared when the reference has them.
    """
    pred = prediction_reader(pred_root, limits)
    ref = reference_reader(ref_root)
    items = [compare_table(pred, ref, trait, cohort, subtask, legacy,
                           reference_optional=not usable) for subtask in subtasks]
    return [item for item in items if item is not None]


def _compare_job(job: CohortJob) -> List[Dict[str, Any]]:
    return compare_cohort_tables(*job)


def _init_worker(log_level: int) -> None:
    """Start-up of a spawned worker: the caller's log level and format, freed memory kept."""
    logging.basicConfig(level=log_level, format=LOG_FORMAT)
    retain_freed_memory()


def reference_bytes(job: CohortJob) -> int:
    """Bytes of the reference tables a job compares (0 for those that do not exist)."""
    ref = reference_reader(job[1])
    total = 0
    for subtask in job[5]:
        with contextlib.suppress(OSError):
            total += ref.table_path(job[3], job[4], subtask).stat().st_size
    return total


def run_jobs(jobs: List[CohortJob], workers: int, progress: Progress
             ) -> List[List[Dict[str, Any]]]:
    """:func:`compare_cohort_tables` of every job, in job order (``workers`` processes).

    With several workers the largest cohorts (by reference bytes) start first, so
    that a large cohort never runs alone at the end while the other workers idle.
    The workers are spawned; they log at the caller's level, to stderr. The
    processes that compare keep the memory they free for the next table
    (:func:`genotex.evaluation.allocator.retain_freed_memory`).
    """
    workers = max(1, min(workers, len(jobs)))
    if workers == 1:
        retain_freed_memory()
        return [compare_cohort_tables(*job) for job in progress(jobs, len(jobs), "preprocessing")]
    sizes = [reference_bytes(job) for job in jobs]
    results: List[List[Dict[str, Any]]] = [[] for _ in jobs]
    level = logging.getLogger().getEffectiveLevel()
    with worker_pool(workers, _init_worker, (level,)) as pool:
        futures = {pool.submit(_compare_job, jobs[k]): k
                   for k in sorted(range(len(jobs)), key=lambda k: -sizes[k])}
        for future in progress(as_completed(futures), len(jobs), "preprocessing"):
            results[futures[future]] = future.result()
    return results


def preprocessing_report(results: List[List[Dict[str, Any]]], subtasks: Sequence[str]
                         ) -> Dict[str, Any]:
    """Per-subtask summaries (reference errors left out of the means) and ``bytes_read``.

    Each summary holds the means of AJ, SJ, CSC and the coverage (failures count
    0), the mean correlation of the tables read (status ``ok``), each with its
    denominator, and ``cohorts``, the items scored.
    """
    report: Dict[str, Any] = {}
    for subtask in subtasks:
        items = [item for batch in results for item in batch if item["subtask"] == subtask]
        scored = [i for i in items if i["status"] != REFERENCE_ERROR]
        read = [i for i in scored if i["status"] == OK]
        report[subtask] = {"summary": {**summarize(scored, TABLE_METRICS + ("coverage",)),
                                       **summarize(read, ("correlation",)),
                                       "cohorts": len(scored)},
                           "status_counts": status_counts(items), "cohorts": items}
    report["bytes_read"] = sum(item["bytes_read"] for batch in results for item in batch)
    return report
