"""Linear mixed model with per-gene tests (SPEC 5.4, guideline step 8).

Model for gene ``j``::

    y = C beta + x_j b_j + g + e,   g ~ N(0, s2 K),   e ~ N(0, s2 delta I)

with ``C = [1, Z]`` (intercept and covariates), the kinship
``K = Xs Xs^T / p`` of the standardized genes, and ``delta`` the ratio of
residual to genetic variance. Following FaST-LMM (Lippert et al. 2011):

1. one eigendecomposition ``K = U diag(lam) U^T`` per fit;
2. ``delta`` maximises the null-model likelihood (no gene): a grid over
   ``ln delta`` in ``[-5, 5]`` refined by a bounded 1-D optimizer;
3. every gene is tested by generalized least squares in the whitened space
   (:mod:`tools.gls`), with the covariates partialled out, a t statistic with
   ``n - c - 1`` degrees of freedom;
4. p-values are corrected by Benjamini-Hochberg; the selected genes are those
   with corrected p below the threshold, ranked by corrected p
   (:mod:`tools.fdr`; only the genes that can pass are tested in full).

Predictions for new samples are the BLUP: the null model's fixed effects plus
the best linear unbiased predictor of ``g`` from the kinship between new and
training samples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np
from scipy import optimize

from tools.fdr import benjamini_hochberg, rank_significant  # noqa: F401 (re-exported)
from tools.gls import GeneTests, whitened

LOG_DELTA_BOUNDS = (-5.0, 5.0)
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


def null_log_likelihood(log_delta: np.ndarray, eigen_values: np.ndarray, Cr: np.ndarray,
                        yr: np.ndarray) -> np.ndarray:
    """Profiled ML log-likelihood of the null model at each ``ln delta``.

    Parameters
    ----------
    log_delta : array
        Natural logarithms of ``delta``.
    eigen_values : (n,) array
    Cr, yr : rotated covariates ``U^T C`` and response ``U^T y``.
    """
    log_delta = np.atleast_1d(np.asarray(log_delta, dtype=float))
    n = yr.size
    variances = eigen_values[None, :] + np.exp(log_delta)[:, None]
    _, rss = _weighted_fit(1.0 / variances, Cr, yr)
    rss = np.maximum(rss, np.finfo(float).tiny)
    return -0.5 * (n * np.log(2 * np.pi) + np.log(variances).sum(axis=1)
                   + n + n * np.log(rss / n))


def fit_delta(eigen_values: np.ndarray, Cr: np.ndarray, yr: np.ndarray,
              bounds: Tuple[float, float] = LOG_DELTA_BOUNDS, n_grid: int = N_GRID) -> float:
    """Maximum-likelihood ``delta``: grid over ``ln delta`` then Brent refinement."""
    grid = np.linspace(bounds[0], bounds[1], n_grid)
    values = null_log_likelihood(grid, eigen_values, Cr, yr)
    best = int(np.argmax(values))
    low, high = grid[max(best - 1, 0)], grid[min(best + 1, n_grid - 1)]
    result = optimize.minimize_scalar(
        lambda v: -null_log_likelihood(v, eigen_values, Cr, yr)[0],
        bounds=(low, high), method="bounded", options={"xatol": 1e-6})
    chosen = result.x if -result.fun >= values[best] else grid[best]
    return float(np.exp(chosen))


def gene_tests(eigen: KinshipEigen, X_std: np.ndarray, y: np.ndarray, C: np.ndarray,
               delta: float) -> GeneTests:
    """GLS tests of every gene (with the covariates ``C``) at ``delta`` (:mod:`tools.gls`).

    The products with the genes run in the precision of ``X_std`` (float64,
    or float32 for the cross-validation folds); everything else in float64.
    """
    model = whitened(eigen.values, eigen.vectors, delta, np.asarray(y, dtype=float), C)
    return GeneTests(model, X_std, eigen.values, eigen.vectors, delta)


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
    X_std = np.asarray(X_std)
    if X_std.dtype not in (np.float32, np.float64):
        X_std = X_std.astype(float)
    y = np.asarray(y, dtype=float).ravel()
    C = design(Z, y.size)
    eigen = kinship_eigen(X_std)
    U = eigen.vectors
    yr, Cr = U.T @ y, U.T @ C
    delta = fit_delta(eigen.values, Cr, yr)
    weights = 1.0 / (eigen.values + delta)
    beta, _ = _weighted_fit(weights[None, :], Cr, yr)
    beta = beta[0]
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
        """Fit on (already standardized) genes ``X``, response ``y``, covariates ``Z``."""
        self._X_train = np.asarray(X, dtype=float)
        self.fit_ = fit_lmm(self._X_train, y, Z)
        return self

    def _fitted(self) -> LMMFit:
        if self.fit_ is None:
            raise RuntimeError("LMM used before fit")
        return self.fit_

    def predict(self, X: np.ndarray, Z: Optional[np.ndarray] = None) -> np.ndarray:
        """BLUP predictions for new samples."""
        X = np.asarray(X, dtype=float)
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
