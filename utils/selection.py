"""Cohort selection for a problem (SPEC 5.2).

One implementation, used by ``regress.py`` to decide what to analyse and by
``eval.py`` to score dataset selection on a predicted tree, so the two can never
disagree.

* One-step problems (condition ``None``, ``Age`` or ``Gender``): among the trait's
  usable cohorts (having Age / Gender when that is the condition) the largest
  ``sample_size`` wins; ties go to the smaller cohort id.
* Two-step problems (the condition is another trait): every pair of usable
  (trait cohort, condition cohort) ordered by the product of sample sizes,
  largest first, ties by the two ids; the first pair whose linked tables share
  at least one regressor gene wins. Regressor genes are the condition's known
  related genes that are *not* among the trait's own related genes
  (instrument exclusion: a gene known for the trait would carry the trait
  into the predicted condition, and would be removed from the trait's genes),
  present in both tables, in ``task_info`` order, matched exactly as official
  symbols (:func:`condition_regressor_genes`). The search is lazy
  (:class:`PairSearch`): the pairs are never listed, so a tree with thousands
  of cohorts costs O(N log N), and which genes may be regressors is a
  parameter (``regressor_genes``).
"""

from __future__ import annotations

import csv
import logging
from bisect import bisect_left, insort
from collections.abc import Sequence as SequenceABC
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from heapq import heapify, heappop, heappush
from pathlib import Path
from typing import (Any, Callable, Container, Dict, FrozenSet, List, Mapping, Optional,
                    Sequence, Tuple)

from utils.columns import AGE, GENDER, gene_columns
from utils.errors import InputFileError
from utils.io import PathLike, check_complete, open_text, read_json
from utils.problems import Problem, related_genes
from utils.schemas.base import FormatError
from utils.schemas.cohort_info import check_cohort_info_root, parse_cohort_info

logger = logging.getLogger(__name__)

COHORT_INFO_NAME = "cohort_info.json"

GeneColumns = Callable[[str, str], Sequence[str]]
#: ``regressor_genes(columns)``: the genes of one linked table that may be step-1 regressors.
RegressorGenes = Callable[[Container[str]], Sequence[str]]


@dataclass(frozen=True)
class CohortSummary:
    """The fields of a ``cohort_info.json`` record that selection needs."""

    cohort: str
    sample_size: int
    has_age: bool
    has_gender: bool


@dataclass(frozen=True)
class Selection:
    """The outcome of selecting cohorts for one problem.

    Attributes
    ----------
    problem : Problem
    cohorts : tuple of str
        ``(cohort,)`` for one-step, ``(trait_cohort, condition_cohort)`` for
        two-step; empty when nothing could be selected.
    regressors : list of str
        Two-step only: the regressor genes (:func:`condition_regressor_genes`)
        present in both tables.
    reason : str
        Why nothing was selected (empty when something was).
    sample_sizes : tuple of int
        The ``sample_size`` that ``cohort_info.json`` records for each selected
        cohort (aligned with ``cohorts``).
    """

    problem: Problem
    cohorts: Tuple[str, ...] = ()
    regressors: List[str] = field(default_factory=list)
    reason: str = ""
    sample_sizes: Tuple[int, ...] = ()

    @property
    def ok(self) -> bool:
        """True when cohorts were selected."""
        return bool(self.cohorts)


def usable_cohorts(cohort_info: Mapping[str, Any]) -> Dict[str, CohortSummary]:
    """Usable cohorts of a ``cohort_info`` mapping, validated defensively.

    A record counts only if it is valid (:class:`utils.schemas.cohort_info.CohortRecordReading`:
    raw, or already parsed), ``is_usable`` is true and ``sample_size`` is positive;
    anything else (including a damaged prediction) is treated as not usable.
    """
    usable: Dict[str, CohortSummary] = {}
    for cohort, record in parse_cohort_info(cohort_info).records.items():
        if record.is_usable and record.sample_size:
            usable[cohort] = CohortSummary(cohort, record.sample_size, record.has_age is True,
                                           record.has_gender is True)
    return usable


def load_cohort_info(path: PathLike) -> Dict[str, Any]:
    """Read a ``cohort_info.json`` as ``{cohort: record}`` (records as written).

    Raises
    ------
    InputFileError
        When the file is unreadable or not a JSON object.
    """
    try:
        return check_cohort_info_root(read_json(path))
    except FormatError as exc:
        raise InputFileError(path, exc.problem) from None


def rank_one_step(cohorts: Mapping[str, CohortSummary],
                  condition: Optional[str]) -> List[str]:
    """Cohort ids eligible for a one-step problem, best first."""
    eligible = [c for c in cohorts.values()
                if (condition != AGE or c.has_age)
                and (condition != GENDER or c.has_gender)]
    eligible.sort(key=lambda c: (-c.sample_size, c.cohort))
    return [c.cohort for c in eligible]


def condition_regressor_genes(condition_genes: Sequence[str],
                              trait_genes: Sequence[str] = ()) -> RegressorGenes:
    """The SPEC 5.2 regressor rule: the condition's related genes that are not the
    trait's own, present in a table.

    Parameters
    ----------
    condition_genes : sequence of str
        The condition's ``related_genes`` in task order (repeats are dropped).
    trait_genes : sequence of str
        The trait's ``related_genes``: excluded (instrument exclusion).

    Returns
    -------
    callable
        ``regressor_genes(columns)``: the regressor genes among ``columns``, in task order.

    Examples
    --------
    >>> rule = condition_regressor_genes(["A", "B", "C"], trait_genes=["B"])
    >>> rule({"A", "B", "C", "D"})
    ['A', 'C']
    """
    excluded = set(trait_genes)
    ordered = [gene for gene in dict.fromkeys(condition_genes) if gene not in excluded]

    def regressor_genes(columns: Container[str]) -> List[str]:
        return [gene for gene in ordered if gene in columns]

    return regressor_genes


def shared_regressors(condition_genes: Sequence[str], trait_columns: Sequence[str],
                      condition_columns: Sequence[str],
                      trait_genes: Sequence[str] = ()) -> List[str]:
    """Regressor genes (:func:`condition_regressor_genes`) present in both linked tables.

    The column arguments may also be sets (frozensets), which avoids
    rebuilding ~18k-element sets when one caller checks many pairs.
    """
    trait_set = trait_columns if isinstance(trait_columns, AbstractSet) else set(trait_columns)
    condition_set = (condition_columns if isinstance(condition_columns, AbstractSet)
                     else set(condition_columns))
    rule = condition_regressor_genes(condition_genes, trait_genes)
    return [gene for gene in rule(trait_set) if gene in condition_set]


def ranked_cohorts(cohorts: Mapping[str, CohortSummary]) -> List[CohortSummary]:
    """Cohorts by decreasing sample size, ties by id (the order of the pair search)."""
    return sorted(cohorts.values(), key=lambda c: (-c.sample_size, c.cohort))


class _UnreadPositions:
    """The smallest not-yet-read position at or after a given one (union-find, path halving)."""

    def __init__(self, size: int) -> None:
        self._next = list(range(size + 1))  # position ``size`` is the end sentinel

    def find(self, position: int) -> int:
        parent = self._next
        while parent[position] != position:
            parent[position] = parent[parent[position]]
            position = parent[position]
        return position

    def mark_read(self, position: int) -> None:
        self._next[position] = position + 1


class PairSearch:
    """The first (trait cohort, condition cohort) pair with regressors, found lazily.

    Pairs are visited in SPEC 5.2 order (largest product of sample sizes first, ties
    by the trait cohort's id, then the condition cohort's): a heap holds one entry
    per trait cohort, pointing at its next condition cohort, so the N x M pairs are
    never listed. A linked table's regressor genes are computed once, when the search
    first needs the table; a trait cohort whose table cannot be read, or holds no
    regressor gene, leaves the search. After a failed pair a trait cohort moves
    straight to the next condition cohort that is either not read yet or shares one
    of its regressor genes (condition cohorts are indexed by gene), so each step
    reads a table, ends the search or drops a cohort: at most 2N + M steps of
    O(g log M) for ``g`` regressor genes per table, however many pairs fail.

    Parameters
    ----------
    problem : Problem
        A two-step problem.
    trait_cohorts, condition_cohorts : mapping of str to CohortSummary
        The usable cohorts of the trait and of the condition.
    gene_columns : callable
        ``gene_columns(trait, cohort)``: the gene columns of a linked table (a sequence,
        or any set-like container supporting ``in``); :class:`InputFileError`,
        ``OSError`` or ``ValueError`` means the table cannot be used.
    regressor_genes : callable
        ``regressor_genes(columns)``: the genes of one table that may be step-1
        regressors, in the rule's order (default rule:
        :func:`condition_regressor_genes`). The regressors of a pair are the trait
        table's regressor genes that are also regressor genes of the condition
        table, so the rule must judge each gene on its own (SPEC 5.2's rules do:
        a related gene of the condition, not a related gene of the trait).
    strict : bool
        Raise the error of the first unreadable table the search reads instead of
        leaving its cohort out. Tables the search proves useless are not read.
    """

    def __init__(self, problem: Problem, trait_cohorts: Mapping[str, CohortSummary],
                 condition_cohorts: Mapping[str, CohortSummary], gene_columns: GeneColumns,
                 regressor_genes: RegressorGenes, strict: bool = False) -> None:
        self.problem = problem
        self.traits = ranked_cohorts(trait_cohorts)
        self.conditions = ranked_cohorts(condition_cohorts)
        self._gene_columns = gene_columns
        self._regressor_genes = regressor_genes
        self.strict = strict
        self._trait_genes: Dict[int, List[str]] = {}
        self._condition_genes: Dict[int, FrozenSet[str]] = {}
        self._unread = _UnreadPositions(len(self.conditions))
        self._positions_by_gene: Dict[str, List[int]] = {}
        self._unindexed: List[int] = []  # read, not yet in the gene index (built when needed)

    def _table_genes(self, trait: str, cohort: str) -> List[str]:
        """Regressor genes of one linked table (none when it cannot be read)."""
        try:
            columns = self._gene_columns(trait, cohort)
        except (InputFileError, OSError, ValueError) as exc:
            if self.strict:
                raise
            logger.info("%s: cohort %s of %s left out of the pair search: %s", self.problem,
                        cohort, trait, exc)
            return []
        if isinstance(columns, SequenceABC):
            columns = frozenset(columns)
        return list(self._regressor_genes(columns))

    def _trait(self, index: int) -> List[str]:
        if index not in self._trait_genes:
            self._trait_genes[index] = self._table_genes(self.problem.trait,
                                                         self.traits[index].cohort)
        return self._trait_genes[index]

    def _condition(self, position: int) -> FrozenSet[str]:
        if position not in self._condition_genes:
            genes = frozenset(self._table_genes(str(self.problem.condition),
                                                self.conditions[position].cohort))
            self._condition_genes[position] = genes
            self._unread.mark_read(position)
            self._unindexed.append(position)
        return self._condition_genes[position]

    def _next_candidate(self, genes: Sequence[str], start: int) -> int:
        """The first condition position >= ``start`` not read yet or sharing a gene."""
        for position in self._unindexed:
            for gene in self._condition_genes[position]:
                insort(self._positions_by_gene.setdefault(gene, []), position)
        self._unindexed.clear()
        best = self._unread.find(start)
        for gene in genes:
            positions = self._positions_by_gene.get(gene, ())
            at = bisect_left(positions, start)
            if at < len(positions) and positions[at] < best:
                best = positions[at]
        return best

    def _entry(self, trait_index: int, position: int) -> Tuple[int, str, str, int, int]:
        trait, condition = self.traits[trait_index], self.conditions[position]
        return (-trait.sample_size * condition.sample_size, trait.cohort, condition.cohort,
                trait_index, position)

    def run(self) -> Optional[Tuple[str, str, List[str]]]:
        """``(trait cohort, condition cohort, regressors)`` of the first pair, or None."""
        if not self.conditions:
            return None
        heap = [self._entry(index, 0) for index in range(len(self.traits))]
        heapify(heap)
        while heap:
            *_, trait_index, position = heappop(heap)
            trait_genes = self._trait(trait_index)
            condition_genes = self._condition(position)
            regressors = [gene for gene in trait_genes if gene in condition_genes]
            if regressors:
                return (self.traits[trait_index].cohort, self.conditions[position].cohort,
                        regressors)
            if not trait_genes:
                continue  # unreadable or without regressor genes: no pair of it can work
            following = self._next_candidate(trait_genes, position + 1)
            if following < len(self.conditions):
                heappush(heap, self._entry(trait_index, following))
        return None


def select_cohorts(problem: Problem,
                   trait_info: Mapping[str, Any],
                   condition_info: Optional[Mapping[str, Any]] = None,
                   condition_genes: Sequence[str] = (),
                   gene_columns: Optional[GeneColumns] = None,
                   strict: bool = False,
                   regressor_genes: Optional[RegressorGenes] = None,
                   trait_genes: Sequence[str] = ()) -> Selection:
    """Select the cohort (one-step) or cohort pair (two-step) of a problem.

    Parameters
    ----------
    problem : Problem
    trait_info : mapping
        The trait's ``cohort_info`` mapping (records may be damaged).
    condition_info : mapping, optional
        Two-step only: the condition trait's ``cohort_info`` mapping.
    condition_genes : sequence of str
        Two-step only: the condition's ``related_genes`` in task order.
    gene_columns : callable, optional
        Two-step only: ``gene_columns(trait, cohort)`` gives the gene columns of
        that linked table (an error means the table cannot be used).
    strict : bool
        Raise the error of an unreadable linked table instead of moving on to
        the next pair (``regress.py``: a broken input must fail the problem,
        not quietly change its data; ``eval.py`` scores what a tree allows).
    regressor_genes : callable, optional
        Two-step only: which genes of a table may be regressors (see
        :class:`PairSearch`); default :func:`condition_regressor_genes` of
        ``condition_genes`` and ``trait_genes``.
    trait_genes : sequence of str
        Two-step only: the trait's ``related_genes`` (excluded from the
        regressors by the default rule).

    Returns
    -------
    Selection
    """
    trait_cohorts = usable_cohorts(trait_info)
    if not problem.is_two_step:
        ranked = rank_one_step(trait_cohorts, problem.condition)
        if not ranked:
            need = "" if problem.condition is None else f" with {problem.condition}"
            return Selection(problem, reason=f"no usable cohort{need} for {problem.trait}")
        return Selection(problem, (ranked[0],),
                         sample_sizes=(trait_cohorts[ranked[0]].sample_size,))
    condition_cohorts = usable_cohorts(condition_info or {})
    if not trait_cohorts or not condition_cohorts:
        missing = problem.trait if not trait_cohorts else problem.condition
        return Selection(problem, reason=f"no usable cohort for {missing}")
    if gene_columns is None:
        raise ValueError("two-step selection needs a gene_columns reader")
    rule = regressor_genes or condition_regressor_genes(condition_genes, trait_genes)
    found = PairSearch(problem, trait_cohorts, condition_cohorts, gene_columns, rule,
                       strict=strict).run()
    if found is None:
        return Selection(problem, reason=f"no cohort pair of {problem.trait} and "
                         f"{problem.condition} shares a known gene of {problem.condition} "
                         f"that is not a known gene of {problem.trait}")
    trait_cohort, condition_cohort, regressors = found
    return Selection(problem, (trait_cohort, condition_cohort), regressors,
                     sample_sizes=(trait_cohorts[trait_cohort].sample_size,
                                   condition_cohorts[condition_cohort].sample_size))


class LinkedTableIndex:
    """Reads linked-table headers under a preprocess root, each file once.

    Parameters
    ----------
    preprocess_root : path-like
        ``output/preprocess`` (or the same level of a prediction tree).
    path_for : callable, optional
        ``path_for(trait, cohort) -> Path`` to locate a table; defaults to
        ``<root>/<trait>/<cohort>.csv``.
    """

    def __init__(self, preprocess_root: PathLike,
                 path_for: Optional[Callable[[str, str], Path]] = None) -> None:
        self.root = Path(preprocess_root)
        self._path_for = path_for or (lambda trait, cohort: self.root / trait / f"{cohort}.csv")
        self._headers: Dict[Path, List[str]] = {}

    def path(self, trait: str, cohort: str) -> Path:
        """Path of a linked table."""
        return self._path_for(trait, cohort)

    def header(self, trait: str, cohort: str) -> List[str]:
        """Column names after the sample-id column (cached)."""
        path = self.path(trait, cohort)
        if path not in self._headers:
            self._headers[path] = read_csv_header(path)[1:]
        return self._headers[path]

    def gene_columns(self, trait: str, cohort: str) -> List[str]:
        """Header minus the trait, Age and Gender columns (:func:`utils.columns.gene_columns`)."""
        return gene_columns(self.header(trait, cohort), trait)


def read_csv_header(path: PathLike) -> List[str]:
    """First row of a (possibly gzipped) CSV file.

    A gzip file is inflated to its end (:func:`utils.io.check_complete`): a table
    cut short is refused here, not only when it is read whole.

    Raises
    ------
    InputFileError
        When the file is missing or empty, or its gzip stream is cut short or damaged.
    """
    with open_text(path) as handle:
        row = next(csv.reader(handle), None)
        check_complete(handle)
    if not row:
        raise InputFileError(path, "empty CSV file (no header row)")
    return row


def select_in_tree(problem: Problem, preprocess_root: PathLike,
                   task_info: Mapping[str, Any],
                   index: Optional[LinkedTableIndex] = None,
                   cohort_info_cache: Optional[Dict[str, Mapping[str, Any]]] = None,
                   strict: bool = False,
                   regressor_genes: Optional[RegressorGenes] = None) -> Selection:
    """Select cohorts for ``problem`` from a preprocess tree on disk.

    Parameters
    ----------
    problem : Problem
    preprocess_root : path-like
        Folder holding ``<Trait>/cohort_info.json`` and the linked tables.
    task_info : mapping
        Parsed ``task_info.json`` (for the condition's related genes).
    index : LinkedTableIndex, optional
        Header cache to share across problems.
    cohort_info_cache : dict, optional
        ``{trait: cohort_info}`` cache to share across problems.
    strict : bool
        ``False`` (evaluating a prediction): an unreadable ``cohort_info.json``
        or linked table counts as no usable cohort, an invalid record as not
        usable. ``True`` (``regress.py``): each of them raises
        :class:`InputFileError` naming the file. Either way a missing
        ``cohort_info.json`` gives a selection whose reason names the file.
    regressor_genes : callable, optional
        Two-step only: the regressor rule (:func:`select_cohorts`).

    Returns
    -------
    Selection
    """
    root = Path(preprocess_root)
    index = index or LinkedTableIndex(root)
    cache = {} if cohort_info_cache is None else cohort_info_cache

    def info(trait: str) -> Mapping[str, Any]:
        if trait not in cache:
            path = root / trait / COHORT_INFO_NAME
            try:
                reading = parse_cohort_info(load_cohort_info(path))
            except InputFileError as exc:
                if strict and path.exists():
                    raise
                logger.info("%s", exc)
                cache[trait] = {}
            else:
                for cohort, reason in reading.problems.items():
                    if strict:
                        raise InputFileError(path, f"record of {cohort!r}: {reason}")
                    logger.warning("%s: record of %r ignored: %s", path, cohort, reason)
                cache[trait] = reading.records
        return cache[trait]

    owners = (problem.trait, problem.condition) if problem.is_two_step else (problem.trait,)
    absent = [root / t / COHORT_INFO_NAME for t in owners
              if not (root / t / COHORT_INFO_NAME).is_file()]
    if absent:
        return Selection(problem, reason=f"no {absent[0]}")
    if not problem.is_two_step:
        return select_cohorts(problem, info(problem.trait))
    return select_cohorts(problem, info(problem.trait), info(problem.condition),
                          related_genes(task_info, problem.condition), index.gene_columns,
                          strict=strict, regressor_genes=regressor_genes,
                          trait_genes=related_genes(task_info, problem.trait))
