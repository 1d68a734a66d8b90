"""``cohort_info.json`` records (SPEC 4.8).

``output/preprocess/<Trait>/cohort_info.json`` maps each cohort id to a record
(:class:`utils.schemas.cohort_info.CohortRecord`) with the keys, in this order:
``is_usable``, ``is_gene_available``, ``is_trait_available``, ``is_available``,
``is_biased``, ``has_age``, ``has_gender``, ``sample_size``, ``note``.

* Early stop (no gene data or no trait): the availability flags it has,
  ``is_usable`` / ``is_available`` false, ``null`` for ``is_biased``,
  ``has_age``, ``has_gender`` and ``sample_size``; ``note`` keeps the given
  text.
* Final record: ``is_available`` = gene and trait available; ``is_usable`` =
  available and not biased; a linked table with no rows or no gene column
  forces ``is_gene_available`` false (with a note saying so). A table with no
  rows is recorded as not available, not as biased: nothing could be judged,
  so ``is_biased``, ``has_age`` and ``has_gender`` are ``null`` and
  ``sample_size`` is 0, whatever bias flag the caller passed.

Writes are a read-modify-write cycle under an inter-process lock, ending with an
atomic replace, so concurrent notebook runs never lose a record and a reader
never sees a half-written file. The lock file lives outside the tree
(:func:`utils.io.locked`) and the atomic writer clears temporary files that a
killed writer left, so the folder holds only the files of SPEC section 2.
Records are written sorted by cohort id, so the file does not depend on which
run finished first. An existing file that is not a valid JSON object, or that
holds a record that is not a valid record, is never overwritten: the write
fails naming the file (and the cohort).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

import pandas as pd

from utils.columns import AGE, GENDER, gene_columns
from utils.errors import InputFileError
from utils.io import PathLike, atomic_write_json, locked
from utils.schemas.base import FormatError
from utils.schemas.cohort_info import RECORD_KEYS, CohortRecord, cohort_info_document
from utils.selection import load_cohort_info

logger = logging.getLogger(__name__)

__all__ = ["RECORD_KEYS", "early_stop_record", "final_record", "save_cohort_record",
           "validate_and_save_cohort_info"]


def _trait_column(df: pd.DataFrame, info_path: PathLike) -> Optional[str]:
    """The trait column: named like the trait folder, else the first column."""
    folder_name = Path(info_path).parent.name
    if folder_name in df.columns:
        return folder_name
    return df.columns[0] if len(df.columns) else None


def early_stop_record(is_gene_available: bool, is_trait_available: bool,
                      note: str = "") -> CohortRecord:
    """Record of a cohort that stopped before linking (a flag is false)."""
    return CohortRecord(is_usable=False, is_gene_available=bool(is_gene_available),
                        is_trait_available=bool(is_trait_available), is_available=False,
                        is_biased=None, has_age=None, has_gender=None, sample_size=None,
                        note=str(note or ""))


def final_record(is_gene_available: bool, is_trait_available: bool, is_biased: bool,
                 df: pd.DataFrame, trait: Optional[str], note: str = "") -> CohortRecord:
    """Record of a cohort whose final linked table is ``df``."""
    notes = [str(note)] if note else []
    if len(df) == 0:
        notes.append("final linked table has no rows")
        record = early_stop_record(False, is_trait_available, "; ".join(notes))
        return record.model_copy(update={"sample_size": 0})
    gene_ok = bool(is_gene_available)
    if not gene_columns(df.columns, trait):
        gene_ok = False
        notes.append("final linked table has no gene columns")
    trait_ok = bool(is_trait_available)
    if trait_ok and trait is not None and not df[trait].notna().any():
        trait_ok = False
        notes.append(f"final linked table has no {trait} value")
    is_available = gene_ok and trait_ok
    return CohortRecord(is_usable=is_available and not bool(is_biased),
                        is_gene_available=gene_ok,
                        is_trait_available=trait_ok,
                        is_available=is_available, is_biased=bool(is_biased),
                        has_age=AGE in df.columns, has_gender=GENDER in df.columns,
                        sample_size=int(len(df)), note="; ".join(notes))


def save_cohort_record(info_path: PathLike, cohort: str, record: CohortRecord) -> None:
    """Insert or replace one record of a ``cohort_info.json``, safely.

    Parameters
    ----------
    info_path : path-like
        The JSON file (created with its folder when missing).
    cohort : str
    record : CohortRecord

    Raises
    ------
    utils.errors.InputFileError
        When the existing file is not a valid JSON object, or one of its records
        is not a valid record (the file is left untouched).
    """
    path = Path(info_path)
    with locked(path):
        records = load_cohort_info(path) if path.exists() else {}
        records[str(cohort)] = record
        try:
            document = cohort_info_document(records)
        except FormatError as exc:
            raise InputFileError(path, exc.problem) from None
        atomic_write_json(path, document)
    logger.info("%s: recorded %s (usable: %s)", path, cohort, record.is_usable)


def validate_and_save_cohort_info(is_final: bool, cohort: str, info_path: PathLike,
                                  is_gene_available: bool, is_trait_available: bool,
                                  is_biased: Optional[bool] = None,
                                  df: Optional[pd.DataFrame] = None,
                                  note: str = "") -> bool:
    """Validate a cohort and record the outcome in ``cohort_info.json``.

    Parameters
    ----------
    is_final : bool
        False for the early check after reading the inputs, True once the
        linked table is final.
    cohort : str
        Cohort id (GSE accession, or ``Xena``).
    info_path : path-like
        ``output/preprocess/<Trait>/cohort_info.json``.
    is_gene_available, is_trait_available : bool
    is_biased : bool, optional
        Required when ``is_final``.
    df : DataFrame, optional
        The final linked table; required when ``is_final``.
    note : str
        Free text stored in the record.

    Returns
    -------
    bool
        Early check: always False (nothing is known about usability yet); a
        failure record is written only when a flag is false. Final call:
        ``is_usable``.
    """
    if not is_final:
        if is_gene_available and is_trait_available:
            return False
        save_cohort_record(info_path, cohort,
                           early_stop_record(is_gene_available, is_trait_available, note))
        return False
    if df is None or is_biased is None:
        raise ValueError("the final validate_and_save_cohort_info call needs df (the "
                         "linked table) and is_biased")
    record = final_record(is_gene_available, is_trait_available, is_biased, df,
                          _trait_column(df, info_path), note)
    save_cohort_record(info_path, cohort, record)
    return record.is_usable
