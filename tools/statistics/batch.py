"""Batch-effect detection (SPEC 5.3).

The columns of the raw gene matrix are centred; the 10 largest eigenvalues of
``X X^T`` are divided by the largest; a gap between consecutive normalized
values larger than ``gap_numerator / n_samples`` signals a batch effect, and
the problem is then analysed with the linear mixed model instead of the Lasso.
``gap_numerator = 200`` is upstream's constant (the paper writes ``1 / n``).
With fewer than 200 samples the threshold exceeds 1, so no batch effect can be
detected: that is the benchmark's rule, kept as is (and then the spectrum is not
computed at all: normalized eigenvalues lie in [0, 1], so no gap can exceed 1).

The decision is first taken on a float32 Gram matrix of the centred samples
(half the time of the float64 product): its error is bounded rigorously
(each entry within ``2 (p + 3) u ||x_k|| ||x_l||``, ``u = 2^-24``, so its
spectral norm within ``B = 2 (p + 3) u trace``), each eigenvalue moves by at
most ``B`` (Weyl), and each normalized gap lies in ``[(d - 2B) / (l1 + B),
(d + 2B) / (l1 - B)]``. When every gap is surely below the threshold, or one
surely above it, that is the answer; otherwise the float64 computation of
:func:`leading_eigenvalue_ratios` decides, so the decision is always the
float64 one.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Optional

import numpy as np

from tools.statistics.rounding import UNIT_ROUNDOFF_32

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


def _partial_gram(X: np.ndarray, mean: np.ndarray, columns: slice) -> np.ndarray:
    """float32 ``Xc Xc^T`` over some genes (columns), as float64."""
    centred = np.empty((X.shape[0], columns.stop - columns.start), dtype=np.float32)
    np.subtract(X[:, columns], mean[columns], out=centred, casting="same_kind")
    return (centred @ centred.T).astype(np.float64)


def single_precision_decision(X: np.ndarray, threshold: float, k: int = N_EIGENVALUES,
                              workers: int = 1) -> Optional[bool]:
    """The rule's answer from a float32 Gram matrix when its error bound settles it.

    ``workers > 1`` splits the genes between that many threads (each part's
    float32 Gram is summed in float64; the bound holds for any split).

    Returns
    -------
    bool or None
        Whether a normalized gap of the ``k`` leading eigenvalues of ``Xc Xc^T``
        exceeds ``threshold``; None when the bound cannot tell (or the data do
        not fit float32), and the float64 computation must decide.
    """
    n, p = X.shape
    scale = max(float(np.max(X, initial=0.0)), -float(np.min(X, initial=0.0)))  # no |X| copy
    if not np.isfinite(scale) or scale > 1e15 or (p + 3) * UNIT_ROUNDOFF_32 > 0.01:
        return None
    mean = X.mean(axis=0)
    edges = np.linspace(0, p, max(1, min(workers, p)) + 1).astype(int)
    parts = [slice(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]
    if len(parts) > 1:
        with ThreadPoolExecutor(len(parts)) as pool:
            gram = sum(pool.map(lambda part: _partial_gram(X, mean, part), parts))
    else:
        gram = _partial_gram(X, mean, parts[0])
    trace = float(np.trace(gram))
    # |G32 - G| <= 2 (p + 3) u ||x_k|| ||x_l|| entrywise (SAFETY 2, as the screens'
    # float32_product_bound), so the spectral norm <= 2 (p + 3) u sum ||x_k||^2;
    # the trace of the float32 Gram is within (p + 3) u of that sum; eigvalsh's
    # own float64 error is far below the 1e-12 of the largest eigenvalue added
    rounding = 2.0 * (p + 3) * UNIT_ROUNDOFF_32
    values = np.linalg.eigvalsh(gram)[::-1][:k]
    bound = rounding * trace * (1.0 + rounding) + 1e-12 * abs(float(values[0])) + 1e-300
    first = float(values[0])
    if values.size < 2 or first - bound <= 0.0:
        return None
    differences = values[:-1] - values[1:]
    if np.any((differences - 2.0 * bound) / (first + bound) > threshold):
        return True
    if np.all((differences + 2.0 * bound) / (first - bound) <= threshold):
        return False
    return None


def detect_batch_effect(X: np.ndarray, gap_numerator: float = GAP_NUMERATOR,
                        workers: int = 1) -> bool:
    """True when the leading eigenvalue spectrum has a gap above ``gap_numerator / n``.

    Parameters
    ----------
    X : array-like
        Raw gene matrix, samples x genes.
    gap_numerator : float
        The threshold is ``gap_numerator / n_samples``.
    workers : int
        Threads for the float32 Gram matrix (the decision does not depend on it).
    """
    X = np.asarray(X, dtype=float)
    if X.shape[0] < 2 or gap_numerator / X.shape[0] > 1.0 + IMPOSSIBLE_GAP_MARGIN:
        # ratios lie in [0, 1] (up to round-off), so no gap can exceed the threshold
        return False
    threshold = gap_numerator / X.shape[0]
    settled = single_precision_decision(X, threshold, workers=workers)
    if settled is not None:
        return settled
    ratios = leading_eigenvalue_ratios(X)
    gaps = -np.diff(ratios)
    return bool(gaps.size and np.max(gaps) > threshold)
