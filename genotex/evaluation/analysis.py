"""Scoring the analysis task (SPEC 6.3): ranked gene lists and trait prediction.

One item per problem of the task info: precision, recall, F1, Jaccard, AUROC and
GSEA ES of the predicted ranking against the reference genes, over the gene
universe of the reference table(s) the problem was analysed on (a virtual one when
those are unavailable); a missing or invalid prediction scores 0 on all six. Means
are given per category with their denominators, as are the trait-prediction
metrics (``cv_performance.prediction``) of both trees.

With the original evaluator's conventions (``legacy``) the universe is always the
virtual one of 20,000 genes, and a failed problem is left out of the metric means
(it counts in the success rate only) instead of scoring 0.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from genotex.evaluation.statuses import (MISSING, NO_REFERENCE, OK, REFERENCE_ERROR, STATUSES,
                                         ItemError)
from genotex.evaluation.summary import OVERALL, status_counts, summarize
from genotex.evaluation.tree import TreeReader
from genotex.evaluation.tree_selection import TreeSelections
from genotex.evaluation.universe import GeneUniverse, GeneVocabulary
from utils.metrics import (GENE_METRICS, VIRTUAL_UNIVERSE_SIZE, failed_gene_metrics,
                           gene_list_metrics, nan_mean)
from utils.problems import CATEGORIES, Problem
from utils.symbols import canonical_genes

logger = logging.getLogger(__name__)

Progress = Callable[[Iterable, int, str], Iterable]
#: Reference tables whose gene names are encoded together.
ENCODE_BATCH = 16


class AnalysisScorer:
    """Scores the problems' gene lists of a prediction tree against a reference tree.

    Parameters
    ----------
    pred : TreeReader
        The prediction tree.
    ref : TreeSelections
        The reference tree with its selections (which tables each problem used).
    synonyms : mapping, optional
        ``{ALIAS_UPPER: Official}`` applied to every gene symbol.
    virtual_universe_size : int
        Universe size when the reference tables are unavailable.
    legacy : bool
        The original evaluator's conventions (virtual universe always; failed
        problems left out of the metric means).
    """

    def __init__(self, pred: TreeReader, ref: TreeSelections,
                 synonyms: Optional[Mapping[str, str]] = None,
                 virtual_universe_size: int = VIRTUAL_UNIVERSE_SIZE,
                 legacy: bool = False) -> None:
        self.pred = pred
        self.ref = ref
        self.synonyms = synonyms
        self.virtual_universe_size = virtual_universe_size
        self.legacy = legacy
        self._vocabulary = GeneVocabulary()
        self._table_genes: Dict[Tuple[str, str], Optional[np.ndarray]] = {}

    def load_table_genes(self, tables: Iterable[Tuple[str, str]]) -> None:
        """Read and encode the gene columns of reference linked tables (once each).

        Tables are encoded in batches of :data:`ENCODE_BATCH`, so the gene names held
        at once stay bounded whatever the number of tables.
        """
        names: List[Tuple[str, str]] = []
        columns: List[List[str]] = []
        for table in dict.fromkeys(tables):
            if table in self._table_genes:
                continue
            try:
                genes = self.ref.headers.gene_columns(*table)
            except ItemError as exc:
                logger.warning("reference universe unavailable: %s", exc)
                self._table_genes[table] = None
                continue
            names.append(table)
            columns.append(canonical_genes(genes, self.synonyms))
            if len(names) == ENCODE_BATCH:
                self._encode(names, columns)
                names, columns = [], []
        self._encode(names, columns)

    def _encode(self, names: List[Tuple[str, str]], columns: List[List[str]]) -> None:
        for table, ids in zip(names, self._vocabulary.encode_many(columns)):
            self._table_genes[table] = ids.astype(np.int32)

    def universe(self, problem: Problem) -> Optional[GeneUniverse]:
        """Canonical gene columns of the reference table(s) of a problem, or None.

        One-step problems use the selected cohort's linked table; two-step
        problems the union of the trait and condition cohorts' tables.
        """
        tables = [] if self.legacy else self.ref.analysed_tables(problem)
        if not tables:
            return None
        self.load_table_genes(tables)
        parts = [self._table_genes[table] for table in tables]
        if any(part is None for part in parts):
            return None
        return GeneUniverse(self._vocabulary, parts)

    def score_problem(self, problem: Problem) -> Dict[str, Any]:
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
            reference = self.ref.reader.regress_result(problem)
        except ItemError as exc:
            item.update(status=NO_REFERENCE if exc.status == MISSING else REFERENCE_ERROR,
                        message=str(exc))
            return item
        ref_genes = canonical_genes(reference.genes, self.synonyms)
        universe = self.universe(problem)
        item.update(reference_genes=len(set(ref_genes)), reference_cv=reference.prediction_metrics,
                    universe="reference" if universe is not None else "virtual")
        try:
            predicted = self.pred.regress_result(problem)
        except ItemError as exc:
            failed = {} if self.legacy else failed_gene_metrics()  # legacy: NaN, left out
            item.update(failed, status=exc.status, message=str(exc))
            return item
        pred_genes = canonical_genes(predicted.genes, self.synonyms)
        scores = gene_list_metrics(pred_genes, ref_genes, universe, self.virtual_universe_size)
        notes = list(predicted.notes)
        repeats = len(pred_genes) - len(set(pred_genes))
        if repeats:
            notes.append(f"{repeats} repeated gene(s) dropped (first rank kept)")
        item.update(scores, predicted_genes=len(set(pred_genes)),
                    predicted_cv=predicted.prediction_metrics,
                    message=f"{self.pred.result_path(problem)}: {'; '.join(notes)}"
                    if notes else "")
        return item

    def score(self, problems: Sequence[Problem], progress: Progress) -> Dict[str, Any]:
        """Every problem's item, the summaries by category and the trait-prediction means.

        ``progress(iterable, total, description)`` wraps the loop (a progress bar).
        """
        if not self.legacy:
            self.load_table_genes(table for problem in problems
                                  for table in self.ref.analysed_tables(problem))
        items = [self.score_problem(problem)
                 for problem in progress(problems, len(problems), "analysis")]
        scored = [i for i in items if i["status"] in STATUSES]
        summary, prediction = {}, {"predicted": {}, "reference": {}}
        for category in (*CATEGORIES, OVERALL):
            chosen = [i for i in scored if category in (OVERALL, i["category"])]
            summary[category] = category_summary(chosen)
            for side in prediction:
                prediction[side][category] = trait_prediction_means(
                    [i[f"{side}_cv"] for i in chosen])
        return {"summary": summary, "trait_prediction": prediction,
                "status_counts": status_counts(scored), "problems": items}


def category_summary(items: List[Dict[str, Any]]) -> Dict[str, Any]:
    """Means of the six metrics, ``problems``, ``succeeded`` and ``success_rate``."""
    block = summarize(items, GENE_METRICS)
    succeeded = sum(1 for i in items if i["status"] == OK)
    block["problems"] = len(items)
    block["succeeded"] = succeeded
    block["success_rate"] = 100.0 * succeeded / len(items) if items else float("nan")
    return block


def trait_prediction_means(rows: List[Mapping[str, float]]) -> Dict[str, Dict[str, Any]]:
    """``{metric: {"mean", "n"}}`` over rows of trait-prediction metrics (names sorted)."""
    names = sorted({name for row in rows for name in row})
    return {name: dict(zip(("mean", "n"), nan_mean(row.get(name) for row in rows)))
            for name in names}
