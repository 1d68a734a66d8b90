"""The curator's decisions for each demo cohort.

Each record holds what a bioinformatician decides after reading a cohort's
files -- which characteristics row holds the trait, Age and Gender, how to
convert them, whether the expression values need a log transform, which
annotation columns map probes to genes -- together with the short prose that
justifies each decision in the notebook. :mod:`genotex.demo.notebooks` turns a
record into ``code/<Trait>/<cohort>.ipynb``.

The decisions were taken by reading the printed outputs of each notebook (the
background text, the characteristics dictionary, value ranges and mapping
suggestions), not from the synthetic truth; ``tests/test_demo.py`` checks the
resulting tables against the truth.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional, Tuple

#: Expression scales a notebook may find (``counts`` implies a count table).
SCALES = ("log2", "linear", "counts")


@dataclass(frozen=True)
class GeoDecisions:
    """Decisions for one GEO series.

    Attributes
    ----------
    trait, cohort : str
        Trait folder name and GSE accession.
    title : str
        Notebook heading.
    intro : str
        Markdown: what the series is and what to watch for.
    availability : str
        Markdown: why the rows below were chosen (or why the trait is absent).
    trait_row, age_row, gender_row : int or None
        Rows of the characteristics table (``None``: not recorded).
    trait_converter : str
        Python source defining ``convert_trait`` (empty when no trait).
    extra_rows : tuple of str
        Other ``!Sample_*`` lines to read with the characteristics (when the
        trait lives in titles or source names); they come first, in file order.
    platform : str or None
        The platform to use in a multi-platform series.
    scale : str
        ``log2`` (keep), ``linear`` (log2-transform) or ``counts`` (RNA-seq
        count table, log2 counts per million).
    scale_text : str
        Markdown: what the value range shows and what is done about it.
    probe_col, gene_col : str
        Annotation columns (arrays only).
    mapping_text : str
        Markdown: the choice of annotation columns.
    clinical_text, outcome_text : str
        Markdown before the clinical step and before the final linking step.
    note : str
        The ``note`` of the cohort's ``cohort_info.json`` record.
    """

    trait: str
    cohort: str
    title: str
    intro: str
    availability: str
    trait_row: Optional[int]
    age_row: Optional[int]
    gender_row: Optional[int]
    trait_converter: str
    note: str
    scale: str = "log2"
    scale_text: str = ""
    probe_col: str = "ID"
    gene_col: str = "Gene Symbol"
    mapping_text: str = ""
    extra_rows: Tuple[str, ...] = ()
    platform: Optional[str] = None
    clinical_text: str = ""
    outcome_text: str = ""

    @property
    def is_trait_available(self) -> bool:
        """Whether the series records the trait per sample."""
        return self.trait_row is not None


@dataclass(frozen=True)
class XenaDecisions:
    """Decisions for one UCSC Xena TCGA cohort (cohort id ``Xena``).

    Attributes
    ----------
    trait, folder : str
        Trait folder name and the Xena folder below ``input/TCGA``.
    title, intro, clinical_text, outcome_text : str
        Notebook heading and markdown.
    age_col, gender_col : str or None
        clinicalMatrix columns for Age and Gender.
    note : str
        The ``note`` of the cohort's record.
    """

    trait: str
    folder: str
    title: str
    intro: str
    clinical_text: str
    age_col: Optional[str]
    gender_col: Optional[str]
    note: str
    outcome_text: str = ""
    cohort: str = "Xena"


def literal(value: Any) -> str:
    """Python source of a str / list literal, double-quoted."""
    return json.dumps(value, ensure_ascii=False)


def keyword_converter(cases: Tuple[str, ...], controls: Tuple[str, ...]) -> str:
    """Source of a ``convert_trait`` built from keywords (tools.preprocess.clinical)."""
    return (f"convert_trait = binary_trait_converter(case_keywords={literal(list(cases))},\n"
            f"                                       control_keywords="
            f"{literal(list(controls))})")


HEART_RATE_CONVERTER = '''def convert_trait(cell):
    """Resting heart rate in bpm: the number after the colon (None when absent)."""
    match = re.search(r"\\d+(?:\\.\\d+)?", value_after_colon(cell) or "")
    return float(match.group()) if match else None'''

_LOG2_KEEP = ("Values run from about 1 to 15 with a median near 7.4: the series is already "
              "on a log2 scale, so the values are used as they are.")
_LINEAR = ("Values run from about 1 to more than 20,000 with a median below 200: these are "
           "linear (MAS5-like) intensities. Expression effects are multiplicative, so I "
           "log2-transform them before mapping (floor at 1, so no value becomes "
           "negative infinity).")
_COUNTS = ("The series matrix has no expression table (RNA-seq series keep their data in "
           "supplementary files); GEO's NCBI-generated count table (`*_raw_counts_*.tsv.gz`, "
           "one row per NCBI GeneID) is the expression source. Raw counts depend on "
           "library size and are heavily skewed, so I convert them to log2 counts per "
           "million: `log2(count / library size * 1e6 + 1)`.")
_AFFY_MAPPING = ("`ID` matches the expression table and `Gene Symbol` holds the symbols "
                 "(Affymetrix style, several genes separated by ` /// `), as suggested. A "
                 "probe annotated with several genes counts for each of them; control "
                 "probes (`AFFX-...`) have no symbol and drop out.")
_ILLUMINA_MAPPING = ("`ID` matches the expression table. `Symbol` and `ILMN_Gene` score the "
                     "same; `Symbol` is the curated symbol column of Illumina annotations, "
                     "so I take it, as suggested.")
_AGILENT_MAPPING = ("`ID` matches the expression table and `GENE_SYMBOL` holds the symbols "
                    "(`GENE` is the Entrez GeneID); control spots (`(+)E1A...`, "
                    "`DarkCorner`) have no symbol and drop out.")

GEO_COHORTS: Tuple[GeoDecisions, ...] = (
    GeoDecisions(
        trait="Sjögrens_Syndrome", cohort="GSE9100101",
        title="Sjögren's syndrome: minor salivary gland biopsies (GSE9100101)",
        intro="Patients and controls profiled on an Affymetrix-style array (GPL91001). "
              "Sjögren's syndrome affects mostly women, so expect a sex-unbalanced cohort.",
        availability="Row 2 records the diagnosis (`group: Sjögren's syndrome` vs "
                     "`group: control`), row 1 the age in years and row 3 the sex (`F`/`M`). "
                     "Row 4 is an empty characteristics line (every cell blank): it carries "
                     "nothing and is ignored. Spacing and case vary between samples "
                     "(`group:control`, `Sex: F`); the converters ignore both.",
        trait_row=2, age_row=1, gender_row=3,
        trait_converter=keyword_converter(("Sjögren's syndrome",), ("control",)),
        scale_text=_LOG2_KEEP, mapping_text=_AFFY_MAPPING,
        outcome_text="The cohort is mostly female, but both sexes are present in sufficient "
                     "numbers, so Gender stays as a covariate.",
        note="Empty characteristics line ignored; mostly female cohort."),
    GeoDecisions(
        trait="Sjögrens_Syndrome", cohort="GSE9100102",
        title="Sjögren's syndrome: treatment time course (GSE9100102)",
        intro="An Illumina-style array series (GPL91002) following patients over a "
              "treatment.",
        availability="The design says every sample comes from a Sjögren's syndrome patient, "
                     "profiled at baseline and after 12 weeks; row 3 is the time point. "
                     "There is no control group and no per-sample trait value, so the trait "
                     "is **not available**: the series cannot answer a case/control question. "
                     "The record is written now with `is_trait_available = False`. The gene "
                     "table is still extracted and saved below, for completeness.",
        trait_row=None, age_row=None, gender_row=None, trait_converter="",
        scale_text=_LOG2_KEEP, probe_col="ID", gene_col="Symbol",
        mapping_text=_ILLUMINA_MAPPING,
        note="No trait: every sample is a patient (baseline / week 12 time course)."),
    GeoDecisions(
        trait="Psoriatic_Arthritis", cohort="GSE9100201",
        title="Psoriatic arthritis: peripheral blood mononuclear cells (GSE9100201)",
        intro="Patients and healthy controls on an Illumina-style array (GPL91002). The "
              "expression table writes some missing cells as `null`.",
        availability="Row 2 holds the phenotype (`psoriatic arthritis` vs `healthy control`), "
                     "row 3 the age (`age (yrs): 68`) and row 1 the sex.",
        trait_row=2, age_row=3, gender_row=1,
        trait_converter=keyword_converter(("psoriatic arthritis",), ("healthy control",)),
        scale_text=_LOG2_KEEP + " The `null` cells were read as missing values (counted "
                                "above); they are handled after linking.",
        probe_col="ID", gene_col="Symbol", mapping_text=_ILLUMINA_MAPPING,
        outcome_text="The missing-value rules drop the genes and samples missing in more "
                     "than 20% of the cells and fill the remaining gaps with gene means.",
        note="Missing cells written as null; genes and samples with >20% missing dropped."),
    GeoDecisions(
        trait="Psoriatic_Arthritis", cohort="GSE9100202",
        title="Psoriatic arthritis: a patient-heavy series (GSE9100202)",
        intro="Peripheral blood mononuclear cells on an Affymetrix-style array (GPL91001).",
        availability="Row 1 is the disease state (`psoriatic arthritis` vs "
                     "`healthy control`), row 2 the sex and row 3 the age.",
        trait_row=1, age_row=3, gender_row=2,
        trait_converter=keyword_converter(("psoriatic arthritis",), ("healthy control",)),
        clinical_text="The trait counts below show almost only patients: watch the bias "
                      "check at the end.",
        scale_text=_LOG2_KEEP, mapping_text=_AFFY_MAPPING,
        outcome_text="With 3 controls among 46 samples the minority class is under 10% and "
                     "under 5 samples: the trait is **biased** (SPEC 4.7), the cohort is not "
                     "usable and its linked table is not saved.",
        note="Only 3 controls: trait biased."),
    GeoDecisions(
        trait="Ankylosing_Spondylitis", cohort="GSE9100301",
        title="Ankylosing spondylitis: whole blood, Agilent-style array (GSE9100301)",
        intro="Patients and controls on an Agilent-style array (GPL91003) whose values look "
              "unlogged.",
        availability="No characteristics line names the disease, but the source names do "
                     "(`whole blood, ankylosing spondylitis patient` vs `whole blood, "
                     "healthy control`). I re-read the sample table with "
                     "`!Sample_source_name_ch1` included: it becomes row 0 and the "
                     "characteristics follow (row 2 sex, row 3 age as `age: 68y`).",
        extra_rows=("!Sample_source_name_ch1",),
        trait_row=0, age_row=3, gender_row=2,
        trait_converter=keyword_converter(("ankylosing spondylitis",), ("healthy control",)),
        scale="linear", scale_text=_LINEAR,
        probe_col="ID", gene_col="GENE_SYMBOL", mapping_text=_AGILENT_MAPPING,
        note="Trait from the source names; linear intensities log2-transformed."),
    GeoDecisions(
        trait="Ankylosing_Spondylitis", cohort="GSE9100302",
        title="Ankylosing spondylitis: whole blood, sample titles (GSE9100302)",
        intro="Whole blood on an Affymetrix-style array (GPL91001); the characteristics "
              "are sparse.",
        availability="The characteristics give only tissue and sex. The sample titles encode "
                     "the group (`AS_patient_001` vs `control_005`), so I re-read the table "
                     "with `!Sample_title` included: it becomes row 0 (row 2 is the sex). "
                     "`AS` (ankylosing spondylitis) is matched as a whole word, `_` counting "
                     "as a space. Age is not recorded.",
        extra_rows=("!Sample_title",),
        trait_row=0, age_row=None, gender_row=2,
        trait_converter=keyword_converter(("AS patient",), ("control",)),
        scale_text=_LOG2_KEEP, mapping_text=_AFFY_MAPPING,
        note="Trait from the sample titles; no age recorded."),
    GeoDecisions(
        trait="Rheumatoid_Arthritis", cohort="GSE9100401",
        title="Rheumatoid arthritis: synovial tissue, a two-platform series (GSE9100401)",
        intro="The series spans two platforms: one matrix file per platform "
              "(`GSE9100401-GPL91001_...` and `GSE9100401-GPL91009_...`).",
        availability="The listing shows that GPL91009 is not a human platform (its 12 "
                     "samples are *Mus musculus*, a different experiment); the human samples "
                     "are all on GPL91001, the matrix `geo_get_relevant_filepaths` picked, so "
                     "only that matrix and that platform's annotation table are used. "
                     "Row 2 is the group (`rheumatoid arthritis` vs `control`), row 3 the "
                     "age and row 1 the sex.",
        platform="GPL91001",
        trait_row=2, age_row=3, gender_row=1,
        trait_converter=keyword_converter(("rheumatoid arthritis",), ("control",)),
        scale_text=_LOG2_KEEP,
        mapping_text=_AFFY_MAPPING + " The SOFT file holds both platforms' tables; the "
                                     "GPL91001 table is taken by name.",
        note="Multi-platform series: human platform GPL91001 only (mouse GPL91009 left out)."),
    GeoDecisions(
        trait="Rheumatoid_Arthritis", cohort="GSE9100402",
        title="Rheumatoid arthritis: synovial tissue, MAS5 intensities (GSE9100402)",
        intro="A larger Affymetrix-style series (GPL91001) with unlogged values and a few "
              "unrecorded annotations.",
        availability="Row 1 is the subject status (`patient with rheumatoid arthritis` vs "
                     "`healthy control`; `unknown` for two samples, which become missing "
                     "and are dropped), row 2 the age in years (blank for a few samples: "
                     "filled with the mean later) and row 3 the sex.",
        trait_row=1, age_row=2, gender_row=3,
        trait_converter=keyword_converter(("rheumatoid arthritis",), ("healthy control",)),
        scale="linear", scale_text=_LINEAR,
        mapping_text=_AFFY_MAPPING,
        note="Linear intensities log2-transformed; 2 samples of unknown status dropped."),
    GeoDecisions(
        trait="Heart_rate", cohort="GSE9100501",
        title="Resting heart rate: whole blood (GSE9100501)",
        intro="A continuous trait: resting heart rate in beats per minute, Illumina-style "
              "array (GPL91002).",
        availability="Row 1 holds the heart rate (`resting heart rate (bpm): 74`), row 2 the "
                     "age (`age (yrs): 47`) and row 3 the sex. The trait is continuous, so "
                     "the converter extracts the number.",
        trait_row=1, age_row=2, gender_row=3, trait_converter=HEART_RATE_CONVERTER,
        scale_text=_LOG2_KEEP, probe_col="ID", gene_col="Symbol",
        mapping_text=_ILLUMINA_MAPPING,
        note="Continuous trait (bpm)."),
    GeoDecisions(
        trait="Heart_rate", cohort="GSE9100502",
        title="Resting heart rate: whole blood RNA-seq (GSE9100502)",
        intro="An RNA-seq series (GPL91004): expect an empty series-matrix table and a "
              "count table among the supplementary files.",
        availability="Row 2 holds the heart rate (`resting heart rate: 77 bpm`), row 1 the "
                     "age and row 3 the sex. The converter takes the number and ignores the "
                     "unit.",
        trait_row=2, age_row=1, gender_row=3, trait_converter=HEART_RATE_CONVERTER,
        scale="counts", scale_text=_COUNTS,
        note="RNA-seq: NCBI GeneID count table, log2 CPM."),
    GeoDecisions(
        trait="Hypertension", cohort="GSE9100601",
        title="Essential hypertension: whole blood (GSE9100601)",
        intro="An older cohort on an Affymetrix-style array (GPL91001).",
        availability="Row 2 is the diagnosis (`essential hypertension` vs `normotensive "
                     "control`; whole-word matching keeps `normotensive` apart from "
                     "`hypertension`), row 3 the age (`age: 54y`) and row 1 the sex.",
        trait_row=2, age_row=3, gender_row=1,
        trait_converter=keyword_converter(("essential hypertension",),
                                          ("normotensive control",)),
        scale_text=_LOG2_KEEP, mapping_text=_AFFY_MAPPING,
        note="Older cohort (mean age near 58)."),
    GeoDecisions(
        trait="Hypertension", cohort="GSE9100602",
        title="Essential hypertension: whole blood RNA-seq (GSE9100602)",
        intro="An RNA-seq series (GPL91004) with a count table.",
        availability="Row 2 is the group (`essential hypertension` vs `control`), row 1 the "
                     "age (`age at sampling (years): 74`) and row 3 the sex, blank for a few "
                     "samples (filled with the most frequent sex later).",
        trait_row=2, age_row=1, gender_row=3,
        trait_converter=keyword_converter(("essential hypertension",), ("control",)),
        scale="counts", scale_text=_COUNTS,
        note="RNA-seq: NCBI GeneID count table, log2 CPM; 3 unrecorded sexes imputed."),
    GeoDecisions(
        trait="Prostate_Cancer", cohort="GSE9100701",
        title="Prostate adenocarcinoma vs benign tissue (GSE9100701)",
        intro="Prostate tissue on an Agilent-style array (GPL91003).",
        availability="Row 3 is the group (`prostate adenocarcinoma` vs `control`), row 2 the "
                     "age and row 1 the sex. Every sample is male, as expected for prostate "
                     "tissue; I still extract the sex so the bias check documents why the "
                     "column goes.",
        trait_row=3, age_row=2, gender_row=1,
        trait_converter=keyword_converter(("prostate adenocarcinoma",), ("control",)),
        scale_text=_LOG2_KEEP, probe_col="ID", gene_col="GENE_SYMBOL",
        mapping_text=_AGILENT_MAPPING,
        outcome_text="Gender is constant (all male): the bias rule drops that column and "
                     "the cohort stays usable without it.",
        note="All male: Gender dropped as biased."),
)

_XENA_INTRO = ("A UCSC Xena TCGA cohort: a clinicalMatrix (one row per sample barcode) and "
               "RNA-seq matrices. The trait comes from the sample barcode (SPEC 4.5): "
               "type codes 01-09 are tumours (1), 10-19 normal tissue (0), anything else "
               "(e.g. 20 control analytes, 50 cell lines) has no trait value.")

XENA_COHORTS: Tuple[XenaDecisions, ...] = (
    XenaDecisions(
        trait="Prostate_Cancer", folder="TCGA_Prostate_Cancer_(PRAD)",
        title="Prostate adenocarcinoma: TCGA PRAD (Xena)",
        intro=_XENA_INTRO,
        clinical_text="Age: `age_at_initial_pathologic_diagnosis` is in years and filled "
                      "for nearly all samples (`days_to_birth` says the same in negative "
                      "days). Gender: `gender` (all `MALE`; the bias check will drop it). "
                      "`tcga_get_relevant_filepaths` picks the non-normalized `HiSeqV2` "
                      "matrix (guideline) over `HiSeqV2_PANCAN`.",
        age_col="age_at_initial_pathologic_diagnosis", gender_col="gender",
        outcome_text="Samples without a trait value (type codes 20 and 50) and the "
                     "clinical-only samples drop out; Gender is constant (all male) and is "
                     "dropped.",
        note="Trait from barcode type codes; all male: Gender dropped."),
    XenaDecisions(
        trait="Kidney_Chromophobe", folder="TCGA_Kidney_Chromophobe_(KICH)",
        title="Kidney chromophobe: TCGA KICH (Xena)",
        intro=_XENA_INTRO,
        clinical_text="Age: `age_at_initial_pathologic_diagnosis` (years). Gender: `gender` "
                      "(`MALE`/`FEMALE`, blank for a couple of samples: filled with the most "
                      "frequent value later). The `HiSeqV2` matrix is used.",
        age_col="age_at_initial_pathologic_diagnosis", gender_col="gender",
        outcome_text="Samples without a trait value (type codes 20 and 50) drop out.",
        note="Trait from barcode type codes."),
)


def all_cohorts() -> Tuple[object, ...]:
    """Every demo cohort's decisions, GEO first, in plan order."""
    return GEO_COHORTS + XENA_COHORTS
