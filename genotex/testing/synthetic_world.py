"""A small, hand-made world for synthetic-generator tests (not a test module).

It holds a synonym map of ~90 official symbols with a few aliases, a GeneID
map, a task info for three traits and a plan whose cohorts exercise every
generator option while staying fast (a few seconds in all).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Dict

from genotex.synthetic import Sources, generate, plan_from_mapping

RELATED = {
    "Rheumatoid_Arthritis": ["TNF", "IL6", "PTPN22", "STAT4", "CTLA4", "IL17A", "HLA-DRB1",
                             "TRAF1", "CD40", "IRF5", "PADI4", "CCR6"],
    "Prostate_Cancer": ["AR", "KLK3", "NKX3-1", "PTEN", "TMPRSS2", "ERG", "SPOP", "FOXA1",
                        "MYC", "BRCA2", "HOXB13", "CHEK2"],
    "Heart_rate": ["HCN4", "KCNH2", "SCN5A", "GJA1", "MYH6", "TBX5", "RGS6", "CHRM2",
                   "KCNJ5", "NKX2-5"],
}
SEX_GENES = ["XIST", "RPS4Y1", "DDX3Y", "KDM5D", "UTY", "EIF1AY"]
BACKGROUND = ["ACTB", "GAPDH", "ERBB2", "TP53", "B2M", "RPLP0", "EEF1A1", "TUBB", "PPIA",
              "HPRT1", "TBP", "GUSB", "HMBS", "SDHA", "YWHAZ", "UBC", "PGK1", "LDHA", "ALDOA",
              "ENO1", "PKM", "TPI1", "GPI", "PFKP", "HK2", "SLC2A1", "VEGFA", "HIF1A",
              "EGFR", "KRAS", "BRAF", "PIK3CA", "AKT1", "MTOR", "CDK4", "CDK6", "CCND1",
              "RB1", "E2F1", "MKI67", "TOP2A", "PCNA", "MCM2", "AURKA", "PLK1", "BUB1",
              "CDC20", "CCNB1", "FOXM1", "BIRC5", "CD3E", "CD4", "CD8A", "MS4A1", "CD19",
              "NCAM1", "ITGAM", "CD14", "FCGR3A", "LYZ", "S100A8", "S100A9", "HBB", "HBA1",
              "ALB", "APOA1", "TTR", "KRT8", "KRT18", "VIM"]
ALIASES = {"TNFA": "TNF", "TNFSF2": "TNF", "HER2": "ERBB2", "NEU": "ERBB2", "NKX3A": "NKX3-1",
           "P53": "TP53", "PSA": "KLK3", "IFNB2": "IL6", "CX43": "GJA1", "HERG": "KCNH2",
           "GAPD": "GAPDH", "LOC12345": "ACTB"}


def synonym_map() -> Dict[str, str]:
    """``{ALIAS_UPPER: Official}`` of the small world."""
    genes = [g for genes in RELATED.values() for g in genes] + SEX_GENES + BACKGROUND
    out = {g.upper(): g for g in genes}
    out.update({a: g for a, g in ALIASES.items() if a not in out})
    return out


def entrez_map() -> Dict[str, str]:
    """``{GeneID: symbol}`` with made-up ids."""
    genes = sorted(set(synonym_map().values()))
    return {str(1000 + k): g for k, g in enumerate(genes)}


def task_info() -> Dict[str, Any]:
    """Task info of the three traits (conditions include one foreign trait)."""
    return {
        "Rheumatoid_Arthritis": {"related_genes": RELATED["Rheumatoid_Arthritis"],
                                 "conditions": ["Gender", "Age", "Heart_rate", "Obesity"]},
        "Prostate_Cancer": {"related_genes": RELATED["Prostate_Cancer"] + ["NOT_A_GENE"],
                            "conditions": ["Age", "Rheumatoid_Arthritis"]},
        "Heart_rate": {"related_genes": RELATED["Heart_rate"],
                       "conditions": ["Age", "Gender", "Rheumatoid_Arthritis"]},
    }


PLAN: Dict[str, Any] = {
    "seed": 11,
    "genes": {"known_per_trait": 10, "background": BACKGROUND, "sex_genes": SEX_GENES,
              "n_age_genes": 3, "n_gender_genes": 2},
    "traits": {
        "Rheumatoid_Arthritis": {"n_known": 4, "n_novel": 2, "age_effect": 0.4,
                                 "gender_effect": -0.5, "case_text": "rheumatoid arthritis",
                                 "tissue": "synovial tissue"},
        "Prostate_Cancer": {"n_known": 4, "n_novel": 1, "sex": "male",
                            "case_text": "prostate adenocarcinoma",
                            "control_text": "benign tissue"},
        "Heart_rate": {"kind": "continuous", "n_known": 4, "n_novel": 1, "label": "heart rate",
                       "unit": "bpm", "mean": 70, "sd": 10},
    },
    "platforms": {"GPL91001": {"style": "affymetrix", "alias_fraction": 0.3,
                               "multi_gene_fraction": 0.1},
                  "GPL91002": {"style": "illumina", "alias_fraction": 0.2},
                  "GPL91003": {"style": "agilent"},
                  "GPL91004": {"style": "rnaseq"},
                  "GPL91009": {"style": "affymetrix", "organism": "Mus musculus"}},
    "cohorts": [
        {"id": "GSE9100001", "trait": "Rheumatoid_Arthritis", "platform": "GPL91001",
         "n_samples": 300, "batch": True, "female_fraction": 1.0, "spelling": 0,
         "empty_characteristics_row": True},
        {"id": "GSE9100002", "trait": "Rheumatoid_Arthritis", "platform": "GPL91002",
         "n_samples": 160, "missing_token": "null", "missing_rate": 0.02, "missing_genes": 3,
         "missing_samples": 2, "age_missing": 3, "trait_missing": 2, "spelling": 1},
        {"id": "GSE9100003", "trait": "Rheumatoid_Arthritis", "platform": "GPL91001",
         "n_samples": 30, "has_trait": False, "spelling": 2,
         "extra_platforms": [{"platform": "GPL91009", "n_samples": 6}]},
        {"id": "GSE9100004", "trait": "Rheumatoid_Arthritis", "platform": "GPL91003",
         "n_samples": 40, "n_cases": 37, "scale": "linear", "trait_field": "source_name",
         "spelling": 3},
        {"id": "GSE9100005", "trait": "Heart_rate", "platform": "GPL91004", "n_samples": 30,
         "scale": "counts", "spelling": 4},
        {"id": "GSE9100006", "trait": "Heart_rate", "platform": "GPL91002", "n_samples": 40,
         "trait_field": "characteristics", "missing_rate": 0.01, "spelling": 5},
        {"id": "Xena", "trait": "Prostate_Cancer", "source": "tcga", "code": "PRAD",
         "n_samples": 210, "case_fraction": 0.8, "n_other": 4, "n_clinical_only": 3,
         "age_missing": 2},
    ],
}


def plan_mapping(**changes: Any) -> Dict[str, Any]:
    """A deep copy of :data:`PLAN` with top-level changes."""
    data = copy.deepcopy(PLAN)
    data.update(changes)
    return data


def sources() -> Sources:
    """Parsed metadata of the small world."""
    return Sources(synonyms=synonym_map(), task_info=task_info(), entrez=entrez_map(),
                   digests={"gene_synonyms": None, "task_info": None, "gene_entrez": None})


def write_metadata(folder: Path) -> Dict[str, Path]:
    """Write the world's metadata files; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {"gene_synonyms": folder / "gene_synonym.json",
             "gene_entrez": folder / "gene_entrez.json",
             "task_info": folder / "task_info.json"}
    files["gene_synonyms"].write_text(json.dumps(synonym_map()), encoding="utf-8")
    files["gene_entrez"].write_text(json.dumps(entrez_map()), encoding="utf-8")
    files["task_info"].write_text(json.dumps(task_info()), encoding="utf-8")
    return files


def generate_world(out: Path, truth: Path | None = None, **changes: Any) -> Dict[str, Any]:
    """Generate the plan's input tree below ``out``; return the truth."""
    return generate(plan_from_mapping(plan_mapping(**changes)), sources(), out, truth)
