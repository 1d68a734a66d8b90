"""The columns of a linked table, named and classified once (SPEC 2, 4.5, 4.7, 5.5).

A linked table is samples (rows) x ``[<Trait>, Age?, Gender?, genes...]``.
Every component asks the same three questions of it, and answers them here:

* the clinical covariates are named :data:`AGE` and :data:`GENDER`
  (:data:`CLINICAL_COLUMNS`); they are also the one-step conditions of SPEC 5.1;
* the gene columns are every column except the trait and the clinical ones
  (:func:`gene_columns`);
* a trait is *analysed as binary* when it is coded 0/1, the coding SPEC 2
  prescribes for case/control traits and for Gender (:func:`is_binary`): that
  decides the fold stratification and prediction metrics of the
  cross-validation (SPEC 5.5) and the step-1 model of a two-step problem
  (SPEC 5.6);
* a feature's *balance is judged by the class rule* when it has exactly two
  distinct values (:func:`is_two_valued`, SPEC 4.7's definition), whatever
  their coding; otherwise by the constant rule.

The two questions differ on purpose and have different names: a two-valued
trait not coded 0/1 is judged for balance like classes, and refused for
analysis (it breaks the SPEC 2 coding).
"""

from __future__ import annotations

from typing import FrozenSet, Iterable, List, Optional

import numpy as np
import pandas as pd

AGE = "Age"
GENDER = "Gender"
CLINICAL_COLUMNS = (AGE, GENDER)


def non_gene_columns(trait: Optional[str]) -> FrozenSet[str]:
    """The columns of a linked table that are not genes: the trait, Age and Gender.

    >>> sorted(non_gene_columns("Asthma"))
    ['Age', 'Asthma', 'Gender']
    """
    return frozenset({trait, *CLINICAL_COLUMNS} - {None})


def gene_columns(columns: Iterable[str], trait: Optional[str]) -> List[str]:
    """The gene columns of a linked table, in table order.

    Parameters
    ----------
    columns : iterable of str
        The table's columns (after the sample-id index).
    trait : str or None
        The trait column's name.

    Examples
    --------
    >>> gene_columns(["Asthma", "Age", "TP53", "BRCA1"], "Asthma")
    ['TP53', 'BRCA1']
    """
    names = list(columns)
    skip = non_gene_columns(trait)
    lead = 0
    while lead < len(names) and names[lead] in skip:  # the usual layout: clinical first
        lead += 1
    rest = names[lead:]
    return rest if skip.isdisjoint(rest) else [name for name in rest if name not in skip]


def is_binary(values: Iterable[float]) -> bool:
    """True when every non-missing value is 0 or 1 (and there is at least one).

    Examples
    --------
    >>> is_binary([0.0, 1.0, float("nan"), 1.0]), is_binary([1.0, 2.0]), is_binary([])
    (True, False, False)
    """
    try:
        array = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):  # text values: not a 0/1 column
        return False
    array = array[~np.isnan(array)]
    return array.size > 0 and bool(np.all((array == 0.0) | (array == 1.0)))


#: A trait whose values are 0 or 1 except at most this share of its samples (or a
#: single sample) is a binary trait with stray values (refused), not a continuous trait.
STRAY_SHARE = 0.05


def stray_binary_values(values: Iterable[float]) -> np.ndarray:
    """The values that break the 0/1 coding of a trait that is otherwise binary.

    A column holding both 0 and 1 whose other (non-missing) values are at most
    :data:`STRAY_SHARE` of its samples, or a single sample, is a binary trait with
    entry errors:
    one stray ``2`` must not silently turn a case/control trait continuous.
    Returns the stray values (sorted, distinct), empty when the column is
    binary or genuinely non-binary.

    Examples
    --------
    >>> stray_binary_values([0, 1] * 20 + [2]).tolist()
    [2.0]
    >>> stray_binary_values([0.0, 1.0, 2.0, 3.0]).size, stray_binary_values([0, 1, 1]).size
    (0, 0)
    >>> stray_binary_values([0, 1, 0, 1, 0.5]).tolist()
    [0.5]
    """
    array = np.asarray(values, dtype=float).ravel()
    array = array[~np.isnan(array)]
    coded = (array == 0.0) | (array == 1.0)
    if coded.all() or not ((array == 0.0).any() and (array == 1.0).any()):
        return np.zeros(0)
    if np.sum(~coded) > max(1.0, STRAY_SHARE * array.size):
        return np.zeros(0)
    return np.unique(array[~coded])


def is_two_valued(values: Iterable[float]) -> bool:
    """True when there are exactly two distinct non-missing values (SPEC 4.7's binary).

    Examples
    --------
    >>> is_two_valued([1.0, 2.0, float("nan"), 2.0]), is_two_valued([0.0, 1.0, 2.0])
    (True, False)
    """
    series = pd.Series(list(values) if not hasattr(values, "__array__") else np.ravel(values))
    return int(series.nunique(dropna=True)) == 2
