"""Writing a cohort's tables and record the way the curator's notebooks do (SPEC 4.6-4.8)."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path
import pandas as pd

from tools.preprocess import (geo_link_clinical_genetic_data, handle_missing_values,
                              judge_and_remove_biased_features, validate_and_save_cohort_info)
from utils.io import atomic_to_csv

#: Significant digits of the written tables (as the demo notebooks).
FLOAT_FORMAT = "%.6g"


@dataclass(frozen=True)
class CohortFiles:
    """Where one cohort's outputs go in the prediction tree (SPEC 2)."""

    trait_dir: Path
    cohort: str

    @property
    def gene(self) -> Path:
        """``<Trait>/gene_data/<cohort>.csv``."""
        return self.trait_dir / "gene_data" / f"{self.cohort}.csv"

    @property
    def clinical(self) -> Path:
        """``<Trait>/clinical_data/<cohort>.csv``."""
        return self.trait_dir / "clinical_data" / f"{self.cohort}.csv"

    @property
    def linked(self) -> Path:
        """``<Trait>/<cohort>.csv``."""
        return self.trait_dir / f"{self.cohort}.csv"

    @property
    def info(self) -> Path:
        """``<Trait>/cohort_info.json``."""
        return self.trait_dir / "cohort_info.json"


@dataclass(frozen=True)
class CohortResult:
    """What the final step decided."""

    is_usable: bool
    is_biased: bool
    samples: int
    diagnostics: str


def save_table(table: pd.DataFrame, path: Path) -> None:
    """Write a table with the tree's number format (atomic)."""
    atomic_to_csv(table, path, float_format=FLOAT_FORMAT)


def record_unavailable(files: CohortFiles, is_gene_available: bool, is_trait_available: bool,
                       note: str) -> None:
    """The record of a cohort that stops early (no gene data or no trait)."""
    validate_and_save_cohort_info(False, files.cohort, files.info, is_gene_available,
                                  is_trait_available, note=note)


def link_and_record(files: CohortFiles, trait: str, clinical: pd.DataFrame,
                    genes: pd.DataFrame, note: str) -> CohortResult:
    """Link, handle missing values, judge bias, write the record and the linked table.

    The bias judges' printed class balance / quartiles are captured (returned
    as ``diagnostics``) rather than printed.
    """
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        linked = geo_link_clinical_genetic_data(clinical, genes)
        linked = handle_missing_values(linked, trait)
        is_biased, linked = judge_and_remove_biased_features(linked, trait)
        is_usable = validate_and_save_cohort_info(True, files.cohort, files.info, True, True,
                                                  is_biased, linked, note=note)
    if is_usable:
        save_table(linked, files.linked)
    return CohortResult(bool(is_usable), bool(is_biased), len(linked), printed.getvalue())


def drop_outputs(files: CohortFiles) -> None:
    """Remove a cohort's tables from an earlier attempt (the record is rewritten later)."""
    for path in (files.gene, files.clinical, files.linked):
        path.unlink(missing_ok=True)
