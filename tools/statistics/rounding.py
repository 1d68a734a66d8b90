"""Rigorous error bounds of products computed in float32 (the Lasso's screens).

A product ``x^T v`` of float64 vectors computed in float32 (both operands
rounded to float32, the ``n``-term sum accumulated in float32, in any order,
fused or not) is within ``(n + 2) u ||x|| ||v||`` of the exact product to
first order (``u = 2^-24``), plus ``n 2^-149 (||x|| + max |v| + 2)`` for
values in the subnormal range. :func:`float32_product_bound` doubles the
first term (``SAFETY``), which also covers the few float64 roundings that
prepare the operands (``2^-53`` each, against the ``2^-24`` of the cast).
"""

from __future__ import annotations

import numpy as np

UNIT_ROUNDOFF_32 = 2.0 ** -24
SMALLEST_32 = 2.0 ** -149          # smallest subnormal float32
SAFETY = 2.0
FLOAT32_LIMIT = 1e30               # operands and products stay far below float32's max


def float32_product_bound(n: int, row_norm: float, vector_norm: float,
                          vector_max: float) -> float:
    """Bound on the error of ``x^T v`` computed in float32 from float64 operands.

    Both operands are rounded to float32 and the ``n``-term sum is accumulated
    in float32 (any order, fused or not): the result is within
    ``2 (n + 3) u ||x|| ||v||`` of the exact product (``u = 2^-24``; factor 2
    to spare), plus ``n 2^-149 (||x|| + max |v| + 2)`` for values in the
    subnormal range.

    Parameters
    ----------
    n : int
        Length of the vectors.
    row_norm : float
        Upper bound on ``||x||``.
    vector_norm, vector_max : float
        ``||v||`` and ``max |v|``.

    Examples
    --------
    >>> float32_product_bound(100, 10.0, 1.0, 1.0) < 1e-3
    True
    """
    return SAFETY * ((n + 3) * UNIT_ROUNDOFF_32 * row_norm * vector_norm
                     + n * SMALLEST_32 * (row_norm + vector_max + 2.0))


def float32_below(threshold: float) -> np.float32:
    """The largest float32 not above ``threshold``: for a float32 ``x``,
    ``x > threshold`` exactly when ``x > float32_below(threshold)``.

    >>> x = np.float32(0.1)
    >>> bool(x > float32_below(0.1)) == (float(x) > 0.1)
    True
    """
    value = np.float32(threshold)
    return np.nextafter(value, np.float32(-np.inf)) if float(value) > threshold else value


def float32_above(threshold: float) -> np.float32:
    """The smallest float32 not below ``threshold``: for a float32 ``x``,
    ``x >= threshold`` exactly when ``x >= float32_above(threshold)``.

    >>> x = np.float32(0.1)
    >>> bool(x >= float32_above(0.1)) == (float(x) >= 0.1)
    True
    """
    value = np.float32(threshold)
    return np.nextafter(value, np.float32(np.inf)) if float(value) < threshold else value
