"""Batch-effect detection (SPEC 5.3).

The columns of the raw gene matrix are centred; the 10 largest eigenvalues of
``X X^T`` are divided by the largest; a gap between consecutive normalized
values larger than ``gap_numerator / n_samples`` signals a batch effect, and
the problem is then analysed with the linear mixed model instead of the Lasso.
``gap_numerator = 200`` is upstream's constant (the paper writes ``1 / n``).
With fewer than 200 samples the threshold exceeds 1, so no batch effect can be
detected: that is the benchmark's rule, kept as is (and then the spectrum is not
computed at all: normalized eigenvalues lie in [0, 1], so no gap can exceed 1).
"""

from __future__ import annotations

import numpy as np

GAP_NUMERATOR = 200.0
N_EIGENVALUES = 10
# Eigenvalues of the (positive semi-definite) Gram matrix come out of eigvalsh
# with errors of order n * eps relative to the largest, so a normalized gap is
# at most 1 + ~1e-13; a threshold above 1 + this margin cannot be reached.
IMPOSSIBLE_GAP_MARGIN = 1e-6


def leading_eigenvalue_ratios(X: np.ndarray, k: int = N_EIGENVALUES) -> np.ndarray:
    """The ``k`` largest eigenvalues of ``Xc Xc^T`` divided by the largest (descending)."""
    X = np.asarray(X, dtype=float)
    # Xc Xc^T from X X^T without a centred copy: Xc = X - 1 m^T.
    mean = X.mean(axis=0)
    row_dot_mean = X @ mean
    gram = X @ X.T - row_dot_mean[:, None] - row_dot_mean[None, :] + float(mean @ mean)
    values = np.linalg.eigvalsh(gram)[::-1][:k]
    if values.size == 0 or values[0] <= 0:
        return np.zeros(values.size)
    return values / values[0]


def detect_batch_effect(X: np.ndarray, gap_numerator: float = GAP_NUMERATOR) -> bool:
    """True when the leading eigenvalue spectrum has a gap above ``gap_numerator / n``.

    Parameters
    ----------
    X : array-like
        Raw gene matrix, samples x genes.
    gap_numerator : float
        The threshold is ``gap_numerator / n_samples``.
    """
    X = np.asarray(X, dtype=float)
    if X.shape[0] < 2 or gap_numerator / X.shape[0] > 1.0 + IMPOSSIBLE_GAP_MARGIN:
        # ratios lie in [0, 1] (up to round-off), so no gap can exceed the threshold
        return False
    ratios = leading_eigenvalue_ratios(X)
    gaps = -np.diff(ratios)
    return bool(gaps.size and np.max(gaps) > gap_numerator / X.shape[0])
