"""Per-gene generalized least-squares tests of the LMM (SPEC 5.4).

Gene ``j`` is tested by GLS of ``y`` on ``[C, x_j]`` under the null model's
covariance ``V = U diag(lam + delta) U^T = L L^T`` (Cholesky). Whitening by
``L^-1`` makes the covariance the identity: ``x'V^-1 x`` is the column sum of
squares of ``L^-1 X`` and ``x'V^-1 y``, ``x'V^-1 C`` come from one product of
that same matrix (:func:`statistics`). The triangular solve over all genes
is the costly step, and a fit mostly needs only the genes that can pass the
FDR threshold (:mod:`tools.statistics.fdr`), so :func:`screen` first bounds every gene's
t statistic from cheaper quantities:

* ``x'V^-1 y`` and ``C'V^-1 x`` exactly, as ``(V^-1 y)' x`` and
  ``(V^-1 C)' x`` (one product with the genes);
* a lower bound of ``x'V^-1 x = sum_i (u_i'x)^2 / (lam_i + delta)``: the
  ``r`` largest eigenvalues (the spikes of the kinship) exactly, the rest at
  the smallest weight of the rest, ``1 / (lam_(r+1) + delta)``. With many
  more genes than samples the other eigenvalues are nearly equal, so the
  bound is tight.

A lower ``x'V^-1 x`` can only raise ``|t|``, so a gene whose bound stays
below the cut-off (with a 10 % margin, far above round-off) has ``p >= q``
and can neither pass nor change the corrected p-value of a gene that passes.
The other genes (a few percent) are whitened and tested exactly as when all
genes are. Arrays for every gene are computed on first request.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np
from scipy import linalg, special
from scipy.linalg import blas

from tools.statistics.fdr import (Significant, benjamini_hochberg, rank_significant,
                                  significant_genes, two_sided_p)

SPIKE_RATIO = 1.5        # eigenvalues above this multiple of the median are spikes
MAX_SPIKES = 0.25        # ... at most this fraction of n, or the screen is skipped
MARGIN = 0.9             # screen keeps genes whose bound reaches MARGIN * cut-off
DEGENERATE = 0.01        # genes/responses nearly inside span(C) are always tested
MAX_CANDIDATES = 0.5     # screen not worth it above this fraction of the genes


def whiten(chol: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``L^-1 X`` for a lower-triangular ``L``, in the precision of ``X`` (``X`` is kept).

    One BLAS triangular solve (``trsm``) on the transposed layout:
    ``X^T L^-T`` is ``(L^-1 X)^T``.
    """
    trsm = blas.strsm if X.dtype == np.float32 else blas.dtrsm
    return trsm(1.0, chol.astype(X.dtype), X.T, side=1, lower=1, trans_a=1).T


@dataclass(frozen=True)
class Whitened:
    """The null model's quantities shared by every gene's test (float64).

    Attributes
    ----------
    chol : ``L``; yw, Cw : ``L^-1 y``, ``L^-1 C``; gram_inv : ``(C'V^-1 C)^-1``;
    c_y : ``C'V^-1 y``; yy : ``y'V^-1 y`` with ``C`` partialled out;
    df : degrees of freedom (``n - c - 1``).
    """

    chol: np.ndarray
    yw: np.ndarray
    Cw: np.ndarray
    gram_inv: np.ndarray
    c_y: np.ndarray
    yy: float
    df: int


def whitened(values: np.ndarray, vectors: np.ndarray, delta: float, y: np.ndarray,
             C: np.ndarray) -> Whitened:
    """Cholesky factor of ``V`` and the whitened response and covariates."""
    chol = linalg.cholesky((vectors * (values + delta)) @ vectors.T, lower=True)
    yw = linalg.solve_triangular(chol, y, lower=True)
    Cw = linalg.solve_triangular(chol, C, lower=True)
    gram_inv = np.linalg.inv(Cw.T @ Cw)
    c_y = Cw.T @ yw
    yy = float(yw @ yw - c_y @ gram_inv @ c_y)
    return Whitened(chol, yw, Cw, gram_inv, c_y, yy, C.shape[0] - C.shape[1] - 1)


def statistics(model: Whitened, X: np.ndarray
               ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Coefficient, standard error, t statistic and validity of each column of ``X``.

    The products with the genes run in the precision of ``X``; the rest in float64.
    """
    low = X.dtype
    Xw = whiten(model.chol, X)
    # one pass over the whitened genes for x'Wy and x'WC, one for x'Wx
    both = (np.column_stack([model.yw, model.Cw]).T.astype(low) @ Xw).astype(float)
    xy_raw, cross_c = both[0], both[1:]
    raw_xx = np.einsum("ij,ij->j", Xw, Xw).astype(float)
    xx = raw_xx - np.einsum("cp,cp->p", cross_c, model.gram_inv @ cross_c)
    xy = xy_raw - cross_c.T @ (model.gram_inv @ model.c_y)
    valid = xx > 1e-10 * np.maximum(raw_xx, 1e-300)
    coef = np.where(valid, xy / np.where(valid, xx, 1.0), 0.0)
    rss = np.maximum(model.yy - coef * xy, 0.0)
    if model.df > 0:
        std_err = np.sqrt(rss / model.df / np.where(valid, xx, 1.0))
        with np.errstate(divide="ignore", invalid="ignore"):
            t_stat = np.where(valid & (std_err > 0), coef / std_err, 0.0)
    else:
        std_err = np.full(coef.shape, np.inf)
        t_stat = np.zeros_like(coef)
    return coef, std_err, t_stat, valid


def screen(model: Whitened, values: np.ndarray, vectors: np.ndarray, delta: float,
           X: np.ndarray, threshold: float) -> Optional[np.ndarray]:
    """Genes whose p-value can be below ``threshold`` (a superset, increasing).

    ``None`` when the bound would not save work (no clear spikes, too many
    candidates, a response nearly explained by ``C``, or no valid cut-off).
    ``values`` ascending, as from ``eigh``.
    """
    n, p = X.shape
    median = float(np.median(values))
    spikes = int(np.sum(values > SPIKE_RATIO * median))
    if (model.df <= 0 or not 0.0 < threshold < 1.0 or median <= 0
            or spikes > MAX_SPIKES * n or spikes >= n - 1
            or model.yy <= DEGENERATE * float(model.yw @ model.yw)):
        return None
    low = X.dtype
    r = spikes
    top = vectors[:, n - r:]                                     # spike eigenvectors
    weight_top = 1.0 / (values[n - r:] + delta)
    weight_rest = 1.0 / (values[n - r - 1] + delta)              # smallest weight of the rest
    # V^-1 y and V^-1 C
    solve = functools.partial(linalg.solve_triangular, model.chol, lower=True, trans="T")
    rows = np.column_stack([top, solve(model.yw), solve(model.Cw)]).T.astype(low)
    product = (rows @ X).astype(float)                           # (r + 1 + c, p)
    P, xy_raw, cross_c = product[:r], product[r], product[r + 1:]
    norm2 = np.einsum("ij,ij->j", X, X).astype(float)
    P2 = P * P
    raw_lower = weight_top @ P2 + weight_rest * np.maximum(norm2 - P2.sum(axis=0), 0.0)
    xx_lower = raw_lower - np.einsum("cp,cp->p", cross_c, model.gram_inv @ cross_c)
    xy = xy_raw - cross_c.T @ (model.gram_inv @ model.c_y)
    cut = -special.stdtrit(model.df, threshold / 2.0)
    rho2_cut = cut * cut / (model.df + cut * cut)                # |t| > cut <=> rho^2 > this
    with np.errstate(divide="ignore", invalid="ignore"):
        rho2_upper = xy * xy / (xx_lower * model.yy)
    keep = (xx_lower <= DEGENERATE * raw_lower) | ~(rho2_upper < MARGIN * rho2_cut)
    candidates = np.flatnonzero(keep & (norm2 > 0.0))
    return None if candidates.size > MAX_CANDIDATES * p else candidates


class GeneTests:
    """Per-gene GLS results of one fit; arrays for every gene on first request.

    Parameters
    ----------
    model : Whitened
    X : numpy.ndarray
        The standardized genes (kept by reference).
    values, vectors, delta
        The kinship's eigendecomposition and the variance ratio (for :func:`screen`).
    """

    def __init__(self, model: Whitened, X: np.ndarray, values: np.ndarray,
                 vectors: np.ndarray, delta: float) -> None:
        self.model = model
        self.df = model.df
        self._X = X
        self._eigen = (values, vectors, delta)

    @functools.cached_property
    def _all(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return statistics(self.model, self._X)

    @property
    def coef(self) -> np.ndarray:
        """GLS effect of every gene."""
        return self._all[0]

    @property
    def std_err(self) -> np.ndarray:
        """Standard error of every gene's effect."""
        return self._all[1]

    @property
    def t_stat(self) -> np.ndarray:
        """t statistic of every gene."""
        return self._all[2]

    @property
    def valid(self) -> np.ndarray:
        """Genes with a non-degenerate GLS variance (the others have p = 1)."""
        return self._all[3]

    @functools.cached_property
    def p_value(self) -> np.ndarray:
        """Two-sided p-value of every gene."""
        return two_sided_p(self.t_stat, self.valid, self.df)

    @functools.cached_property
    def corrected_p_value(self) -> np.ndarray:
        """Benjamini-Hochberg corrected p-value of every gene."""
        return benjamini_hochberg(self.p_value)

    def significant(self, threshold: float) -> Significant:
        """Genes with corrected p below ``threshold``, best first, with their statistics.

        Only the screened genes are tested (see the module docstring) unless
        every gene's statistics have been asked for already.
        """
        if "_all" in self.__dict__:
            if "corrected_p_value" in self.__dict__:
                order = rank_significant(self.coef, self.corrected_p_value, threshold)
                return Significant(order, self.coef[order], self.p_value[order],
                                   self.corrected_p_value[order])
            return significant_genes(self.coef, self.t_stat, self.valid, self.df, threshold)
        candidates = screen(self.model, *self._eigen, self._X, threshold)
        if candidates is None:
            return significant_genes(self.coef, self.t_stat, self.valid, self.df, threshold)
        coef, _, t_stat, valid = statistics(self.model, np.ascontiguousarray(self._X[:, candidates]))
        return significant_genes(coef, t_stat, valid, self.df, threshold,
                                 genes=candidates, m=self._X.shape[1])
