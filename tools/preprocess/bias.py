"""Biased features of a linked table (SPEC 4.7).

* A binary feature is biased when fewer than two
  classes are present, or when the minority class is *both* rarer than
  ``min_proportion`` (10 %) of the non-missing values *and* smaller than
  ``min_num`` (5) samples. Both comparisons are strict: a minority of exactly
  10 % or exactly 5 samples is not biased.
* A continuous feature is biased when it is constant (fewer than two distinct
  non-missing values).
* The trait is judged as binary when it has exactly two distinct non-missing
  values (SPEC 4.7, :func:`utils.columns.is_two_valued`), else as continuous.
  Age is always judged as continuous, Gender always as binary. (Whether a
  trait is *analysed* as binary is another question, answered by its 0/1
  coding: :func:`utils.columns.is_binary`.)
  A biased trait makes the cohort unusable; a biased Age or Gender column is
  dropped and the cohort stays usable.

The judges **print** their evidence (class counts and shares, or quartiles)
and their verdict to stdout, besides logging it: existing notebooks and agents
read those lines to decide (SPEC Appendix A). This is the one place of the
library that prints; ``verbose=False`` silences it. The line format is
documented in ``docs/preprocessing_clinical.md``.
"""

from __future__ import annotations

import logging
import numbers
from typing import Any, List, Tuple

import pandas as pd

from utils.columns import AGE, GENDER, is_two_valued

logger = logging.getLogger(__name__)

MIN_PROPORTION = 0.1
MIN_NUM = 5
MAX_LISTED_CLASSES = 10  # a binary judge called on a many-valued column lists this many


def _shown(value: Any) -> str:
    """A value as the judges print it: numbers with 6 significant digits."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return f"{float(value):.6g}"
    return str(value)


def _report(lines: List[str], verbose: bool) -> None:
    """Log the judge's lines and, when ``verbose``, print them to stdout."""
    text = "\n".join(lines)
    logger.info("%s", text)
    if verbose:
        print(text, flush=True)


def _header(col_name: str, kind: str, column: pd.Series) -> str:
    n_missing = int(column.isna().sum())
    return (f"Bias check of '{col_name}' ({kind}): {len(column) - n_missing} values, "
            f"{n_missing} missing")


def _verdict(col_name: str, biased: bool, reason: str) -> str:
    return f"Verdict for '{col_name}': {'biased' if biased else 'not biased'} ({reason})"


def judge_binary_variable_biased(dataframe: pd.DataFrame, col_name: str,
                                 min_proportion: float = MIN_PROPORTION,
                                 min_num: int = MIN_NUM, *, verbose: bool = True) -> bool:
    """Whether a binary column is too unbalanced to analyse; prints the class counts.

    Parameters
    ----------
    dataframe : DataFrame
    col_name : str
    min_proportion : float, default 0.1
        Minority share below which the column may be biased.
    min_num : int, default 5
        Minority count below which the column may be biased.
    verbose : bool, default True
        Print the evidence and the verdict to stdout (they are always logged).

    Returns
    -------
    bool
        True when fewer than two classes are present, or the minority class
        has share < ``min_proportion`` and count < ``min_num``.
    """
    column = dataframe[col_name]
    counts = column.value_counts(dropna=True).sort_index()
    total = int(counts.sum())
    lines = [_header(col_name, "binary", column)]
    lines += [f"  class {_shown(label)}: {int(count)} ({count / total:.2%})"
              for label, count in counts.iloc[:MAX_LISTED_CLASSES].items()]
    if len(counts) > MAX_LISTED_CLASSES:
        lines.append(f"  ... {len(counts) - MAX_LISTED_CLASSES} more classes")
    if len(counts) < 2:
        biased = True
        reason = f"{len(counts)} class{'' if len(counts) == 1 else 'es'} present, 2 needed"
    else:
        minority_label, minority = counts.idxmin(), int(counts.min())
        share = minority / total
        lines.append(f"  least common class {_shown(minority_label)}: {minority} "
                     f"({share:.2%})")
        biased = bool(share < min_proportion and minority < min_num)
        reason = (f"least common class under {min_proportion:.2%} and under {min_num} samples"
                  if biased else
                  f"least common class at least {min_proportion:.2%} or at least "
                  f"{min_num} samples")
    lines.append(_verdict(col_name, biased, reason))
    _report(lines, verbose)
    return biased


def judge_continuous_variable_biased(dataframe: pd.DataFrame, col_name: str, *,
                                     verbose: bool = True) -> bool:
    """Whether a continuous column is constant; prints its quartiles.

    Parameters
    ----------
    dataframe : DataFrame
    col_name : str
    verbose : bool, default True
        Print the evidence and the verdict to stdout (they are always logged).

    Returns
    -------
    bool
        True when the column has fewer than 2 distinct non-missing values.
    """
    column = dataframe[col_name]
    values = column.dropna()
    lines = [_header(col_name, "continuous", column)]
    if len(values):
        quartiles = values.quantile([0.25, 0.5, 0.75])
        lines += [f"  min: {_shown(values.min())}",
                  f"  lower quartile (25%): {_shown(quartiles[0.25])}",
                  f"  median (50%): {_shown(quartiles[0.5])}",
                  f"  upper quartile (75%): {_shown(quartiles[0.75])}",
                  f"  max: {_shown(values.max())}"]
    n_distinct = int(values.nunique())
    biased = n_distinct < 2
    reason = (f"{n_distinct} distinct values" if not biased
              else "constant: 1 distinct value" if n_distinct == 1 else "no values")
    lines.append(_verdict(col_name, biased, reason))
    _report(lines, verbose)
    return biased


def judge_and_remove_biased_features(df: pd.DataFrame, trait: str, *, verbose: bool = True
                                     ) -> Tuple[bool, pd.DataFrame]:
    """Judge the trait's bias and drop biased Age / Gender columns.

    Prints how the trait is judged, each judge's evidence and verdict, and a
    summary line (see the module docstring).

    Parameters
    ----------
    df : DataFrame
        Linked table after missing-value handling.
    trait : str
        The trait column.
    verbose : bool, default True
        Print to stdout (everything is logged either way).

    Returns
    -------
    is_trait_biased : bool
        True makes the cohort unusable.
    df : DataFrame
        A copy without the biased Age / Gender columns.
    """
    if trait not in df.columns:
        raise KeyError(f"trait column {trait!r} not in the linked table")
    n_distinct = int(df[trait].nunique(dropna=True))
    kind = "binary" if is_two_valued(df[trait]) else "continuous"
    _report([f"Trait '{trait}' has {n_distinct} distinct value"
             f"{'' if n_distinct == 1 else 's'}: judged as {kind}"], verbose)
    if kind == "binary":
        trait_biased = judge_binary_variable_biased(df, trait, verbose=verbose)
    else:
        trait_biased = judge_continuous_variable_biased(df, trait, verbose=verbose)
    biased_covariates = []
    if AGE in df.columns and judge_continuous_variable_biased(df, AGE, verbose=verbose):
        biased_covariates.append(AGE)
    if GENDER in df.columns and judge_binary_variable_biased(df, GENDER, verbose=verbose):
        biased_covariates.append(GENDER)
    _report([f"Summary: trait '{trait}' {'biased' if trait_biased else 'not biased'}; "
             f"biased covariates removed: {', '.join(biased_covariates) or 'none'}"], verbose)
    return bool(trait_biased), df.drop(columns=biased_covariates)
