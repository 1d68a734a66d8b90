"""Cohort selection (SPEC 5.2) on one evaluated tree, with what went wrong reading it.

The selection rule is :func:`utils.selection.select_cohorts`, the function
``regress.py`` uses, so the evaluator and the analysis can never disagree. This
module only feeds it what one tree holds, read defensively:

* records of ``cohort_info.json`` that are not valid are left out (never usable),
  and the file's status (or the first bad record) is kept for the items' status;
* linked-table headers are read once through the tree's :class:`TreeReader`
  and kept compact (:class:`LinkedHeaders`); a header that cannot be read makes its cohort pairs
  unusable, and the error is kept (once per table) for the problem's status;
* on a prediction, a cohort id that differs from a reference cohort id of the same
  trait only in letter case is read as the reference id, with a note
  (:attr:`CohortInfoState.renamed`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

import numpy as np

from genotex.evaluation.statuses import OK, ItemError
from genotex.evaluation.tree import TreeReader
from genotex.evaluation.universe import GeneUniverse, GeneVocabulary
from utils.columns import gene_columns, non_gene_columns
from utils.problems import Problem, related_genes
from utils.schemas.cohort_info import CohortInfoReading, CohortRecordReading
from utils.selection import Selection, select_cohorts

logger = logging.getLogger(__name__)


@dataclass
class CohortInfoState:
    """One tree's ``cohort_info.json`` of a trait.

    Attributes
    ----------
    reading : CohortInfoReading
        Valid records and the problems of the others.
    status, message : str
        The file's status (``ok``, ``missing``, ``malformed``, ``empty``) and why.
    renamed : dict
        ``{reference id: id as written}`` of the cohorts read under the reference's
        spelling (the ids differ only in letter case).
    """

    reading: CohortInfoReading = field(default_factory=CohortInfoReading)
    status: str = OK
    message: str = ""
    renamed: Dict[str, str] = field(default_factory=dict)

    @property
    def valid(self) -> Dict[str, CohortRecordReading]:
        """``{cohort: record}`` of the valid records."""
        return self.reading.records

    @property
    def bad(self) -> Dict[str, str]:
        """``{cohort: problem}`` of the invalid records."""
        return self.reading.problems

    def case_note(self, cohort: str) -> str:
        """Why ``cohort`` was matched although written in another letter case ('' if not)."""
        if cohort not in self.renamed:
            return ""
        return (f"cohort id {self.renamed[cohort]!r} read as {cohort!r} (letter case differs "
                "from the reference)")


def match_reference_case(reading: CohortInfoReading, reference_ids: Iterable[str]
                         ) -> Tuple[CohortInfoReading, Dict[str, str]]:
    """Rename cohorts written in another letter case than a reference cohort id.

    An id that matches a reference id exactly is kept; an id that equals one only
    after case folding takes the reference spelling, unless the exact id is also
    present (then the variant keeps its own spelling and matches nothing).

    Returns
    -------
    (CohortInfoReading, dict)
        The renamed reading and ``{reference id: id as written}``.
    """
    by_fold = {cohort.casefold(): cohort for cohort in reference_ids}
    present = set(reading.records) | set(reading.problems)
    renamed: Dict[str, str] = {}
    for written in present:
        target = by_fold.get(written.casefold())
        if target is not None and target != written and target not in present:
            renamed[target] = written
    if not renamed:
        return reading, {}
    back = {written: target for target, written in renamed.items()}
    return CohortInfoReading(
        records={back.get(c, c): r for c, r in reading.records.items()},
        problems={back.get(c, c): p for c, p in reading.problems.items()}), renamed


class LinkedHeaders:
    """Linked-table headers of one tree, each file read once (failures cached too).

    Headers are kept encoded over one :class:`GeneVocabulary` of column labels (each
    distinct label stored once, whatever the number of tables), and a table's gene
    columns as a :class:`GeneUniverse` mask: about 100 KB per 18,500-column table
    instead of ~2 MB of strings and set.

    Parameters
    ----------
    reader : TreeReader
    """

    def __init__(self, reader: TreeReader) -> None:
        self.reader = reader
        self.vocabulary = GeneVocabulary()
        self._headers: Dict[Tuple[str, str], Union[np.ndarray, ItemError]] = {}
        self._sets: Dict[Tuple[str, str], GeneUniverse] = {}

    def _encoded(self, trait: str, cohort: str) -> np.ndarray:
        key = (trait, cohort)
        if key not in self._headers:
            try:
                columns = self.reader.linked_header(trait, cohort)
            except ItemError as exc:
                self._headers[key] = exc
            else:
                ids = self.vocabulary.encode_many([columns])[0] if columns else np.empty(0)
                self._headers[key] = ids.astype(np.int32)
        value = self._headers[key]
        if isinstance(value, ItemError):
            raise value
        return value

    def header(self, trait: str, cohort: str) -> List[str]:
        """Column labels after the sample-id column; raises the cached :class:`ItemError`."""
        labels = self.vocabulary.labels
        return [labels[i] for i in self._encoded(trait, cohort)]

    def gene_columns(self, trait: str, cohort: str) -> List[str]:
        """Header minus the trait, Age and Gender columns."""
        return gene_columns(self.header(trait, cohort), trait)

    def gene_set(self, trait: str, cohort: str) -> GeneUniverse:
        """The gene columns as a set-like mask (cached; ``in`` and ``len``)."""
        key = (trait, cohort)
        if key not in self._sets:
            ids = self._encoded(trait, cohort)
            others = [self.vocabulary.ids[label] for label in non_gene_columns(trait)
                      if label in self.vocabulary.ids]
            self._sets[key] = GeneUniverse(self.vocabulary, [ids[~np.isin(ids, others)]])
        return self._sets[key]


class TreeSelections:
    """SPEC 5.2 selections of one tree, each computed once.

    Parameters
    ----------
    reader : TreeReader
    task_info : mapping
        The problem set (the condition's related genes of two-step problems).
    reference_ids : callable, optional
        ``reference_ids(trait)``: the reference's cohort ids of a trait; cohort ids of
        this tree that differ from them only in letter case take their spelling.
    """

    def __init__(self, reader: TreeReader, task_info: Mapping[str, Mapping],
                 reference_ids: Optional[Callable[[str], Iterable[str]]] = None) -> None:
        self.reader = reader
        self.task_info = task_info
        self.reference_ids = reference_ids
        self.headers = LinkedHeaders(reader)
        self._info: Dict[str, CohortInfoState] = {}
        self._selections: Dict[Problem, Selection] = {}
        self._errors: Dict[Problem, List[ItemError]] = {}

    def cohort_info(self, trait: str) -> CohortInfoState:
        """The trait's ``cohort_info.json``, read once, with its status."""
        if trait not in self._info:
            try:
                state = CohortInfoState(self.reader.cohort_info(trait))
            except ItemError as exc:
                state = CohortInfoState(status=exc.status, message=str(exc))
            if self.reference_ids is not None and state.status == OK:
                state.reading, state.renamed = match_reference_case(
                    state.reading, self.reference_ids(trait))
            for cohort, problem in state.bad.items():
                logger.info("%s: record of %r ignored: %s", self.reader.cohort_info_path(trait),
                            cohort, problem)
            self._info[trait] = state
        return self._info[trait]

    def valid_records(self) -> Iterator[Tuple[str, str, CohortRecordReading]]:
        """``(trait, cohort, record)`` of every valid record of the tree, sorted.

        Traits whose ``cohort_info.json`` is unusable are skipped with a warning.
        """
        for trait in self.reader.traits_with_cohort_info():
            state = self.cohort_info(trait)
            if state.status != OK:
                logger.warning("%s skipped: %s", self.reader.role, state.message)
                continue
            for cohort in sorted(state.valid):
                yield trait, cohort, state.valid[cohort]

    def select(self, problem: Problem) -> Selection:
        """The cohort (or pair) selected for ``problem`` on this tree (cached)."""
        if problem not in self._selections:
            errors: Dict[Tuple[str, str], ItemError] = {}

            def gene_columns(trait: str, cohort: str) -> GeneUniverse:
                try:
                    return self.headers.gene_set(trait, cohort)
                except ItemError as exc:
                    errors.setdefault((trait, cohort), exc)
                    raise

            trait_records = self.cohort_info(problem.trait).valid
            if problem.is_two_step:
                result = select_cohorts(problem, trait_records,
                                        self.cohort_info(problem.condition).valid,
                                        related_genes(self.task_info, problem.condition),
                                        gene_columns,
                                        trait_genes=related_genes(self.task_info, problem.trait))
            else:
                result = select_cohorts(problem, trait_records)
            self._selections[problem] = result
            self._errors[problem] = list(errors.values())
        return self._selections[problem]

    def errors(self, problem: Problem) -> List[ItemError]:
        """Linked tables that could not be read while selecting for ``problem`` (one error
        per table, in the order the search met them)."""
        self.select(problem)
        return self._errors[problem]

    def analysed_tables(self, problem: Problem) -> List[Tuple[str, str]]:
        """``(trait, cohort)`` of the linked tables ``problem`` is analysed on here."""
        traits = [problem.trait] + ([problem.condition] if problem.is_two_step else [])
        return list(zip(traits, self.select(problem).cohorts))
