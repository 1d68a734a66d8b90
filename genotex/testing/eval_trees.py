"""Small synthetic output trees for the evaluator tests (written in test code, no real data).

``write_tree(root)`` writes a reference tree laid out like ``output/`` (SPEC 2)
with two traits, five usable cohorts (one of them the TCGA cohort ``Xena``),
one unusable cohort and a regression JSON for every problem of
:data:`TASK_INFO`:

========================  ==========================================================
trait / cohort            content
========================  ==========================================================
Trait_A / GSE100          usable, 12 samples, Age + Gender   (selected: None, Age, Gender)
Trait_A / GSE200          usable, 8 samples, Age only
Trait_A / Xena            usable, 10 samples, Gender only
Trait_A / GSE300          not usable (no linked table)
Trait_B / GSE400          usable, 9 samples, Age             (selected for Trait_B)
Trait_B / GSE500          usable, 6 samples, Age
========================  ==========================================================

Two-step problem ``Trait_A|Trait_B`` selects (GSE100, GSE400): the largest
sample product whose linked tables share Trait_B's related genes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import pandas as pd

GENES = [f"GENE{i}" for i in range(1, 31)]
TASK_INFO: Dict[str, Dict[str, List[str]]] = {
    "Trait_A": {"related_genes": ["GENE1", "GENE2", "GENE3"],
                "conditions": ["Age", "Gender", "Trait_B"]},
    "Trait_B": {"related_genes": ["GENE4", "GENE5"], "conditions": ["Age"]},
}
COHORTS = {
    "Trait_A": [("GSE100", 12, True, True, True), ("GSE200", 8, True, True, False),
                ("Xena", 10, True, False, True), ("GSE300", 7, False, True, True)],
    "Trait_B": [("GSE400", 9, True, True, False), ("GSE500", 6, True, True, False)],
}
SIGNIFICANT = {
    ("Trait_A", "None"): ["GENE7", "GENE3", "GENE12", "GENE1"],
    ("Trait_A", "Age"): ["GENE3", "GENE9"],
    ("Trait_A", "Gender"): [],
    ("Trait_A", "Trait_B"): ["GENE2", "GENE20", "GENE21"],
    ("Trait_B", "None"): ["GENE5"],
    ("Trait_B", "Age"): ["GENE4", "GENE5", "GENE6"],
}


def regress_json(genes: Sequence[str], metrics: Optional[Dict[str, float]] = None,
                 lmm: bool = False) -> Dict[str, Any]:
    """A regression JSON in the SPEC 2 format with decreasing coefficients."""
    coefficients = [round(1.0 / (i + 1), 6) for i in range(len(genes))]
    block: Dict[str, Any] = {"Variable": list(genes), "Coefficient": coefficients,
                             "Absolute Coefficient": [abs(c) for c in coefficients]}
    if lmm:
        block["p_value"] = [0.001 * (i + 1) for i in range(len(genes))]
        block["corrected_p_value"] = [0.002 * (i + 1) for i in range(len(genes))]
    prediction = metrics if metrics is not None else {"accuracy": 80.0, "f1": 75.0}
    return {"significant_genes": block,
            "cv_performance": {"prediction": prediction,
                               "selection": {"precision": 10.0, "recall": 5.0}}}


def cohort_tables(trait: str, cohort: str, n_samples: int, has_age: bool,
                  has_gender: bool, seed: int) -> Dict[str, pd.DataFrame]:
    """Gene (genes x samples), clinical (features x samples) and linked tables."""
    rng = np.random.default_rng(seed)
    prefix = "TCGA-AA-" if cohort == "Xena" else "GSM"
    samples = [f"{prefix}{seed:02d}{i:03d}" for i in range(n_samples)]
    gene = pd.DataFrame(rng.normal(7.0, 2.0, (len(GENES), n_samples)).round(4),
                        index=pd.Index(GENES, name="Gene"), columns=samples)
    clinical_rows = {trait: [float(i % 2) for i in range(n_samples)]}
    if has_age:
        clinical_rows["Age"] = list(rng.integers(30, 80, n_samples).astype(float))
    if has_gender:
        clinical_rows["Gender"] = [float((i // 2) % 2) for i in range(n_samples)]
    clinical = pd.DataFrame(clinical_rows, index=samples).T
    linked = pd.concat([clinical.T, gene.T], axis=1)
    linked.index.name = None
    return {"gene": gene, "clinical": clinical, "linked": linked}


def cohort_record(n_samples: int, usable: bool, has_age: bool,
                  has_gender: bool) -> Dict[str, Any]:
    """A cohort_info record with the SPEC 4.8 keys in order."""
    return {"is_usable": usable, "is_gene_available": True, "is_trait_available": usable,
            "is_available": usable, "is_biased": False if usable else None,
            "has_age": has_age, "has_gender": has_gender,
            "sample_size": n_samples if usable else None, "note": ""}


def write_tree(root: Path, significant: Optional[Dict[tuple, List[str]]] = None) -> Path:
    """Write the reference tree described in the module docstring under ``root``."""
    significant = SIGNIFICANT if significant is None else significant
    seed = 0
    for trait, cohorts in COHORTS.items():
        base = root / "preprocess" / trait
        (base / "gene_data").mkdir(parents=True, exist_ok=True)
        (base / "clinical_data").mkdir(parents=True, exist_ok=True)
        info = {}
        for cohort, n_samples, usable, has_age, has_gender in cohorts:
            seed += 1
            tables = cohort_tables(trait, cohort, n_samples, has_age, has_gender, seed)
            tables["gene"].to_csv(base / "gene_data" / f"{cohort}.csv")
            tables["clinical"].to_csv(base / "clinical_data" / f"{cohort}.csv")
            if usable:
                tables["linked"].to_csv(base / f"{cohort}.csv")
            info[cohort] = cohort_record(n_samples, usable, has_age, has_gender)
        (base / "cohort_info.json").write_text(json.dumps(info, indent=4))
    for (trait, condition), genes in significant.items():
        folder = root / "regress" / trait
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"significant_genes_condition_{condition}.json"
        path.write_text(json.dumps(regress_json(genes, lmm=condition == "Age")))
    return root


def write_task_info(path: Path, task_info: Optional[Dict[str, Any]] = None) -> Path:
    """Write ``task_info.json`` (default :data:`TASK_INFO`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(TASK_INFO if task_info is None else task_info))
    return path


def hostile_cohort_info(n_records: int, prefix: str = "GSE") -> Dict[str, Any]:
    """``n_records`` usable, valid records with distinct sizes and no tables behind them
    (about 280 bytes each): the two-step selection's worst case (SPEC 5.2)."""
    info = {}
    for i in range(n_records):
        record = cohort_record(10 + i % 977, True, True, True)
        record["note"] = f"hostile record {i}; " + "x" * 80
        info[f"{prefix}{7_000_000 + i}"] = record
    return info


def write_hostile_tree(reference: Path, prediction: Path, n_records: int = 1000,
                       tables: bool = False) -> Path:
    """A prediction tree: a copy of ``reference`` whose Trait_A and Trait_B
    ``cohort_info.json`` (a two-step pair of :data:`TASK_INFO`) hold ``n_records``
    usable records each.

    With ``tables``, each record also gets a one-sample linked table whose genes never
    make a pair (Trait_A's tables hold GENE5, Trait_B's GENE4, of Trait_B's related
    GENE4 and GENE5): every one of the n x n pairs fails on readable tables.
    """
    import shutil

    shutil.copytree(reference, prediction)
    for trait, gene in (("Trait_A", "GENE5"), ("Trait_B", "GENE4")):
        info = hostile_cohort_info(n_records)
        folder = prediction / "preprocess" / trait
        (folder / "cohort_info.json").write_text(json.dumps(info))
        if tables:
            for cohort in info:
                (folder / f"{cohort}.csv").write_text(f",{trait},{gene}\nS1,1,1.0\n")
    return prediction
