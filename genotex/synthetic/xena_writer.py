"""Render UCSC Xena TCGA files of a synthetic cohort.

* ``TCGA.<CODE>.sampleMap_<CODE>_clinicalMatrix``: tab-separated, one row per
  sample, first column ``sampleID``, the other columns in Xena's ASCII order
  (``OS`` ... ``_PATIENT`` ... ``age_at_initial_pathologic_diagnosis`` ...),
  empty cells for missing values, plain text (Xena ships it uncompressed).
* ``TCGA.<CODE>.sampleMap_HiSeqV2.gz``: genes x samples, first header cell
  ``sample``, values log2(normalized count + 1) with 4 decimals.
* ``TCGA.<CODE>.sampleMap_HiSeqV2_PANCAN.gz``: the same genes, values centred
  per gene (pan-cancer normalization).
"""

from __future__ import annotations

from typing import Dict, List, Sequence

import numpy as np

from genotex.synthetic.files import table_lines, tsv_lines
from genotex.synthetic.ids import TcgaSample


def clinical_file_name(code: str) -> str:
    """``TCGA.<CODE>.sampleMap_<CODE>_clinicalMatrix``."""
    return f"TCGA.{code}.sampleMap_{code}_clinicalMatrix"


def expression_file_name(code: str, pancan: bool) -> str:
    """``TCGA.<CODE>.sampleMap_HiSeqV2[_PANCAN].gz``."""
    return f"TCGA.{code}.sampleMap_HiSeqV2{'_PANCAN' if pancan else ''}.gz"


def render_clinical(samples: Sequence[TcgaSample], age: Sequence[float],
                    age_observed: Sequence[bool], male: Sequence[int],
                    gender_observed: Sequence[bool], code: str, disease: str, site: str,
                    cohort_name: str, has_age: bool, has_gender: bool,
                    rng: np.random.Generator) -> str:
    """Text of a Xena clinicalMatrix."""
    records: List[Dict[str, str]] = []
    for k, sample in enumerate(samples):
        tumour = sample.type_code < "10"
        years = int(age[k])
        alive = rng.random() < 0.8
        follow = int(rng.integers(30, 4000))
        record = {
            "sampleID": sample.barcode,
            "OS": "0" if alive else "1",
            "OS.time": str(follow),
            "_INTEGRATION": sample.barcode,
            "_PATIENT": sample.patient,
            "_cohort": cohort_name,
            "_primary_disease": disease,
            "_primary_site": site,
            "bcr_patient_barcode": sample.patient,
            "bcr_sample_barcode": sample.sample_barcode,
            "days_to_last_followup": str(follow) if alive else "",
            "days_to_death": "" if alive else str(follow),
            "pathologic_stage": (["Stage I", "Stage II", "Stage III", "Stage IV"]
                                 [int(rng.integers(0, 4))] if tumour else ""),
            "sample_type": sample.sample_type,
            "sample_type_id": str(int(sample.type_code)),
            "tissue_source_site": sample.tss,
            "vital_status": "LIVING" if alive else "DECEASED",
        }
        if has_age:
            seen = bool(age_observed[k])
            record["age_at_initial_pathologic_diagnosis"] = str(years) if seen else ""
            record["days_to_birth"] = (str(-int(years * 365.25 + rng.integers(0, 365)))
                                       if seen else "")
        if has_gender:
            record["gender"] = ("MALE" if male[k] else "FEMALE") if gender_observed[k] else ""
        records.append(record)
    columns = ["sampleID"] + sorted({c for r in records for c in r} - {"sampleID"})
    rows = [columns] + [[r.get(c, "") for c in columns] for r in records]
    return tsv_lines(rows)


def render_expression(genes: Sequence[str], barcodes: Sequence[str], values: np.ndarray,
                      missing: str = "") -> bytes:
    """A Xena genes x samples matrix (first header cell ``sample``), UTF-8."""
    header = "\t".join(["sample", *barcodes]) + "\n"
    return header.encode() + table_lines(list(genes), values, 4, missing)


def hiseq_values(expression: np.ndarray) -> np.ndarray:
    """log2(count+1)-like values: non-negative (low expression floors at 0)."""
    return np.where(np.isnan(expression), np.nan, np.clip(expression, 0.0, None))


def pancan_values(expression: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per-gene centred values plus a small pan-cancer offset per gene."""
    centred = expression - np.nanmean(expression, axis=1, keepdims=True)
    return centred + rng.normal(0.0, 0.3, (expression.shape[0], 1))
