"""Row-choice cases from real GEO series outside the demo and ../shared/data.

The characteristics dictionaries are GEO sample metadata (NCBI records) as the
upstream GenoTEX notebooks printed them in their first step; long lists are
shortened (first values kept), which does not change which row holds what.
Backgrounds are short paraphrases, in our own words, of each series' title,
summary and design (abbreviations, disease names and sample counts kept); they
replaced quoted text after the runs below, and every row choice stayed the
same. No notebook code is reused: the characteristics are data.

``truth`` is a hand reading of each dictionary (accepted rows per feature),
written down before the rules were run on the held-out set; ``upstream`` is
the row the upstream notebook (an LLM agent) chose, kept for comparison only.
``curators`` (when present) is the trait row the GenoTEX curators chose for
the same series (or its SuperSeries) in the development split of issue 23
(``../shared/data/clinical_dev``): their conventions -- a constant row naming
the trait is chosen, a row of another disease beside controls is chosen -- are
the ones the rules now follow, so that row is accepted too.

* ``DEV2`` -- 9 series read while the rules were still being changed (the
  background-abbreviation rule and the mixed-key age/sex rows came from
  GSE132903 and GSE123086): not an unbiased test.
* ``HELDOUT`` -- 13 series read after the rules were frozen. The first run
  got 12/13 trait rows (GSE285666, "Williams syndrome patient", was read as a
  schizophrenia case); the other-disease check was fixed afterwards.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

Case = Dict[str, object]

DEV2: List[Case] = [
    dict(
        name="Alzheimers_Disease/GSE132903", trait="Alzheimers_Disease",
        background=("Postmortem RNA profiling of the middle temporal gyrus (MTG, Brodmann area 21) "
                    "in 97 Alzheimer's disease brains (AD) and 98 non-demented control brains "
                    "(ND)."),
        chars={0: ["tissue: middle temporal gyrus"], 1: ["Sex: female", "Sex: male"],
               2: ["expired_age (years): 90+", "expired_age (years): 82",
                   "expired_age (years): 88", "expired_age (years): 92",
                   "expired_age (years): 70", "expired_age (years): 102"],
               3: ["diagnosis: ND", "diagnosis: AD"]},
        truth={"trait": [3], "age": [2], "gender": [1]},
        upstream={"trait": 3, "age": 2, "gender": 1},
        note="ND is defined in the background as non-demented controls"),
    dict(
        name="Vitamin_D_Levels/GSE118723", trait="Vitamin_D_Levels",
        background=("Mapping of genetic variants that alter the variability (variance QTLs) of "
                    "gene expression in human induced pluripotent stem cells."),
        chars={0: ["experiment: 02192018", "experiment: 02202018", "experiment: 03162017"],
               1: ["well: A01", "well: A02", "well: B01"],
               2: ["individual: NA18517", "individual: NA18913", "individual: NA19210"],
               3: ["batch: b6", "batch: b1", "batch: b2"]},
        truth={"trait": [None], "age": [None], "gender": [None]},
        upstream={"trait": None, "age": None, "gender": None}),
    dict(
        name="Vitamin_D_Levels/GSE33544", trait="Vitamin_D_Levels",
        background=("B cell receptor light chain repertoires compared between people with systemic "
                    "lupus erythematosus (SLE) and healthy individuals."),
        chars={0: ["disease state: Healthy", "disease state: SLE", "disease state: N/A"],
               1: ["individual: Healthy01", "individual: Healthy02", "individual: SLE01",
                   "sample type: Standard 1, Reference sample with reverse complement of B3 "
                   "spiked in a 5.3% and 2-13 spiked in at 26%"],
               2: ["cell type: FACS sorted peripheral blood B cells with the "
                   "CD20+CD138-IgKappa+IgLambda- phenotype", None]},
        truth={"trait": [None], "age": [None], "gender": [None]},
        curators=None,
        upstream={"trait": None, "age": None, "gender": None},
        note="SLE vs healthy is not a vitamin D measurement"),
    dict(
        name="Type_2_Diabetes/GSE180393", trait="Type_2_Diabetes",
        background=("Gene expression of glomeruli micro-dissected from human kidney biopsies: "
                    "patients with several chronic kidney diseases (Lupus, DN, IgA, HT, TN) versus "
                    "healthy living donors."),
        chars={0: ["sample group: Living donor", "sample group: infection-associated GN",
                   "sample group: FSGS", "sample group: LN-WHO III", "sample group: DN",
                   "sample group: amyloidosis", "sample group: MN", "sample group: IgAN",
                   "sample group: Hypertensive Nephrosclerosis",
                   "sample group: Unaffected parts of Tumor Nephrectomy"],
               1: ["tissue: Glomeruli from kidney biopsy"]},
        truth={"trait": [0, None], "age": [None], "gender": [None]},
        upstream={"trait": 0, "age": None, "gender": None},
        note="DN (diabetic nephropathy) implies diabetes but is not spelled out; either answer"),
    dict(
        name="Type_2_Diabetes/GSE98887", trait="Type_2_Diabetes",
        background="Blocking BACH2 restores failing beta cells in models of type 2 diabetes.",
        chars={0: ["tissue: inlet cells"]},
        truth={"trait": [None], "age": [None], "gender": [None]},
        upstream={"trait": None, "age": None, "gender": None}),
    dict(
        name="Crohns_Disease/GSE123086", trait="Crohns_Disease",
        background=("CD4+ T cells profiled across 13 diseases, among them digestive ones such as "
                    "Crohn's disease [CD] and ulcerative colitis [UC], with healthy controls "
                    "matched for age and sex."),
        chars={0: ["cell type: CD4+ T cells"],
               1: ["primary diagnosis: ASTHMA", "primary diagnosis: ATHEROSCLEROSIS",
                   "primary diagnosis: BREAST_CANCER", "primary diagnosis: CROHN_DISEASE",
                   "primary diagnosis: ATOPIC_ECZEMA", "primary diagnosis: HEALTHY_CONTROL",
                   "primary diagnosis: OBESITY", "primary diagnosis: PSORIASIS",
                   "primary diagnosis: TYPE_1_DIABETES", "primary diagnosis: ULCERATIVE_COLITIS"],
               2: ["Sex: Male", "diagnosis2: ATOPIC_ECZEMA", "Sex: Female",
                   "diagnosis2: ATHEROSCLEROSIS", "diagnosis2: ASTHMA_OBESITY",
                   "diagnosis2: ASTHMA", "diagnosis2: OBESITY"],
               3: ["age: 56", "Sex: Male", "age: 20", "age: 51", "age: 37", "age: 61",
                   "age: 31", "age: 41", "age: 80", "age: 53", "age: 73", "age: 60"],
               4: [None, "age: 63", "age: 74", "age: 49", "age: 60", "age: 68"]},
        truth={"trait": [1], "age": [3], "gender": [2]},
        upstream={"trait": 1, "age": 3, "gender": 2},
        note="rows 2-4 mix keys (a missing line shifts the rest up)"),
    dict(
        name="Crohns_Disease/GSE83448", trait="Crohns_Disease",
        background=("Whole-genome expression profiling of intestinal biopsies, obtained from "
                    "patients with Crohn's disease (CD) and from healthy controls."),
        chars={0: ["tissue: intestinal mucosa"],
               1: ["inflammation: Control", "inflammation: Inflamed margin",
                   "inflammation: Non-inflamed margin"]},
        truth={"trait": [1], "age": [None], "gender": [None]},
        upstream={"trait": 1, "age": None, "gender": None},
        note="inflamed / non-inflamed margins are both CD patients"),
    dict(
        name="Breast_Cancer/GSE153316", trait="Breast_Cancer",
        background=("Gene expression of adipose tissue taken near to and far from the breast "
                    "tumour in 41 patients who had a mastectomy."),
        chars={0: ["subject status: patients subjected to mastectomy"],
               1: ["bmi: <20", "bmi: 20-25", "bmi: 25-30", "bmi: >30"],
               2: ["age: 39", "age: 36", "age: 75", "age: 60", "age: 49", "age: 74"],
               3: ["lymphnode positivity: neg", "lymphnode positivity: pos",
                   "lymphnode positivity: NA"],
               4: ["hystotype: Ductal", "hystotype: Lobular"],
               5: ["tumor grade: G3", "tumor grade: G2"],
               6: ["tumor size (t): T3", "tumor size (t): T1", "tumor size (t): T2"],
               7: ["tumor er positivity (pos: >=10%, neg:<10%): pos",
                   "tumor er positivity (pos: >=10%, neg:<10%): neg"],
               11: ["tissue: Adipose tissues (AT)"]},
        truth={"trait": [None], "age": [2], "gender": [None]},
        upstream={"trait": 0, "age": 2, "gender": None},
        note="every sample is a patient: no control group in the characteristics"),
    dict(
        name="Obesity/GSE99725", trait="Obesity",
        background=("Depression occurring together with severe obesity, studied in patients before "
                    "and after bariatric surgery."),
        chars={0: ["patient: CB291013", "patient: TP100414", "patient: JDF280314"],
               1: ["time: M0", "time: M6"], 2: ["MADRS: A", "MADRS: B"],
               3: ["tissue: Venous blood"]},
        truth={"trait": [None], "age": [None], "gender": [None]},
        upstream={"trait": 2, "age": None, "gender": None},
        note="all obese; MADRS is a depression scale (upstream mistake)"),
]

HELDOUT: List[Case] = [
    dict(
        name="Schizophrenia/GSE119288", trait="Schizophrenia",
        background=("Drug screen read out by gene expression: responses to 135 drugs compared "
                    "between eight cancer cell lines (CCLs) and hiPSC-derived neural progenitor "
                    "cells (NPCs) from 12 people with schizophrenia (SZ) and 12 controls."),
        chars={0: ["perturbagen: NORFLOXACIN", "perturbagen: RISPERIDONE", "perturbagen: DMSO",
                   "perturbagen: Ziprasidone"],
               1: ["cell id: VCAP", "cell id: 3182-2-4", "cell id: 2484-2-A", "cell id: 449-2-12"],
               2: ["dosage: 10_uM", "dosage: 0.03_uM", "batch: MSA206_A", "dosage: 0_uM"],
               3: ["batch: MSA206_A", "batch: MSA206_B", "duration: 6_hours"],
               4: ["duration: 6_hours", "perturbation type: vehicle", "perturbation type: poscon"],
               5: ["perturbation type: test", "well id: A21", "well id: A22",
                   "perturbation type: poscon"],
               6: ["well id: A03", "well id: A04", "plate id: MSA206"],
               7: ["plate id: MSA206", None]},
        truth={"trait": [None], "age": [None], "gender": [None]},
        curators=1,
        upstream={"trait": 1, "age": None, "gender": None},
        note="cell ids do not say which donor is SZ"),
    dict(
        name="Schizophrenia/GSE285666", trait="Schizophrenia",
        background=("Patients with Williams syndrome (WS) and controls, studied through their "
                    "lymphoblastoid cell lines (LCLs); WS is of interest for autism spectrum "
                    "disorder (ASD) and schizophrenia (SCHZ)."),
        chars={0: ["disease state: unaffected parental control",
                   "disease state: Williams syndrome patient"]},
        truth={"trait": [None], "age": [None], "gender": [None]},
        curators=0,
        upstream={"trait": 0, "age": None, "gender": None},
        note="Williams syndrome, not schizophrenia (upstream set is_trait_available False)"),
    dict(
        name="Acute_Myeloid_Leukemia/GSE121291", trait="Acute_Myeloid_Leukemia",
        background=("The AML cell line THP-1 exposed to CDK7 inhibition with SY-1365, or to JQ1 or "
                    "NVP2."),
        chars={0: ["disease state: Acute Myeloid Leukemia"],
               1: ["cell line: AML cell line  THP-1"],
               2: ["agent: DMSO", "agent: SY-1365", "agent: JQ1", "agent: NVP2", "agent: FLAVO"],
               3: ["time: 2 hours", "time: 6 hours"]},
        truth={"trait": [None], "age": [None], "gender": [None]},
        curators=0,  # SuperSeries GSE121431
        upstream={"trait": 2, "age": None, "gender": None},
        note="one cell line, drug arms only"),
    dict(
        name="Adrenocortical_Cancer/GSE108088", trait="Adrenocortical_Cancer",
        background=("Second part of an in-depth molecular profiling study of paediatric patients "
                    "whose cancer relapsed."),
        chars={0: ["condition: Atypical meningioma",
                   "condition: Choroid plexus carcinoma / Malignant peripheral nerve sheeth tumor",
                   "condition: Pilocytisc/pilomyxoid astrocytoma", "condition: Hepatoblastoma",
                   "condition: Signetringcell carcinoma", "condition: Glioblastoma",
                   "condition: Neuroblastoma", "condition: Ewing sarcoma",
                   "condition: Osteochondroma"]},
        truth={"trait": [None], "age": [None], "gender": [None]},
        curators=0,
        upstream={"trait": None, "age": None, "gender": None}),
    dict(
        name="Age-Related_Macular_Degeneration/GSE29801",
        trait="Age-Related_Macular_Degeneration",
        background=("Human donor eyes (31 normal, 26 AMD, 11 possibly at an early pre-AMD stage) "
                    "examined with a systems approach to age-related macular degeneration."),
        chars={0: ["tissue: macular RPE-choroid", "tissue: extramacular RPE-choroid",
                   "tissue: macular Retina", "tissue: extramacular Retina"],
               1: ["gender: male", "gender: female"],
               2: ["age (years): 9", "age (years): 10", "age (years): 18", "age (years): 55",
                   "age (years): 84"],
               3: ["ocular disease: normal", "ocular disease: AMD"],
               4: ["amd classification: normal", "amd classification: dry AMD",
                   "amd classification: MD1", "amd classification: GA",
                   "amd classification: CNV", "amd classification: MD2",
                   "amd classification: clinical AMD diagnosis", "amd classification: GA/CNV"],
               5: ["patient identifier: IA177-96", "patient identifier: OR003-99"],
               6: ["rna integrity number (rin): not determined",
                   "rna integrity number (rin): 6.4", "rna integrity number (rin): 5.8"]},
        truth={"trait": [3, 4], "age": [2], "gender": [1]},
        upstream={"trait": 3, "age": 2, "gender": 1}),
    dict(
        name="Allergies/GSE162926", trait="Allergies",
        background=("Serum microRNA profiles of adults with atopic dermatitis or psoriasis, "
                    "compared with healthy controls."),
        chars={0: ["subject status: atopic dermatitis adult patient",
                   "subject status: healthy control adult",
                   "subject status: psoriasis adult patient"],
               1: ["tissue: serum"]},
        truth={"trait": [0], "age": [None], "gender": [None]},
        upstream={"trait": 0, "age": None, "gender": None},
        note="atopic dermatitis = allergic (atopic) disease; psoriasis -> None"),
    dict(
        name="Alopecia/GSE81071", trait="Alopecia",
        background=("Skin expression profiles of two cutaneous lupus subtypes, discoid (DLE) and "
                    "subacute (sCLE); DLE lesions often end in alopecia."),
        chars={0: ["tissue: Skin", "disease state: Normal", "disease state: DLE",
                   "disease state: SCLE"],
               1: ["disease state: healthy", "disease state: DLE", "disease state: sCLE",
                   "tissue: Skin biopsy"]},
        truth={"trait": [None], "age": [None], "gender": [None]},
        upstream={"trait": 0, "age": None, "gender": None},
        note="cutaneous lupus, not alopecia"),
    dict(
        name="Amyotrophic_Lateral_Sclerosis/GSE26927", trait="Amyotrophic_Lateral_Sclerosis",
        background=("Neuroinflammatory pathways shared by Alzheimer's disease, amyotrophic lateral "
                    "sclerosis, Huntington's disease, multiple sclerosis, Parkinson's disease and "
                    "schizophrenia."),
        chars={0: ["disease: Alzheimer's disease", "disease: Amyotrophic lateral sclerosis",
                   "disease: Huntington's disease", "disease: Multiple sclerosis",
                   "disease: Parkinson's disease", "disease: Schizophrenia"],
               1: ["gender: M", "gender: F"],
               2: ["age at death (in years): 70", "age at death (in years): 73",
                   "age at death (in years): 59", "age at death (in years): 40"],
               3: ["post-mortem delay (in hours): 13.00", "post-mortem delay (in hours): 5.50",
                   "illness duration (in years): 1.4", "illness duration (in years): 2.3"],
               4: ["post-mortem delay: 13.00", "post-mortem delay: 5.50", None]},
        truth={"trait": [None, 0], "age": [2], "gender": [1]},
        upstream={"trait": 0, "age": 2, "gender": 1},
        note="no healthy controls; other diseases as controls is defensible too"),
    dict(
        name="Obesity/GSE158850", trait="Obesity",
        background=("Changes in skeletal muscle after 8 weeks of weight loss in obese men, younger "
                    "and older."),
        chars={0: ["tissue: Skeletal muscle"], 1: ["Sex: Male"],
               2: ["age group: Young", "age group: Elderly"], 3: ["disease state: obese"],
               4: ["time point: baseline", "time point: after lifestyle intervention"]},
        truth={"trait": [None], "age": [None], "gender": [1, None]},
        upstream={"trait": 4, "age": 2, "gender": None},
        note="all obese; age only as groups; constant sex row either way"),
    dict(
        name="Type_2_Diabetes/GSE250283", trait="Type_2_Diabetes",
        background=("Case-control study of expression profiles linked to coronary artery disease "
                    "(CAD) in type 2 diabetes mellitus (T2DM): 23 unrelated adult Filipinos with "
                    "T2DM and CAD versus 23 controls."),
        chars={0: ["tissue: blood"], 1: ["gender: Female", "gender: Male"],
               2: ["sample group (dm or no dm): DM", "sample group (dm or no dm): Healthy"],
               3: ["comorbidity: with no Retinopathy", "comorbidity: with Retinopathy",
                   "comorbidity: Healthy"]},
        truth={"trait": [2], "age": [None], "gender": [1]},
        upstream={"trait": 2, "age": None, "gender": 1}),
    dict(
        name="Vitamin_D_Levels/GSE86406", trait="Vitamin_D_Levels",
        background=("Trial of oral vitamin D against sunburn: 20 healthy adults randomly given "
                    "either placebo or one large dose of vitamin D3."),
        chars={0: ["tissue: Skin"],
               1: ["age: 37", "age: 45", "age: 47", "age: 58", "age: 42", "age: 21"],
               2: ["gender: F", "gender: M"],
               3: ["ethnicity: Non-hispanic/Latino", "ethnicity: Hispanic/Latino"]},
        truth={"trait": [None], "age": [1], "gender": [2]},
        upstream={"trait": None, "age": 1, "gender": 2}),
    dict(
        name="LDL_Cholesterol_Levels/GSE28893", trait="LDL_Cholesterol_Levels",
        background=("Expression quantitative trait loci (eQTLs) in primary human liver tissue, "
                    "including ones tied to lipid levels such as LDL cholesterol."),
        chars={0: ["tissue: Primary Liver"],
               1: ["age: 21", "age: 15", "age: 32", "age: 45", "age: 9"],
               2: ["gender: M", "gender: F"],
               3: ["ancestry (pc 1): -0.0117287", "ancestry (pc 1): -0.00831958",
                   "ancestry (pc 1): 0.204173"],
               4: ["ancestry (pc 2): 0.000418281", "ancestry (pc 2): 0.00664124"]},
        truth={"trait": [None], "age": [1], "gender": [2]},
        upstream={"trait": None, "age": 1, "gender": 2}),
    dict(
        name="Height/GSE101709", trait="Height",
        background=("Gene expression response to influenza vaccination in young and older adults; "
                    "participants reported demographics, height and weight themselves."),
        chars={0: ["subject status: Healthy Adults receiving Influenza Vaccination"],
               1: ["age group: Frail", "age group: Older", "age group: Young"],
               2: ["blood draw date: after vaccination day 2",
                   "blood draw date: day 0; prior to administration of vaccine"],
               3: ["cell type: Peripheral Blood Mononuclear Cells (PBMC)"],
               4: ["immport_expsamp_acc: ImmPort:ES1167274",
                   "immport_expsamp_acc: ImmPort:ES1167275"]},
        truth={"trait": [None], "age": [None], "gender": [None]},
        upstream={"trait": None, "age": 1, "gender": None},
        note="age only as groups (upstream encoded it 0/1)"),
]


def score_cases(cases: List[Case], infer) -> Tuple[Dict[str, int], List[str]]:
    """Count correct rows per feature with ``infer(chars, trait, background)``."""
    hits = {"trait": 0, "age": 0, "gender": 0}
    misses: List[str] = []
    for case in cases:
        rows = infer(case["chars"], case["trait"], case["background"])
        for feature in hits:
            got: Optional[int] = rows[f"{feature}_row"]
            if got in case["truth"][feature]:
                hits[feature] += 1
            else:
                misses.append(f"{case['name']}: {feature} row {got}, "
                              f"expected {case['truth'][feature]}")
    return hits, misses
