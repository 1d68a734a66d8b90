"""Linking clinical and gene tables, and missing-value handling (SPEC 4.6).

Linked table: samples (rows) x ``[<Trait>, Age?, Gender?, genes...]``; only
samples present in both tables (inner join), in the clinical table's order.

Missing values, in this order (thresholds are "more than 20 %", so a gene
missing in exactly 20 % of the samples is kept; an infinite value, ``inf`` or
``-inf``, is missing too: it carries no usable measurement and would poison every
mean and fit):

1. drop samples whose trait is missing;
2. drop genes missing in more than 20 % of the remaining samples;
3. drop samples missing more than 20 % of the remaining genes;
4. fill Age with its mean, Gender with its mode (ties -> the smaller code,
   i.e. 0 = female), each gene with its mean. An Age or Gender column with no
   value left is dropped (nothing to fill it from).

When no gene column survives (or there was none), the samples are kept, the
result has no gene columns and a warning is logged; the cohort-info record then
marks the cohort as having no gene data (see :mod:`tools.preprocess.cohort_info`), rather
than every sample silently disappearing.
"""

from __future__ import annotations

import logging
from fractions import Fraction

import numpy as np
import pandas as pd

from utils.columns import AGE, GENDER, non_gene_columns

logger = logging.getLogger(__name__)

MAX_MISSING_FRACTION = 0.2


def _clinical_as_samples_by_features(clinical_df: pd.DataFrame,
                                     samples: pd.Index) -> pd.DataFrame:
    """Orient the clinical table with samples as rows.

    The SPEC layout is features x samples (GEO); the original TCGA helper gives
    samples x features. Whichever axis shares more labels with the gene
    table's samples is the sample axis.
    """
    by_columns = len(samples.intersection(clinical_df.columns.astype(str)))
    by_index = len(samples.intersection(clinical_df.index.astype(str)))
    oriented = clinical_df.T if by_columns >= by_index else clinical_df
    oriented = oriented.copy()
    oriented.index = oriented.index.astype(str)
    return oriented


def _require_unique(labels: pd.Index, what: str) -> None:
    duplicated = labels[labels.duplicated()]
    if len(duplicated):
        raise ValueError(f"duplicate {what}: {list(dict.fromkeys(duplicated))[:5]}")


def geo_link_clinical_genetic_data(clinical_df: pd.DataFrame,
                                   genetic_df: pd.DataFrame) -> pd.DataFrame:
    """Join clinical features and gene expression on sample id.

    Parameters
    ----------
    clinical_df : DataFrame
        Features x samples (rows ``<Trait>``, ``Age``, ``Gender``); samples x
        features is accepted too (detected by which axis holds the samples).
    genetic_df : DataFrame
        Genes x samples.

    Returns
    -------
    DataFrame
        Samples (rows, clinical order) x clinical features then genes; only
        samples present in both tables. No shared sample gives an empty table
        (logged).

    Raises
    ------
    ValueError
        Duplicate sample ids, or a gene named like a clinical feature.
    """
    genes = genetic_df.T.copy()
    genes.index = genes.index.astype(str)
    clinical = _clinical_as_samples_by_features(clinical_df, genes.index)
    _require_unique(genes.index, "sample ids in the gene table")
    _require_unique(clinical.index, "sample ids in the clinical table")
    clashes = clinical.columns.intersection(genes.columns)
    if len(clashes):
        raise ValueError(f"gene table has columns named like clinical features: "
                         f"{list(clashes)}")
    linked = clinical.join(genes, how="inner")
    if linked.empty:
        logger.warning("no sample is in both the clinical (%d) and gene (%d) tables",
                       len(clinical), len(genes))
    linked.index.name = None
    return linked


def _exceeds(missing: np.ndarray, total: int, fraction: float) -> np.ndarray:
    """``missing / total > fraction`` computed exactly (no float rounding)."""
    limit = Fraction(fraction).limit_denominator(10 ** 6)
    return missing * limit.denominator > limit.numerator * total


def _fill_covariates(df: pd.DataFrame) -> pd.DataFrame:
    if AGE in df.columns:
        if df[AGE].notna().any():
            df[AGE] = df[AGE].fillna(df[AGE].mean())
        else:
            logger.warning("Age has no value left: column dropped")
            df = df.drop(columns=AGE)
    if GENDER in df.columns:
        modes = df[GENDER].mode(dropna=True)
        if len(modes):
            df[GENDER] = df[GENDER].fillna(modes.min())
        else:
            logger.warning("Gender has no value left: column dropped")
            df = df.drop(columns=GENDER)
    return df


def _infinities_as_missing(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with ``inf`` / ``-inf`` of its numeric columns replaced by NaN (logged)."""
    numeric = [c for c, dtype in df.dtypes.items() if dtype.kind == "f"]
    if not numeric:
        return df
    infinite = np.isinf(df[numeric].to_numpy(dtype="float64"))
    n_infinite = int(infinite.sum())
    if not n_infinite:
        return df
    logger.warning("%d infinite clinical values read as missing", n_infinite)
    df = df.copy()
    df[numeric] = df[numeric].mask(np.isinf(df[numeric]))
    return df


def handle_missing_values(df: pd.DataFrame, trait_col: str,
                          max_missing: float = MAX_MISSING_FRACTION) -> pd.DataFrame:
    """Drop and fill missing values of a linked table (SPEC 4.6 order).

    Parameters
    ----------
    df : DataFrame
        Linked table (samples x ``[trait, Age?, Gender?, genes...]``).
    trait_col : str
        The trait column.
    max_missing : float, default 0.2
        A gene (sample) is dropped when missing in *more than* this share of
        the samples (genes).

    Returns
    -------
    DataFrame
        A new table without missing values, columns ``[trait, Age?, Gender?,
        genes...]``; it has no gene columns when none survived (a warning is
        logged; the cohort is then not usable). Infinite values (``inf``,
        ``-inf``) count as missing, in every column: a sample with an infinite
        trait is dropped, an infinite gene value or Age is dropped or filled
        like NaN.
    """
    if trait_col not in df.columns:
        raise KeyError(f"trait column {trait_col!r} not in the linked table")
    is_gene = ~df.columns.isin(non_gene_columns(trait_col))
    genes = list(df.columns[is_gene])
    clinical_all = _infinities_as_missing(df.loc[:, list(df.columns[~is_gene])])
    has_trait = clinical_all[trait_col].notna().to_numpy()
    clinical = clinical_all.loc[has_trait]
    # Gene values as one float matrix: wide DataFrame column operations are slow.
    values = df.iloc[:, is_gene].to_numpy(dtype="float64")
    if not has_trait.all():
        values = values[has_trait]
    missing = ~np.isfinite(values)  # NaN, inf and -inf
    n_samples = len(clinical)
    keep = ~_exceeds(missing.sum(axis=0), n_samples, max_missing)
    if not keep.all():
        values, missing = values[:, keep], missing[:, keep]
    kept_genes = [g for g, k in zip(genes, keep) if k]
    if kept_genes:
        rows = ~_exceeds(missing.sum(axis=1), len(kept_genes), max_missing)
        if not rows.all():
            values, missing, clinical = values[rows], missing[rows], clinical.loc[rows]
        counts = len(values) - missing.sum(axis=0)
        any_missing = missing.any()
        if any_missing:  # zeros in their place: the sums are those of np.nansum
            values = np.where(missing, 0.0, values)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = values.sum(axis=0) / counts
        if any_missing:
            values = np.where(missing, means, values)
        # A gene whose only values were in dropped samples has no mean: drop it.
        filled = (counts > 0) | (len(values) == 0)
        if not filled.all():
            values = values[:, filled]
            kept_genes = [g for g, k in zip(kept_genes, filled) if k]
    if not kept_genes:
        logger.warning("no gene column left after missing-value handling "
                       "(%d before): the cohort has no usable gene data", len(genes))
    logger.info("missing values: %d -> %d samples (trait missing: %d), %d -> %d genes",
                len(df), len(clinical), len(df) - n_samples, len(genes), len(kept_genes))
    gene_table = pd.DataFrame(values, index=clinical.index, columns=kept_genes)
    return pd.concat([_fill_covariates(clinical.copy()), gene_table], axis=1)
