"""A reference preprocess tree from the planted truth (``generate(..., reference_dir=...)``).

For each cohort the generator knows what a perfect curator would extract, so it
can write the reference tables ``eval.py`` compares predictions with (SPEC 2):

* ``<Trait>/gene_data/<cohort>.csv``: the gene-level log2 expression the files
  were rendered from (official symbols x samples; for TCGA the HiSeqV2 values);
* ``<Trait>/clinical_data/<cohort>.csv``: the trait, Age and Gender as the files
  record them (rows the cohort has; unrecorded values missing);
* ``<Trait>/<cohort>.csv`` and ``<Trait>/cohort_info.json``: linked, missing
  values handled and bias judged by the library's own steps (SPEC 4.6-4.8),
  exactly as the curators' notebooks do.

A cohort whose files carry no trait gets a "trait not available" record only.
The reference's ``regress/`` is not written here: run the statistics
(``regress.py``) on this tree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from genotex.synthetic.model import CohortData
from tools.preprocess.bias import judge_and_remove_biased_features
from tools.preprocess.cohort_info import validate_and_save_cohort_info
from tools.preprocess.linking import geo_link_clinical_genetic_data, handle_missing_values
from utils.columns import AGE, GENDER
from utils.io import atomic_to_csv

#: Significant digits of the reference tables (as the demo's).
FLOAT_FORMAT = "%.6g"
NOTE = "synthetic truth: the planted values as recorded in the files"


def clinical_table(trait: str, data: CohortData, samples: Sequence[str], has_age: bool,
                   has_gender: bool) -> pd.DataFrame:
    """Trait, Age and Gender rows (those the cohort records) x samples."""
    rows = {trait: np.where(data.trait_observed, data.trait, np.nan)}
    if has_age:
        rows[AGE] = np.where(data.age_observed, data.age, np.nan)
    if has_gender:
        rows[GENDER] = np.where(data.gender_observed, data.male, np.nan).astype(float)
    return pd.DataFrame(np.vstack(list(rows.values())).astype(float), index=list(rows),
                        columns=list(samples))


def write_reference_cohort(root: Path, trait: str, cohort: str, genes: Sequence[str],
                           values: np.ndarray, samples: Sequence[str], data: CohortData,
                           has_trait: bool, has_age: bool, has_gender: bool) -> bool:
    """Write one cohort's reference tables and record; returns whether it is usable.

    Parameters
    ----------
    root : Path
        The reference tree's ``preprocess`` folder.
    trait, cohort : str
        Trait folder and cohort id (GSE accession or ``Xena``).
    genes, values, samples : sequence, ndarray, sequence
        The gene table: official symbols x sample ids (NaN: missing).
    data : CohortData
        The cohort's simulated clinical values.
    has_trait, has_age, has_gender : bool
        What the cohort's files record at all.
    """
    trait_dir = root / trait
    info = trait_dir / "cohort_info.json"
    gene_table = pd.DataFrame(values, index=list(genes), columns=list(samples))
    atomic_to_csv(gene_table, trait_dir / "gene_data" / f"{cohort}.csv",
                  float_format=FLOAT_FORMAT)
    recorded = np.where(data.trait_observed, data.trait, np.nan)
    if not has_trait or not np.isfinite(recorded).any():
        validate_and_save_cohort_info(False, cohort, info, True, False, note=NOTE)
        return False
    clinical = clinical_table(trait, data, samples, has_age, has_gender)
    atomic_to_csv(clinical, trait_dir / "clinical_data" / f"{cohort}.csv",
                  float_format=FLOAT_FORMAT)
    linked = geo_link_clinical_genetic_data(clinical, gene_table)
    linked = handle_missing_values(linked, trait)
    is_biased, linked = judge_and_remove_biased_features(linked, trait, verbose=False)
    usable = validate_and_save_cohort_info(True, cohort, info, True, True, is_biased, linked,
                                           note=NOTE)
    if usable:
        atomic_to_csv(linked, trait_dir / f"{cohort}.csv", float_format=FLOAT_FORMAT)
    return bool(usable)
