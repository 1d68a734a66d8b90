"""The three evaluation tasks of the benchmark (SPEC 6), run together.

:class:`Evaluator` compares a prediction tree with a reference tree (both laid
out as ``output/``, SPEC 2) and returns a JSON-ready report
(:class:`utils.schemas.report.EvaluationReport` once NaN is written as null):

* selection (:mod:`genotex.evaluation.selection`): dataset filtering and dataset
  selection, by the shared :mod:`utils.selection` rule applied to each tree;
* preprocessing (:mod:`genotex.evaluation.preprocessing`): AJ, SJ and CSC of the
  gene, clinical and linked tables of every usable reference cohort;
* analysis (:mod:`genotex.evaluation.analysis`): precision, recall, F1, Jaccard,
  AUROC and GSEA ES of every problem's ranked gene list, by category, plus
  trait-prediction means.

Reading goes through :mod:`genotex.evaluation.tree`, which never leaves the two
trees and turns any defect of a predicted file into a status and a message; a
damaged item scores 0, an undamaged one is scored as usual.

``EvaluationSettings(legacy=True)`` applies the original evaluator's conventions
where they differ (docs/evaluation.md "Legacy conventions"), for comparison with
published tables.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from genotex.evaluation.analysis import AnalysisScorer
from genotex.evaluation.preprocessing import preprocessing_report, run_jobs
from genotex.evaluation.selection import score_dataset_selection, score_filtering
from genotex.evaluation.layout import SUBTASKS, TASKS
from genotex.evaluation.tree import prediction_reader, reference_reader
from genotex.evaluation.tree_selection import TreeSelections
from genotex.evaluation.untrusted import Limits
from utils.logs import progress
from utils.metrics import VIRTUAL_UNIVERSE_SIZE
from utils.problems import Problem, enumerate_problems
from utils.runtime import available_cores

logger = logging.getLogger(__name__)

GENOTEX_CONVENTIONS = "genotex"
LEGACY_CONVENTIONS = "legacy"


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
        ``{ALIAS_UPPER: Official}``; applied to analysis gene symbols. Without it,
        symbols are compared as written (stripped, upper-cased): the canonical
        reading (docs/evaluation.md "Gene symbols: the canonical reading").
    synonyms_file : str, optional
        Where ``synonyms`` came from, for the report's ``gene_synonyms``.
    limits : Limits
        Byte caps for predicted files.
    jobs : int
        Worker processes for the preprocessing comparison.
    progress : bool
        Show tqdm progress bars.
    virtual_universe_size : int
        Universe size when the reference tables are unavailable (SPEC 6.3).
    legacy : bool
        Score with the original evaluator's conventions where they differ.
    """

    tasks: Tuple[str, ...] = TASKS
    subtasks: Tuple[str, ...] = SUBTASKS
    synonyms: Optional[Mapping[str, str]] = None
    synonyms_file: Optional[str] = None
    limits: Limits = Limits()
    jobs: int = 1
    progress: bool = False
    virtual_universe_size: int = VIRTUAL_UNIVERSE_SIZE
    legacy: bool = False

    @property
    def conventions(self) -> str:
        """``genotex`` (SPEC 6) or ``legacy`` (the original evaluator's)."""
        return LEGACY_CONVENTIONS if self.legacy else GENOTEX_CONVENTIONS

    @property
    def gene_synonyms(self) -> Optional[str]:
        """The report's ``gene_synonyms``: None for the canonical reading (no map)."""
        if self.synonyms is None:
            return None
        return self.synonyms_file or "<mapping given in code>"


class Evaluator:
    """Scores a prediction tree against a reference tree.

    Parameters
    ----------
    prediction_root, reference_root : path-like
        Trees laid out like ``output/`` (``preprocess/`` and ``regress/``).
    task_info : mapping, optional
        Parsed ``task_info.json``; needed for dataset selection and analysis.
    settings : EvaluationSettings
    method : str, optional
        The method's name in reports and leaderboards (default: the name of the
        prediction folder).
    """

    def __init__(self, prediction_root, reference_root,
                 task_info: Optional[Mapping[str, Any]] = None,
                 settings: EvaluationSettings = EvaluationSettings(),
                 method: Optional[str] = None) -> None:
        self.settings = settings
        self.method = method or Path(os.path.abspath(prediction_root)).name
        self.task_info = dict(task_info or {})
        self.ref = TreeSelections(reference_reader(reference_root), self.task_info)
        self.pred = TreeSelections(prediction_reader(prediction_root, settings.limits),
                                   self.task_info, reference_ids=self._reference_ids)

    def _reference_ids(self, trait: str) -> List[str]:
        """Every cohort id of the reference's ``cohort_info.json`` of ``trait``."""
        state = self.ref.cohort_info(trait)
        return [*state.valid, *state.bad]

    def problems(self) -> List[Problem]:
        """Every problem of the task info, in SPEC 5.1 order."""
        return enumerate_problems(self.task_info)

    def _progress(self, iterable: Iterable, total: int, desc: str) -> Iterable:
        return progress(iterable, total=total, desc=desc, enabled=self.settings.progress,
                        leave=False)

    def filtering(self) -> Dict[str, Any]:
        """Dataset filtering: usable or not, for every reference cohort (SPEC 6.1)."""
        return score_filtering(self.pred, self.ref, self.settings.legacy)

    def dataset_selection(self) -> Dict[str, Any]:
        """Dataset selection accuracy per problem and by category (SPEC 6.1)."""
        return score_dataset_selection(self.problems(), self.pred, self.ref, self._progress,
                                       self.settings.legacy)

    def preprocessing(self) -> Dict[str, Any]:
        """AJ, SJ, CSC and coverage of each usable reference cohort's tables (SPEC 6.2).

        With ``legacy``, the tables of unusable reference cohorts too (when the
        reference has them).
        """
        subtasks = tuple(self.settings.subtasks)
        legacy = self.settings.legacy
        jobs = [(str(self.pred.reader.root), str(self.ref.reader.root), self.settings.limits,
                 trait, cohort, subtasks, legacy, record.is_usable)
                for trait, cohort, record in self.ref.valid_records()
                if record.is_usable or legacy]
        return preprocessing_report(run_jobs(jobs, self.settings.jobs, self._progress),
                                    subtasks)

    def analysis(self) -> Dict[str, Any]:
        """Gene-list metrics per problem, by category, and trait prediction (SPEC 6.3)."""
        scorer = AnalysisScorer(self.pred.reader, self.ref, self.settings.synonyms,
                                self.settings.virtual_universe_size, self.settings.legacy)
        return scorer.score(self.problems(), self._progress)

    def run(self) -> Dict[str, Any]:
        """Every requested task; see docs/evaluation.md for the report layout."""
        report: Dict[str, Any] = {"method": self.method,
                                  "prediction": str(self.pred.reader.root),
                                  "reference": str(self.ref.reader.root),
                                  "conventions": self.settings.conventions,
                                  "gene_synonyms": self.settings.gene_synonyms,
                                  "tasks": list(self.settings.tasks),
                                  "subtasks": list(self.settings.subtasks)}
        if not os.path.isdir(self.pred.reader.root):
            logger.warning("prediction tree %s does not exist: every item is missing",
                           self.pred.reader.root)
        if "selection" in self.settings.tasks:
            report["selection"] = {"filtering": self.filtering(),
                                   "dataset_selection": self.dataset_selection()}
        if "preprocessing" in self.settings.tasks:
            report["preprocessing"] = self.preprocessing()
        if "analysis" in self.settings.tasks:
            report["analysis"] = self.analysis()
        return report


def default_jobs() -> int:
    """Worker processes to use by default: the available cores."""
    return available_cores()
