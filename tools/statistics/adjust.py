"""Covariates unpenalized, by Frisch-Waugh-Lovell (SPEC 5.4).

A gene model ``y ~ [1, Z] gamma + X w`` with ``Z`` unpenalized is solved by
residualizing **both** ``y`` and every gene on ``[1, Z]`` (training samples)
and fitting the genes' residuals to ``y``'s residual: the gene coefficients
are those of the joint problem (for a Lasso the joint problem's KKT
conditions hold with ``gamma`` free). Residualizing ``y`` alone is a
different problem (it penalizes the part of ``X w`` that ``Z`` explains).

The residual genes are then re-standardized (divided by their standard
deviation after ``Z``), so every gene's penalty is per unit of its
covariate-adjusted variation, as the LMM's t test measures it: a sex-linked
gene keeps ~20 % of its variance after Gender, and on the z-scale of the raw
gene the same penalty would cost it ~5x more per unit of fit. A residual gene
with (numerically) no variance left (a copy of a covariate) is constant by
:func:`tools.statistics.standardize.safe_scale` and becomes 0.

Without covariates (``Z`` None) nothing is done: the genes are centred
already, and their scale is 1.

Predictions of new samples apply the training adjustment:
``(X_std_new - (Z_new - z_mean) Gamma) / scale``; the joint model's
covariate coefficients (reported under ``analysis.covariates``) are those of
``y``'s residualization corrected by the genes' share (:meth:`GeneAdjustment.joint`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from tools.statistics.residualize import CovariateFit, as_matrix
from tools.statistics.standardize import safe_scale


@dataclass(frozen=True)
class GeneAdjustment:
    """The training samples' regression of the standardized genes on ``Z``.

    Attributes
    ----------
    z_mean : (k,) array
        Training means of the covariates.
    gamma : (k, p) array
        Coefficients of the centred covariates for each gene.
    scale : (p,) array
        Standard deviation of each residual gene (``inf``: nothing left).
    """

    z_mean: np.ndarray
    gamma: np.ndarray
    scale: np.ndarray

    def rows(self, X_std: np.ndarray, Z: np.ndarray) -> np.ndarray:
        """Adjusted genes of samples (samples x genes), in the precision of ``X_std``."""
        Zc = as_matrix(Z, X_std.shape[0]) - self.z_mean
        shift = (Zc @ self.gamma).astype(X_std.dtype)
        return (X_std - shift) / self.scale.astype(X_std.dtype)

    def transposed(self, XT_std: np.ndarray, Z: np.ndarray) -> np.ndarray:
        """Adjusted genes in the genes x samples layout (a new array)."""
        Zc = as_matrix(Z, XT_std.shape[1]) - self.z_mean
        return (XT_std - self.gamma.T @ Zc.T) / self.scale[:, None]

    def joint(self, covariates: CovariateFit, coef: np.ndarray) -> CovariateFit:
        """Covariate coefficients of the joint model on the standardized genes.

        ``y ~ a + Z g + X_adj w`` with ``X_adj = (X_std - (Z - z_mean) Gamma) / scale``
        is ``y ~ (a + z_mean Gamma w') + Z (g - Gamma w') + X_std w'``,
        ``w' = w / scale``.
        """
        per_gene = np.where(np.isfinite(self.scale), np.asarray(coef, dtype=float)
                            / np.where(np.isfinite(self.scale), self.scale, 1.0), 0.0)
        shift = self.gamma @ per_gene
        return CovariateFit(float(covariates.intercept + self.z_mean @ shift),
                            np.asarray(covariates.coef, dtype=float) - shift)


def adjust_rows(X_std: np.ndarray, Z: Optional[np.ndarray]
                ) -> Tuple[np.ndarray, Optional[GeneAdjustment]]:
    """Residualize standardized genes (samples x genes) on ``[1, Z]`` and re-standardize.

    Returns
    -------
    X_adjusted : numpy.ndarray
        In the precision of ``X_std`` (``X_std`` itself when ``Z`` is None).
    adjustment : GeneAdjustment or None
    """
    if Z is None:
        return X_std, None
    Z = as_matrix(Z, X_std.shape[0])
    z_mean = Z.mean(axis=0)
    gamma = np.linalg.pinv(Z - z_mean) @ np.asarray(X_std, dtype=float)
    residual = np.asarray(X_std, dtype=float) - (Z - z_mean) @ gamma
    scale = safe_scale(np.sqrt(np.einsum("ij,ij->j", residual, residual) / Z.shape[0]))
    return (residual / scale).astype(X_std.dtype, copy=False), GeneAdjustment(z_mean, gamma,
                                                                              scale)


def adjust_transposed(XT_std: np.ndarray, Z: Optional[np.ndarray]) -> Optional[GeneAdjustment]:
    """:func:`adjust_rows` in place on a genes x samples float64 matrix."""
    if Z is None:
        return None
    Z = as_matrix(Z, XT_std.shape[1])
    z_mean = Z.mean(axis=0)
    gamma = (XT_std @ np.linalg.pinv(Z - z_mean).T).T
    XT_std -= gamma.T @ (Z - z_mean).T
    scale = safe_scale(np.sqrt(np.einsum("ij,ij->i", XT_std, XT_std) / Z.shape[0]))
    XT_std /= scale[:, None]
    return GeneAdjustment(z_mean, gamma, scale)
