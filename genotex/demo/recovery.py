"""Planted-gene recovery of a regression tree: ``python -m genotex.cli.recovery``.

For every problem of the task info, the ranked genes of
``<regress>/<Trait>/significant_genes_condition_<C>.json`` are scored against
the genes planted for the trait in the synthetic truth
(``traits.<T>.planted_genes``: known and novel), with the AUROC of SPEC 6.3:

* universe U = the gene columns of the trait cohort's linked table that the
  problem was analysed on (cohort selection of SPEC 5.2 on the same preprocess
  tree); for a two-step problem the step-1 regressor genes are removed from U
  (they are removed from X, SPEC 5.6), and so from the positives;
* positives = planted genes in U; the i-th of n predicted genes scores n - i,
  every other gene 0 (ties count 1/2), so a planted gene never predicted is a
  positive with score 0.

The table gives the mean AUROC per problem category, with the number of
problems it averages (problems without a result or without a planted gene in
U are listed, not averaged).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from genotex.synthetic.options import TRUTH_NAME
from utils.errors import InputFileError
from utils.io import read_json
from utils.metrics import auroc_from_scores, ranking_scores, unique_in_order
from utils.problems import (ONE_STEP, TWO_STEP, UNCONDITIONAL, Problem, enumerate_problems,
                            result_path)
from utils.schemas.base import FormatError
from utils.schemas.result import parse_result
from utils.selection import LinkedTableIndex, select_in_tree

CATEGORIES = (UNCONDITIONAL, ONE_STEP, TWO_STEP)


@dataclass(frozen=True)
class Recovery:
    """Planted-gene recovery of one problem.

    Attributes
    ----------
    problem, category : str
        ``Trait|Condition`` and its SPEC category.
    cohort : str
        The trait cohort analysed ('' when none was selected).
    status : str
        ``ok``, ``no-selection``, ``missing`` (no result file) or
        ``no-positive`` (no planted gene in the universe).
    auroc : float
        NaN unless ``ok``.
    n_positive, n_universe, n_predicted, n_hits : int
        Planted genes in U, |U|, predicted genes, predicted planted genes.
    """

    problem: str
    category: str
    cohort: str
    status: str
    auroc: float
    n_positive: int
    n_universe: int
    n_predicted: int
    n_hits: int


def planted_genes(truth: Mapping[str, Any], trait: str) -> List[str]:
    """Genes planted for ``trait`` (known and novel), strongest effect first."""
    genes = truth.get("traits", {}).get(trait, {}).get("planted_genes", {})
    return sorted(genes, key=lambda gene: (-abs(genes[gene]), gene))


def predicted_genes(path: Path) -> Optional[List[str]]:
    """Ranked genes of a regression JSON; None when the file is absent.

    Raises
    ------
    InputFileError
        When the file is not a valid result (:func:`utils.schemas.result.parse_result`).
    """
    if not path.is_file():
        return None
    try:
        result = parse_result(read_json(path))
    except FormatError as exc:
        raise InputFileError(path, exc.problem) from None
    return unique_in_order(result.significant_genes.variable)


def problem_recovery(problem: Problem, preprocess_root: Path, regress_root: Path,
                     task_info: Mapping[str, Any], truth: Mapping[str, Any],
                     index: Optional[LinkedTableIndex] = None,
                     cache: Optional[Dict[str, Any]] = None) -> Recovery:
    """AUROC of one problem's result against the trait's planted genes."""
    index = index or LinkedTableIndex(preprocess_root)
    selection = select_in_tree(problem, preprocess_root, task_info, index, cache)
    base = dict(problem=str(problem), category=problem.category, auroc=math.nan,
                n_positive=0, n_universe=0, n_predicted=0, n_hits=0)
    if not selection.ok:
        return Recovery(cohort="", status="no-selection", **base)
    cohort = selection.cohorts[0]
    removed = set(selection.regressors) if problem.is_two_step else set()
    universe = [g for g in index.gene_columns(problem.trait, cohort) if g not in removed]
    in_universe = set(universe)
    positives = [g for g in planted_genes(truth, problem.trait) if g in in_universe]
    base.update(n_universe=len(universe), n_positive=len(positives))
    predicted = predicted_genes(result_path(regress_root, problem))
    if predicted is None:
        return Recovery(cohort=cohort, status="missing", **base)
    if not positives:
        return Recovery(cohort=cohort, status="no-positive", **base)
    universe += [g for g in predicted if g not in in_universe]
    labels = [g in set(positives) for g in universe]
    auroc = auroc_from_scores(ranking_scores(predicted, universe), labels)
    base.update(auroc=auroc, n_predicted=len(predicted),
                n_hits=len(set(predicted) & set(positives)))
    return Recovery(cohort=cohort, status="ok", **base)


def tree_recovery(preprocess_root: Path, regress_root: Path, task_info: Mapping[str, Any],
                  truth: Mapping[str, Any]) -> List[Recovery]:
    """:func:`problem_recovery` of every problem, in problem order."""
    index = LinkedTableIndex(preprocess_root)
    cache: Dict[str, Any] = {}
    return [problem_recovery(problem, preprocess_root, regress_root, task_info, truth,
                             index, cache)
            for problem in enumerate_problems(task_info)]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def category_table(rows: Sequence[Recovery]) -> Dict[str, Dict[str, float]]:
    """Per category and overall, over the scored (``ok``) problems: their number,
    mean and minimum AUROC, mean precision (planted share of the listed genes,
    over problems listing genes), mean recall (listed share of the planted
    genes) and mean number of genes listed."""
    table: Dict[str, Dict[str, float]] = {}
    for category in (*CATEGORIES, "overall"):
        scored = [r for r in rows if r.status == "ok"
                  and (category == "overall" or r.category == category)]
        table[category] = {
            "n": len(scored),
            "mean_auroc": _mean([r.auroc for r in scored]),
            "min_auroc": min((r.auroc for r in scored), default=math.nan),
            "precision": _mean([r.n_hits / r.n_predicted for r in scored if r.n_predicted]),
            "recall": _mean([r.n_hits / r.n_positive for r in scored]),
            "genes_listed": _mean([r.n_predicted for r in scored])}
    return table


def format_table(table: Mapping[str, Mapping[str, float]]) -> str:
    """Markdown table of :func:`category_table`."""
    lines = ["| category | problems scored | mean AUROC | min AUROC | precision | recall "
             "| genes listed |", "|---|---|---|---|---|---|---|"]
    for category, cell in table.items():
        lines.append(f"| {category} | {cell['n']} | {cell['mean_auroc']:.3f} | "
                     f"{cell['min_auroc']:.3f} | {cell['precision']:.2f} | "
                     f"{cell['recall']:.2f} | {cell['genes_listed']:.1f} |")
    return "\n".join(lines)
