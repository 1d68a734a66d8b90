"""Column standardization with training statistics (SPEC 5.4, 5.5).

Genes are z-scored with the mean and standard deviation of the *training*
samples; the same statistics are applied to held-out samples.

A gene counts as constant (:func:`safe_scale`) when its training standard
deviation is round-off (below ``ZERO_VARIANCE_TOL`` times its magnitude) or
negligible against the data's scale: at most ``RELATIVE_VARIANCE_FLOOR``
(1e-6) times the median standard deviation of the other genes. The second
rule is relative, so log2, linear and count data behave alike; it stops a
gene that differs by 1e-9 in one sample from being scaled into a
unit-variance indicator of that sample (which a Lasso then selects at every
penalty). A constant gene gets the scale ``inf``: its standardized values are
exactly 0 for every sample, training or new, so it is never selected, tested
or used in a kinship.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

ZERO_VARIANCE_TOL = 1e-12
RELATIVE_VARIANCE_FLOOR = 1e-6


@dataclass(frozen=True)
class Standardizer:
    """Per-column centre and scale learnt from training samples.

    Attributes
    ----------
    mean : numpy.ndarray
        Column means of the training samples.
    scale : numpy.ndarray
        Column standard deviations (population, ``ddof=0``); ``inf`` for
        constant columns (:func:`safe_scale`), which standardize to 0.
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


def constant_columns(std: np.ndarray, mean: Optional[np.ndarray] = None) -> np.ndarray:
    """Which standard deviations mark a constant column (see the module docstring).

    Parameters
    ----------
    std : numpy.ndarray
        Population standard deviations of the columns.
    mean : numpy.ndarray, optional
        Column means (the magnitude of the round-off test; 1 when omitted).

    Returns
    -------
    numpy.ndarray of bool

    Examples
    --------
    >>> constant_columns(np.array([1.0, 2.0, 1e-9, 0.0])).tolist()
    [False, False, True, True]
    """
    std = np.asarray(std, dtype=float)
    magnitude = 1.0 if mean is None else np.maximum(1.0, np.abs(mean))
    constant = ~(std > ZERO_VARIANCE_TOL * magnitude)
    if not constant.all():
        floor = RELATIVE_VARIANCE_FLOOR * float(np.median(std[~constant]))
        constant |= std <= floor
    return constant


def safe_scale(std: np.ndarray, mean: Optional[np.ndarray] = None) -> np.ndarray:
    """Standard deviations with those of constant columns replaced by ``inf``.

    >>> safe_scale(np.array([2.0, 0.0])).tolist()
    [2.0, inf]
    """
    std = np.asarray(std, dtype=float)
    return np.where(constant_columns(std, mean), np.inf, std)


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
