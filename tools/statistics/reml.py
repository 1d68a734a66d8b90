"""REML estimate of the LMM's variance ratio, in the restricted eigenbasis (SPEC 5.4).

Null model::

    y ~ N(C beta, s2 (K + delta I)),   C = [1, Z, PCs]  (n x c, rank r)

with ``K = Xs Xs' / p`` the kinship of the standardized genes and
``delta = s_e^2 / s_g^2``.

REML is the likelihood of the error contrasts ``B'y``, the columns of ``B``
(``n x N``, ``N = n - r``) an orthonormal basis of ``C``'s orthogonal
complement (Patterson and Thompson 1971): the contrasts do not depend on
``beta`` and ``B'y ~ N(0, s2 (B'KB + delta I))``. With the eigendecomposition
of the *restricted* kinship ``B'KB = W diag(mu) W'`` and ``E = B W``, the
rotated response ``yt = E'y`` has independent coordinates
``yt_i ~ N(0, s2 (mu_i + delta))``; profiling ``s2`` out
(``s2 = S / N``, ``S = sum w_i yt_i^2``, ``w_i = 1 / (mu_i + delta)``)::

    l(delta) = -1/2 [N ln(2 pi S / N) + sum_i ln(mu_i + delta) + N]

(Harville's form ``-1/2 [(n-r) ln 2pi s2 + ln|V| + ln|C'V^-1 C| - ln|C'C| + ...]``
at ``s2 = S / N``: ``ln|B'VB| = ln|V| + ln|C'V^-1C| - ln|C'C|``).

Why REML: genes are centred before ``K`` is built, so ``1/sqrt(n)`` is an
eigenvector of ``K`` with eigenvalue 0. Under maximum likelihood the
intercept fits that direction exactly and the profile likelihood grows like
``-1/2 ln delta`` as ``delta -> 0``: ML returned the lower end of its search
range on most full-size problems. Restricted to ``C``'s complement that
direction is gone and the maximum is finite.

Score (derivative in ``ln delta``), closed form::

    dl/d ln(delta) = delta / 2 [N S2 / S - T1],   S2 = sum w^2 yt^2,  T1 = sum w.

Estimate: the score on a grid of step :data:`GRID_STEP` over
:data:`LOG_DELTA_BOUNDS` (``[-10, 10]``; the kinship has trace ~n, so its
eigenvalues average ~1 and ``e^-10 .. e^10`` spans "all kinship" to "no
kinship": at ``e^10`` the GLS weights of eigenvalues 0 and 400 differ by
< 2 %); every sign change ``+ -> -`` between grid neighbours brackets a local
maximum, whose root is found by Brent's method to ``1e-13`` in ``ln delta``;
an end of the range whose score points outward is a boundary candidate
(``at_bound`` says which). The candidate with the largest ``l`` wins (ties:
the smaller ``delta``). A root of the score is a well-conditioned target:
perturbing the inputs by ``eps`` moves it by about ``eps |dl| / |d2l|``,
whereas the argmax of a flat maximum found by a bracketing minimizer moves by
its tolerance. Sums are NumPy reductions, not BLAS products, so ``delta``
depends on the BLAS kernel only through the eigendecomposition (relative
differences ~1e-13 between kernels, far below the 6 written digits).
A boundary estimate is a genuine boundary maximum (about half of the null
fits with principal components in ``C`` put all variance in ``e``: the 50:50
boundary mixture of a variance component under H0); the tests then barely
depend on where the bound is (docs/statistics.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np
from scipy import optimize

LOG_DELTA_BOUNDS: Tuple[float, float] = (-10.0, 10.0)
GRID_STEP = 0.25
RANK_TOL = 1e-10          # relative singular value below which C loses a dimension
XTOL = 1e-13              # Brent tolerance on ln(delta)


def split_basis(C: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Orthonormal bases of ``span(C)`` and of its orthogonal complement (one SVD).

    Parameters
    ----------
    C : (n, c) array
        Fixed effects; a rank-deficient ``C`` (a constant covariate next to the
        intercept) removes only ``rank(C)`` dimensions.

    Returns
    -------
    QC : (n, rank) array
    B : (n, n - rank) array

    Examples
    --------
    >>> QC, B = split_basis(np.ones((4, 1)))
    >>> QC.shape, B.shape, bool(np.allclose(B.T @ np.ones(4), 0))
    ((4, 1), (4, 3), True)
    """
    C = np.asarray(C, dtype=float)
    U, s, _ = np.linalg.svd(C, full_matrices=True)
    rank = int(np.sum(s > RANK_TOL * max(float(s[0]), np.finfo(float).tiny))) if s.size else 0
    return U[:, :rank], U[:, rank:]


def _sums(log_delta: np.ndarray, mu: np.ndarray, yt2: np.ndarray
          ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    delta = np.exp(np.asarray(log_delta, dtype=float))[:, None]
    w = 1.0 / (mu[None, :] + delta)
    S = np.maximum(np.sum(w * yt2, axis=1), np.finfo(float).tiny)
    return delta[:, 0], w, S, np.sum(w * w * yt2, axis=1)


def reml_log_likelihood(log_delta: np.ndarray, mu: np.ndarray, yt: np.ndarray) -> np.ndarray:
    """Profile REML log-likelihood at each ``ln delta``.

    Parameters
    ----------
    log_delta : array
        Natural logarithms of ``delta``.
    mu : (N,) array
        Eigenvalues of the restricted kinship.
    yt : (N,) array
        Rotated response ``E'y``.
    """
    log_delta = np.atleast_1d(np.asarray(log_delta, dtype=float))
    delta, _, S, _ = _sums(log_delta, mu, yt * yt)
    N = mu.size
    log_det = np.sum(np.log(mu[None, :] + delta[:, None]), axis=1)
    return -0.5 * (N * np.log(2.0 * np.pi * S / N) + log_det + N)


def reml_score(log_delta: np.ndarray, mu: np.ndarray, yt: np.ndarray) -> np.ndarray:
    """Derivative of :func:`reml_log_likelihood` in ``ln delta``: ``delta/2 (N S2/S - T1)``."""
    log_delta = np.atleast_1d(np.asarray(log_delta, dtype=float))
    delta, w, S, S2 = _sums(log_delta, mu, yt * yt)
    return 0.5 * delta * (mu.size * S2 / S - w.sum(axis=1))


@dataclass(frozen=True)
class DeltaFit:
    """The REML estimate of ``delta``.

    Attributes
    ----------
    delta : float
    at_bound : str or None
        ``"lower"`` / ``"upper"`` when the maximum is an end of the search range
        (the score points outward there), None for a root of the score.
    """

    delta: float
    at_bound: Optional[str]


def fit_delta(mu: np.ndarray, yt: np.ndarray,
              bounds: Tuple[float, float] = LOG_DELTA_BOUNDS,
              step: float = GRID_STEP) -> DeltaFit:
    """REML ``delta``: grid of the score over ``ln delta``, Brent root in each bracket.

    Parameters
    ----------
    mu : (N,) array
        Eigenvalues of the restricted kinship.
    yt : (N,) array
        Rotated response ``E'y``.
    bounds : (float, float)
        Search range of ``ln delta``.
    step : float
        Grid step in ``ln delta``.

    Returns
    -------
    DeltaFit
        A response with nothing left after ``C`` gives the upper bound.
    """
    mu = np.asarray(mu, dtype=float)
    yt = np.asarray(yt, dtype=float)
    if not np.any(yt != 0.0) or mu.size == 0:
        return DeltaFit(float(np.exp(bounds[1])), "upper")
    grid = np.linspace(bounds[0], bounds[1], int(round((bounds[1] - bounds[0]) / step)) + 1)
    score = reml_score(grid, mu, yt)
    candidates = []
    if score[0] < 0.0:
        candidates.append((grid[0], "lower"))
    if score[-1] > 0.0:
        candidates.append((grid[-1], "upper"))

    def scalar_score(value: float) -> float:
        return float(reml_score(np.array([value]), mu, yt)[0])

    for i in np.flatnonzero((score[:-1] > 0.0) & (score[1:] <= 0.0)):
        if score[i + 1] == 0.0:
            candidates.append((grid[i + 1], None))
            continue
        root = optimize.brentq(scalar_score, grid[i], grid[i + 1], xtol=XTOL,
                               rtol=4 * np.finfo(float).eps, maxiter=200)
        candidates.append((root, None))
    if not candidates:       # flat score: the kinship carries no information
        candidates.append((grid[-1], "upper"))
    values = reml_log_likelihood(np.array([c[0] for c in candidates]), mu, yt)
    best = max(range(len(candidates)), key=lambda i: (values[i], -candidates[i][0]))
    log_delta, label = candidates[best]
    return DeltaFit(float(np.exp(log_delta)), label)
