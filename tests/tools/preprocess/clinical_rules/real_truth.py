"""Hand-made truth for the clinical rules on the real GEO series of ../shared/data.

Read from each file's characteristics and other per-sample lines (reasons in
``why``). Row numbers are characteristics rows (``trait_row_ch1``: the trait
row when only ``!Sample_characteristics_ch1`` is read) and, for the
extension, rows of the re-read table (``prefixes_b = [accession, *extra_rows,
characteristics_ch1]``). Trait values are given per distinct raw value of the
trait line; age truth is the integer in the cell (every age in these files is
a plain integer); gender values per distinct raw value. Paths are relative to
``../shared/data``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

@dataclass(frozen=True)
class RealTruth:
    """Hand-made truth for one real series and one chosen trait.

    Attributes
    ----------
    trait_row_ch1, age_row, gender_row : int or None
        Rows of the characteristics-only table.
    extra_rows : tuple of str
        Tags the trait line needs when it is not a characteristics line
        (the acceptable first choice; ``alt_extra_rows`` lists other lines
        that carry the same information).
    trait_row_ext, age_row_ext, gender_row_ext : int or None
        Rows in the re-read table (``prefixes_b = [acc, *extra_rows, ch1]``).
    trait_values : dict
        Distinct raw value of the trait line -> 1.0 / 0.0 / None.
    gender_values : dict
        Distinct raw value of the gender row -> 0.0 / 1.0.
    source : str
        ``"matrix"`` (series matrix) or ``"soft"`` (truncated family SOFT
        fixture; characteristics rebuilt from the sample blocks).
    """

    gse: str
    trait: str
    why: str
    trait_row_ch1: Optional[int]
    age_row: Optional[int]
    gender_row: Optional[int]
    trait_values: Dict[str, Optional[float]]
    gender_values: Dict[str, float] = field(default_factory=dict)
    extra_rows: Tuple[str, ...] = ()
    alt_extra_rows: Tuple[str, ...] = ()
    trait_row_ext: Optional[int] = None
    age_row_ext: Optional[int] = None
    gender_row_ext: Optional[int] = None
    source: str = "matrix"
    file: str = ""


REAL: Tuple[RealTruth, ...] = (
    RealTruth(
        "GSE55235", "Rheumatoid_Arthritis",
        "RA vs healthy synovium; OA samples are a third group, not RA: 0 (the GenoTEX "
        "curators code another disease in the trait row 0 -- issue 23).",
        trait_row_ch1=0, age_row=None, gender_row=None,
        trait_values={"disease state: healthy control": 0.0,
                      "disease state: osteoarthritis": 0.0,
                      "disease state: synovial tissue isolated from osteoarthritic joint": 0.0,
                      "disease state: rheumatoid arthritis": 1.0},
        trait_row_ext=0),
    RealTruth(
        "GSE55235", "Osteoarthritis",
        "Same series, other trait: OA (both spellings, one of them an adjective in a "
        "tissue phrase) = 1, healthy = 0, RA = 0 (another disease, curators' convention).",
        trait_row_ch1=0, age_row=None, gender_row=None,
        trait_values={"disease state: healthy control": 0.0,
                      "disease state: osteoarthritis": 1.0,
                      "disease state: synovial tissue isolated from osteoarthritic joint": 1.0,
                      "disease state: rheumatoid arthritis": 0.0},
        trait_row_ext=0),
    RealTruth(
        "GSE4107", "Colon_and_Rectal_Cancer",
        "Early-onset CRC patients vs healthy controls (normal-appearing mucosa in "
        "both). No characteristics line holds the group; titles do "
        "(\"2965M patient's mucosa\" vs \"NM14 healthy control\"), source names too "
        "(surgery mucosa vs 'biopsies from healthy individuals'). Gender row 0 "
        "('Gender:M'), age row 1 ('Age: 49'); row 3 is an empty line.",
        trait_row_ch1=None, age_row=1, gender_row=0,
        trait_values={},            # filled per title/source by rule below
        gender_values={"Gender:M": 1.0, "Gender: F": 0.0, "Gender:F": 0.0, "Gender: M": 1.0},
        extra_rows=("!Sample_title",), alt_extra_rows=("!Sample_source_name_ch1",),
        trait_row_ext=0, age_row_ext=2, gender_row_ext=1),
    RealTruth(
        "GSE42589", "Cleft_Lip_and_Palate",
        "Non-syndromic cleft lip/palate vs control dental-pulp stem cells (not a "
        "GenoTEX trait; a realistic name an agent could be given). The value starts "
        "with 'Non-syndromic', which must NOT read as a negation of the trait.",
        trait_row_ch1=0, age_row=None, gender_row=2,
        trait_values={"condition: Non-syndromic cleft lip/palate (NSCL/P)": 1.0,
                      "condition: control": 0.0},
        gender_values={"gender: male": 1.0, "gender: female": 0.0},
        trait_row_ext=0, gender_row_ext=2),
    RealTruth(
        "GSE42872", "Melanoma",
        "A375 melanoma cell line, vehicle vs vemurafenib: every sample is melanoma, "
        "the only 'control' is a treatment control. No trait, age or gender row "
        "(negative case), also not in titles/descriptions.",
        trait_row_ch1=None, age_row=None, gender_row=None, trait_values={}),
    RealTruth(
        "GSE201926", "Endometrioid_Cancer",
        "Endometrioid endometrial carcinoma vs endometrial atypical hyperplasia "
        "(the MANIFEST says 'endometriosis-related', but the series is about "
        "endometrial lesions). Hyperplasia is the non-cancer comparison group -> 0, "
        "as GenoTEX curators code the other arm of a two-arm diagnosis row. "
        "Age row 3; all women, no sex row.",
        trait_row_ch1=1, age_row=3, gender_row=None,
        trait_values={"diagnosis: endometrial endometrioid carcinoma": 1.0,
                      "diagnosis: endometrial atypical hyperplasia": 0.0},
        trait_row_ext=1, age_row_ext=3),
    RealTruth(
        "GSE201926", "Endometriosis",
        "Negative trait check: nothing in the series is endometriosis ('endometrial', "
        "'endometrioid' must not match it). Age row 3 still found.",
        trait_row_ch1=None, age_row=3, gender_row=None, trait_values={},
        age_row_ext=3),
    RealTruth(
        "GSE83521", "Stomach_Cancer",
        "Stage III gastric cancer vs paired normal mucosa. Row 0 'primary gastric "
        "cancer' vs 'gastric mucosa tissue' (normal per titles/design); row 1 is "
        "recurrence ('Recurrence-free' is not a control of gastric cancer).",
        trait_row_ch1=0, age_row=None, gender_row=None,
        trait_values={"tissue: primary gastric cancer": 1.0,
                      "tissue: gastric mucosa tissue": 0.0},
        trait_row_ext=0),
    RealTruth(
        "GSE103227", "Glioblastoma",
        "Glioblastoma vs normal brain; row 0 'tissue: brain' is constant.",
        trait_row_ch1=1, age_row=None, gender_row=None,
        trait_values={"diagnosis: normal": 0.0, "diagnosis: glioblastoma": 1.0},
        trait_row_ext=1),
    RealTruth(
        "GSE19420", "Type_2_Diabetes",
        "Truncated family SOFT fixture (42 samples): group NGT (normal glucose "
        "tolerance) = 0, IGT (pre-diabetes) = 0 (a precursor beside the disease: the "
        "curators' convention, issue 23), T2DM T0 / T52 = 1; age row 1; "
        "row 2 is BMI (numeric, not the trait).",
        trait_row_ch1=0, age_row=1, gender_row=None,
        trait_values={"group: NGT": 0.0, "group: IGT": 0.0, "group: T2DM T0": 1.0,
                      "group: T2DM T52": 1.0},
        trait_row_ext=0, age_row_ext=1, source="soft",
        file="geo/truncated_fixtures/GSE19420_family.soft.gz"),
    RealTruth(
        "GSE6344", "Kidney_Clear_Cell_Carcinoma",
        "Truncated family SOFT fixture: old free-text characteristics without a key "
        "('Tumor, PT#9, STG2' / 'Normal, PT#9, STG2'); clear-cell RCC vs normal.",
        trait_row_ch1=0, age_row=None, gender_row=None,
        trait_values={},            # 'Tumor...' -> 1, 'Normal...' -> 0 (rule below)
        trait_row_ext=0, source="soft",
        file="geo/truncated_fixtures/GSE6344_family.soft.gz"),
)


def real_trait_truth(truth: RealTruth, raw: Optional[str]) -> Optional[float]:
    """Expected trait value of one raw cell of the trait line."""
    if raw is None:
        return None
    if truth.gse == "GSE4107":
        text = raw.lower()
        if "healthy" in text:
            return 0.0
        if "patient" in text or "surgery" in text or "sugery" in text:
            return 1.0
        return None
    if truth.gse == "GSE6344":
        return 1.0 if raw.startswith("Tumor") else 0.0 if raw.startswith("Normal") else None
    return truth.trait_values.get(raw)
