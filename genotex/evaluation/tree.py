"""Reading one prediction or reference tree (laid out like ``output/``, SPEC 2).

A :class:`TreeReader` knows where each file of a tree lives and returns its items
typed: a trait's ``cohort_info.json`` (:mod:`utils.schemas.cohort_info`), a problem's
regression result (:mod:`utils.schemas.result`), a linked table's header, or a
table as a :class:`LabeledMatrix`. Files are opened through
:class:`genotex.evaluation.untrusted.ConfinedFiles` (inside the tree, capped); a
defect raises :class:`genotex.evaluation.statuses.ItemError` naming the file.
Predictions may call the TCGA cohort ``TCGA`` instead of ``Xena``
(:data:`COHORT_ALIASES`), and a predicted table file whose name differs from the
expected one only in letter case is found (with a note saying so).

A predicted linked table's header is validated the same way whichever task reads
it (:meth:`TreeReader.linked_header`): size cap, no blank or repeated column, and
the trait column present (a transposed table has sample ids there), so dataset
selection and preprocessing give the same status and message for the same file.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from genotex.evaluation.labels import canonical_unique
from genotex.evaluation.numeric_csv import parse_numeric_csv, split_header
from genotex.evaluation.statuses import MALFORMED, ItemError
from genotex.evaluation.untrusted import ConfinedFiles, Limits, check_header_length
from utils.io import PathLike
from utils.problems import Problem
from utils.schemas.base import FormatError
from utils.schemas.cohort_info import (CohortInfoReading, check_cohort_info_root,
                                       parse_cohort_info)
from utils.schemas.result import ResultReading, parse_result
from utils.selection import COHORT_INFO_NAME
from utils.symbols import canonical_label

TCGA_COHORT = "Xena"
COHORT_ALIASES: Mapping[str, Tuple[str, ...]] = {TCGA_COHORT: ("TCGA",)}
#: Reference files are trusted to be large: no practical cap.
REFERENCE_LIMITS = Limits(max_json_bytes=1 << 40, max_table_bytes=1 << 40,
                          max_header_bytes=1 << 30)


@dataclass
class LabeledMatrix:
    """A numeric table in features (rows) x samples (columns) orientation.

    Attributes
    ----------
    features, samples : list of str
        Canonical (stripped, upper-cased) unique labels.
    values : numpy.ndarray
        Float matrix ``(len(features), len(samples))``; NaN = missing.
    path : pathlib.Path
        File it was read from.
    nbytes : int
        Bytes parsed (after decompression).
    notes : list of str
        Non-fatal remarks (e.g. infinite values read as missing).
    """

    features: List[str]
    samples: List[str]
    values: np.ndarray
    path: Path
    nbytes: int = 0
    notes: List[str] = field(default_factory=list)


@dataclass
class RegressResult:
    """The parts of a regression JSON the evaluator scores.

    Attributes
    ----------
    genes : list of str
        ``significant_genes.Variable`` as written (stripped, blanks removed).
    prediction_metrics : dict
        Finite numeric entries of ``cv_performance.prediction`` (nested
        objects flattened with dotted keys).
    notes : list of str
        Non-fatal remarks (e.g. missing ``cv_performance``).
    """

    genes: List[str]
    prediction_metrics: Dict[str, float]
    notes: List[str] = field(default_factory=list)

    @classmethod
    def from_reading(cls, reading: ResultReading) -> "RegressResult":
        """The scored view of a validated result."""
        notes: List[str] = []
        genes = [gene.strip() for gene in reading.significant_genes.variable]
        if any(not gene for gene in genes):
            notes.append("blank gene names ignored")
            genes = [gene for gene in genes if gene]
        performance = reading.cv_performance
        prediction = performance.get("prediction") if isinstance(performance, dict) else None
        if isinstance(prediction, dict):
            metrics = flatten_numbers(prediction)
        else:
            metrics = {}
            notes.append("no 'cv_performance.prediction' object: no trait-prediction metrics")
        return cls(genes, metrics, notes)


def flatten_numbers(obj: Mapping[str, Any], prefix: str = "") -> Dict[str, float]:
    """Finite numbers of a nested mapping, keyed by dotted paths (bools skipped)."""
    result: Dict[str, float] = {}
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            result.update(flatten_numbers(value, name + "."))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if math.isfinite(value):
                result[name] = float(value)
    return result


class TreeReader:
    """Reads one output tree (``preprocess/`` and ``regress/``) defensively.

    Parameters
    ----------
    files : ConfinedFiles
        Access to the tree's files (its root, role, UTF-8 rule and byte caps).
    cohort_aliases : mapping, optional
        Alternative file names of a cohort id (e.g. ``{"Xena": ("TCGA",)}``).
    lenient_names : bool
        Find a table whose file name differs from the expected one only in letter
        case (a prediction's ``gse100.csv`` for ``GSE100``).
    validate_linked : bool
        Check linked-table headers (no blank or repeated column, the trait column
        present); a reference tree is read as ``regress.py`` reads it.
    """

    def __init__(self, files: ConfinedFiles,
                 cohort_aliases: Optional[Mapping[str, Tuple[str, ...]]] = None,
                 lenient_names: bool = False, validate_linked: bool = False) -> None:
        self.files = files
        self.cohort_aliases = dict(cohort_aliases or {})
        self.lenient_names = lenient_names
        self.validate_linked = validate_linked
        self._listings: Dict[Path, Dict[str, List[str]]] = {}

    @property
    def root(self) -> Path:
        """The tree root (absolute)."""
        return self.files.root

    @property
    def role(self) -> str:
        """``prediction`` or ``reference``."""
        return self.files.role

    @property
    def limits(self) -> Limits:
        """The byte caps."""
        return self.files.limits

    # -- paths
    @property
    def preprocess_root(self) -> Path:
        """``<root>/preprocess``."""
        return self.root / "preprocess"

    @property
    def regress_root(self) -> Path:
        """``<root>/regress``."""
        return self.root / "regress"

    def table_path(self, trait: str, cohort: str, subtask: str) -> Path:
        """Path of a cohort's gene, clinical or linked table.

        The first of the cohort id and its aliases that exists; then, with
        ``lenient_names``, the only file of the folder with that name in another
        letter case; else the expected path (which does not exist).
        """
        candidates = [self._table_path(trait, name, subtask)
                      for name in (cohort, *self.cohort_aliases.get(cohort, ()))]
        for candidate in candidates:
            if os.path.lexists(candidate):
                return candidate
        if self.lenient_names:
            for candidate in candidates:
                found = self._other_case(candidate)
                if found is not None:
                    return found
        return candidates[0]

    def _other_case(self, path: Path) -> Optional[Path]:
        """The only entry of ``path``'s folder whose name equals ``path``'s but for case."""
        folder = path.parent
        if folder not in self._listings:
            listing: Dict[str, List[str]] = {}
            try:
                names = os.listdir(folder)
            except OSError:
                names = []
            for name in names:
                listing.setdefault(name.casefold(), []).append(name)
            self._listings[folder] = listing
        matches = self._listings[folder].get(path.name.casefold(), [])
        return folder / matches[0] if len(matches) == 1 else None

    @staticmethod
    def case_note(found: Path, expected_name: str) -> List[str]:
        """A note when a file was found under a name in another letter case."""
        if found.name == expected_name or found.name.casefold() != expected_name.casefold():
            return []
        return [f"file name differs in letter case from the expected {expected_name!r}: "
                "matched"]

    def _table_path(self, trait: str, cohort: str, subtask: str) -> Path:
        base = self.preprocess_root / trait
        if subtask == "gene":
            return base / "gene_data" / f"{cohort}.csv"
        if subtask == "clinical":
            return base / "clinical_data" / f"{cohort}.csv"
        if subtask == "linked":
            return base / f"{cohort}.csv"
        raise ValueError(f"unknown subtask {subtask!r}")

    def cohort_info_path(self, trait: str) -> Path:
        """``preprocess/<trait>/cohort_info.json``."""
        return self.preprocess_root / trait / COHORT_INFO_NAME

    def result_path(self, problem: Problem) -> Path:
        """``regress/<trait>/significant_genes_condition_<C>.json``."""
        return self.regress_root / problem.trait / problem.result_name

    def traits_with_cohort_info(self) -> List[str]:
        """Trait folders under ``preprocess`` that hold a ``cohort_info.json`` (sorted)."""
        try:
            entries = sorted(os.listdir(self.preprocess_root))
        except OSError:
            return []
        return [name for name in entries if os.path.lexists(self.cohort_info_path(name))]

    # -- typed items
    def cohort_info(self, trait: str) -> CohortInfoReading:
        """A trait's ``cohort_info.json``: valid records (aliases applied) and the problems
        of the others."""
        path = self.cohort_info_path(trait)
        try:
            data = check_cohort_info_root(self.files.read_json(path))
        except FormatError as exc:
            raise ItemError(path, MALFORMED, exc.problem) from None
        for canonical, aliases in self.cohort_aliases.items():
            for alias in aliases:
                if alias in data and canonical not in data:
                    data[canonical] = data.pop(alias)
        return parse_cohort_info(data)

    def regress_result(self, problem: Problem) -> RegressResult:
        """The validated regression JSON of a problem."""
        path = self.result_path(problem)
        try:
            reading = parse_result(self.files.read_json(path))
        except FormatError as exc:
            raise ItemError(path, MALFORMED, exc.problem) from None
        return RegressResult.from_reading(reading)

    def linked_header(self, trait: str, cohort: str) -> List[str]:
        """Column labels (after the sample-id column) of a linked table.

        With ``validate_linked``, a blank or repeated column (after upper-casing) and
        a header without the trait column are ``malformed``; every task reading the
        table gets this same error.
        """
        path = self.table_path(trait, cohort, "linked")
        columns = split_header(self.files.read_first_line(path), path)[1:]
        if self.validate_linked:
            canonical = canonical_unique(columns, path, "column")
            if canonical_label(trait) not in canonical:
                raise ItemError(path, MALFORMED, f"no {trait!r} column in the header: a linked "
                                f"table is samples (rows) x [{trait}, Age?, Gender?, genes] "
                                "(is it transposed?)", line=1)
        return columns

    def table(self, trait: str, cohort: str, subtask: str,
              cap: Optional[int] = None) -> LabeledMatrix:
        """A gene, clinical or linked table as features x samples.

        Parameters
        ----------
        trait, cohort : str
        subtask : {"gene", "clinical", "linked"}
            Linked tables are stored samples x features and are transposed.
        cap : int, optional
            Byte cap (default ``limits.max_table_bytes``).
        """
        path = self.table_path(trait, cohort, subtask)
        if subtask == "linked" and self.validate_linked:
            self.linked_header(trait, cohort)  # the status dataset selection reports too
        data = self.files.read_bytes(path, self.limits.max_table_bytes if cap is None else cap)
        line_end = data.find(b"\n", 0, self.limits.max_header_bytes + 2)
        check_header_length(len(data) if line_end < 0 else line_end, path,
                            self.limits.max_header_bytes)
        rows, columns, values, notes = parse_numeric_csv(data, path, self.files.strict_utf8)
        notes = self.case_note(path, self._table_path(trait, cohort, subtask).name) + notes
        if subtask == "linked":
            samples = canonical_unique(rows, path, "sample id")
            features = canonical_unique(columns, path, "column")
            matrix = np.ascontiguousarray(values.T)
        else:
            what = "gene" if subtask == "gene" else "feature"
            features = canonical_unique(rows, path, what)
            samples = canonical_unique(columns, path, "sample id")
            matrix = values
        return LabeledMatrix(features, samples, matrix, path, len(data), notes)


def prediction_reader(root: PathLike, limits: Limits) -> TreeReader:
    """Reader of a prediction tree: strict UTF-8, capped, ``TCGA`` read as ``Xena``."""
    return TreeReader(ConfinedFiles(root, "prediction", strict_utf8=True, limits=limits),
                      COHORT_ALIASES, lenient_names=True, validate_linked=True)


def reference_reader(root: PathLike) -> TreeReader:
    """Reader of a reference tree: latin-1 fallback, no practical cap."""
    return TreeReader(ConfinedFiles(root, "reference", strict_utf8=False,
                                    limits=REFERENCE_LIMITS))
