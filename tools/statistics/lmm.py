"""Linear mixed model with per-gene tests (SPEC 5.4, guideline step 8).

Model for gene ``j``::

    y = C beta + x_j b_j + g + e,   g ~ N(0, s2 K_-j),   e ~ N(0, s2 delta I)
    C = [1, Z, u_1 .. u_k]

with ``K = Xs Xs' / p`` the kinship of the standardized genes, ``K_-j`` the
same without gene ``j``, ``u_1 .. u_k`` the top principal components of the
samples and ``delta`` the ratio of residual to kinship variance. The choices,
each measured by ``benchmarks/bench_calibration.py`` (docs/statistics.md):

1. one eigendecomposition ``K = U diag(lam) U'`` per fit (FaST-LMM, Lippert et
   al. 2011); its top eigenvectors are the principal components, free;
2. ``k`` = :func:`n_pcs`: ``min(max(k_gap, 5), n // 10)``, ``k_gap`` the
   number of eigenvalues above the largest gap of the 10 largest (SPEC
   5.3's statistic, on ``K``). Without fixed-effect PCs the kinship only
   down-weights a batch or hidden-factor direction, and false discoveries
   exceed the FDR level under confounding; the gap alone misses a weaker
   second confounder, hence at least 5;
3. ``delta`` by REML on the null model restricted to ``C``'s complement
   (:mod:`tools.statistics.reml`: a second ``n x n`` eigendecomposition, of
   ``B'KB``); plain ML is unbounded when genes are centred;
4. each gene tested by GLS with itself left out of the kinship
   (:mod:`tools.statistics.gls`: a free rank-one downdate), a t statistic with
   ``n - rank(C) - 1`` degrees of freedom, Benjamini-Hochberg over all genes
   (:mod:`tools.statistics.fdr`; only the genes that can pass are tested in
   full).

Predictions (cross-validation): least squares of ``y`` on ``[1, Z]`` and the
fit's selected genes (:func:`refit_selected`), so the prediction metrics
describe the genes the result reports, as the Lasso's do. The BLUP over every
gene (:meth:`LMMFit.predict_blup`) predicts through the kinship, i.e. through
a batch or hidden factor rather than any reported gene (80 % accuracy with an
empty gene list on a confounded null), and is kept for the compat API only.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Real
from typing import Callable, Optional, Tuple

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from tools.statistics.fdr import benjamini_hochberg, rank_significant  # noqa: F401 (re-exported)
from tools.statistics.gls import GeneTests, null_model
from tools.statistics.reml import DeltaFit, fit_delta, split_basis
from tools.statistics.residualize import coefficient_scale
from utils.precision import round_array, snap_to_zero

FDR_THRESHOLD = 0.05
N_TOP = 10               # eigenvalues examined by the gap rule (SPEC 5.3's 10)
MIN_PCS = 5              # at least this many principal components as fixed effects
PCS_PER_SAMPLE = 0.1     # ... and at most n / 10
MIN_RESIDUAL_DF = 2      # PCs never take the tests below this many degrees of freedom
GENES_PER_SAMPLE = 1 / 3  # refit of the selected genes: at most n_train / 3 of them


@dataclass(frozen=True)
class KinshipEigen:
    """Eigendecomposition of the kinship of the training samples.

    Attributes
    ----------
    values : numpy.ndarray
        Eigenvalues (clipped at 0), **descending**.
    vectors : numpy.ndarray
        ``(n, n)`` orthonormal eigenvectors (columns, matching ``values``).
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
    values, vectors = np.linalg.eigh(0.5 * (kinship + kinship.T))
    return KinshipEigen(np.clip(values[::-1], 0.0, None), vectors[:, ::-1], n_genes)


def n_pcs_gap(values: np.ndarray, n_top: int = N_TOP) -> int:
    """Number of eigenvalues above the largest gap of the top normalized spectrum.

    The 10 largest eigenvalues divided by the largest are rounded to the
    written precision (:mod:`utils.precision`) before their gaps are compared
    (ties: the first gap), so the count does not depend on round-off.

    Parameters
    ----------
    values : numpy.ndarray
        Eigenvalues, descending.

    Examples
    --------
    >>> n_pcs_gap(np.array([10.0, 9.0, 2.0, 1.9, 1.8]))
    2
    """
    top = np.asarray(values[:n_top], dtype=float)
    if top.size < 2 or top[0] <= 0.0:
        return 0
    ratios = round_array(top / top[0])
    return int(np.argmax(ratios[:-1] - ratios[1:])) + 1


def n_pcs(values: np.ndarray, n: int, n_fixed: int = 1) -> int:
    """Principal components entered as fixed effects: ``min(max(k_gap, 5), n // 10)``.

    Also at most the number of positive eigenvalues, and never so many that
    the tests keep fewer than :data:`MIN_RESIDUAL_DF` degrees of freedom
    next to the ``n_fixed`` columns of ``[1, Z]``.

    >>> n_pcs(np.array([9.0, 1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4]), 100)
    5
    >>> n_pcs(np.ones(30), 30)
    3
    """
    values = np.asarray(values, dtype=float)
    positive = int(np.sum(values > 1e-10 * max(float(values[0]), 0.0))) if values.size else 0
    k = min(max(n_pcs_gap(values), MIN_PCS), int(PCS_PER_SAMPLE * n), positive)
    return max(min(k, n - n_fixed - 1 - MIN_RESIDUAL_DF), 0)


def design(Z: Optional[np.ndarray], n: int) -> np.ndarray:
    """``[1, Z]`` as an ``(n, c)`` matrix."""
    ones = np.ones((n, 1))
    if Z is None:
        return ones
    Z = np.asarray(Z, dtype=float).reshape(n, -1)
    return np.hstack([ones, Z])


def _genes(X: np.ndarray) -> np.ndarray:
    """Genes as float32 or float64 (other types become float64)."""
    X = np.asarray(X)
    return X if X.dtype in (np.float32, np.float64) else X.astype(float)


def _covariates(Z: Optional[np.ndarray], n: int) -> Optional[np.ndarray]:
    """Covariates as an ``(n, c)`` float64 matrix (None stays None), checked finite."""
    if Z is None:
        return None
    return check_array(np.asarray(Z, dtype=float).reshape(n, -1), input_name="Z")


@dataclass(frozen=True)
class LMMFit:
    """A fitted null model and the per-gene tests of one training set.

    Attributes
    ----------
    eigen : KinshipEigen
    n_pcs : int
        Principal components in the fixed effects.
    delta : DeltaFit
        REML variance ratio (``delta.at_bound`` names a bound of the range).
    covariate_coef : numpy.ndarray
        GLS coefficients of ``[1, Z]`` in the null model (next to the PCs).
    pc_coef : numpy.ndarray
        GLS coefficients of the principal components (nuisance, never reported).
    tests : GeneTests
    """

    eigen: KinshipEigen
    n_pcs: int
    delta: DeltaFit
    covariate_coef: np.ndarray
    pc_coef: np.ndarray
    tests: GeneTests

    def selected(self, threshold: float = FDR_THRESHOLD) -> np.ndarray:
        """Indices of the genes with corrected p below ``threshold``, best first."""
        return self.tests.significant(threshold).indices

    def predict_blup(self, X_std_new: np.ndarray, X_std_train: np.ndarray,
                     Z_new: Optional[np.ndarray]) -> np.ndarray:
        """BLUP over every gene: ``C_new beta + K_new,train P y`` (compat API only).

        ``C_new`` holds the new samples' PC scores ``X_new X_train' u / (p lam)``;
        ``K_new,train P y = X_new (X_train' P y) / p``.
        """
        n_new, k = X_std_new.shape[0], self.n_pcs
        loads = X_std_train.T @ self.eigen.vectors[:, :k].astype(X_std_train.dtype)
        scale = self.eigen.n_genes * np.maximum(self.eigen.values[:k], np.finfo(float).tiny)
        pcs = (X_std_new @ loads).astype(float) / scale
        fixed = design(Z_new, n_new) @ self.covariate_coef + pcs @ self.pc_coef
        genes = X_std_train.T @ self.tests.model.Py.astype(X_std_train.dtype)
        return fixed + (X_std_new @ genes).astype(float) / self.eigen.n_genes


def _null_coefficients(eigen: KinshipEigen, C: np.ndarray, y: np.ndarray, delta: float
                       ) -> np.ndarray:
    """GLS coefficients of ``C`` under ``K + delta I``, in the kinship's eigenbasis."""
    U = eigen.vectors
    weighted = U @ ((U.T @ C) / (eigen.values + delta)[:, None])
    beta, *_ = np.linalg.lstsq(C.T @ weighted, weighted.T @ y, rcond=None)
    return beta


def fit_lmm(X_std: np.ndarray, y: np.ndarray, Z: Optional[np.ndarray] = None,
            standardized: bool = False) -> LMMFit:
    """Fit the LMM on standardized genes, response and covariates.

    ``X_std`` may be float32 (used by the cross-validation folds, whose p-values
    only decide which genes pass the FDR threshold): its large products
    (kinship, screen, rotation of the candidate genes) then run in single
    precision; everything else, and the reported final fit, is float64.
    ``standardized``: ``X_std`` comes from the engine's standardization
    (:func:`tools.statistics.standardize.standardize_rows`), whose column norms
    the tests' screen then takes as known (:func:`tools.statistics.gls.screen`).
    """
    X_std = _genes(X_std)
    y = np.asarray(y, dtype=float).ravel()
    n = y.size
    covariates = design(Z, n)
    eigen = kinship_eigen(X_std)
    k = n_pcs(eigen.values, n, covariates.shape[1])
    C = np.hstack([covariates, eigen.vectors[:, :k]])
    QC, B = split_basis(C)
    BU = B.T @ eigen.vectors
    restricted = (BU * eigen.values) @ BU.T
    mu, W = np.linalg.eigh(0.5 * (restricted + restricted.T))
    E = B @ W
    delta = fit_delta(np.clip(mu, 0.0, None), E.T @ y)
    model = null_model(QC, np.clip(mu, 0.0, None), E, y, delta.delta, X_std.shape[1])
    beta = _null_coefficients(eigen, C, y, delta.delta)
    c = covariates.shape[1]
    covariate_coef = beta[:c].copy()
    covariate_coef[1:] = snap_to_zero(covariate_coef[1:], coefficient_scale(y, covariates[:, 1:]))
    return LMMFit(eigen, k, delta, covariate_coef, beta[c:],
                  GeneTests(model, X_std, standardized))


def refit_selected(X_std: np.ndarray, y: np.ndarray, Z: Optional[np.ndarray],
                   selected: np.ndarray) -> np.ndarray:
    """Least-squares coefficients of ``y`` on ``[1, Z, X_std[:, selected]]``.

    At most ``n / 3`` genes (the first of ``selected``, best first), so the fit
    stays well posed; none: the covariates alone.
    """
    n = X_std.shape[0]
    chosen = np.asarray(selected, dtype=int)[: int(GENES_PER_SAMPLE * n)]
    A = np.hstack([design(Z, n), np.asarray(X_std[:, chosen], dtype=float)])
    coef, *_ = np.linalg.lstsq(A, np.asarray(y, dtype=float), rcond=None)
    return coef


def predict_refit(selected: np.ndarray, refit: np.ndarray, fixed: np.ndarray,
                  columns: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Predictions of a :func:`refit_selected`: ``[fixed, genes] @ refit``.

    Parameters
    ----------
    selected : the fit's selected genes, best first (the refit took the first of them).
    refit : the refit's coefficients (``fixed``'s columns first).
    fixed : ``[1, Z]`` of the new samples.
    columns : gives the new samples' standardized values of the genes it is passed
        (the first ``refit.size - fixed.shape[1]`` selected ones): only those are needed.
    """
    chosen = np.asarray(selected)[: refit.size - fixed.shape[1]]
    return np.hstack([fixed, np.asarray(columns(chosen), dtype=float)]) @ refit


def selected_genes(tests: GeneTests, threshold: float = FDR_THRESHOLD) -> np.ndarray:
    """Indices of the selected genes of a test result, best first."""
    return tests.significant(threshold).indices


class LMM(RegressorMixin, BaseEstimator):
    """Mixed-model gene tests as a scikit-learn estimator (the compat API's ``LMM``).

    ``fit(X, y, Z=None)`` and ``predict(X, Z=None)`` take the covariates ``Z``
    as fixed effects (``accepts_covariates``); ``get_params``/``set_params``;
    ``NotFittedError`` before ``fit``.

    Parameters
    ----------
    lamda : float, optional
        Accepted for compatibility with upstream calls (``LMM(lamda=...)``,
        the penalty of upstream's sparse LMM; non-negative). This LMM tests
        each gene and has no penalty, so the value is recorded but does not
        change results.
    threshold : float
        FDR level for :attr:`selected_` and the predictions, in ``(0, 1]``.

    Attributes
    ----------
    fit_ : LMMFit
        The fit (kinship, ``delta``, the gene tests).
    n_features_in_ : int
    """

    accepts_covariates = True

    _parameter_constraints: dict = {
        "lamda": [Interval(Real, 0, None, closed="left"), None],
        "threshold": [Interval(Real, 0, 1, closed="right")],
    }

    def __init__(self, lamda: Optional[float] = None, threshold: float = FDR_THRESHOLD) -> None:
        self.lamda = lamda
        self.threshold = threshold

    def fit(self, X: np.ndarray, y: np.ndarray, Z: Optional[np.ndarray] = None) -> "LMM":
        """Fit on (already standardized) genes ``X``, response ``y``, covariates ``Z``.

        float32 genes keep their precision (the large products then run in
        single precision, as in the engine's cross-validation folds); any
        other type is converted to float64.
        """
        return self._fit(X, y, Z)

    @_fit_context(prefer_skip_nested_validation=True)
    def _fit(self, X: np.ndarray, y: np.ndarray, Z: Optional[np.ndarray] = None,
             standardized: bool = False) -> "LMM":
        """:meth:`fit`; ``standardized``: ``X`` comes from the engine's
        standardization (see :func:`fit_lmm`)."""
        if standardized:    # the engine's own arrays, checked when the problem was read:
            X, y = _genes(X), np.asarray(y, dtype=float).ravel()  # no second finite scan
            self.n_features_in_ = X.shape[1]
        else:
            X, y = validate_data(self, X, y, dtype=[np.float64, np.float32], y_numeric=True,
                                 ensure_min_samples=2)
            y = np.asarray(y, dtype=float)
        Z = _covariates(Z, y.size)
        self._train = (X, y, Z)
        self.fit_ = fit_lmm(X, y, Z, standardized)
        return self

    def _fitted(self) -> LMMFit:
        check_is_fitted(self, "fit_")
        return self.fit_

    def predict(self, X: np.ndarray, Z: Optional[np.ndarray] = None) -> np.ndarray:
        """Predictions of the selected genes: least squares on ``[1, Z, selected]``.

        Fitted on the training samples (:func:`refit_selected`) at each call
        (a least-squares fit of at most a third of the training samples' count
        of genes), so that ``predict`` leaves the estimator unchanged.
        """
        self._fitted()
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
        Z = _covariates(Z, X.shape[0])
        return predict_refit(*self.refit(), design(Z, X.shape[0]), lambda chosen: X[:, chosen])

    def refit(self) -> Tuple[np.ndarray, np.ndarray]:
        """The selected genes (best first) and the coefficients of :func:`refit_selected`
        on the training samples (what :meth:`predict` uses, see :func:`predict_refit`)."""
        X_train, y, Z_train = self._train
        selected = self._fitted().selected(self.threshold)
        return selected, refit_selected(X_train, y, Z_train, selected)

    def predict_blup(self, X: np.ndarray, Z: Optional[np.ndarray] = None) -> np.ndarray:
        """BLUP over every gene (see :meth:`LMMFit.predict_blup`)."""
        fit = self._fitted()
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
        return fit.predict_blup(X, self._train[0], _covariates(Z, X.shape[0]))

    @property
    def coef_(self) -> np.ndarray:
        """Per-gene GLS effects."""
        return self._fitted().tests.coef

    @property
    def p_values_(self) -> np.ndarray:
        """Per-gene p-values (leave-one-gene-out kinship)."""
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
