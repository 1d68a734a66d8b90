"""The precision at which results are written, and decisions made on written values.

Result documents must be the same bytes on every machine. The arithmetic is
not: OpenBLAS picks a kernel for the CPU (``OPENBLAS_CORETYPE``: Prescott,
Nehalem, Sandybridge, Haswell, SkylakeX, ...) and NumPy a SIMD path, and
their sums run in different orders. On the bundled demo the relative
differences between kernels are at most ~3e-12 (measured on every float of
every result, see docs/statistics.md). Floats are therefore written with
:data:`RESULT_DIGITS` significant digits, six orders of magnitude above that
noise, and every decision that orders or filters genes (ranking by
coefficient or corrected p-value, the FDR threshold) is taken on the rounded
values, so gene lists and their order are a function of the written numbers.
Values that are zero up to round-off are written as 0 (see
:func:`snap_to_zero`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

RESULT_DIGITS = 6


def round_significant(value: float, digits: int = RESULT_DIGITS) -> float:
    """``value`` rounded to ``digits`` significant digits (``-0.0`` becomes ``0.0``).

    >>> round_significant(0.123456789)
    0.123457
    >>> round_significant(-1.5e-300, 2)
    -1.5e-300
    """
    rounded = float(f"{value:.{digits}g}")
    return rounded + 0.0  # -0.0 + 0.0 == 0.0


def round_array(values: np.ndarray, digits: int = RESULT_DIGITS) -> np.ndarray:
    """:func:`round_significant` of every element (float64 array)."""
    flat = [round_significant(float(v), digits) for v in np.ravel(values)]
    return np.asarray(flat, dtype=float).reshape(np.shape(values))


def round_floats(value: Any, digits: int = RESULT_DIGITS) -> Any:
    """Round every float of a JSON-ready structure to ``digits`` significant digits.

    Raises
    ------
    ValueError
        On NaN or infinity (JSON has no such numbers).
    """
    if isinstance(value, float):
        if not np.isfinite(value):
            raise ValueError(f"non-finite value {value!r} in a result document")
        return round_significant(value, digits)
    if isinstance(value, dict):
        return {k: round_floats(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [round_floats(v, digits) for v in value]
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return round_floats(value.item(), digits)
    return value


def snap_to_zero(values: np.ndarray, scale: np.ndarray, tolerance: float = 1e-10
                 ) -> np.ndarray:
    """Set to 0 the entries whose magnitude is round-off relative to ``scale``.

    A coefficient that is exactly zero in exact arithmetic (a covariate
    balanced against the trait, say) comes out of a least-squares solver as
    ``±1e-16``-ish noise whose digits differ between BLAS kernels; relative
    rounding cannot make such a value reproducible, an absolute floor can.

    Parameters
    ----------
    values : array
    scale : array
        The size each value is compared with (broadcast against ``values``),
        e.g. ``||y|| / ||z_k||`` for the coefficient of covariate ``k``.
    tolerance : float
        Relative floor.
    """
    values = np.asarray(values, dtype=float)
    return np.where(np.abs(values) <= tolerance * np.asarray(scale, dtype=float), 0.0, values)
