"""How selected genes are ordered in a result (SPEC 2), decided on written values.

Both rules rank on the values rounded as they are written
(:mod:`utils.precision`), so the order of a gene list never depends on
round-off that differs between machines; exact ties are broken by a
deterministic key (gene name, or column order).
"""

from __future__ import annotations

from typing import List, Sequence

import numpy as np

from utils.precision import round_array


def rank_by_coefficient(names: Sequence[str], coef: np.ndarray) -> List[int]:
    """Indices of the non-zero coefficients by descending rounded ``|coef|``, then name.

    >>> rank_by_coefficient(["B", "A", "C"], np.array([0.5, -0.5, 0.0]))
    [1, 0]
    """
    coef = np.asarray(coef, dtype=float)
    hits = np.flatnonzero(coef)
    size = round_array(np.abs(coef[hits]))
    keep = size > 0
    hits, size = hits[keep], size[keep]
    order = sorted(range(hits.size), key=lambda k: (-size[k], names[hits[k]]))
    return [int(hits[k]) for k in order]


def rank_significant(coef: np.ndarray, corrected_p: np.ndarray,
                     threshold: float) -> np.ndarray:
    """Indices with rounded corrected p below ``threshold``, by rounded corrected p,
    then rounded ``|coef|`` (descending), then index.

    >>> rank_significant(np.array([1.0, 2.0, 3.0]), np.array([0.01, 0.01, 0.2]), 0.05)
    array([1, 0])
    """
    coef = np.asarray(coef, dtype=float)
    corrected = round_array(np.asarray(corrected_p, dtype=float))
    hits = np.flatnonzero(corrected < threshold)
    order = np.lexsort((hits, -round_array(np.abs(coef[hits])), corrected[hits]))
    return hits[order]
