"""P-values of per-gene t tests and Benjamini-Hochberg selection (SPEC 5.4).

The LMM tests every gene (~18,500) of every fit, but a fit mostly needs only
the genes whose corrected p-value passes the FDR threshold ``q``. Those are
found exactly without a p-value for every gene: a gene whose own p-value is
``>= q`` can neither pass nor lower the corrected p-value of a gene that
passes (its BH term ``p m / k`` is ``>= q``), and the genes with ``p < q``
take the first ranks. So p-values are computed only for the genes whose
``|t|`` can give ``p < q``, and the selected genes, their p-values and
corrected p-values are bit for bit those of the full computation
(:func:`benjamini_hochberg` over all genes, then :func:`rank_significant`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
from scipy import special

from tools.statistics.ranking import rank_significant

# Relative margin on the |t| cut-off, far above the round-off of stdtr/stdtrit.
T_CUT_MARGIN = 1e-4


def two_sided_p(t_stat: np.ndarray, valid: np.ndarray, df: int) -> np.ndarray:
    """Two-sided p-values of t statistics (1 where ``valid`` is false or ``df <= 0``)."""
    if df <= 0:
        return np.ones(np.shape(t_stat))
    return np.where(valid, 2.0 * special.stdtr(df, -np.abs(t_stat)), 1.0)


def benjamini_hochberg(p_values: np.ndarray) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (same as statsmodels ``fdr_bh``)."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum.accumulate(scaled[::-1])[::-1]
    result = np.empty(m)
    result[order] = np.minimum(adjusted, 1.0)
    return result


@dataclass(frozen=True)
class Significant:
    """The genes passing the FDR threshold, best first.

    Attributes
    ----------
    indices : numpy.ndarray
        Gene indices (ranked by :func:`tools.statistics.ranking.rank_significant`).
    coef, p_value, corrected_p_value : numpy.ndarray
        Their coefficients, p-values and Benjamini-Hochberg corrected p-values.
    """

    indices: np.ndarray
    coef: np.ndarray
    p_value: np.ndarray
    corrected_p_value: np.ndarray


def significant_genes(coef: np.ndarray, t_stat: np.ndarray, valid: np.ndarray, df: int,
                      threshold: float, genes: Optional[np.ndarray] = None,
                      m: Optional[int] = None) -> Significant:
    """Genes with BH-corrected p below ``threshold``, computing only the p-values needed.

    Same result as ``benjamini_hochberg(two_sided_p(t_stat, valid, df))``
    followed by :func:`rank_significant` (see the module docstring).

    ``genes`` (increasing) and ``m`` allow passing only some of ``m`` tests:
    those that can have ``p < threshold``; the others are then known to have
    ``p >= threshold`` and play no part.
    """
    m_given = np.size(t_stat)
    genes = np.arange(m_given) if genes is None else np.asarray(genes)
    m = m_given if m is None else int(m)
    if not 0.0 < threshold < 1.0 or df <= 0 or m == 0:
        if m != m_given:
            raise ValueError("a threshold outside (0, 1) needs every test")
        p = two_sided_p(t_stat, valid, df)
        corrected = benjamini_hochberg(p)
        order = rank_significant(coef, corrected, threshold)
        return Significant(genes[order], coef[order], p[order], corrected[order])
    cut = -special.stdtrit(df, threshold / 2.0) * (1.0 - T_CUT_MARGIN)
    candidates = np.flatnonzero(valid & (np.abs(t_stat) > cut))
    p = 2.0 * special.stdtr(df, -np.abs(t_stat[candidates]))
    keep = p < threshold              # these take ranks 1..c among all m genes
    candidates, p = candidates[keep], p[keep]
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, candidates.size + 1)
    corrected = np.empty(candidates.size)
    corrected[order] = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    ranked = rank_significant(coef[candidates], corrected, threshold)
    chosen = candidates[ranked]
    return Significant(genes[chosen], coef[chosen], p[ranked], corrected[ranked])
