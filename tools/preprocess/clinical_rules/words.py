"""Word lists of the rule-based clinical step (one place for every vocabulary).

Every list is a module constant with a comment saying what it is for. Words are
compared after :func:`tools.preprocess.clinical_rules.text.tokens` has
lower-cased, accent-folded and canonicalized them (plural ``s`` dropped,
adjectives mapped to nouns by :data:`WORD_FORMS`), unless a comment says that
the raw, case-preserving text is used.
"""

from __future__ import annotations

from typing import Dict, Tuple


#: Whole values meaning "not recorded" (compared after lower-casing and
#: collapsing spaces). ``none`` is absent on purpose: ``disease: none`` says
#: "no disease" and is handled as a control word for trait rows.
MISSING_VALUES = frozenset({
    "", "na", "n/a", "n.a.", "n.a", "nan", "null", "unknown", "unk", "unkn",
    "not available", "not applicable", "not determined", "not known", "not recorded",
    "not reported", "not specified", "unspecified", "missing", "no data", "nd",
    "-", "--", "---", "?", "??", ".", "not collected", "undetermined", "unavailable",
    "not provided", "n.d.", "none reported", "not assessed", "not tested", "pending",
})

#: Key words that mark a sex / age row.
SEX_KEY_WORDS = frozenset({"sex", "gender"})
AGE_KEY_WORDS = frozenset({"age"})

#: Answers of a yes/no column whose key names the trait (``"RA: yes"``).
YES_WORDS = frozenset({"yes", "y", "true", "positive", "pos", "present", "1", "+",
                       "affected", "case"})
NO_WORDS = frozenset({"no", "n", "false", "negative", "neg", "absent", "0", "-",
                      "none", "unaffected", "control"})

#: Control words. Strong ones decide on their own and beat a trait mention in
#: the same cell ("normal adjacent to tumor", "healthy control").
CONTROL_WORDS = frozenset({
    "control", "healthy", "normal", "unaffected", "nondiseased", "undiseased",
    "nonaffected", "uninvolved", "ctrl", "ctl", "normals", "wellness",
})
#: Multi-word control phrases (canonical tokens, see :func:`_tokens`).
CONTROL_PHRASES = (
    "no disease", "non tumor", "non tumour", "tumor free", "disease free", "non cancer",
    "non malignant", "paracancerous", "para cancerous", "para carcinoma",
    "paracarcinoma", "adjacent normal", "normal adjacent", "tumor adjacent",
    "non lesional", "nonlesional", "peritumoral", "peri tumoral", "non diseased",
    "cancer free", "free of disease",
)
#: Weak control words: used only when nothing else speaks ("healthy" covers
#: most donors; "benign" is the usual comparison for tumour traits).
WEAK_CONTROL_WORDS = frozenset({"donor", "volunteer", "benign", "adjacent", "none"})
#: Control abbreviations, matched case-sensitively on the raw text (``HC_01``).
CONTROL_ABBREVIATIONS = frozenset({"HC", "NC", "CTRL", "Ctrl", "CTL", "HV", "NHC"})

#: Phrases where "control" means an experimental control, not a healthy
#: subject: their tokens are removed before control words are looked for.
TREATMENT_CONTROL_PHRASES = (
    "vehicle control", "control vehicle", "vehicle", "mock", "dmso", "sham",
    "untreated control", "control sirna", "sirna control", "control shrna",
    "shrna control", "scrambled", "scramble control", "empty vector",
    "control vector", "vector control", "negative control", "positive control",
    "control oligo", "control treatment", "control medium", "control media",
    "control diet", "control condition", "control group treated", "control antibody",
    "isotype control", "control igg", "igg control", "control cell", "control line",
)

#: Negators written before a mention: ``non``/``un`` bind to the next word only;
#: the others may reach over a few filler words ("no history of diabetes").
NEGATORS_TIGHT = frozenset({"non", "un"})
NEGATORS_WIDE = frozenset({"no", "not", "without", "never", "absence", "absent",
                           "free", "negative", "lack", "excluding", "excluded"})
#: Words that, right before a mention, make it a different state ("pre-diabetes").
VOIDING_PREFIXES = frozenset({"pre", "borderline", "suspected", "possible", "probable",
                              "latent", "subclinical", "at", "other"})
#: Words allowed between a wide negator and the mention.
NEGATION_FILLERS = frozenset({"of", "history", "evidence", "sign", "known", "any",
                              "prior", "diagnosed", "diagnosis", "with", "for", "clinical",
                              "family", "current", "active", "previous", "personal"})
#: Negators written after a mention ("cancer-free", "HIV negative").
NEGATORS_AFTER = frozenset({"free", "negative", "neg", "excluded", "absent"})

#: Generic case words: count as a case only when the background names the
#: trait and the cell names no other disease ("AS_patient_001", "patient").
GENERIC_CASE_WORDS = frozenset({"patient", "case", "affected", "diseased", "disease",
                                "proband", "lesion", "lesional", "symptomatic", "sick"})

#: Cancer words shared by every cancer trait (after canonicalization).
CANCER_GENERIC_WORDS = frozenset({"cancer", "carcinoma", "adenocarcinoma", "tumor",
                                  "neoplasm", "malignant", "neoplasia", "carcinogenesis",
                                  "metastatic", "metastasis", "tumorigenic"})
#: Named tumour types: a trait containing one is a cancer trait, and the word
#: is specific enough to identify it on its own.
NAMED_CANCER_WORDS = frozenset({
    "melanoma", "glioma", "glioblastoma", "gbm", "lymphoma", "leukemia", "sarcoma",
    "mesothelioma", "thymoma", "retinoblastoma", "carcinosarcoma", "pheochromocytoma",
    "paraganglioma", "myeloma", "neuroblastoma", "astrocytoma", "medulloblastoma",
    "hepatoblastoma", "osteosarcoma", "chromophobe", "cholangiocarcinoma", "seminoma",
    "blastoma", "adenoma", "ependymoma", "oligodendroglioma", "meningioma",
})
#: "-oma" words that are not tumours.
NON_CANCER_OMA = frozenset({"glaucoma", "trachoma", "hematoma", "granuloma", "xanthoma",
                            "atheroma", "scleroderma", "stoma", "coma", "diploma",
                            "aroma", "soma", "chiasma", "stroma", "genoma", "trauma"})

#: Organ words; each group lists spellings of one organ. A cancer trait naming
#: an organ matches a cell holding any spelling plus a cancer word
#: ("prostate adenocarcinoma", "primary gastric cancer"); a cell naming an
#: organ of ANOTHER group is another cancer (None).
ORGAN_GROUPS: Tuple[Tuple[str, ...], ...] = (
    ("prostate", "prostatic"),
    ("stomach", "gastric"),
    ("colon", "colonic", "colorectal", "rectal", "rectum", "crc", "bowel"),
    ("liver", "hepatic", "hepatocellular", "hepato", "hcc"),
    ("kidney", "renal", "nephric"),
    ("lung", "pulmonary", "bronchial", "nsclc", "sclc"),
    ("breast", "mammary"),
    ("esophageal", "esophagus", "esophagu", "oesophagus"),
    ("pancreatic", "pancreas", "pdac"),
    ("ovarian", "ovary"),
    ("cervical", "cervix"),
    ("bladder", "urothelial"),
    ("thyroid", "papillary thyroid"),
    ("brain", "cerebral", "glial"),
    ("skin", "cutaneous", "dermal"),
    ("bile", "biliary", "cholangio", "gallbladder"),
    ("uterine", "uterus", "endometrial", "endometrium", "endometrioid"),
    ("testicular", "testis", "teste", "germ"),
    ("head", "neck", "oral", "pharyngeal", "laryngeal", "hnscc", "tongue"),
    ("adrenal", "adrenocortical"),
    ("blood", "marrow", "myeloid", "lymphoid"),
    ("bone", "osteo"),
    ("eye", "ocular", "uveal", "retinal", "retina"),
    ("pleura", "pleural"),
)

#: Words that never identify a trait on their own: class words, qualifiers,
#: numbers. A trait made only of them needs all its words (or a synonym).
GENERIC_TRAIT_WORDS = frozenset({
    "disease", "disorder", "syndrome", "type", "chronic", "acute", "level", "rate",
    "primary", "essential", "idiopathic", "related", "spectrum", "high", "low",
    "deficiency", "failure", "and", "of", "the", "with", "in", "to", "cell", "index",
    "length", "density", "count", "reaction", "resistance", "sensitivity",
    "intolerance", "stone", "hair", "red", "multiple", "systemic", "lower", "grade",
    "large", "b", "clear", "papillary", "degeneration", "age", "early", "late", "onset",
    "arthritis", "sclerosis", "obstructive", "sleep", "anxiety", "generalized",
    "post", "traumatic", "stress", "use", "substance", "flush", "mass", "body",
    "metabolic", "endocrine", "type", "condition", "state", "loss", "peptic",
    "ulcer", "reflux", "bowel", "irritable", "intellectual", "disability",
    "congestive", "coronary", "artery", "heart", "infection", "neoplasia",
})
#: Anatomy words: too broad to identify a (non-cancer) trait alone.
ANATOMY_WORDS = frozenset({g for group in ORGAN_GROUPS for g in group}) | frozenset({
    "lip", "palate", "joint", "muscle", "tissue", "artery", "vein", "cardiac",
    "macular", "retina", "spine", "intestine", "gut", "thymus", "nerve", "heart",
})
#: Words dropped when building a trait's "all content words" rule.
CORE_DROP_WORDS = frozenset({"and", "of", "the", "with", "in", "to", "level", "s"})

#: Hints that a trait is measured on a scale (continuous), used only to
#: decide whether a numeric row whose key names the trait is its row.
CONTINUOUS_HINT_WORDS = frozenset({"level", "rate", "height", "density", "length", "index",
                                   "weight", "count", "concentration", "bmi", "score"})

#: Keys that usually hold the group of a sample (small bonus when ranking rows).
DISEASE_KEY_WORDS = frozenset({
    "disease", "diagnosis", "condition", "group", "phenotype", "status", "state",
    "subject", "patient", "class", "category", "cohort", "sample", "type", "histology",
    "clinical", "case", "pathology", "tissue", "individual", "health", "source",
})
#: Keys that hold an experimental factor, never the trait.
NON_TRAIT_KEY_WORDS = frozenset({
    "treatment", "time", "timepoint", "agent", "dose", "batch", "replicate", "protocol",
    "passage", "day", "hour", "week", "visit", "compound", "drug", "stimulation",
    "infection", "transfection", "sirna", "shrna", "medium", "culture", "vehicle",
    "exposure", "array", "scan", "chip", "run", "lane", "plate", "rin",
})

#: Spelling variants mapped to one canonical token (applied after plural
#: stripping). Adjectives of a disease map to its noun, so "diabetic" meets
#: "diabetes" and "hypertensive" meets "hypertension". "normotensive" and
#: "psoriatic" are deliberately absent (a control word; psoriatic arthritis is
#: not psoriasis).
WORD_FORMS: Dict[str, str] = {
    "tumour": "tumor", "tumoral": "tumor", "tumorous": "tumor", "tumoru": "tumor",
    "cancerou": "cancer", "cancerous": "cancer", "malignancy": "malignant",
    "malignancie": "malignant", "neoplastic": "neoplasm", "carcinomatous": "carcinoma",
    "diabete": "diabete", "diabetic": "diabete", "diabetes": "diabete",
    "asthmatic": "asthma", "hypertensive": "hypertension", "obese": "obesity",
    "epileptic": "epilepsy", "schizophrenic": "schizophrenia", "autistic": "autism",
    "anaemia": "anemia", "anaemic": "anemia", "anemic": "anemia",
    "leukaemia": "leukemia", "leukemic": "leukemia", "leukaemic": "leukemia",
    "oesophageal": "esophageal", "haemochromatosis": "hemochromatosis",
    "allergie": "allergy", "allergic": "allergy", "depressed": "depression",
    "depressive": "depression", "failing": "failure", "ischaemic": "ischemia",
    "ischemic": "ischemia", "coeliac": "celiac", "hypothyroid": "hypothyroidism",
    "ctrl": "control", "ctl": "control", "glioblastomas": "glioblastoma",
    "migrainous": "migraine", "osteoporotic": "osteoporosis", "obesed": "obesity",
    "psoriatric": "psoriatic", "sjoegren": "sjogren", "sjogrens": "sjogren",
    "alzheimers": "alzheimer", "parkinsons": "parkinson", "crohns": "crohn",
    "huntingtons": "huntington", "gbm": "glioblastoma", "hepatoma": "hepatocellular",
}
#: Tokens that keep their trailing "s" (plural stripping would break them).
KEEP_S = frozenset({"status", "diabetes", "mellitus", "psoriasis", "lupus", "sepsis",
                    "this", "was", "has", "is", "as", "us", "its", "yes", "bus", "less",
                    "ms", "ss", "pss", "sclerosis", "cirrhosis", "fibrosis", "tuberculosis",
                    "osteoporosis", "endometriosis", "nephrolithiasis", "chorioamnionitis",
                    "pancreas", "uterus", "esophagus", "virus", "corpus", "nucleus",
                    "gas", "pus", "series", "species", "always", "has", "atlas", "sinus",
                    "stenosis", "thrombosis", "mucosa", "hepatitis", "arthritis", "colitis",
                    "dermatitis", "nephritis", "spondylitis", "osteoarthritis", "testis",
                    "pelvis", "ros", "hiv", "aids", "yrs", "mos", "wks", "days", "months",
                    "years", "bpm", "bmi", "oas", "crs", "ibs", "ras", "als", "cns",
                    "pcos", "ptsd", "ards", "sars", "mds", "adhd", "ocd", "gerd"})

#: Disease-looking suffixes: a word ending so, not part of the trait, is
#: "another disease" (keeps "OA patient" or "psoriasis" away from RA).
DISEASE_SUFFIXES = ("itis", "osis", "oma", "emia", "pathy", "plasia", "trophy", "algia",
                    "iasis", "ism", "cancer", "carcinoma", "diabete", "syndrome",
                    "disorder", "disease", "infection", "failure")
#: Words with a disease-looking suffix that are not diseases.
NOT_DISEASE_WORDS = frozenset({"stoma", "stroma", "diagnosis", "prognosis", "analysis",
                               "hypothesis", "synthesis", "basis", "metabolism", "mechanism",
                               "organism", "disease", "disorder", "syndrome", "coma", "aroma",
                               "soma", "genoma", "trauma", "chromosome", "mitosis", "apoptosis",
                               "tuberosis", "necrosis", "emphasis", "homeostasis", "osmosis"})
#: Upper-case words that are lab jargon, not disease abbreviations.
LAB_ABBREVIATIONS = frozenset({"RNA", "DNA", "PBMC", "PBMCS", "RIN", "PCR", "ID", "NA",
                               "HC", "NC", "CTRL", "CTL", "HV", "BM", "PB", "WB", "FFPE",
                               "LCL", "IPS", "IPSC", "ES", "HE", "IHC", "NM", "PT", "STG",
                               "II", "III", "IV", "VS", "T", "N", "M", "F", "A", "B", "C",
                               "ND", "BL", "WK", "SAMPLE", "REP", "GSM", "CD", "TISSUE"})

#: Words that describe a state, a grade or a response of any disease: a
#: lexicon entry made only of them (and cancer words, numbers) -- ``tumor``,
#: ``stage III``, ``responder``, ``poorly differentiated`` -- is weak
#: evidence (level 1), as a bare cancer word is.
GENERIC_STATE_WORDS = frozenset({
    "primary", "metastatic", "metastasis", "recurrent", "recurrence", "relapse",
    "relapsed", "refractory", "advanced", "early", "late", "local", "localized",
    "locally", "stage", "grade", "type", "class", "group", "subgroup", "i", "ii", "iii",
    "iv", "ia", "ib", "low", "high", "intermediate", "risk", "well", "moderately", "poorly",
    "differentiated", "undifferentiated", "differentiation", "mixed", "classical",
    "classic", "mesenchymal", "proliferative", "neural", "squamous", "cell", "mucinous",
    "serous", "papillary", "solid", "adenosquamous", "responder", "non", "response",
    "good", "poor", "complete", "partial", "sensitive", "resistant", "remission",
    "active", "inactive", "stable", "severe", "mild", "moderate", "chronic", "acute",
    "lymph", "node", "invasive", "in", "situ", "of", "the", "with", "and", "tissue",
    "lesion", "positive", "negative", "mutant", "mutated", "wild", "microsatellite",
    "instability", "msi", "mss", "hypermutated", "baseline", "treated", "untreated",
    "patient", "case", "affected", "diseased", "tumor", "cancer", "carcinoma",
    "adenocarcinoma", "malignant", "neoplasm", "neoplasia", "cancerous", "benign",
    "resection", "biopsy", "surgery", "progression", "progressive", "survival", "survivor",
    "death", "dead", "alive", "event", "free", "new", "onset", "de", "novo",
})

#: Key words that sort a characteristics key into a category (a key may fall
#: into several). Compared with the key's canonical tokens.
KEY_CATEGORIES: Dict[str, frozenset] = {
    # the group a sample belongs to
    "disease": frozenset({"disease", "diagnosis", "diagnose", "condition", "status",
                          "state", "phenotype", "group", "class", "category", "cohort",
                          "health", "clinical", "case", "control", "affected", "patient",
                          "subject", "individual", "dx", "pathology", "illness",
                          "classification", "arm", "population", "participant"}),
    # what was sampled
    "tissue": frozenset({"tissue", "cell", "source", "organ", "organism", "part",
                         "histology", "histological", "histologic", "sample", "specimen",
                         "biopsy", "material", "site", "location", "region", "origin",
                         "lesion", "compartment", "morphology"}),
    # a cell line (a model, not a patient)
    "cell_line": frozenset({"line", "clone", "passage", "strain", "xenograft",
                            "atcc", "cosmic", "cellosaurus"}),
    # an experimental factor
    "treatment": frozenset({"treatment", "treated", "agent", "drug", "compound", "dose",
                            "dosage", "concentration", "stimulation", "stimulus",
                            "exposure", "intervention", "therapy", "transfection",
                            "transfected", "sirna", "shrna", "vector", "infection",
                            "perturbation", "perturbagen", "culture", "medium", "vehicle",
                            "inhibitor", "aso", "knockdown", "overexpression",
                            "regimen", "supplementation", "diet"}),
    # how a disease went or responded
    "response": frozenset({"response", "responder", "respond", "outcome",
                           "relapse", "remission", "recurrence", "recurrent",
                           "progression", "prognosis", "failure", "success",
                           "sensitivity", "resistance", "benefit", "course", "efficacy",
                           "trg", "regression", "pcr"}),
    # whether and how long a patient lived (or lived free of an event)
    "survival": frozenset({"survival", "survived", "event", "efs", "os", "pfs", "dfs",
                           "rfs", "mfs", "death", "dead", "alive", "vital", "deceased",
                           "mortality", "censored", "censor"}),
    # how far a disease went
    "stage": frozenset({"stage", "grade", "grading", "score", "tnm", "gleason", "isup",
                        "severity", "ajcc", "figo", "braak", "cerad", "nyha", "gold",
                        "classification", "level", "index", "activity", "extent",
                        "spread", "invasion", "size", "burden", "t", "n", "m"}),
    # which kind of the disease
    "subtype": frozenset({"subtype", "subgroup", "subclass", "type", "variant", "form",
                          "cluster", "molecular", "origin", "coo", "histotype", "pattern"}),
    # genetic make-up
    "genotype": frozenset({"genotype", "mutation", "mutant", "mutated", "variant",
                           "allele", "carrier", "genetic", "gene", "snp", "deletion",
                           "karyotype", "fish", "cnv", "hla", "apoe", "methylation"}),
    # when a sample was taken
    "time": frozenset({"time", "timepoint", "visit", "day", "week", "month", "hour",
                       "year", "date", "baseline", "follow", "collection", "period",
                       "phase", "cycle", "session", "point"}),
    # identifiers and technical fields
    "identifier": frozenset({"id", "identifier", "patient", "subject", "individual",
                             "donor", "sample", "replicate", "rep", "batch", "lane",
                             "plate", "chip", "array", "run", "barcode", "well",
                             "family", "pair", "number", "code", "library", "rin",
                             "pmi", "ph", "flowcell", "slide", "scan", "hybridization",
                             "accession", "name", "label", "record", "bank", "study",
                             "dataset", "set", "fraction", "kit", "protocol", "platform",
                             "principal", "component", "pc1", "pc2", "quality"}),
    # demographic and anthropometric fields other than age and sex
    "demographic": frozenset({"race", "ethnicity", "ethnic", "ancestry", "bmi",
                              "weight", "height", "smoking", "smoker", "education",
                              "income", "alcohol", "menopausal", "menopause", "hand",
                              "handedness", "country", "nationality"}),
}

#: Words that mark the "marked" state of a row that names no disease (a
#: response, an event, a treatment, a mutation, a high level): such a value is
#: coded 1 and its unmarked counterpart 0 (curators' convention).
MARKED_WORDS = frozenset({
    "responder", "response", "respond", "responded", "responsive", "sensitive",
    "good", "complete", "pcr", "cr", "pr", "relapse", "relapsed", "recurrence",
    "recurrent", "recurred", "progression", "progressed", "failure", "fail", "failed",
    "death", "dead", "died", "deceased", "nonsurvivor", "event", "positive", "pos",
    "mutant", "mutated", "mutation", "carrier", "treated", "treatment", "infected",
    "infection", "exposed", "exposure", "high", "higher", "severe", "critical",
    "case", "affected", "stressed", "stress", "knockout", "knockdown", "ko", "kd",
    "overexpression", "transgenic", "tg", "yes", "present", "lesion", "lesional",
    "plaque", "involved", "inflamed", "symptomatic",
})
#: Their unmarked counterparts (coded 0).
UNMARKED_WORDS = frozenset({
    "resistant", "resistance", "poor", "stable", "remission", "success", "successful",
    "survivor", "alive", "living", "free", "negative", "neg", "wild", "wt", "wildtype",
    "untreated", "placebo", "vehicle", "mock", "low", "lower", "mild", "normal",
    "control", "no", "unexposed", "uninfected", "sd", "pd", "nr", "parent", "parental",
    "none", "absent", "uninvolved", "non", "asymptomatic", "naive", "sham", "scrambled",
    "nontargeting", "empty",
})
#: Roman numerals of stages and grades.
ROMAN_NUMERALS = {"i": 1.0, "ii": 2.0, "iii": 3.0, "iv": 4.0, "v": 5.0}
