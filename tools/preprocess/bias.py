"""Biased features of a linked table (SPEC 4.7).

* A binary feature (coded 0/1, :func:`utils.columns.is_binary`) is biased when fewer than two
  classes are present, or when the minority class is *both* rarer than
  ``min_proportion`` (10 %) of the non-missing values *and* smaller than
  ``min_num`` (5) samples. Both comparisons are strict: a minority of exactly
  10 % or exactly 5 samples is not biased.
* A continuous feature is biased when it is constant (fewer than two distinct
  non-missing values).
* The trait is judged as binary when it is coded 0/1 (the coding of SPEC 2;
  the one meaning of "binary" across the project), else as continuous. Age is always judged as continuous, Gender always as binary.
  A biased trait makes the cohort unusable; a biased Age or Gender column is
  dropped and the cohort stays usable.
"""

from __future__ import annotations

import logging
from typing import Tuple

import pandas as pd

from utils.columns import AGE, GENDER, is_binary

logger = logging.getLogger(__name__)

MIN_PROPORTION = 0.1
MIN_NUM = 5


def judge_binary_variable_biased(dataframe: pd.DataFrame, col_name: str,
                                 min_proportion: float = MIN_PROPORTION,
                                 min_num: int = MIN_NUM) -> bool:
    """Whether a binary column is too unbalanced to analyse.

    Parameters
    ----------
    dataframe : DataFrame
    col_name : str
    min_proportion : float, default 0.1
        Minority share below which the column may be biased.
    min_num : int, default 5
        Minority count below which the column may be biased.

    Returns
    -------
    bool
        True when fewer than two classes are present, or the minority class
        has share < ``min_proportion`` and count < ``min_num``.
    """
    counts = dataframe[col_name].value_counts(dropna=True)
    if len(counts) < 2:
        logger.info("%s: %d class(es) present: biased", col_name, len(counts))
        return True
    minority = int(counts.min())
    total = int(counts.sum())
    biased = (minority / total < min_proportion) and (minority < min_num)
    logger.info("%s: minority class %d of %d (%.1f%%): %s", col_name, minority, total,
                100.0 * minority / total, "biased" if biased else "not biased")
    return bool(biased)


def judge_continuous_variable_biased(dataframe: pd.DataFrame, col_name: str) -> bool:
    """Whether a continuous column is constant (fewer than 2 distinct values)."""
    values = dataframe[col_name].dropna()
    biased = values.nunique() < 2
    if len(values):
        logger.info("%s: min %.4g, median %.4g, max %.4g: %s", col_name, values.min(),
                    values.median(), values.max(), "biased" if biased else "not biased")
    else:
        logger.info("%s: no values: biased", col_name)
    return bool(biased)


def judge_and_remove_biased_features(df: pd.DataFrame, trait: str
                                     ) -> Tuple[bool, pd.DataFrame]:
    """Judge the trait's bias and drop biased Age / Gender columns.

    Parameters
    ----------
    df : DataFrame
        Linked table after missing-value handling.
    trait : str
        The trait column.

    Returns
    -------
    is_trait_biased : bool
        True makes the cohort unusable.
    df : DataFrame
        A copy without the biased Age / Gender columns.
    """
    if trait not in df.columns:
        raise KeyError(f"trait column {trait!r} not in the linked table")
    if is_binary(df[trait]):
        trait_biased = judge_binary_variable_biased(df, trait)
    else:
        trait_biased = judge_continuous_variable_biased(df, trait)
    logger.info("trait %s is %s", trait, "biased" if trait_biased else "not biased")
    biased_covariates = []
    if AGE in df.columns and judge_continuous_variable_biased(df, AGE):
        biased_covariates.append(AGE)
    if GENDER in df.columns and judge_binary_variable_biased(df, GENDER):
        biased_covariates.append(GENDER)
    if biased_covariates:
        logger.info("dropping biased covariates %s", biased_covariates)
    return bool(trait_biased), df.drop(columns=biased_covariates)
