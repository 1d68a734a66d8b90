"""Cross-validation of the LMM path (SPEC 5.5): the generic loop's results, with less work.

The generic loop (:func:`tools.statistics.crossval.cross_validate_fits`) standardizes
every held-out sample's genes (:func:`~tools.statistics.crossval.fold_rows`) and predicts
through the estimator's ``predict``. The LMM predicts by a least-squares refit of the
fold's selected genes (:func:`tools.statistics.lmm.predict_refit`), which reads at most a
third of the training samples' count of genes: only those held-out columns are
standardized here, with the same elementwise arithmetic, so the predictions, the
selections and the metrics are the generic loop's, bit for bit
(``tests/tools/statistics/test_lmm_cv.py``).
"""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from tools.statistics.crossval import (FoldOutcome, GridCV, _rows, fold_outcome, grid_of_folds,
                                       make_folds, train_indices)
from tools.statistics.lmm import design, predict_refit
from tools.statistics.standardize import standardize_rows
from utils.columns import is_binary


def held_out_columns(X: np.ndarray, test: np.ndarray, columns: np.ndarray, mean: np.ndarray,
                     scale: np.ndarray, dtype: type) -> np.ndarray:
    """Some genes of the held-out samples standardized with the training statistics,
    as :func:`~tools.statistics.crossval.fold_rows` computes them (float64, elementwise),
    returned in ``dtype``."""
    block = X[np.ix_(np.asarray(test), np.asarray(columns, dtype=int))].astype(np.float64)
    return ((block - mean[columns]) / scale[columns]).astype(dtype, copy=False)


def cross_validate_lmm(fit: Callable[..., Any], X: np.ndarray, y: np.ndarray,
                       Z: Optional[np.ndarray], gene_names: Sequence[str],
                       reference: Sequence[str], penalties: Sequence[Optional[float]],
                       folds: Optional[List[np.ndarray]], threshold: float,
                       dtype: type = np.float32, executor: Optional[Executor] = None) -> GridCV:
    """:func:`~tools.statistics.crossval.cross_validate_fits` for fits of
    :class:`~tools.statistics.lmm.LMM` (the same arguments and result).

    ``fit(X_train_std, y_train, Z_train, penalty)`` returns a fitted model whose
    ``estimator`` is the fitted :class:`~tools.statistics.lmm.LMM`; its predictions are
    those of :meth:`~tools.statistics.lmm.LMM.predict` on the held-out samples, computed
    from the genes the refit uses only.
    """
    y = np.asarray(y, dtype=float)
    folds = make_folds(y, is_binary(y)) if folds is None else folds
    X = np.asarray(X)
    X = X.astype(dtype) if X.dtype != dtype else X

    def one_fold(test: np.ndarray) -> FoldOutcome:
        train = train_indices(y.size, test)
        X_train, mean, scale = standardize_rows(X, train, dtype)
        fixed = design(_rows(Z, test), test.size)

        def columns(chosen: np.ndarray) -> np.ndarray:
            return held_out_columns(X, test, chosen, mean, scale, dtype)

        results = []
        for penalty in penalties:
            fitted = fit(X_train, y[train], _rows(Z, train), penalty)
            predicted = predict_refit(*fitted.estimator.refit(), fixed, columns)
            results.append(fold_outcome(predicted,
                                        fitted.ranked_genes(gene_names, threshold)["Variable"],
                                        reference))
        return results

    outcomes = list(executor.map(one_fold, folds) if executor else map(one_fold, folds))
    return grid_of_folds(penalties, folds, y, outcomes, reference)
