"""Column standardization with training statistics (SPEC 5.4, 5.5).

Genes are z-scored with the mean and standard deviation of the *training*
samples; the same statistics are applied to held-out samples. A column with
zero variance in the training samples is centred but left unscaled (its scale
is 1), so it becomes all zeros and can never be selected.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

ZERO_VARIANCE_TOL = 1e-12


@dataclass(frozen=True)
class Standardizer:
    """Per-column centre and scale learnt from training samples.

    Attributes
    ----------
    mean : numpy.ndarray
        Column means of the training samples.
    scale : numpy.ndarray
        Column standard deviations (population, ``ddof=0``); 1 for columns
        whose variance is (numerically) zero.
    """

    mean: np.ndarray
    scale: np.ndarray

    @classmethod
    def fit(cls, X: np.ndarray) -> "Standardizer":
        """Learn the statistics of ``X`` (samples x features)."""
        X = np.asarray(X, dtype=float)
        mean = X.mean(axis=0)
        std = X.std(axis=0)
        return cls(mean, safe_scale(std, mean))

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Apply the training statistics to ``X`` (returns a new array)."""
        return (np.asarray(X, dtype=float) - self.mean) / self.scale


def safe_scale(std: np.ndarray, mean: Optional[np.ndarray] = None) -> np.ndarray:
    """Standard deviations with (numerically) zero values replaced by 1.

    A deviation counts as zero when it is below ``ZERO_VARIANCE_TOL`` times the
    column's magnitude (``max(1, |mean|)``), which absorbs round-off in the
    standard deviation of a constant column.
    """
    magnitude = 1.0 if mean is None else np.maximum(1.0, np.abs(mean))
    return np.where(std > ZERO_VARIANCE_TOL * magnitude, std, 1.0)


def standardize_split(X_train: np.ndarray, X_test: Optional[np.ndarray] = None
                      ) -> Tuple[np.ndarray, Optional[np.ndarray], Standardizer]:
    """Standardize a training matrix and (optionally) a test matrix with its statistics.

    Returns
    -------
    X_train_std, X_test_std, standardizer
        ``X_test_std`` is ``None`` when no test matrix is given.
    """
    scaler = Standardizer.fit(X_train)
    test = None if X_test is None else scaler.transform(X_test)
    return scaler.transform(X_train), test, scaler


def standardize_transposed(XT: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Standardize, in place, the rows of a genes x samples matrix.

    The layout the Lasso path works in (one contiguous row per gene).

    Returns
    -------
    mean, scale : numpy.ndarray
        The statistics used, to apply to held-out samples.
    """
    mean = XT.mean(axis=1)
    XT -= mean[:, None]
    std = np.sqrt(np.einsum("ij,ij->i", XT, XT) / XT.shape[1])
    scale = safe_scale(std, mean)
    XT /= scale[:, None]
    return mean, scale


def standardize_rows(X: np.ndarray, rows: np.ndarray, dtype: type = np.float64
                     ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Standardize the samples ``rows`` of ``X`` (samples x genes) with their own statistics.

    Works in place on one copy (the row gather) in ``dtype``; the means are
    accumulated in float64.

    Returns
    -------
    X_std, mean, scale
        ``mean`` and ``scale`` in float64.
    """
    block = X[np.asarray(rows)].astype(dtype, copy=False)  # fancy indexing copies
    mean = block.mean(axis=0, dtype=np.float64)
    block -= mean.astype(dtype)
    squares = np.einsum("ij,ij->j", block, block).astype(np.float64)
    scale = safe_scale(np.sqrt(squares / block.shape[0]), mean)
    block /= scale.astype(dtype)
    return block, mean, scale
