"""Identifiers of synthetic samples: GEO GSM accessions and TCGA barcodes.

Synthetic accessions use a number range far above today's GEO accessions
(``GSE91xxxxx``-style series in the demo, 7-digit GSMs derived from the series
number) so they are format-valid but never collide with a real record.

TCGA sample barcodes follow the Xena convention ``TCGA-TSS-PPPP-TT`` (15
characters: tissue-source site, participant, sample type code); the
clinicalMatrix's ``bcr_sample_barcode`` adds the vial letter (``-01A``).
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import List, Sequence

import numpy as np

GSM_BASE = 9_000_000
GSM_PER_SERIES = 1000

TUMOUR_CODES = ("01",) * 18 + ("02", "06")  # 90% primary, some recurrent / metastatic
NORMAL_CODES = ("11",) * 6 + ("10",)  # mostly solid tissue normal
OTHER_CODES = ("20", "50")
SAMPLE_TYPE_NAMES = {
    "01": "Primary Tumor", "02": "Recurrent Tumor", "06": "Metastatic",
    "10": "Blood Derived Normal", "11": "Solid Tissue Normal",
    "20": "Control Analyte", "50": "Cell Lines",
}

_TSS_CHARS = string.digits + string.ascii_uppercase


def gsm_ids(gse_number: int, count: int, start: int | None = None) -> List[str]:
    """Consecutive GSM accessions of one series.

    By default the block starts at ``9,000,000 + (gse % 10,000) * 1,000 + 1``,
    so two series of a plan get disjoint blocks when their numbers differ in
    the last four digits (checked by the generator).
    """
    first = start if start is not None else (
        GSM_BASE + (gse_number % 10_000) * GSM_PER_SERIES + 1)
    return [f"GSM{first + k}" for k in range(count)]


@dataclass(frozen=True)
class TcgaSample:
    """One Xena sample: barcode parts and the trait label it implies."""

    tss: str
    participant: str
    type_code: str
    vial: str = "A"

    @property
    def barcode(self) -> str:
        """15-character Xena sample id ``TCGA-TSS-PPPP-TT``."""
        return f"TCGA-{self.tss}-{self.participant}-{self.type_code}"

    @property
    def patient(self) -> str:
        """``TCGA-TSS-PPPP``."""
        return f"TCGA-{self.tss}-{self.participant}"

    @property
    def sample_barcode(self) -> str:
        """16-character barcode with the vial letter (``bcr_sample_barcode``)."""
        return self.barcode + self.vial

    @property
    def sample_type(self) -> str:
        """Xena ``sample_type`` text."""
        return SAMPLE_TYPE_NAMES[self.type_code]


def _tss_codes(rng: np.random.Generator, count: int) -> List[str]:
    codes: set = set()
    while len(codes) < count:
        first = _TSS_CHARS[rng.integers(0, 36)] if rng.random() < 0.5 else \
            str(rng.integers(0, 10))
        codes.add(first + _TSS_CHARS[rng.integers(0, 36)])
    return sorted(codes)


def _participants(rng: np.random.Generator, count: int) -> List[str]:
    seen: set = set()
    out = []
    while len(out) < count:
        if rng.random() < 0.6:
            code = f"{rng.integers(1000, 10000)}"
        else:
            code = "A" + "".join(_TSS_CHARS[rng.integers(0, 36)] for _ in range(3))
        if code not in seen:
            seen.add(code)
            out.append(code)
    return out


def tcga_samples(labels: Sequence[float], rng: np.random.Generator,
                 age: Sequence[float], male: Sequence[int],
                 paired_share: float = 0.8) -> List[TcgaSample]:
    """Barcodes for samples with trait labels 1 (tumour), 0 (normal), NaN (other).

    Tumour codes are mostly 01 (some 02/06), normal mostly 11 (some 10), other
    samples 20 or 50. As in TCGA, a normal sample often comes from a patient
    who also gave a tumour sample: with probability ``paired_share`` a normal
    sample takes the participant of a tumour sample with the same age and
    gender (so the patient's clinical record stays consistent).

    Returns
    -------
    list of TcgaSample
        In the order of ``labels``.
    """
    labels = np.asarray(labels, dtype=float)
    n = labels.size
    tss_pool = _tss_codes(rng, max(4, n // 25))
    participants = _participants(rng, n)
    result: List[TcgaSample] = []
    for k, label in enumerate(labels):
        tss = tss_pool[rng.integers(0, len(tss_pool))]
        if label == 1:
            code = TUMOUR_CODES[rng.integers(0, len(TUMOUR_CODES))]
        elif label == 0:
            code = NORMAL_CODES[rng.integers(0, len(NORMAL_CODES))]
        else:
            code = OTHER_CODES[rng.integers(0, len(OTHER_CODES))]
        result.append(TcgaSample(tss, participants[k], code))
    free = {}
    for k in np.flatnonzero(labels == 1):
        free.setdefault((int(male[k]), int(age[k])), []).append(int(k))
    for k in np.flatnonzero(labels == 0):
        partners = free.get((int(male[k]), int(age[k])))
        if partners and rng.random() < paired_share:
            tumour = result[partners.pop()]
            result[k] = TcgaSample(tumour.tss, tumour.participant, result[k].type_code)
    return result
