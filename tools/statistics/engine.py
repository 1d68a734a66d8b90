"""One gene-trait association problem, end to end (SPEC 5).

``select`` (SPEC 5.2, :mod:`utils.selection`) -> load the linked tables
(:mod:`tools.statistics.cohort_cache`) -> build ``X`` (genes), ``y`` (trait), ``Z``
(Age / Gender column, or the step-2 prediction of a two-step problem) ->
batch-effect detection (:mod:`tools.statistics.batch`) -> the model
(:mod:`tools.statistics.models`: ``AnalysisConfig.model``, or SPEC 5.3's rule,
batch effect -> LMM path, else Lasso path with tuned penalty) cross-validated and
fitted on all samples -> the result document of SPEC 2.

The result document (:class:`utils.schemas.result.ResultDocument`, validated where it
is assembled) is deterministic: genes are ranked with explicit tie
breaks, floats are rounded as :mod:`utils.precision` says, and the document carries
the fingerprint of its inputs (see :func:`problem_fingerprint`) but no time
stamp, so identical inputs give identical bytes.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

from tools.statistics.batch import detect_batch_effect
from tools.statistics.cohort_cache import CohortCache, LinkedTable
from tools.statistics.crossval import N_FOLDS, make_folds
from tools.statistics.inputs import AnalysisConfig, ProblemData
from tools.statistics.models import resolve_model
from tools.statistics.two_step import fit_condition_model, predict_condition, without_regressors
from utils.columns import gene_columns, is_binary, stray_binary_values
from utils.errors import InputFileError
from utils.problems import Problem, related_genes
from utils.schemas.result import result_document
from utils.selection import COHORT_INFO_NAME, LinkedTableIndex, Selection, select_in_tree

logger = logging.getLogger(__name__)

ENGINE = "genotex-regress/3"


__all__ = ["ENGINE", "AnalysisConfig", "ProblemData", "ProblemOutcome", "problem_data",
           "check_trait", "check_sample_sizes", "analyze", "problem_fingerprint", "run_problem"]


# --------------------------------------------------------------------------- data

def _gene_columns(table: LinkedTable, trait: str) -> List[str]:
    genes = gene_columns(table.columns, trait)
    if not genes:
        raise InputFileError(table.path, "linked table has no gene columns")
    return genes


def _gene_matrix(table: LinkedTable, genes: Sequence[str], rows: np.ndarray) -> np.ndarray:
    """Genes as floats; missing values filled with the gene's mean over ``rows``."""
    X = table.select(genes, rows)
    if np.isfinite(X).all():     # the usual case: one pass over the matrix
        return X
    missing = np.isnan(X)
    if missing.any():
        counts = np.maximum((~missing).sum(axis=0), 1)
        means = np.where(missing, 0.0, X).sum(axis=0) / counts
        logger.info("%s: filling %d missing gene values with gene means",
                    table.path, int(missing.sum()))
        X[missing] = means[np.nonzero(missing)[1]]
    if not np.isfinite(X).all():
        raise InputFileError(table.path, "infinite gene values")
    return X


def check_trait(table: LinkedTable, trait: str, values: np.ndarray) -> None:
    """Refuse a trait column that cannot be analysed, naming the file.

    A constant trait (one value in every sample with a value) has nothing to
    associate; a binary trait with a few values other than 0 and 1
    (:func:`utils.columns.stray_binary_values`) would silently be analysed as
    continuous.

    Raises
    ------
    InputFileError
    """
    present = values[np.isfinite(values)]
    distinct = np.unique(present)
    if distinct.size == 1:
        raise InputFileError(table.path, f"trait column {trait!r} is constant "
                             f"({distinct[0]:g} in all {present.size} samples with a value)")
    stray = stray_binary_values(present)
    if stray.size:
        shown = ", ".join(f"{v:g}" for v in stray[:5])
        count = int(np.sum(~np.isin(present, [0.0, 1.0])))
        raise InputFileError(table.path, f"trait column {trait!r} is coded 0/1 except "
                             f"{count} sample(s) with value {shown}: a binary trait holds "
                             "only 0 and 1 (SPEC 2)")


def check_sample_sizes(selection: Selection, tables: Sequence[LinkedTable],
                       cohort_info_paths: Sequence[Path]) -> None:
    """Refuse a linked table whose rows differ from its record's ``sample_size``.

    A table cut short (or replaced) would otherwise be analysed on the
    samples that remain.

    Raises
    ------
    InputFileError
        Naming the table, its ``cohort_info.json`` and both counts.
    """
    for table, cohort, size, info in zip(tables, selection.cohorts, selection.sample_sizes,
                                         cohort_info_paths):
        if len(table.samples) != size:
            raise InputFileError(table.path, f"{len(table.samples)} samples, but {info} "
                                 f"records sample_size {size} for {cohort} (a truncated "
                                 "or replaced table?)")


def problem_data(problem: Problem, selection: Selection, tables: Sequence[LinkedTable],
                 task_info: Mapping[str, Any]) -> ProblemData:
    """Build ``X``, ``y`` and ``Z`` of a problem from its selected linked tables.

    ``tables`` are aligned with ``selection.cohorts`` (trait cohort first).
    Samples with a missing trait (or covariate) are dropped. A trait that
    cannot be analysed (:func:`check_trait`), or too few samples with both a
    trait and a covariate value, raise :class:`InputFileError` naming the file
    and the column.
    """
    trait_table = tables[0]
    y_all = trait_table.column(problem.trait)
    check_trait(trait_table, problem.trait, y_all)
    genes = _gene_columns(trait_table, problem.trait)
    Z_all: Optional[np.ndarray] = None
    covariate_names: List[str] = []
    condition_model = None
    if problem.is_two_step:
        condition_table = tables[1]
        regressors = list(selection.regressors)
        condition = condition_table.column(problem.condition)
        keep_c = np.flatnonzero(np.isfinite(condition))
        model = fit_condition_model(
            _gene_matrix(condition_table, regressors, keep_c), condition[keep_c])
        rows_t = np.arange(len(y_all))
        Z_all = predict_condition(model, _gene_matrix(trait_table, regressors, rows_t))[:, None]
        covariate_names = [problem.condition]
        condition_model = model.describe()
        genes, _ = without_regressors(genes, regressors)
        if not genes:
            raise InputFileError(trait_table.path, "no gene left after removing the regressors")
    elif problem.condition is not None:
        Z_all = trait_table.column(problem.condition)[:, None]
        covariate_names = [problem.condition]
    keep = np.isfinite(y_all)
    if keep.sum() < N_FOLDS * 2:
        raise InputFileError(trait_table.path, f"only {int(keep.sum())} samples with a "
                             f"value of trait column {problem.trait!r}; too few to analyse")
    if Z_all is not None:
        with_trait = int(keep.sum())
        keep &= np.all(np.isfinite(Z_all), axis=1)
        if keep.sum() < N_FOLDS * 2:
            raise InputFileError(trait_table.path, f"column {covariate_names[0]!r} has a value "
                                 f"for only {int(keep.sum())} of the {with_trait} samples "
                                 f"with a trait value; too few to analyse")
        check_trait(trait_table, problem.trait, y_all[keep])
    rows = np.flatnonzero(keep)
    present = set(genes)
    reference = [g for g in dict.fromkeys(related_genes(task_info, problem.trait))
                 if g in present]
    return ProblemData(problem, _gene_matrix(trait_table, genes, rows), y_all[rows],
                       None if Z_all is None else Z_all[rows], list(genes), covariate_names,
                       reference, tuple(selection.cohorts), list(selection.regressors),
                       condition_model)


# --------------------------------------------------------------------------- analysis

def analyze(data: ProblemData, config: AnalysisConfig = AnalysisConfig(),
            fingerprint: str = "", workers: int = 1) -> Dict[str, Any]:
    """Run the analysis of a problem and return its result document.

    The model is ``config.model``, or with ``"auto"`` SPEC 5.3's rule (batch
    effect -> ``lmm``, else ``lasso``); see :mod:`tools.statistics.models`.
    ``workers > 1`` lets a model run independent fits in that many threads
    (the LMM's fold fits and final fit; call with single-threaded BLAS: each
    thread's arithmetic is unchanged, so the document is the same bytes) and
    the float32 Gram matrix of the batch-effect rule. The Lasso path's folds
    advance side by side in one thread (their KKT checks share one product of
    the genes; the paths' many small steps would gain nothing from threads).
    """
    binary = is_binary(data.y)
    folds = make_folds(data.y, binary, config.n_folds, config.seed)
    batch = detect_batch_effect(data.X, config.batch_gap_numerator, workers)
    model = resolve_model(config, batch)
    logger.debug("%s: cohorts %s, %d samples x %d genes, %s trait, batch effect: %s -> %s",
                 data.problem, ", ".join(data.cohorts), data.X.shape[0], data.X.shape[1],
                 "binary" if binary else "continuous", batch, model.label)
    outcome = model.analyse(data, folds, workers)
    logger.debug("%s: %d genes selected (%s)", data.problem,
                 len(outcome["genes"]["Variable"]),
                 ", ".join(f"{k}={v}" for k, v in outcome["model"].items()
                           if k in ("penalty", "delta")))
    covariates = dict(outcome["covariates"], names=list(data.covariate_names))
    analysis = {"engine": ENGINE, **outcome["model"], "batch_effect": batch,
                "trait_type": "binary" if binary else "continuous",
                "cohorts": list(data.cohorts), "n_samples": int(data.X.shape[0]),
                "n_genes": int(data.X.shape[1]),
                "n_known_genes_in_data": len(data.reference),
                "covariates": covariates}
    if data.problem.is_two_step:
        analysis["regressors"] = list(data.regressors)
        analysis["condition_model"] = data.condition_model
    analysis["fingerprint"] = fingerprint
    return result_document({"significant_genes": outcome["genes"],
                            "cv_performance": outcome["cv"],
                            "analysis": analysis})


# --------------------------------------------------------------------------- end to end

def problem_fingerprint(problem: Problem, selection: Selection, digests: Sequence[str],
                        task_info: Mapping[str, Any], config: AnalysisConfig) -> str:
    """SHA-256 of everything a result depends on.

    Engine version, analysis constants, the problem, the selected cohorts and
    regressors, the SHA-256 of each linked table used, and the known genes of
    the trait (and condition). ``cohort_info.json`` enters through the
    selection it produces.
    """
    payload = {"engine": ENGINE, "config": config.as_dict(), "problem": str(problem),
               "cohorts": list(selection.cohorts), "regressors": list(selection.regressors),
               "tables": list(digests),
               "related": related_genes(task_info, problem.trait),
               "condition_related": (related_genes(task_info, problem.condition)
                                     if problem.is_two_step else [])}
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class ProblemOutcome:
    """What happened to one problem.

    Attributes
    ----------
    problem : Problem
    status : str
        ``done``, ``up-to-date``, ``skipped`` or ``failed``.
    reason : str
        Why it was skipped or failed.
    document : dict, optional
        The result document (``done`` only).
    seconds : float
        Wall time of the analysis.
    """

    problem: Problem
    status: str
    reason: str = ""
    document: Optional[Dict[str, Any]] = None
    seconds: float = 0.0


def run_problem(problem: Problem, preprocess_root: Path, task_info: Mapping[str, Any],
                cache: CohortCache, index: Optional[LinkedTableIndex] = None,
                cohort_info_cache: Optional[Dict[str, Any]] = None,
                config: AnalysisConfig = AnalysisConfig(),
                previous_fingerprint: Optional[str] = None,
                workers: int = 1) -> ProblemOutcome:
    """Select, load and analyse one problem (errors are the caller's to isolate).

    Returns ``up-to-date`` without analysing when ``previous_fingerprint``
    equals the fingerprint of the current inputs. ``workers``: see
    :func:`analyze`.
    """
    index = index or LinkedTableIndex(preprocess_root)
    selection = select_in_tree(problem, preprocess_root, task_info, index, cohort_info_cache,
                               strict=True)
    if not selection.ok:
        return ProblemOutcome(problem, "skipped", selection.reason)
    owners = [problem.trait] + ([problem.condition] if problem.is_two_step else [])
    paths = [index.path(owner, cohort) for cohort, owner in zip(selection.cohorts, owners)]
    digests = [cache.digest(path) for path in paths]
    fingerprint = problem_fingerprint(problem, selection, digests, task_info, config)
    if previous_fingerprint == fingerprint:
        return ProblemOutcome(problem, "up-to-date", "inputs unchanged")
    tables = [cache.load(path) for path in paths]
    check_sample_sizes(selection, tables,
                       [Path(preprocess_root) / owner / COHORT_INFO_NAME for owner in owners])
    data = problem_data(problem, selection, tables, task_info)
    return ProblemOutcome(problem, "done",
                          document=analyze(data, config, fingerprint, workers))
