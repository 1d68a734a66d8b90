"""Per-gene generalized least-squares tests of the LMM (SPEC 5.4), leave-one-gene-out.

Gene ``j`` is tested by GLS of ``y`` on ``[C, x_j]`` under the null model's
covariance with the gene left out of its own kinship::

    V_-j = K_-j + delta I,   K_-j = K - x_j x_j' / p

(proximal contamination, Listgarten et al. 2012: a kinship built from the
tested gene absorbs part of its signal). Everything is computed in the
*restricted* eigenbasis ``E`` of :mod:`tools.statistics.reml` (``E'C = 0``,
``B'KB = W diag(mu) W'``, ``E = B W``), where the REML projection is
``P = E diag(w) E'`` with ``w = 1 / (mu + delta)``. With
``s_ab = a'P b``, GLS with ``C`` partialled out is

* coefficient ``s_xy / s_xx``; ``rho^2 = s_xy^2 / (s_xx s_yy)``;
* ``t^2 = df rho^2 / (1 - rho^2)``, ``df = n - rank(C) - 1``.

Leaving the gene out is a rank-one downdate of ``V`` with a closed form
(Sherman-Morrison): with ``r = s_xx / p``, ``s_xx`` and ``s_xy`` are divided by
``1 - r``, ``s_yy`` grows by ``s_xy^2 / (p (1 - r))``; the coefficient and the
residual sum of squares are unchanged and ``t_-j^2 = t^2 / (1 - r)``: free.
(``1 - r > 0``: ``K`` holds the gene's own term ``x x'/p``, so ``V_-j`` stays
positive definite.) ``delta`` stays the null model's (estimated once, as
FaST-LMM does).

Only the genes that can pass the FDR threshold are tested in full
(:mod:`tools.statistics.fdr`). :func:`screen` computes for every gene, from one
product of the genes with ``spikes + rank(C) + 1`` vectors,

* ``s_xy = (P y)'x`` exactly;
* ``s_xx = sum_i w_i (e_i'x)^2`` bounded from both sides: the restricted
  kinship's spikes (``mu`` above 1.5 x the median) exactly, the rest of
  ``||E'x||^2 = ||x||^2 - ||Q_C'x||^2`` at the smallest and at the largest
  remaining weight;

a lower ``s_xx`` bounds ``rho^2`` from above, an upper one bounds the
leave-one-out factor ``1 / (1 - r)`` from above, so ``t_-j^2`` is bounded from
above; genes whose bound stays below 0.9 x the cut-off of ``p < q`` (far
above round-off) cannot pass and are left out. The others (a few percent)
are tested exactly as when every gene is. Arrays for every gene are computed
on first request.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np
from scipy import special

from tools.statistics.fdr import (Significant, benjamini_hochberg, rank_significant,
                                  significant_genes, two_sided_p)

SPIKE_RATIO = 1.5        # restricted eigenvalues above this multiple of the median are spikes
MAX_SPIKES = 0.25        # ... at most this fraction of n, or the screen is skipped
MARGIN = 0.9             # screen keeps genes whose rho^2 bound reaches MARGIN x cut-off
DEGENERATE = 0.01        # genes nearly inside span(C) are always tested
MAX_CANDIDATES = 0.5     # screen not worth it above this fraction of the genes
VALID = 1e-10            # a gene with less than this share of its norm outside C is untestable
UNIT_NORM_SLACK = 1e-3   # standardized genes: ||x||^2 within this share of n (float32: ~1e-5)


@dataclass(frozen=True)
class NullModel:
    """What every gene's test shares (float64).

    Attributes
    ----------
    QC : (n, rank) orthonormal basis of ``span(C)``.
    mu, E : restricted eigenvalues and eigenvectors (``E'C = 0``).
    w : ``1 / (mu + delta)``; yt : ``E'y``; Py : ``E (w yt)``, the REML projection of ``y``.
    syy : ``y'Py``; df : ``n - rank(C) - 1``; n_genes : ``p``, the kinship's divisor.
    """

    QC: np.ndarray
    mu: np.ndarray
    E: np.ndarray
    w: np.ndarray
    yt: np.ndarray
    Py: np.ndarray
    syy: float
    df: int
    n_genes: int


def null_model(QC: np.ndarray, mu: np.ndarray, E: np.ndarray, y: np.ndarray, delta: float,
               n_genes: int) -> NullModel:
    """The shared quantities of the tests at ``delta``."""
    w = 1.0 / (mu + delta)
    yt = E.T @ y
    return NullModel(QC, mu, E, w, yt, E @ (w * yt), float(np.sum(w * yt * yt)),
                     E.shape[0] - QC.shape[1] - 1, max(int(n_genes), 1))


def _logo_t(model: NullModel, sxx: np.ndarray, sxy: np.ndarray, valid: np.ndarray
            ) -> np.ndarray:
    """Leave-one-gene-out t statistics from the P-sums (see the module docstring)."""
    safe = np.where(valid, sxx, 1.0)
    rho2 = np.clip(sxy * sxy / (safe * model.syy), 0.0, 1.0) if model.syy > 0 else 0.0 * sxx
    with np.errstate(divide="ignore", invalid="ignore"):
        t2 = np.where(rho2 < 1.0, model.df * rho2 / (1.0 - rho2), np.inf)
    t2 = t2 / np.maximum(1.0 - sxx / model.n_genes, np.finfo(float).eps)
    return np.where(valid & (model.df > 0), np.sign(sxy) * np.sqrt(t2), 0.0)


def statistics(model: NullModel, X: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coefficient, leave-one-gene-out t statistic and validity of each column of ``X``.

    One product ``E'X`` in the precision of ``X``; the rest in float64. A gene
    with (almost) nothing outside ``span(C)`` (a constant gene, or a copy of a
    covariate) is not valid: coefficient and t are 0, its p-value 1.
    """
    Xt = (model.E.T.astype(X.dtype) @ X).astype(float)
    Xt2 = Xt * Xt
    sxx = model.w @ Xt2
    sxy = (model.w * model.yt) @ Xt
    norm2 = np.einsum("ij,ij->j", X, X).astype(float)
    valid = Xt2.sum(axis=0) > VALID * np.maximum(norm2, np.finfo(float).tiny)
    coef = np.where(valid, sxy / np.where(valid, sxx, 1.0), 0.0)
    return coef, _logo_t(model, sxx, sxy, valid), valid


def screen(model: NullModel, X: np.ndarray, threshold: float,
           standardized: bool = False) -> Optional[np.ndarray]:
    """Genes whose p-value can be below ``threshold`` (a superset, increasing).

    ``None`` when the bound would not save work (no clear spikes, too many
    candidates, no residual variance, or no valid cut-off).

    ``standardized``: the columns of ``X`` are standardized genes (each
    ``||x||^2`` is ``n`` up to ``UNIT_NORM_SLACK``, or the gene is 0), so the
    norms are bounded from both sides instead of computed (a pass over ``X``);
    a zero column then has no product either and cannot pass.
    """
    n, p = X.shape
    mu = model.mu
    median = float(np.median(mu)) if mu.size else 0.0
    order = np.argsort(mu, kind="stable")[::-1]
    r = int(np.sum(mu > SPIKE_RATIO * median))
    if (model.df <= 0 or not 0.0 < threshold < 1.0 or median <= 0.0 or r > MAX_SPIKES * n
            or r >= mu.size - 1 or model.syy <= 0.0):
        return None
    top, rest = order[:r], order[r:]
    rows = np.column_stack([model.E[:, top], model.QC, model.Py]).T.astype(X.dtype)
    product = (rows @ X).astype(float)                       # (r + rank + 1, p)
    spikes, in_c, sxy = product[:r], product[r:-1], product[-1]
    explained = np.sum(in_c * in_c, axis=0)
    spikes2 = spikes * spikes
    spiked = np.sum(spikes2, axis=0)
    if standardized:
        norm2, norm2_up = (1.0 - UNIT_NORM_SLACK) * n, (1.0 + UNIT_NORM_SLACK) * n
    else:
        norm2 = norm2_up = np.einsum("ij,ij->j", X, X).astype(float)
    outside_c = norm2 - explained                            # ||E'x||^2 (a lower bound)
    rest_norm = np.maximum(outside_c - spiked, 0.0)
    rest_norm_up = np.maximum(norm2_up - explained - spiked, 0.0)
    exact = model.w[top] @ spikes2
    sxx_low = exact + model.w[rest].min() * rest_norm
    sxx_up = exact + model.w[rest].max() * rest_norm_up
    cut = -special.stdtrit(model.df, threshold / 2.0)
    c2 = cut * cut / model.df * np.maximum(1.0 - sxx_up / model.n_genes, 0.0)
    rho2_cut = c2 / (1.0 + c2)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho2_up = sxy * sxy / (sxx_low * model.syy)
    keep = (outside_c <= DEGENERATE * norm2) | ~(rho2_up < MARGIN * rho2_cut)
    candidates = np.flatnonzero(keep & (norm2 > 0.0))    # (all, when standardized)
    return None if candidates.size > MAX_CANDIDATES * p else candidates


class GeneTests:
    """Per-gene leave-one-gene-out GLS results of one fit; arrays on first request.

    Parameters
    ----------
    model : NullModel
    X : numpy.ndarray
        The standardized genes (kept by reference).
    standardized : bool
        ``X`` comes from the engine's standardization: the screen takes the
        columns' norms as known (:func:`screen`).
    """

    def __init__(self, model: NullModel, X: np.ndarray, standardized: bool = False) -> None:
        self.model = model
        self.df = model.df
        self._X = X
        self._standardized = standardized
        self._significant: dict = {}

    @functools.cached_property
    def _all(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        return statistics(self.model, self._X)

    @property
    def coef(self) -> np.ndarray:
        """GLS effect of every gene (the same with or without the gene in ``K``)."""
        return self._all[0]

    @property
    def t_stat(self) -> np.ndarray:
        """Leave-one-gene-out t statistic of every gene."""
        return self._all[1]

    @property
    def valid(self) -> np.ndarray:
        """Genes with something left outside ``span(C)`` (the others have p = 1)."""
        return self._all[2]

    @property
    def std_err(self) -> np.ndarray:
        """Standard error of every gene's effect (``|coef / t|``; inf when t = 0)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.t_stat != 0, np.abs(self.coef / self.t_stat), np.inf)

    @functools.cached_property
    def p_value(self) -> np.ndarray:
        """Two-sided p-value of every gene."""
        return two_sided_p(self.t_stat, self.valid, self.df)

    @functools.cached_property
    def corrected_p_value(self) -> np.ndarray:
        """Benjamini-Hochberg corrected p-value of every gene."""
        return benjamini_hochberg(self.p_value)

    def screened(self, threshold: float) -> Optional[np.ndarray]:
        """:func:`screen` of these tests."""
        return screen(self.model, self._X, threshold, self._standardized)

    def significant(self, threshold: float) -> Significant:
        """Genes with corrected p below ``threshold``, best first, with their statistics.

        Only the screened genes are tested (see the module docstring) unless
        every gene's statistics have been asked for already. Cached per threshold.
        """
        if threshold not in self._significant:
            self._significant[threshold] = self._select(threshold)
        return self._significant[threshold]

    def _select(self, threshold: float) -> Significant:
        if "_all" in self.__dict__:
            if "corrected_p_value" in self.__dict__:
                order = rank_significant(self.coef, self.corrected_p_value, threshold)
                return Significant(order, self.coef[order], self.p_value[order],
                                   self.corrected_p_value[order])
            return significant_genes(self.coef, self.t_stat, self.valid, self.df, threshold)
        candidates = self.screened(threshold)
        if candidates is None:
            return significant_genes(self.coef, self.t_stat, self.valid, self.df, threshold)
        coef, t_stat, valid = statistics(self.model, np.ascontiguousarray(self._X[:, candidates]))
        return significant_genes(coef, t_stat, valid, self.df, threshold,
                                 genes=candidates, m=self._X.shape[1])
