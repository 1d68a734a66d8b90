"""How selected genes are ordered in a result (SPEC 2), decided on written values.

Both rules rank on the values rounded as they are written
(:mod:`utils.precision`), so the order of a gene list never depends on
round-off that differs between machines; exact ties are broken by a
deterministic key (gene name, or column order).

* :func:`rank_by_coefficient`: models without tests (Lasso, ...): the non-zero
  coefficients by decreasing absolute value;
* :func:`rank_significant`: models with p-values (LMM, ...): the genes with
  corrected p below the FDR level, by corrected p;
* :func:`ranked_genes` picks the rule and :func:`gene_table` writes the lists
  of the result document's ``significant_genes`` (the one place they are
  built, for ``regress.py`` and the compatibility names alike).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import numpy as np

from utils.precision import RESULT_DIGITS, round_array

# relative change of a value rounded to RESULT_DIGITS significant digits, with room
ROUNDING_SLACK = 2 * 10.0 ** -(RESULT_DIGITS - 1)


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
    corrected_p = np.asarray(corrected_p, dtype=float)
    # rounding moves a value by at most half a unit of its 6th digit (5e-6 of it):
    # only values below threshold * (1 + ROUNDING_SLACK) can round below threshold
    near = np.flatnonzero(corrected_p < threshold * (1.0 + ROUNDING_SLACK))
    corrected = round_array(corrected_p[near])
    hits, corrected = near[corrected < threshold], corrected[corrected < threshold]
    order = np.lexsort((hits, -round_array(np.abs(coef[hits])), corrected))
    return hits[order]


def gene_table(names: Sequence[str], coef: Sequence[float],
               p_value: Optional[Sequence[float]] = None,
               corrected_p_value: Optional[Sequence[float]] = None) -> Dict[str, list]:
    """The ``significant_genes`` lists of a result document, for genes already ranked.

    Parameters
    ----------
    names, coef : sequences
        The ranked genes and their coefficients.
    p_value, corrected_p_value : sequences, optional
        Their p-values (models with tests); both or neither.

    Examples
    --------
    >>> gene_table(["A"], [-0.5])
    {'Variable': ['A'], 'Coefficient': [-0.5], 'Absolute Coefficient': [0.5]}
    """
    table = {"Variable": [str(name) for name in names],
             "Coefficient": [float(c) for c in coef],
             "Absolute Coefficient": [float(abs(c)) for c in coef]}
    if p_value is not None:
        table["p_value"] = [float(p) for p in p_value]
        table["corrected_p_value"] = [float(p) for p in corrected_p_value]
    return table


def ranked_genes(names: Sequence[str], coef: np.ndarray, threshold: float,
                 p_value: Optional[np.ndarray] = None,
                 corrected_p_value: Optional[np.ndarray] = None) -> Dict[str, list]:
    """The selected genes of a fit, ranked, as ``significant_genes`` lists.

    With p-values (and their corrected values): the genes with corrected p
    below ``threshold`` (:func:`rank_significant`), with ``p_value`` and
    ``corrected_p_value`` lists. Without: the non-zero coefficients
    (:func:`rank_by_coefficient`); ``threshold`` is then unused.

    >>> ranked_genes(["A", "B"], np.array([0.0, 2.0]), 0.05)["Variable"]
    ['B']
    """
    coef = np.asarray(coef, dtype=float)
    if p_value is None:
        order = rank_by_coefficient(names, coef)
        return gene_table([names[i] for i in order], coef[order])
    p_value = np.asarray(p_value, dtype=float)
    corrected = np.asarray(corrected_p_value, dtype=float)
    order = rank_significant(coef, corrected, threshold)
    return gene_table([names[i] for i in order], coef[order], p_value[order], corrected[order])
