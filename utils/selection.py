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
  at least one of the condition's known related genes wins. Those shared genes
  (in ``task_info`` order, matched exactly as official symbols) are the
  regressors of step 1.
"""

from __future__ import annotations

import csv
import logging
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from utils.columns import AGE, GENDER, gene_columns
from utils.errors import InputFileError
from utils.io import PathLike, open_text, read_json
from utils.problems import Problem, related_genes
from utils.schemas.base import FormatError
from utils.schemas.cohort_info import check_cohort_info_root, parse_cohort_info

logger = logging.getLogger(__name__)

COHORT_INFO_NAME = "cohort_info.json"

GeneColumns = Callable[[str, str], Sequence[str]]


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
        Two-step only: the condition's related genes present in both tables.
    reason : str
        Why nothing was selected (empty when something was).
    """

    problem: Problem
    cohorts: Tuple[str, ...] = ()
    regressors: List[str] = field(default_factory=list)
    reason: str = ""

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


def rank_two_step(trait_cohorts: Mapping[str, CohortSummary],
                  condition_cohorts: Mapping[str, CohortSummary]) -> List[Tuple[str, str]]:
    """All (trait cohort, condition cohort) pairs, largest sample product first."""
    pairs = [(t, c) for t in trait_cohorts.values() for c in condition_cohorts.values()]
    pairs.sort(key=lambda tc: (-tc[0].sample_size * tc[1].sample_size,
                               tc[0].cohort, tc[1].cohort))
    return [(t.cohort, c.cohort) for t, c in pairs]


def shared_regressors(condition_genes: Sequence[str], trait_columns: Sequence[str],
                      condition_columns: Sequence[str]) -> List[str]:
    """Related genes of the condition present in both linked tables (task order).

    The column arguments may also be sets (frozensets), which avoids
    rebuilding ~18k-element sets when one caller checks many pairs.
    """
    trait_set = trait_columns if isinstance(trait_columns, AbstractSet) else set(trait_columns)
    condition_set = (condition_columns if isinstance(condition_columns, AbstractSet)
                     else set(condition_columns))
    seen: set = set()
    result = []
    for gene in condition_genes:
        if gene in trait_set and gene in condition_set and gene not in seen:
            seen.add(gene)
            result.append(gene)
    return result


def select_cohorts(problem: Problem,
                   trait_info: Mapping[str, Any],
                   condition_info: Optional[Mapping[str, Any]] = None,
                   condition_genes: Sequence[str] = (),
                   gene_columns: Optional[GeneColumns] = None,
                   strict: bool = False) -> Selection:
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
        return Selection(problem, (ranked[0],))
    condition_cohorts = usable_cohorts(condition_info or {})
    if not trait_cohorts or not condition_cohorts:
        missing = problem.trait if not trait_cohorts else problem.condition
        return Selection(problem, reason=f"no usable cohort for {missing}")
    if gene_columns is None:
        raise ValueError("two-step selection needs a gene_columns reader")
    for trait_cohort, condition_cohort in rank_two_step(trait_cohorts, condition_cohorts):
        try:
            trait_cols = gene_columns(problem.trait, trait_cohort)
            cond_cols = gene_columns(problem.condition, condition_cohort)
        except (InputFileError, OSError, ValueError) as exc:
            if strict:
                raise
            logger.info("%s: pair (%s, %s) unusable: %s", problem, trait_cohort,
                        condition_cohort, exc)
            continue
        regressors = shared_regressors(condition_genes, trait_cols, cond_cols)
        if regressors:
            return Selection(problem, (trait_cohort, condition_cohort), regressors)
    return Selection(problem, reason=f"no cohort pair of {problem.trait} and "
                     f"{problem.condition} shares a known gene of {problem.condition}")


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

    Raises
    ------
    InputFileError
        When the file is missing or empty.
    """
    with open_text(path) as handle:
        row = next(csv.reader(handle), None)
    if not row:
        raise InputFileError(path, "empty CSV file (no header row)")
    return row


def select_in_tree(problem: Problem, preprocess_root: PathLike,
                   task_info: Mapping[str, Any],
                   index: Optional[LinkedTableIndex] = None,
                   cohort_info_cache: Optional[Dict[str, Mapping[str, Any]]] = None,
                   strict: bool = False) -> Selection:
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
                          strict=strict)
