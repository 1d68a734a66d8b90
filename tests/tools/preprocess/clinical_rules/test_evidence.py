"""Trait evidence in one cell (:mod:`tools.preprocess.clinical_rules.evidence`).

Each case is a decision a curator would take reading the cell; the comment
beside a group says which rule it exercises.
"""

import pytest

from tools.preprocess.clinical_rules import (classify_trait_cell, explain_value,
                                             infer_clinical_values)
from tools.preprocess.clinical_rules.evidence import background_abbreviations


@pytest.mark.parametrize("trait, cell, background, expected", [
    # plain names, synonyms, abbreviations
    ("Rheumatoid_Arthritis", "disease state: rheumatoid arthritis", "", 1.0),
    ("Rheumatoid_Arthritis", "disease: RA", "", 1.0),
    ("Rheumatoid_Arthritis", "disease state: healthy control", "", 0.0),
    ("Sjögrens_Syndrome", "group: Sjögren's syndrome", "", 1.0),
    ("Sjögrens_Syndrome", "group: Sjogren syndrome", "", 1.0),
    ("Sjögrens_Syndrome", "group: pSS", "", 1.0),
    ("Crohns_Disease", "disease: Crohn's disease", "", 1.0),
    ("Crohns_Disease", "primary diagnosis: CROHN_DISEASE", "", 1.0),
    ("Lupus_(Systemic_Lupus_Erythematosus)", "disease: SLE", "", 1.0),
    ("Type_2_Diabetes", "group: T2DM T0", "", 1.0),
    ("Type_2_Diabetes", "group: NGT", "", 0.0),                  # normal glucose tolerance
    ("Hypertension", "diagnosis: normotensive control", "", 0.0),
    ("Hypertension", "diagnosis: essential hypertension", "", 1.0),
    ("Osteoarthritis", "disease state: synovial tissue isolated from osteoarthritic joint",
     "", 1.0),                                                       # adjective form
    ("Asthma", "disease: asthmatic", "", 1.0),
    ("Endometriosis", "tissue: endometriotic lesion", "", 1.0),
    ("Endometriosis", "tissue: eutopic endometrium (control)", "", 0.0),
    # negations are controls
    ("Type_2_Diabetes", "disease: non-diabetic", "", 0.0),
    ("Type_2_Diabetes", "disease: nondiabetic", "", 0.0),
    ("Type_2_Diabetes", "status: no history of diabetes", "", 0.0),
    ("Rheumatoid_Arthritis", "status: without RA", "", 0.0),
    ("Asthma", "disease: non-asthmatic control", "", 0.0),
    ("HIV_Resistance", "status: HIV negative", "", 0.0),
    ("COVID-19", "status: SARS-CoV-2 negative", "", 0.0),
    ("COVID-19", "status: SARS-CoV-2 positive", "", 1.0),
    ("Prostate_Cancer", "tissue: cancer-free prostate", "", 0.0),
    # ... but "non-syndromic" negates "syndromic", not the trait
    ("Cleft_Lip_and_Palate", "condition: Non-syndromic cleft lip/palate (NSCL/P)", "", 1.0),
    # cancer traits: tumour words, organ synonyms, adjacent normal tissue
    ("Prostate_Cancer", "group: prostate adenocarcinoma", "", 1.0),
    ("Prostate_Cancer", "tissue: tumor", "", 1.0),
    ("Prostate_Cancer", "tissue: normal adjacent", "", 0.0),
    ("Breast_Cancer", "tissue: normal breast tissue adjacent to tumor", "", 0.0),
    ("Liver_Cancer", "tissue: non-tumor liver", "", 0.0),
    ("Liver_Cancer", "tissue: adjacent non-tumorous tissue", "", 0.0),
    ("Liver_Cancer", "tissue: HCC", "", 1.0),
    ("Lung_Cancer", "tissue: adjacent non-malignant lung", "", 0.0),
    ("Stomach_Cancer", "tissue: primary gastric cancer", "", 1.0),     # gastric = stomach
    ("Kidney_Chromophobe", "histology: chromophobe RCC", "", 1.0),
    ("Kidney_Chromophobe", "tissue: normal kidney", "", 0.0),
    ("Glioblastoma", "diagnosis: glioblastoma", "", 1.0),
    ("Prostate_Cancer", "tissue: breast cancer", "", None),          # another cancer
    # other diseases are neither case nor control
    ("Rheumatoid_Arthritis", "disease state: osteoarthritis", "", None),
    ("Psoriatic_Arthritis", "disease: psoriasis", "", None),
    # ICD-10 classes psoriatic arthritis under psoriasis (L40.5): a related diagnosis
    ("Psoriasis", "disease: psoriatic arthritis", "", 1.0),
    ("Crohns_Disease", "disease: ulcerative colitis", "", None),
    ("Type_2_Diabetes", "status: type 1 diabetes", "", None),
    ("Type_2_Diabetes", "disease: pre-diabetes", "", None),
    ("Crohns_Disease", "cell type: CD4+ T cells", "", None),
    ("Endometriosis", "diagnosis: endometrial endometrioid carcinoma", "", None),
    # generic case words need the background to name the trait
    ("Rheumatoid_Arthritis", "group: patient", "synovium in rheumatoid arthritis", 1.0),
    ("Rheumatoid_Arthritis", "group: patient", "", None),
    ("Ankylosing_Spondylitis", "AS_patient_001", "ankylosing spondylitis", 1.0),
    ("Rheumatoid_Arthritis", "OA_patient_3", "rheumatoid arthritis (RA), osteoarthritis", None),
    ("Schizophrenia", "disease state: Williams syndrome patient",
     "Williams syndrome ... schizophrenia (SCHZ)", None),
    # missing words
    ("Rheumatoid_Arthritis", "subject status: unknown", "", None),
    ("Rheumatoid_Arthritis", "group: not available", "", None),
    ("Rheumatoid_Arthritis", "group: N/A", "", None),
    ("Rheumatoid_Arthritis", "group: NA", "", None),
    ("Rheumatoid_Arthritis", None, "", None),
    # treatment controls are not trait controls
    ("Melanoma", "treatment: vehicle control", "", None),
    # a key naming the trait with a yes/no answer
    ("Hypertension", "hypertension: yes", "", 1.0),
    ("Hypertension", "hypertension: N", "", 0.0),
    ("Type_2_Diabetes", "diabetes: 0", "", 0.0),
])
def test_trait_cell(trait, cell, background, expected):
    label, _ = classify_trait_cell(cell, trait, background)
    assert label == expected, explain_value(cell, trait, background)


def test_background_defines_abbreviations():
    background = ("compare middle temporal gyrus in Alzheimer\u2019s Disease (AD = 97) and "
                  "non-demented controls (ND = 98)")
    assert infer_clinical_values("trait", ["diagnosis: ND", "diagnosis: AD"],
                                 "Alzheimers_Disease", background) == [0.0, 1.0]
    # a cell line named in parentheses is not a case abbreviation
    assert background_abbreviations("a human melanoma cell line (A375)", "Melanoma") == (
        (), ())


