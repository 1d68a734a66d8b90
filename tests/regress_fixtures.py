"""Small preprocess trees for the statistics tests (generated, never copied).

A tree holds ``<Trait>/cohort_info.json`` and ``<Trait>/<cohort>.csv`` linked
tables (samples x [trait, Age?, Gender?, genes]) plus a ``task_info.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence

import numpy as np
import pandas as pd


def gene_names(count: int, prefix: str = "G") -> List[str]:
    """``G0000``, ``G0001``, ... (valid-looking, sortable symbols)."""
    return [f"{prefix}{i:04d}" for i in range(count)]


def make_linked(rng: np.random.Generator, trait: str, genes: Sequence[str], n: int,
                planted: Mapping[str, float], binary: bool = True, age: bool = False,
                gender: bool = False, noise: float = 1.0, age_effect: float = 0.0,
                gene_values: Optional[np.ndarray] = None) -> pd.DataFrame:
    """A linked table whose trait depends on the ``planted`` genes.

    The latent score is ``sum(effect * standardized gene) + age_effect * Age_z +
    noise * N(0, 1)``; a binary trait is the score above its median.
    """
    X = rng.normal(size=(n, len(genes))) + 8.0 if gene_values is None else gene_values
    frame = pd.DataFrame(X, columns=list(genes),
                         index=[f"S{trait[:3]}{i:04d}" for i in range(n)])
    score = noise * rng.normal(size=n)
    for gene, effect in planted.items():
        column = frame[gene].to_numpy()
        score += effect * (column - column.mean()) / column.std()
    clinical = {}
    if age:
        ages = rng.uniform(20, 80, size=n).round(1)
        score += age_effect * (ages - ages.mean()) / ages.std()
        clinical["Age"] = ages
    if gender:
        clinical["Gender"] = rng.integers(0, 2, size=n).astype(float)
    y = (score > np.median(score)).astype(float) if binary else score
    head = pd.DataFrame({trait: y, **clinical}, index=frame.index)
    return pd.concat([head, frame], axis=1)


def cohort_record(frame: pd.DataFrame, usable: bool = True) -> Dict[str, object]:
    """A cohort_info.json record for a linked table (SPEC 4.8 key order)."""
    return {"is_usable": usable, "is_gene_available": True, "is_trait_available": True,
            "is_available": True, "is_biased": not usable,
            "has_age": "Age" in frame.columns, "has_gender": "Gender" in frame.columns,
            "sample_size": int(frame.shape[0]), "note": "synthetic"}


def write_tree(root: Path, cohorts: Mapping[str, Mapping[str, pd.DataFrame]],
               task_info: Mapping[str, Mapping[str, list]]) -> Dict[str, Path]:
    """Write a preprocess tree and task info under ``root``.

    Returns
    -------
    dict
        ``{"preprocess": ..., "regress": ..., "task_info": ...}`` paths.
    """
    preprocess = root / "output" / "preprocess"
    for trait, tables in cohorts.items():
        folder = preprocess / trait
        folder.mkdir(parents=True, exist_ok=True)
        records = {}
        for cohort, frame in tables.items():
            frame.to_csv(folder / f"{cohort}.csv")
            records[cohort] = cohort_record(frame)
        (folder / "cohort_info.json").write_text(json.dumps(records, indent=4))
    task_path = root / "metadata" / "task_info.json"
    task_path.parent.mkdir(parents=True, exist_ok=True)
    task_path.write_text(json.dumps(task_info, indent=4))
    return {"preprocess": preprocess, "regress": root / "output" / "regress",
            "task_info": task_path}


def small_benchmark(root: Path, seed: int = 0, n_genes: int = 120) -> Dict[str, Path]:
    """Three traits with one-step and two-step problems.

    * ``Asthma``: binary, Age and Gender, planted genes G0000-G0002.
    * ``Obesity``: continuous, planted G0010-G0012 (a condition of Asthma).
    * ``Psoriasis``: binary, no clinical columns; its condition Gender has no
      usable cohort (skipped problem).
    """
    rng = np.random.default_rng(seed)
    genes = gene_names(n_genes)
    asthma = make_linked(rng, "Asthma", genes, 60, {"G0000": 2.0, "G0001": -2.0, "G0002": 1.5},
                         age=True, gender=True)
    asthma_small = make_linked(rng, "Asthma", genes, 40, {"G0000": 2.0}, age=True)
    obesity = make_linked(rng, "Obesity", genes, 50, {"G0010": 1.0, "G0011": 1.0,
                                                      "G0012": -1.0}, binary=False)
    psoriasis = make_linked(rng, "Psoriasis", genes, 45, {"G0020": 2.0, "G0021": 2.0})
    task_info = {
        "Asthma": {"related_genes": ["G0000", "G0001", "G0002", "G0003", "NOTPRESENT"],
                   "conditions": ["Age", "Gender", "Obesity"]},
        "Obesity": {"related_genes": ["G0010", "G0011", "G0012"], "conditions": ["Age"]},
        "Psoriasis": {"related_genes": ["G0020", "G0021"], "conditions": ["Gender"]},
    }
    return write_tree(root, {"Asthma": {"GSE1001": asthma, "GSE1002": asthma_small},
                             "Obesity": {"GSE2001": obesity},
                             "Psoriasis": {"GSE3001": psoriasis}}, task_info)


def write_benchmark(root: Path, n_samples: int = 300, n_genes: int = 4000,
                    n_traits: int = 2, n_conditions: int = 30, seed: int = 1
                    ) -> Dict[str, Path]:
    """A slow tree: ``n_traits`` large cohorts, each trait with many two-step problems.

    Trait ``Big<k>`` has one ``n_samples x n_genes`` cohort with Age and
    Gender; its conditions are Age, Gender and ``n_conditions`` small traits
    ``Cond<j>`` (40 samples x 30 genes sharing known genes with the large
    tables), so one trait's group of problems runs long in one worker.
    """
    rng = np.random.default_rng(seed)
    genes = gene_names(n_genes)
    conditions = [f"Cond{j:02d}" for j in range(n_conditions)]
    cohorts: Dict[str, Dict[str, pd.DataFrame]] = {}
    task_info: Dict[str, Dict[str, list]] = {}
    for k in range(n_traits):
        trait = f"Big{k}"
        cohorts[trait] = {f"GSE9{k:03d}": make_linked(
            rng, trait, genes, n_samples, {genes[0]: 1.0, genes[1]: -1.0},
            age=True, gender=True)}
        task_info[trait] = {"related_genes": genes[:5], "conditions": ["Age", "Gender",
                                                                        *conditions]}
    for j, condition in enumerate(conditions):
        small = genes[10 + j: 40 + j]
        cohorts[condition] = {f"GSE8{j:03d}": make_linked(rng, condition, small, 40,
                                                           {small[0]: 1.0}, binary=False)}
        task_info[condition] = {"related_genes": small[:3], "conditions": []}
    return write_tree(root, cohorts, task_info)
