"""Batch-effect detection (SPEC 5.3).

The columns of the raw gene matrix are centred; the 10 largest eigenvalues of
``X X^T`` are divided by the largest; a gap between consecutive normalized
values larger than ``gap_numerator / n_samples`` signals a batch effect, and
the problem is then analysed with the linear mixed model instead of the Lasso.
``gap_numerator = 200`` is upstream's constant (the paper writes ``1 / n``).
With fewer than 200 samples the threshold exceeds 1, so no batch effect can be
detected: that is the benchmark's rule, kept as is.
"""

from __future__ import annotations

import numpy as np

GAP_NUMERATOR = 200.0
N_EIGENVALUES = 10


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
    if X.shape[0] < 2:
        return False
    ratios = leading_eigenvalue_ratios(X)
    gaps = -np.diff(ratios)
    return bool(gaps.size and np.max(gaps) > gap_numerator / X.shape[0])
