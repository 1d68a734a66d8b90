"""The three evaluation tasks of the benchmark (SPEC 6).

:class:`Evaluator` compares a prediction tree with a reference tree (both laid
out as ``output/``, SPEC 2) and returns a JSON-ready report:

* selection: dataset filtering (is each reference cohort usable?) and dataset
  selection (which cohort or cohort pair each problem uses, by the shared
  :mod:`utils.selection` rules applied to each tree);
* preprocessing: AJ, SJ and CSC of the gene, clinical and linked tables of
  every usable reference cohort;
* analysis: precision, recall, F1, Jaccard, AUROC and GSEA ES of every
  problem's ranked gene list, by category, plus trait-prediction means.

Reading goes through :mod:`genotex.evaluation.tree`, which never leaves the two trees
and turns any defect of a predicted file into a status and a message; a
damaged item scores 0, an undamaged one is scored as usual.
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from genotex.evaluation.tree import (COHORT_ALIASES, MALFORMED, MISSING, OK, REFERENCE_ERROR,
                                     STATUSES, SUBTASKS, ItemError, Limits, TreeReader,
                                     canonical_labels, check_orientation, record_problem)
from utils.logs import progress
from utils.metrics import (GENE_METRICS, VIRTUAL_UNIVERSE_SIZE, classification_metrics,
                           failed_gene_metrics, failed_table_metrics, gene_list_metrics, nan_mean,
                           table_similarity)
from utils.problems import CATEGORIES, Problem, enumerate_problems
from utils.columns import gene_columns
from utils.runtime import available_cores
from utils.selection import LinkedTableIndex, Selection, select_cohorts

logger = logging.getLogger(__name__)

TASKS = ("selection", "preprocessing", "analysis")
OVERALL = "overall"
NO_REFERENCE = "no-reference"
TABLE_METRICS = ("aj", "sj", "csc")
LAYOUTS = {"gene": "genes (rows) x samples (columns)",
           "clinical": "features (rows) x samples (columns)",
           "linked": "samples (rows) x features (columns)"}
REFERENCE_LIMITS = Limits(max_json_bytes=1 << 40, max_table_bytes=1 << 40,
                          max_header_bytes=1 << 30)


@dataclass(frozen=True)
class EvaluationSettings:
    """Options of one evaluation run.

    Attributes
    ----------
    tasks : tuple of str
        Any of ``selection``, ``preprocessing``, ``analysis``.
    subtasks : tuple of str
        Preprocessing subtasks: any of ``gene``, ``clinical``, ``linked``.
    synonyms : mapping, optional
        ``{ALIAS_UPPER: Official}``; applied to analysis gene symbols.
    limits : Limits
        Byte caps for predicted files.
    jobs : int
        Worker processes for the preprocessing comparison.
    progress : bool
        Show tqdm progress bars.
    virtual_universe_size : int
        Universe size when the reference tables are unavailable (SPEC 6.3).
    """

    tasks: Tuple[str, ...] = TASKS
    subtasks: Tuple[str, ...] = SUBTASKS
    synonyms: Optional[Mapping[str, str]] = None
    limits: Limits = Limits()
    jobs: int = 1
    progress: bool = False
    virtual_universe_size: int = VIRTUAL_UNIVERSE_SIZE


@dataclass
class _CohortInfoState:
    """One tree's ``cohort_info.json`` of a trait, split into valid and bad records."""

    valid: Dict[str, Any] = field(default_factory=dict)
    bad: Dict[str, str] = field(default_factory=dict)
    status: str = OK
    message: str = ""

    @classmethod
    def from_records(cls, records: Mapping[str, Any]) -> "_CohortInfoState":
        state = cls()
        for cohort, record in records.items():
            problem = record_problem(record)
            if problem is None:
                state.valid[cohort] = record
            else:
                state.bad[cohort] = problem
        return state


class _ReaderIndex(LinkedTableIndex):
    """Linked-table headers of one tree read through a :class:`TreeReader`.

    Failures are cached too, so a damaged file is read once.
    """

    def __init__(self, reader: TreeReader) -> None:
        super().__init__(reader.preprocess_root,
                         lambda trait, cohort: reader.table_path(trait, cohort, "linked"))
        self.reader = reader
        self._cache: Dict[Tuple[str, str], Any] = {}

    def header(self, trait: str, cohort: str) -> List[str]:
        key = (trait, cohort)
        if key not in self._cache:
            try:
                self._cache[key] = self.reader.linked_header(trait, cohort)
            except ItemError as exc:
                self._cache[key] = exc
        value = self._cache[key]
        if isinstance(value, ItemError):
            raise value
        return value

    def gene_columns(self, trait: str, cohort: str) -> List[str]:
        """Header minus the trait, Age and Gender columns (cached)."""
        key = ("genes", trait, cohort)
        if key not in self._cache:
            self._cache[key] = gene_columns(self.header(trait, cohort), trait)
        return self._cache[key]

    def gene_set(self, trait: str, cohort: str) -> frozenset:
        """:meth:`gene_columns` as a frozenset (cached; cheap to intersect)."""
        key = ("set", trait, cohort)
        if key not in self._cache:
            self._cache[key] = frozenset(self.gene_columns(trait, cohort))
        return self._cache[key]


class GeneVocabulary:
    """Integer ids of the canonical gene symbols of the reference tables."""

    def __init__(self) -> None:
        self.ids: Dict[str, int] = {}

    def encode_many(self, tables: Sequence[Sequence[str]]) -> List[np.ndarray]:
        """Ids of the genes of several tables (one vectorized factorization)."""
        if not tables:
            return []
        sizes = [len(table) for table in tables]
        flat = np.fromiter(chain.from_iterable(tables), dtype=object, count=sum(sizes))
        codes, uniques = pd.factorize(flat)
        ids = self.ids
        global_ids = np.fromiter((ids.setdefault(gene, len(ids)) for gene in uniques),
                                 dtype=np.intp, count=len(uniques))
        return np.split(global_ids[codes], np.cumsum(sizes)[:-1])


class GeneUniverse:
    """The genes of one or more reference tables, as a mask over a vocabulary.

    Supports ``len()``, ``in`` and ``intersection``, which is all
    :func:`utils.metrics.gene_list_metrics` needs; the union of two tables
    costs one boolean mask instead of a set of ~18k strings.
    """

    def __init__(self, vocabulary: GeneVocabulary, parts: Sequence[np.ndarray]) -> None:
        self._ids = vocabulary.ids
        self._mask = np.zeros(len(self._ids), dtype=bool)
        for part in parts:
            self._mask[part] = True
        self._size = int(np.count_nonzero(self._mask))

    def __len__(self) -> int:
        return self._size

    def __contains__(self, gene: object) -> bool:
        index = self._ids.get(gene)  # type: ignore[arg-type]
        return index is not None and index < self._mask.size and bool(self._mask[index])

    def intersection(self, genes: Iterable[str]) -> set:
        """The ``genes`` that belong to the universe."""
        return {gene for gene in genes if gene in self}


def canonical_gene(symbol: str, synonyms: Optional[Mapping[str, str]] = None) -> str:
    """Strip + upper-case a gene symbol, then map it through ``synonyms`` if given."""
    return canonical_genes([symbol], synonyms)[0]


def canonical_genes(symbols: Iterable[str],
                    synonyms: Optional[Mapping[str, str]] = None) -> List[str]:
    """:func:`canonical_gene` over many symbols (the evaluator's hot path)."""
    texts = canonical_labels(symbols)
    if not synonyms:
        return texts
    result = []
    for text in texts:
        official = synonyms.get(text)
        result.append(official.strip().upper() if isinstance(official, str)
                      and official.strip() else text)
    return result


def summarize(items: Sequence[Mapping[str, Any]], metrics: Iterable[str]) -> Dict[str, Any]:
    """NaN-aware mean and denominator of each metric over items.

    Returns
    -------
    dict
        ``{metric: {"mean": float, "n": int}}``.
    """
    summary = {}
    for metric in metrics:
        mean, count = nan_mean(item.get(metric) for item in items)
        summary[metric] = {"mean": mean, "n": count}
    return summary


def status_counts(items: Sequence[Mapping[str, Any]]) -> Dict[str, int]:
    """How many items have each status (all four prediction statuses listed)."""
    counts = dict.fromkeys(STATUSES, 0)
    for item in items:
        counts[item["status"]] = counts.get(item["status"], 0) + 1
    return counts


class Evaluator:
    """Scores a prediction tree against a reference tree.

    Parameters
    ----------
    prediction_root, reference_root : path-like
        Trees laid out like ``output/`` (``preprocess/`` and ``regress/``).
    task_info : mapping, optional
        Parsed ``task_info.json``; needed for dataset selection and analysis.
    settings : EvaluationSettings
    """

    def __init__(self, prediction_root, reference_root,
                 task_info: Optional[Mapping[str, Any]] = None,
                 settings: EvaluationSettings = EvaluationSettings()) -> None:
        self.settings = settings
        self.pred = TreeReader(prediction_root, "prediction", strict_utf8=True,
                               limits=settings.limits, cohort_aliases=COHORT_ALIASES)
        self.ref = TreeReader(reference_root, "reference", strict_utf8=False,
                              limits=REFERENCE_LIMITS)
        self.task_info = dict(task_info or {})
        self._info: Dict[Tuple[str, str], _CohortInfoState] = {}
        self._index = {"prediction": _ReaderIndex(self.pred),
                       "reference": _ReaderIndex(self.ref)}
        self._selections: Dict[Tuple[str, Problem], Selection] = {}
        self._selection_errors: Dict[Tuple[str, Problem], List[ItemError]] = {}
        self._vocabulary = GeneVocabulary()
        self._table_genes: Dict[Tuple[str, str], Optional[np.ndarray]] = {}

    # ------------------------------------------------------------------ shared
    def problems(self) -> List[Problem]:
        """Every problem of the task info, in SPEC 5.1 order."""
        return enumerate_problems(self.task_info)

    def cohort_info(self, reader: TreeReader, trait: str) -> _CohortInfoState:
        """A tree's ``cohort_info.json`` for a trait, read once, with its status."""
        key = (reader.role, trait)
        if key not in self._info:
            try:
                state = _CohortInfoState.from_records(reader.cohort_info(trait))
            except ItemError as exc:
                state = _CohortInfoState(status=exc.status, message=str(exc))
            for cohort, problem in state.bad.items():
                logger.info("%s: record of %r ignored: %s", reader.cohort_info_path(trait),
                            cohort, problem)
            self._info[key] = state
        return self._info[key]

    def selection(self, reader: TreeReader, problem: Problem) -> Selection:
        """SPEC 5.2 selection for a problem on one tree (cached).

        Malformed ``cohort_info`` records are left out (never usable); linked
        tables whose header cannot be read make their pairs unusable, and the
        errors are kept for the item's status.
        """
        key = (reader.role, problem)
        if key not in self._selections:
            errors: List[ItemError] = []
            index = self._index[reader.role]

            def gene_columns(trait: str, cohort: str) -> frozenset:
                try:
                    return index.gene_set(trait, cohort)
                except ItemError as exc:
                    errors.append(exc)
                    raise

            trait_info = self.cohort_info(reader, problem.trait).valid
            if problem.is_two_step:
                entry = self.task_info.get(problem.condition, {})
                genes = entry.get("related_genes", []) if isinstance(entry, Mapping) else []
                result = select_cohorts(problem, trait_info,
                                        self.cohort_info(reader, problem.condition).valid,
                                        genes, gene_columns)
            else:
                result = select_cohorts(problem, trait_info)
            self._selections[key] = result
            self._selection_errors[key] = errors
        return self._selections[key]

    def reference_cohorts(self) -> Iterator[Tuple[str, str, Mapping[str, Any]]]:
        """``(trait, cohort, record)`` of every valid reference record, sorted."""
        for trait in self.ref.traits_with_cohort_info():
            state = self.cohort_info(self.ref, trait)
            if state.status != OK:
                logger.warning("reference skipped: %s", state.message)
                continue
            for cohort in sorted(state.valid):
                yield trait, cohort, state.valid[cohort]

    def _progress(self, iterable, total: int, desc: str):
        return progress(iterable, total=total, desc=desc, enabled=self.settings.progress,
                        leave=False)

    # ------------------------------------------------------------------ selection
    def filtering(self) -> Dict[str, Any]:
        """Dataset filtering: usable or not, for every reference cohort (SPEC 6.1)."""
        items = []
        for trait, cohort, record in self.reference_cohorts():
            pred_state = self.cohort_info(self.pred, trait)
            ref_usable = record["is_usable"]
            predicted, status, message = self._predicted_usable(pred_state, trait, cohort)
            items.append({"trait": trait, "cohort": cohort, "reference_usable": ref_usable,
                          "predicted_usable": predicted, "correct": predicted == ref_usable,
                          "status": status, "message": message})
        scores = classification_metrics([i["predicted_usable"] for i in items],
                                        [i["reference_usable"] for i in items])
        return {"summary": scores, "status_counts": status_counts(items), "cohorts": items}

    def _predicted_usable(self, state: _CohortInfoState, trait: str,
                          cohort: str) -> Tuple[bool, str, str]:
        if state.status != OK:
            return False, state.status, state.message
        path = self.pred.cohort_info_path(trait)
        if cohort in state.bad:
            return False, MALFORMED, f"{path}: record of {cohort!r}: {state.bad[cohort]}"
        if cohort not in state.valid:
            return False, MISSING, f"{path}: no record for cohort {cohort!r}"
        return state.valid[cohort]["is_usable"], OK, ""

    def dataset_selection(self) -> Dict[str, Any]:
        """Dataset selection accuracy per problem and by category (SPEC 6.1)."""
        items = []
        problems = self.problems()
        for problem in self._progress(problems, len(problems), "dataset selection"):
            reference = self.selection(self.ref, problem)
            predicted = self.selection(self.pred, problem)
            status, message = self._selection_status(problem)
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

    def _selection_status(self, problem: Problem) -> Tuple[str, str]:
        traits = [problem.trait] + ([problem.condition] if problem.is_two_step else [])
        states = [(trait, self.cohort_info(self.pred, trait)) for trait in traits]
        for _, state in states:
            if state.status != OK:
                return state.status, state.message
        for trait, state in states:
            if state.bad:
                cohort, problem = next(iter(state.bad.items()))
                return MALFORMED, (f"{self.pred.cohort_info_path(trait)}: record of "
                                   f"{cohort!r}: {problem}")
        errors = self._selection_errors.get((self.pred.role, problem), [])
        if errors:
            return errors[0].status, str(errors[0])
        return OK, ""

    # ------------------------------------------------------------------ preprocessing
    def preprocessing(self) -> Dict[str, Any]:
        """AJ, SJ and CSC of each usable reference cohort's tables (SPEC 6.2)."""
        jobs = [(str(self.pred.root), str(self.ref.root), self.settings.limits, trait, cohort,
                 tuple(self.settings.subtasks))
                for trait, cohort, record in self.reference_cohorts() if record["is_usable"]]
        results = self._run_jobs(jobs)
        report: Dict[str, Any] = {}
        for subtask in self.settings.subtasks:
            items = [item for batch in results for item in batch if item["subtask"] == subtask]
            scored = [i for i in items if i["status"] != REFERENCE_ERROR]
            report[subtask] = {"summary": {**summarize(scored, TABLE_METRICS),
                                           "cohorts": len(scored)},
                               "status_counts": status_counts(items), "cohorts": items}
        report["bytes_read"] = sum(item["bytes_read"] for batch in results for item in batch)
        return report

    def _run_jobs(self, jobs: List[tuple]) -> List[List[Dict[str, Any]]]:
        workers = max(1, min(self.settings.jobs, len(jobs)))
        if workers == 1:
            return [compare_cohort_tables(*job)
                    for job in self._progress(jobs, len(jobs), "preprocessing")]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            mapped = pool.map(_compare_job, jobs, chunksize=1)
            return list(self._progress(mapped, len(jobs), "preprocessing"))

    # ------------------------------------------------------------------ analysis
    def _problem_tables(self, problem: Problem) -> List[Tuple[str, str]]:
        """(trait, cohort) of the reference linked tables a problem was analysed on."""
        selection = self.selection(self.ref, problem)
        traits = [problem.trait] + ([problem.condition] if problem.is_two_step else [])
        return list(zip(traits, selection.cohorts))

    def load_table_genes(self, tables: Iterable[Tuple[str, str]]) -> None:
        """Read and encode the gene columns of reference linked tables (once each)."""
        names, columns = [], []
        for table in dict.fromkeys(tables):
            if table in self._table_genes:
                continue
            try:
                genes = self._index["reference"].gene_columns(*table)
            except ItemError as exc:
                logger.warning("reference universe unavailable: %s", exc)
                self._table_genes[table] = None
                continue
            names.append(table)
            columns.append(canonical_genes(genes, self.settings.synonyms))
        for table, ids in zip(names, self._vocabulary.encode_many(columns)):
            self._table_genes[table] = ids

    def universe(self, problem: Problem) -> Optional[GeneUniverse]:
        """Canonical gene columns of the reference table(s) of a problem, or None.

        One-step problems use the selected cohort's linked table; two-step
        problems the union of the trait and condition cohorts' tables.
        """
        tables = self._problem_tables(problem)
        if not tables:
            return None
        self.load_table_genes(tables)
        parts = [self._table_genes[table] for table in tables]
        if any(part is None for part in parts):
            return None
        return GeneUniverse(self._vocabulary, parts)

    def analysis(self) -> Dict[str, Any]:
        """Gene-list metrics per problem, by category, and trait prediction (SPEC 6.3)."""
        items = []
        problems = self.problems()
        self.load_table_genes(table for problem in problems
                              for table in self._problem_tables(problem))
        for problem in self._progress(problems, len(problems), "analysis"):
            items.append(self.analyse_problem(problem))
        scored = [i for i in items if i["status"] in STATUSES]
        summary, prediction = {}, {"predicted": {}, "reference": {}}
        for category in (*CATEGORIES, OVERALL):
            chosen = [i for i in scored if category in (OVERALL, i["category"])]
            block = summarize(chosen, GENE_METRICS)
            succeeded = sum(1 for i in chosen if i["status"] == OK)
            block["problems"] = len(chosen)
            block["succeeded"] = succeeded
            block["success_rate"] = 100.0 * succeeded / len(chosen) if chosen else float("nan")
            summary[category] = block
            for side in prediction:
                rows = [i[f"{side}_cv"] for i in chosen]
                names = sorted({name for row in rows for name in row})
                prediction[side][category] = {
                    name: dict(zip(("mean", "n"), nan_mean(row.get(name) for row in rows)))
                    for name in names}
        return {"summary": summary, "trait_prediction": prediction,
                "status_counts": status_counts(scored), "problems": items}

    def analyse_problem(self, problem: Problem) -> Dict[str, Any]:
        """Scores, status and message of one problem.

        Returns
        -------
        dict
            ``trait``, ``condition``, ``category``, ``status``, the six gene
            metrics, ``predicted_genes``, ``reference_genes`` (distinct,
            canonical), ``universe`` (``reference`` or ``virtual``),
            ``universe_size``, ``message``, ``predicted_cv`` and
            ``reference_cv`` (trait-prediction metrics).
        """
        item: Dict[str, Any] = {"trait": problem.trait, "condition": problem.condition_label,
                                "category": problem.category, "status": OK,
                                **dict.fromkeys(GENE_METRICS, float("nan")),
                                "predicted_genes": 0, "reference_genes": 0, "universe": "",
                                "universe_size": float("nan"), "message": "",
                                "predicted_cv": {}, "reference_cv": {}}
        try:
            reference = self.ref.regress_result(problem)
        except ItemError as exc:
            item.update(status=NO_REFERENCE if exc.status == MISSING else REFERENCE_ERROR,
                        message=str(exc))
            return item
        synonyms = self.settings.synonyms
        ref_genes = canonical_genes(reference.genes, synonyms)
        universe = self.universe(problem)
        item.update(reference_genes=len(set(ref_genes)), reference_cv=reference.prediction_metrics,
                    universe="reference" if universe is not None else "virtual")
        try:
            predicted = self.pred.regress_result(problem)
        except ItemError as exc:
            item.update(failed_gene_metrics(), status=exc.status, message=str(exc))
            return item
        pred_genes = canonical_genes(predicted.genes, synonyms)
        scores = gene_list_metrics(pred_genes, ref_genes, universe,
                                   self.settings.virtual_universe_size)
        notes = list(predicted.notes)
        repeats = len(pred_genes) - len(set(pred_genes))
        if repeats:
            notes.append(f"{repeats} repeated gene(s) dropped (first rank kept)")
        item.update(scores, predicted_genes=len(set(pred_genes)),
                    predicted_cv=predicted.prediction_metrics,
                    message=f"{self.pred.result_path(problem)}: {'; '.join(notes)}"
                    if notes else "")
        return item

    # ------------------------------------------------------------------ all
    def run(self) -> Dict[str, Any]:
        """Every requested task; see the module docstring for the report layout."""
        report: Dict[str, Any] = {"prediction": str(self.pred.root),
                                  "reference": str(self.ref.root),
                                  "tasks": list(self.settings.tasks),
                                  "subtasks": list(self.settings.subtasks)}
        if not os.path.isdir(self.pred.root):
            logger.warning("prediction tree %s does not exist: every item is missing",
                           self.pred.root)
        if "selection" in self.settings.tasks:
            report["selection"] = {"filtering": self.filtering(),
                                   "dataset_selection": self.dataset_selection()}
        if "preprocessing" in self.settings.tasks:
            report["preprocessing"] = self.preprocessing()
        if "analysis" in self.settings.tasks:
            report["analysis"] = self.analysis()
        return report


def compare_table(pred: TreeReader, ref: TreeReader, trait: str, cohort: str,
                  subtask: str) -> Dict[str, Any]:
    """Compare one predicted table with its reference; never raises on bad input.

    Returns
    -------
    dict
        ``trait``, ``cohort``, ``subtask``, ``status``, ``aj``, ``sj``, ``csc``
        (percent), ``correlation``, ``common_features``, ``common_samples``,
        ``correlated_features``, ``message``, ``bytes_read``.
    """
    item: Dict[str, Any] = {"trait": trait, "cohort": cohort, "subtask": subtask,
                            "status": OK, **failed_table_metrics(), "correlation": 0.0,
                            "common_features": 0, "common_samples": 0,
                            "correlated_features": 0, "message": "", "bytes_read": 0}
    try:
        reference = ref.table(trait, cohort, subtask)
    except ItemError as exc:
        logger.warning("reference table unusable: %s", exc)
        item.update(dict.fromkeys(("aj", "sj", "csc", "correlation"), float("nan")),
                    status=REFERENCE_ERROR, message=str(exc))
        return item
    item["bytes_read"] = reference.nbytes
    try:
        predicted = pred.table(trait, cohort, subtask,
                               cap=pred.limits.table_cap(reference.nbytes))
        check_orientation(predicted, reference, LAYOUTS[subtask])
    except ItemError as exc:
        item.update(status=exc.status, message=str(exc))
        return item
    scores = table_similarity(reference.features, reference.samples, reference.values,
                              predicted.features, predicted.samples, predicted.values)
    notes = list(predicted.notes)
    if scores["common_features"] == 0:
        notes.append("no feature label in common with the reference")
    if scores["common_samples"] == 0:
        notes.append("no sample id in common with the reference")
    item.update(scores, message=f"{predicted.path}: {'; '.join(notes)}" if notes else "",
                bytes_read=reference.nbytes + predicted.nbytes)
    return item


def compare_cohort_tables(pred_root: str, ref_root: str, limits: Limits, trait: str,
                          cohort: str, subtasks: Sequence[str]) -> List[Dict[str, Any]]:
    """Compare every requested table of one cohort (a unit of parallel work)."""
    pred = TreeReader(pred_root, "prediction", strict_utf8=True, limits=limits,
                      cohort_aliases=COHORT_ALIASES)
    ref = TreeReader(ref_root, "reference", strict_utf8=False, limits=REFERENCE_LIMITS)
    return [compare_table(pred, ref, trait, cohort, subtask) for subtask in subtasks]


def _compare_job(job: tuple) -> List[Dict[str, Any]]:
    return compare_cohort_tables(*job)


def default_jobs() -> int:
    """Worker processes to use by default: the available cores (:func:`utils.runtime.available_cores`)."""
    return available_cores()


__all__ = ["TASKS", "SUBTASKS", "EvaluationSettings", "Evaluator", "compare_table",
           "compare_cohort_tables", "canonical_gene", "canonical_genes", "summarize",
           "status_counts", "default_jobs"]
