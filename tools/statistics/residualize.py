"""Residualization of the response on covariates (SPEC 5.4).

The covariates ``Z`` (Age, Gender, or the predicted condition of a two-step
problem) are removed from ``y`` by least squares on ``[1, Z]``; the genes are
residualized the same way (:mod:`tools.statistics.adjust`), so the gene model
fitted on the residuals has ``Z`` unpenalized (Frisch-Waugh-Lovell). ``Z``'s
coefficients are kept separately and are never reported as genes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from utils.precision import snap_to_zero


@dataclass(frozen=True)
class CovariateFit:
    """Least-squares fit of ``y`` on ``[1, Z]``.

    Attributes
    ----------
    intercept : float
    coef : numpy.ndarray
        One coefficient per column of ``Z`` (empty without covariates).
    """

    intercept: float
    coef: np.ndarray

    def predict(self, Z: Optional[np.ndarray], n: int) -> np.ndarray:
        """``intercept + Z coef`` for ``n`` samples."""
        base = np.full(n, self.intercept)
        if Z is None or self.coef.size == 0:
            return base
        return base + as_matrix(Z, n) @ self.coef


def as_matrix(Z: np.ndarray, n: int) -> np.ndarray:
    """Covariates as an ``(n, k)`` float matrix."""
    return np.asarray(Z, dtype=float).reshape(n, -1)


def fit_covariates(y: np.ndarray, Z: Optional[np.ndarray] = None) -> CovariateFit:
    """Regress ``y`` on ``[1, Z]`` by least squares (minimum-norm if rank deficient)."""
    y = np.asarray(y, dtype=float).ravel()
    n = y.size
    if Z is None:
        return CovariateFit(float(y.mean()) if n else 0.0, np.zeros(0))
    matrix = np.hstack([np.ones((n, 1)), as_matrix(Z, n)])
    solution, *_ = np.linalg.lstsq(matrix, y, rcond=None)
    coef = snap_to_zero(solution[1:], coefficient_scale(y, as_matrix(Z, n)))
    return CovariateFit(float(solution[0]), coef)


def coefficient_scale(y: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """``||y - mean|| / ||z_k - mean||`` per covariate: the size of a coefficient of ``Z``.

    Coefficients far below it are round-off (:func:`utils.precision.snap_to_zero`);
    a constant covariate gets scale 0 (nothing is snapped).
    """
    y_norm = float(np.linalg.norm(y - y.mean())) if y.size else 0.0
    z_norm = np.linalg.norm(Z - Z.mean(axis=0), axis=0)
    safe = np.where(z_norm > 0, z_norm, 1.0)
    return np.where(z_norm > 0, y_norm / safe, 0.0)


def residualize(y: np.ndarray, Z: Optional[np.ndarray] = None):
    """Residual of ``y`` after ``[1, Z]``, and the covariate fit.

    Returns
    -------
    residual : numpy.ndarray
    fit : CovariateFit
    """
    y = np.asarray(y, dtype=float).ravel()
    fit = fit_covariates(y, Z)
    return y - fit.predict(Z, y.size), fit
