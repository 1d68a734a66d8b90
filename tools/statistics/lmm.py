"""Linear mixed model with per-gene tests (SPEC 5.4, guideline step 8).

Model for gene ``j``::

    y = C beta + x_j b_j + g + e,   g ~ N(0, s2 K),   e ~ N(0, s2 delta I)

with ``C = [1, Z]`` (intercept and covariates), the kinship
``K = Xs Xs^T / p`` of the standardized genes, and ``delta`` the ratio of
residual to genetic variance. Following FaST-LMM (Lippert et al. 2011):

1. one eigendecomposition ``K = U diag(lam) U^T`` per fit;
2. ``delta`` maximises the restricted (REML) likelihood of the null model
   (no gene): a grid over ``ln delta`` in ``[-10, 10]``, then the root of the
   REML score between the grid neighbours of the best point;
3. every gene is tested by generalized least squares in the whitened space
   (:mod:`tools.statistics.gls`), with the covariates partialled out, a t statistic with
   ``n - c - 1`` degrees of freedom;
4. p-values are corrected by Benjamini-Hochberg; the selected genes are those
   with corrected p below the threshold, ranked by corrected p
   (:mod:`tools.statistics.fdr`; only the genes that can pass are tested in full).

Predictions for new samples are the BLUP: the null model's fixed effects plus
the best linear unbiased predictor of ``g`` from the kinship between new and
training samples.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np
from scipy import optimize

from tools.statistics.fdr import benjamini_hochberg, rank_significant  # noqa: F401 (re-exported)
from tools.statistics.gls import GeneTests, whitened
from tools.statistics.residualize import coefficient_scale
from utils.precision import snap_to_zero

LOG_DELTA_BOUNDS = (-10.0, 10.0)
N_GRID = 100
FDR_THRESHOLD = 0.05


@dataclass(frozen=True)
class KinshipEigen:
    """Eigendecomposition of the kinship of the training samples.

    Attributes
    ----------
    values : numpy.ndarray
        Eigenvalues (clipped at 0), ascending.
    vectors : numpy.ndarray
        ``(n, n)`` orthonormal eigenvectors (columns).
    n_genes : int
        ``p``, the divisor of the kinship.
    """

    values: np.ndarray
    vectors: np.ndarray
    n_genes: int


def kinship_eigen(X_std: np.ndarray) -> KinshipEigen:
    """Eigendecomposition of ``K = Xs Xs^T / p`` (one per fit).

    The product runs in the precision of ``X_std``; the decomposition in float64.
    """
    n_genes = max(X_std.shape[1], 1)
    kinship = (X_std @ X_std.T).astype(float) / n_genes
    values, vectors = np.linalg.eigh(kinship)
    return KinshipEigen(np.clip(values, 0.0, None), vectors, n_genes)


def _weighted_fit(weights: np.ndarray, C: np.ndarray, y: np.ndarray
                  ) -> Tuple[np.ndarray, np.ndarray]:
    """Weighted least squares of rotated ``y`` on rotated ``C`` for many weight rows.

    Parameters
    ----------
    weights : (g, n) array
    C : (n, c) array
    y : (n,) array

    Returns
    -------
    beta : (g, c) array
    rss : (g,) weighted residual sums of squares
    """
    gram = np.einsum("gi,ic,id->gcd", weights, C, C)
    rhs = (weights * y) @ C
    beta = np.linalg.solve(gram, rhs[..., None])[..., 0]
    resid = y[None, :] - beta @ C.T
    return beta, np.sum(weights * resid ** 2, axis=1)


def _null_fit(log_delta: np.ndarray, eigen_values: np.ndarray, Cr: np.ndarray,
              yr: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Null-model GLS at each ``ln delta``, in the eigenbasis.

    Returns the weights ``1 / (lam + delta)`` ``(g, n)``, the Gram matrices
    ``C'V^-1 C`` ``(g, c, c)``, the rotated residuals ``U'(y - C beta)``
    ``(g, n)`` and their weighted sums of squares ``(g,)``.
    """
    weights = 1.0 / (eigen_values[None, :] + np.exp(log_delta)[:, None])
    gram = np.einsum("gi,ic,id->gcd", weights, Cr, Cr)
    rhs = (weights * yr) @ Cr
    beta = np.linalg.solve(gram, rhs[..., None])[..., 0]
    resid = yr[None, :] - beta @ Cr.T
    rss = np.maximum(np.sum(weights * resid ** 2, axis=1), np.finfo(float).tiny)
    return weights, gram, resid, rss


def null_log_likelihood(log_delta: np.ndarray, eigen_values: np.ndarray, Cr: np.ndarray,
                        yr: np.ndarray) -> np.ndarray:
    """Profiled REML log-likelihood of the null model at each ``ln delta``.

    ``-1/2 [(n-c) ln 2pi + sum ln(lam + delta) + ln|C'V^-1 C| - ln|C'C|
    + (n-c) ln(rss / (n-c)) + (n-c)]`` with ``V = K + delta I`` and ``rss``
    the GLS residual sum of squares ``r'V^-1 r`` (Patterson and Thompson
    1971; the scale ``s2`` is profiled out). Unlike the ML likelihood it is
    bounded as ``delta -> 0`` when ``C``'s intercept spans a null direction
    of the kinship (genes centred before ``K`` is built).

    Parameters
    ----------
    log_delta : array
        Natural logarithms of ``delta``.
    eigen_values : (n,) array
    Cr, yr : rotated covariates ``U^T C`` and response ``U^T y``.
    """
    log_delta = np.atleast_1d(np.asarray(log_delta, dtype=float))
    n, c = Cr.shape
    dof = n - c
    _, gram, _, rss = _null_fit(log_delta, eigen_values, Cr, yr)
    variances = eigen_values[None, :] + np.exp(log_delta)[:, None]
    _, log_det_gram = np.linalg.slogdet(gram)
    _, log_det_cc = np.linalg.slogdet(Cr.T @ Cr)
    return -0.5 * (dof * np.log(2 * np.pi) + np.log(variances).sum(axis=1) + log_det_gram
                   - log_det_cc + dof * np.log(rss / dof) + dof)


def reml_score(log_delta: np.ndarray, eigen_values: np.ndarray, Cr: np.ndarray,
               yr: np.ndarray) -> np.ndarray:
    """Derivative of :func:`null_log_likelihood` with respect to ``ln delta``.

    ``-delta/2 [tr V^-1 - tr((C'V^-1 C)^-1 C'V^-2 C) - (n-c) r'V^-2 r / r'V^-1 r]``,
    i.e. ``-delta/2 [tr P - (n-c) y'P^2 y / y'P y]`` with ``P`` the REML
    projection; every term is a weighted sum in the eigenbasis.
    """
    log_delta = np.atleast_1d(np.asarray(log_delta, dtype=float))
    n, c = Cr.shape
    weights, gram, resid, rss = _null_fit(log_delta, eigen_values, Cr, yr)
    weights2 = weights * weights
    gram2 = np.einsum("gi,ic,id->gcd", weights2, Cr, Cr)
    trace_gram = np.einsum("gcd,gdc->g", np.linalg.inv(gram), gram2)
    quadratic = np.sum(weights2 * resid ** 2, axis=1)
    return -0.5 * np.exp(log_delta) * (weights.sum(axis=1) - trace_gram
                                       - (n - c) * quadratic / rss)


def fit_delta(eigen_values: np.ndarray, Cr: np.ndarray, yr: np.ndarray,
              bounds: Tuple[float, float] = LOG_DELTA_BOUNDS, n_grid: int = N_GRID) -> float:
    """REML ``delta``: the best of a grid over ``ln delta``, then the root of the score.

    The REML score (:func:`reml_score`) changes sign across the grid's best
    interior point; its root is found by Brent's method to a relative
    tolerance near machine precision. A root of a derivative is a
    well-conditioned target (unlike the flat top of the likelihood), so
    ``delta`` does not depend on the last bits of the eigendecomposition.
    A maximum on the grid's boundary is returned as the bound.
    """
    grid = np.linspace(bounds[0], bounds[1], n_grid)
    values = null_log_likelihood(grid, eigen_values, Cr, yr)
    best = int(np.argmax(values))
    if 0 < best < n_grid - 1:
        score = functools.partial(_scalar_score, eigen_values=eigen_values, Cr=Cr, yr=yr)
        low, high = grid[best - 1], grid[best + 1]
        if score(low) > 0.0 > score(high):
            return float(np.exp(optimize.brentq(score, low, high, xtol=1e-13,
                                                rtol=4 * np.finfo(float).eps)))
    return float(np.exp(grid[best]))


def _scalar_score(log_delta: float, eigen_values: np.ndarray, Cr: np.ndarray,
                  yr: np.ndarray) -> float:
    return float(reml_score(np.array([log_delta]), eigen_values, Cr, yr)[0])


def gene_tests(eigen: KinshipEigen, X_std: np.ndarray, y: np.ndarray, C: np.ndarray,
               delta: float) -> GeneTests:
    """GLS tests of every gene (with the covariates ``C``) at ``delta`` (:mod:`tools.statistics.gls`).

    The products with the genes run in the precision of ``X_std`` (float64,
    or float32 for the cross-validation folds); everything else in float64.
    """
    model = whitened(eigen.values, eigen.vectors, delta, np.asarray(y, dtype=float), C)
    return GeneTests(model, X_std, eigen.values, eigen.vectors, delta)


def _genes(X: np.ndarray) -> np.ndarray:
    """Genes as float32 or float64 (other types become float64)."""
    X = np.asarray(X)
    return X if X.dtype in (np.float32, np.float64) else X.astype(float)


def design(Z: Optional[np.ndarray], n: int) -> np.ndarray:
    """``[1, Z]`` as an ``(n, c)`` matrix."""
    ones = np.ones((n, 1))
    if Z is None:
        return ones
    Z = np.asarray(Z, dtype=float).reshape(n, -1)
    return np.hstack([ones, Z])


@dataclass(frozen=True)
class LMMFit:
    """A fitted null model and the per-gene tests of one training set."""

    eigen: KinshipEigen
    delta: float
    covariate_coef: np.ndarray
    tests: GeneTests
    dual_weights: np.ndarray

    def predict(self, X_std_new: np.ndarray, X_std_train: np.ndarray,
                C_new: np.ndarray) -> np.ndarray:
        """BLUP predictions for new samples (genes standardized with training statistics).

        ``K_new,train a = X_new (X_train^T a) / p`` for the dual weights ``a``:
        two matrix-vector products instead of the new-by-train kinship.
        """
        genes = X_std_train.T @ self.dual_weights.astype(X_std_train.dtype)
        return (C_new @ self.covariate_coef
                + (X_std_new @ genes).astype(float) / self.eigen.n_genes)


def fit_lmm(X_std: np.ndarray, y: np.ndarray, Z: Optional[np.ndarray] = None) -> LMMFit:
    """Fit the LMM on standardized genes, response and covariates.

    ``X_std`` may be float32 (used by the cross-validation folds, whose p-values
    only decide which genes pass the FDR threshold): its large products
    (kinship, screen, whitening) then run in single precision, halving their
    cost; the reported final fit is float64.
    """
    X_std = _genes(X_std)
    y = np.asarray(y, dtype=float).ravel()
    C = design(Z, y.size)
    eigen = kinship_eigen(X_std)
    U = eigen.vectors
    yr, Cr = U.T @ y, U.T @ C
    delta = fit_delta(eigen.values, Cr, yr)
    weights = 1.0 / (eigen.values + delta)
    beta, _ = _weighted_fit(weights[None, :], Cr, yr)
    beta = beta[0]
    beta[1:] = snap_to_zero(beta[1:], coefficient_scale(y, C[:, 1:]))
    tests = gene_tests(eigen, X_std, y, C, delta)
    dual = U @ (weights * (U.T @ (y - C @ beta)))
    return LMMFit(eigen, delta, beta, tests, dual)


def selected_genes(tests: GeneTests, threshold: float = FDR_THRESHOLD) -> np.ndarray:
    """Indices of the selected genes of a test result, best first."""
    return tests.significant(threshold).indices


class LMM:
    """Mixed-model gene tests with the scikit-learn-like interface of the compat API.

    Parameters
    ----------
    lamda : float, optional
        Accepted for compatibility with upstream calls (``LMM(lamda=...)``,
        the penalty of upstream's sparse LMM). This LMM tests each gene and
        has no penalty, so the value is recorded but does not change results.
    threshold : float
        FDR level for :attr:`selected_`.
    **options : Any
        Other upstream keyword arguments, accepted and ignored.
    """

    accepts_covariates = True

    def __init__(self, lamda: Optional[float] = None, threshold: float = FDR_THRESHOLD,
                 **options: Any) -> None:
        self.lamda = lamda
        self.threshold = threshold
        self.options = options
        self.fit_: Optional[LMMFit] = None
        self._X_train: Optional[np.ndarray] = None

    def get_params(self, deep: bool = True) -> dict:
        """Constructor parameters (scikit-learn convention)."""
        return {"lamda": self.lamda, "threshold": self.threshold, **self.options}

    def fit(self, X: np.ndarray, y: np.ndarray, Z: Optional[np.ndarray] = None) -> "LMM":
        """Fit on (already standardized) genes ``X``, response ``y``, covariates ``Z``.

        float32 genes keep their precision (the large products then run in
        single precision, as in the engine's cross-validation folds); any
        other type is converted to float64.
        """
        self._X_train = _genes(X)
        self.fit_ = fit_lmm(self._X_train, y, Z)
        return self

    def _fitted(self) -> LMMFit:
        if self.fit_ is None:
            raise RuntimeError("LMM used before fit")
        return self.fit_

    def predict(self, X: np.ndarray, Z: Optional[np.ndarray] = None) -> np.ndarray:
        """BLUP predictions for new samples (in the precision of the training genes)."""
        X = _genes(X)
        return self._fitted().predict(X, self._X_train, design(Z, X.shape[0]))

    @property
    def coef_(self) -> np.ndarray:
        """Per-gene GLS effects."""
        return self._fitted().tests.coef

    @property
    def p_values_(self) -> np.ndarray:
        """Per-gene p-values."""
        return self._fitted().tests.p_value

    @property
    def corrected_p_values_(self) -> np.ndarray:
        """Benjamini-Hochberg corrected p-values."""
        return self._fitted().tests.corrected_p_value

    @property
    def selected_(self) -> np.ndarray:
        """Indices of the selected genes, best first."""
        return selected_genes(self._fitted().tests, self.threshold)

    @property
    def covariate_coef_(self) -> np.ndarray:
        """Null-model coefficients of ``[1, Z]``."""
        return self._fitted().covariate_coef
