"""Cross-validation and penalty tuning (SPEC 5.5).

* Folds: 5 over a shuffle seeded with 42, every sample tested exactly once;
  binary traits are always stratified by class (a class with fewer than 5
  members is spread over distinct folds, so no fold gets two cases while
  another has none).
* Per fold: genes standardized with training statistics; with covariates,
  the genes and the response are residualized on ``[1, Z]`` (training
  samples) and the residual genes re-standardized
  (:mod:`tools.statistics.adjust`: ``Z`` unpenalized); model fitted, test
  samples predicted (covariate part + gene part), selected genes compared
  with the trait's known genes present in the data.
* Prediction metrics: a binary trait's accuracy, precision, recall and F1
  are computed from the confusion counts pooled over the folds (every sample's
  out-of-fold prediction; Forman and Scholz 2010), so a fold without a case
  contributes its true negatives rather than a recall of 0; a continuous
  trait's normalized MSE and R^2 are means over the folds.
* Lasso: the whole penalty grid (``1e-6 ... 1``, 7 values) is solved per fold
  by one certified path, the five paths side by side so that their KKT checks
  share one product of the genes (:func:`tools.statistics.lasso.lasso_grid_paths`). The chosen
  penalty maximizes the mean selection precision (ties: the smaller penalty);
  if no penalty ever selects a known gene, 0.1. Prediction and selection
  metrics are both those of the chosen penalty (so the reported selection
  precision is the largest of the grid's 7 noisy means: optimistic).
* Any other model (:func:`cross_validate_fits`, the one generic loop): per
  fold, genes standardized with the training statistics, one fit per penalty,
  test samples predicted, the fit's ranked genes compared with the known
  genes. The LMM's results are this loop's with nothing to tune (its per-gene
  tests have no penalty): the predictions of a least-squares refit of the fold's
  selected genes, and the selection metrics of the genes with corrected p < 0.05
  (:mod:`tools.statistics.lmm_cv` computes them bit for bit, standardizing only
  the held-out genes the refit reads).
"""

from __future__ import annotations

import functools
import warnings
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold

from tools.statistics.design import StandardizedDesign, problem_designs
from tools.statistics.lasso import lasso_grid_paths
from tools.statistics.lmm import FDR_THRESHOLD
from tools.statistics.residualize import residualize
from tools.statistics.standardize import standardize_rows
from utils.columns import is_binary  # noqa: F401 (re-exported: the binary-trait test)
from utils.metrics import overlap_metrics
from utils.runtime import SEED

N_FOLDS = 5
PENALTY_GRID = tuple(float(10.0 ** e) for e in range(-6, 1))
FALLBACK_PENALTY = 0.1
BINARY_THRESHOLD = 0.5
BINARY_METRICS = ("accuracy", "precision", "recall", "f1")
CONTINUOUS_METRICS = ("normalized_mse", "r2")
SELECTION_METRICS = ("precision", "recall", "f1", "jaccard")


def make_folds(y: np.ndarray, binary: bool, k: int = N_FOLDS, seed: int = SEED
               ) -> List[np.ndarray]:
    """Test indices of each fold (sorted); together they cover every sample once.

    Binary traits with both classes are always stratified by class (scikit-learn
    ``StratifiedKFold``): a class with fewer than ``k`` members has them in
    distinct folds (scikit-learn's warning about it is silenced: it is the
    intended behaviour). Continuous traits get plain shuffled folds.
    """
    y = np.asarray(y, dtype=float)
    n = y.size
    if n < k:
        raise ValueError(f"{n} samples cannot be split into {k} folds")
    placeholder = np.zeros((n, 1))
    if binary and np.unique(y).size > 1:
        splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The least populated class",
                                    category=UserWarning)
            splits = list(splitter.split(placeholder, y))
    else:
        splits = list(KFold(n_splits=k, shuffle=True, random_state=seed).split(placeholder))
    return [np.sort(test) for _, test in splits]


def train_indices(n: int, test: np.ndarray) -> np.ndarray:
    """The complement of ``test`` in ``range(n)``."""
    mask = np.ones(n, dtype=bool)
    mask[test] = False
    return np.flatnonzero(mask)


def prediction_metrics(y_true: np.ndarray, y_pred: np.ndarray, binary: bool,
                       reference_variance: float) -> Dict[str, float]:
    """Prediction metrics of one fold.

    Binary: accuracy, precision, recall, F1 (percent) of ``y_pred >= 0.5``.
    Continuous: MSE divided by the variance of the fold's true values (the
    variance of the whole response when the fold's is zero) and R^2 with the
    same denominator.
    """
    y_true = np.asarray(y_true, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float)
    if binary:
        return binary_metrics(y_true >= BINARY_THRESHOLD, y_pred >= BINARY_THRESHOLD)
    variance = float(np.var(y_true))
    if variance <= 1e-12:
        variance = reference_variance if reference_variance > 1e-12 else 1.0
    mse = float(np.mean((y_true - y_pred) ** 2))
    return {"normalized_mse": mse / variance, "r2": 1.0 - mse / variance}


def binary_metrics(truth: np.ndarray, predicted: np.ndarray) -> Dict[str, float]:
    """Accuracy, precision, recall and F1 (percent) of boolean labels.

    Precision, recall or F1 with an empty denominator are 0 (scikit-learn's
    ``zero_division=0``).
    """
    tp = float(np.sum(truth & predicted))
    n_pred, n_true = float(np.sum(predicted)), float(np.sum(truth))
    return {"accuracy": 100.0 * float(np.mean(truth == predicted)),
            "precision": 100.0 * tp / n_pred if n_pred else 0.0,
            "recall": 100.0 * tp / n_true if n_true else 0.0,
            "f1": 200.0 * tp / (n_pred + n_true) if n_pred + n_true else 0.0}


def cv_prediction_metrics(truths: Sequence[np.ndarray], predictions: Sequence[np.ndarray],
                          binary: bool, reference_variance: float) -> Dict[str, float]:
    """Prediction metrics of a cross-validation from each fold's truths and predictions.

    Binary: :func:`binary_metrics` of the confusion counts pooled over the
    folds. Continuous: the mean over the folds of :func:`prediction_metrics`.
    """
    if binary:
        truth = np.concatenate([np.asarray(t, dtype=float) for t in truths])
        predicted = np.concatenate([np.asarray(p, dtype=float) for p in predictions])
        return binary_metrics(truth >= BINARY_THRESHOLD, predicted >= BINARY_THRESHOLD)
    return mean_metrics([prediction_metrics(t, p, False, reference_variance)
                         for t, p in zip(truths, predictions)])


def selection_metrics(selected: Sequence[str], reference: Sequence[str]) -> Dict[str, float]:
    """Precision, recall, F1, Jaccard (percent) of selected vs known genes."""
    return overlap_metrics(selected, reference)


def mean_metrics(per_fold: Sequence[Mapping[str, float]]) -> Dict[str, float]:
    """Average of each metric over folds (keys of the first fold, in order)."""
    if not per_fold:
        return {}
    return {key: float(np.mean([fold[key] for fold in per_fold])) for key in per_fold[0]}


def fold_rows(X: np.ndarray, test: np.ndarray, dtype: type = np.float64
              ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training and test samples (samples x genes) standardized with training statistics.

    Statistics are computed in float64; the standardized matrices are returned
    in ``dtype``.

    Returns
    -------
    train, X_train_std, X_test_std
    """
    train = train_indices(X.shape[0], test)
    X_train, mean, scale = standardize_rows(X, train, dtype)
    X_test = (X[test].astype(np.float64) - mean) / scale
    return train, X_train, X_test.astype(dtype, copy=False)


def _rows(Z: Optional[np.ndarray], index: np.ndarray) -> Optional[np.ndarray]:
    return None if Z is None else np.asarray(Z, dtype=float).reshape(len(Z), -1)[index]


@dataclass
class GridCV:
    """Cross-validated metrics of every penalty of a Lasso grid.

    Attributes
    ----------
    penalties : tuple of float
    prediction, selection : list of dict
        Mean metrics per penalty (same order as ``penalties``).
    hits : list of bool
        Whether any fold selected a known gene at that penalty.
    support : numpy.ndarray
        Lasso only: genes non-zero at some penalty of some fold.
    supports : list of numpy.ndarray
        Lasso only: per penalty, the genes non-zero at it in some fold.
    reference : tuple of str
        The known genes the selection metrics (and the penalty choice) were
        measured against.
    """

    penalties: Sequence[Optional[float]]
    prediction: List[Dict[str, float]] = field(default_factory=list)
    selection: List[Dict[str, float]] = field(default_factory=list)
    hits: List[bool] = field(default_factory=list)
    support: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    reference: Tuple[str, ...] = ()
    supports: List[np.ndarray] = field(default_factory=list)

    def support_down_to(self, index: int) -> np.ndarray:
        """Genes non-zero in some fold at ``penalties[index]`` or a larger penalty:
        those a path descending to that penalty is likely to meet (the final
        fit's initial working set; speed only)."""
        chosen = [self.supports[i] for i, penalty in enumerate(self.penalties)
                  if penalty is not None and penalty >= self.penalties[index]]
        return functools.reduce(np.union1d, chosen, np.zeros(0, dtype=int))

    def choose(self, fallback: float = FALLBACK_PENALTY) -> int:
        """Index of the chosen penalty (SPEC 5.5); 0 when there is a single value."""
        if len(self.penalties) == 1:
            return 0
        return choose_penalty(self.penalties, [s["precision"] for s in self.selection],
                              self.hits, fallback)

    def metrics(self, index: int) -> Dict[str, Dict[str, float]]:
        """``{"prediction": ..., "selection": ...}`` of one penalty (``cv_performance``)."""
        return {"prediction": self.prediction[index], "selection": self.selection[index]}

    def tuning(self) -> Dict[str, list]:
        """The grid, mean selection precision per penalty, known-gene hits, and the
        known genes the penalty was tuned on."""
        return {"penalties": list(self.penalties),
                "mean_selection_precision": [s["precision"] for s in self.selection],
                "known_gene_hit": list(self.hits),
                "reference_genes": list(self.reference)}


def choose_penalty(penalties: Sequence[float], mean_precision: Sequence[float],
                   hits: Sequence[bool], fallback: float = FALLBACK_PENALTY) -> int:
    """Index of the penalty maximizing mean selection precision.

    Ties go to the smaller penalty; when no penalty ever selected a known gene
    the penalty closest to ``fallback`` is returned.
    """
    penalties = np.asarray(penalties, dtype=float)
    if not any(hits):
        return int(np.argmin(np.abs(np.log10(penalties) - np.log10(fallback))))
    best = max(mean_precision)
    tied = [i for i, value in enumerate(mean_precision) if value == best]
    return min(tied, key=lambda i: penalties[i])


def cross_validate_lasso_grid(X: np.ndarray, y: np.ndarray, Z: Optional[np.ndarray],
                              gene_names: Sequence[str], reference: Sequence[str],
                              penalties: Sequence[float] = PENALTY_GRID,
                              folds: Optional[List[np.ndarray]] = None,
                              XT: Optional[np.ndarray] = None,
                              designs: Optional[Sequence[StandardizedDesign]] = None
                              ) -> GridCV:
    """Cross-validate every penalty of the grid at once.

    Parameters
    ----------
    X : (n, p) raw genes
    y : (n,) trait
    Z : (n, k) covariates or None
    gene_names : names of the columns of ``X``
    reference : known genes of the trait present in ``gene_names``
    penalties : the grid
    folds : test indices per fold (default :func:`make_folds`)
    XT : (p, n) C-contiguous float64 copy of ``X.T``, optional
        The transposed layout the folds are cut from, when the caller has it
        already (it is read, never modified).
    designs : the folds' designs, optional
        (:func:`~tools.statistics.design.problem_designs` with these folds;
        made when absent).
    """
    y = np.asarray(y, dtype=float)
    binary = is_binary(y)
    folds = make_folds(y, binary) if folds is None else folds
    if designs is None:
        if XT is None:
            XT = np.ascontiguousarray(np.asarray(X, dtype=float).T)
        _, designs = problem_designs(XT, Z, folds)
    names = np.asarray(gene_names, dtype=object)
    reference_set = set(reference)
    variance = float(np.var(y))
    predicted: List[List[np.ndarray]] = [[] for _ in penalties]
    selection: List[List[Dict[str, float]]] = [[] for _ in penalties]
    hits = [False] * len(penalties)
    support = np.zeros(0, dtype=int)
    supports = [np.zeros(0, dtype=int) for _ in penalties]
    fits = [residualize(y[train_indices(y.size, test)], _rows(Z, train_indices(y.size, test)))
            for test in folds]
    # the folds' paths side by side: their KKT checks share one product each round
    paths = lasso_grid_paths([(design, residual) for design, (residual, _) in zip(designs, fits)],
                             penalties)
    for test, design, (_, covariates), path in zip(folds, designs, fits, paths):
        Z_test = _rows(Z, test)
        candidates = np.flatnonzero(np.any(path.coefs != 0, axis=0))
        # held-out samples transformed only for the genes the predictions use
        predictions = (path.coefs[:, candidates] @ design.other_rows(candidates, test, Z_test)
                       + covariates.predict(Z_test, test.size))
        support = np.union1d(support, candidates)
        for i in range(len(penalties)):
            supports[i] = np.union1d(supports[i], np.flatnonzero(path.coefs[i]))
            chosen = names[path.coefs[i] != 0]
            predicted[i].append(predictions[i])
            selection[i].append(selection_metrics(chosen, reference))
            hits[i] = hits[i] or bool(reference_set.intersection(chosen))
    truths = [y[test] for test in folds]
    return GridCV(tuple(penalties),
                  [cv_prediction_metrics(truths, p, binary, variance) for p in predicted],
                  [mean_metrics(s) for s in selection], hits, support, tuple(reference),
                  supports)


FitFunction = Callable[[np.ndarray, np.ndarray, Optional[np.ndarray], Any], Any]


def cross_validate_fits(fit: FitFunction, X: np.ndarray, y: np.ndarray, Z: Optional[np.ndarray],
                        gene_names: Sequence[str], reference: Sequence[str],
                        penalties: Sequence[Optional[float]],
                        folds: Optional[List[np.ndarray]] = None,
                        threshold: float = FDR_THRESHOLD, dtype: type = np.float64,
                        executor: Optional[Executor] = None) -> GridCV:
    """Cross-validate any model at each penalty (SPEC 5.5): the generic loop.

    Parameters
    ----------
    fit : callable
        ``fit(X_train_std, y_train, Z_train, penalty)`` returns a fitted model
        with ``predict(X_test_std, Z_test)`` (covariate part included) and
        ``ranked_genes(gene_names, threshold)`` (the ``significant_genes``
        lists; see :class:`tools.statistics.models.FittedModel`).
    X : (n, p) raw genes; y : (n,) trait; Z : (n, k) covariates or None.
    gene_names, reference : the columns of ``X``; the trait's known genes among them.
    penalties : the values to try (``[None]`` for a model without penalty).
    folds : test indices per fold (default :func:`make_folds`).
    threshold : FDR level of models with p-values.
    dtype : precision of the standardized fold matrices (``float32`` halves the
        cost of large products; statistics stay float64).
    executor : runs the folds concurrently (threads, BLAS single-threaded);
        every fold's arithmetic is unchanged, so are the results.
    """
    y = np.asarray(y, dtype=float)
    folds = make_folds(y, is_binary(y)) if folds is None else folds
    X = np.asarray(X)
    X = X.astype(dtype) if X.dtype != dtype else X

    def one_fold(test: np.ndarray) -> FoldOutcome:
        train, X_train, X_test = fold_rows(X, test, dtype)
        results = []
        for penalty in penalties:
            fitted = fit(X_train, y[train], _rows(Z, train), penalty)
            results.append(fold_outcome(fitted.predict(X_test, _rows(Z, test)),
                                        fitted.ranked_genes(gene_names, threshold)["Variable"],
                                        reference))
        return results

    outcomes = list(executor.map(one_fold, folds) if executor else map(one_fold, folds))
    return grid_of_folds(penalties, folds, y, outcomes, reference)


FoldOutcome = List[Tuple[np.ndarray, Dict[str, float], bool]]


def fold_outcome(predicted: np.ndarray, chosen: Sequence[str], reference: Sequence[str]
                 ) -> Tuple[np.ndarray, Dict[str, float], bool]:
    """One fit's part of a fold's outcome: its predictions of the held-out samples, the
    selection metrics of its genes ``chosen`` and whether one of them is a known gene."""
    return (np.asarray(predicted, dtype=float), selection_metrics(chosen, reference),
            bool(set(reference).intersection(chosen)))


def grid_of_folds(penalties: Sequence[Optional[float]], folds: List[np.ndarray], y: np.ndarray,
                  outcomes: Sequence[FoldOutcome], reference: Sequence[str]) -> GridCV:
    """The cross-validated metrics of each penalty from every fold's outcomes
    (per fold, per penalty: :func:`fold_outcome`)."""
    y = np.asarray(y, dtype=float)
    binary, variance = is_binary(y), float(np.var(y))
    truths = [y[test] for test in folds]
    indices = range(len(penalties))
    return GridCV(tuple(penalties),
                  [cv_prediction_metrics(truths, [fold[i][0] for fold in outcomes], binary,
                                         variance) for i in indices],
                  [mean_metrics([fold[i][1] for fold in outcomes]) for i in indices],
                  [any(fold[i][2] for fold in outcomes) for i in indices],
                  reference=tuple(reference))
