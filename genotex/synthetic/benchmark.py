"""A whole synthetic benchmark folder from a preset (``generate_synthetic.py --preset``).

Layout of the folder ``DIR``::

    DIR/input/GEO/<Trait>/<GSE>/...      raw inputs (run_agent.py --input-dir DIR/input)
    DIR/input/TCGA/<Xena folder>/...
    DIR/metadata/task_info.json          the traits, conditions and related genes
    DIR/metadata/gene_synonym.json       the maps the cohorts were generated with
    DIR/metadata/gene_entrez.json        (and gene_ensembl.json when present)
    DIR/reference/preprocess/...         the planted truth's reference tables
    DIR/synthetic_truth.json             the planted truth (kept out of input/ and reference/)

``DIR/reference/regress`` is written by the statistics (``regress.py`` over the
reference tree), e.g. by ``benchmarks/bench_pipeline.py``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Mapping, Optional

from genotex.synthetic.files import FAST_COMPRESSION, Compression
from genotex.synthetic.generate import Sources, generate
from genotex.synthetic.genes import official_symbols
from genotex.synthetic.presets import (PRESETS, generated_task_info, plan_statistics,
                                       preset_plan, subset_plan)
from genotex.synthetic.spec import Plan, PlanError
from utils.columns import CLINICAL_COLUMNS
from utils.io import PathLike, atomic_write_bytes
from utils.schemas.task_info import write_task_info
from utils.paths import GENE_SYNONYM_NAME
from utils.symbols import ENSEMBL_MAP_NAME, ENTREZ_MAP_NAME

logger = logging.getLogger(__name__)

TRUTH_NAME = "synthetic_truth.json"


@dataclass(frozen=True)
class BenchmarkFolder:
    """Paths of a benchmark folder (see the module docstring)."""

    root: Path

    @property
    def input(self) -> Path:
        """Raw inputs."""
        return self.root / "input"

    @property
    def metadata(self) -> Path:
        """Task info and gene maps."""
        return self.root / "metadata"

    @property
    def reference(self) -> Path:
        """Reference tree (``preprocess/``, and ``regress/`` once the statistics ran)."""
        return self.root / "reference"

    @property
    def truth(self) -> Path:
        """The planted truth."""
        return self.root / TRUTH_NAME


def restrict_task_info(task_info: Mapping[str, Any], plan: Plan) -> Dict[str, Any]:
    """The task info of the traits with a cohort in the plan; conditions limited to Age,
    Gender and those traits."""
    traits = {c.trait for c in plan.cohorts}
    return {trait: {"related_genes": list(entry.get("related_genes", [])),
                    "conditions": [c for c in entry.get("conditions", [])
                                   if c in CLINICAL_COLUMNS or c in traits]}
            for trait, entry in sorted(task_info.items()) if trait in traits}


def write_preset(preset: str, out: PathLike, synonyms: Mapping[str, str], synonym_path: Path,
                 entrez: Optional[Mapping[str, str]], source_task_info: Optional[Mapping] = None,
                 n_cohorts: Optional[int] = None, jobs: int = 1, seed: int = 0,
                 compression: Compression = FAST_COMPRESSION, progress: bool = False
                 ) -> Dict[str, Any]:
    """Generate a preset benchmark folder; returns its statistics, time and size.

    Parameters
    ----------
    preset : str
        A key of :data:`genotex.synthetic.presets.PRESETS`.
    out : path-like
        The benchmark folder (created).
    synonyms : mapping
        The full synonym map; its file ``synonym_path`` (and the companion maps
        beside it) are copied into ``<out>/metadata``.
    entrez : mapping, optional
        GeneID map (RNA-seq count tables by GeneID).
    source_task_info : mapping, optional
        Traits to use (e.g. the real ``task_info.json``); generated when None.
    n_cohorts : int, optional
        Only the first N cohorts of the preset (a random sample).
    jobs : int
        Processes writing cohorts.
    seed : int
    compression : Compression
    progress : bool
    """
    shape = PRESETS[preset]
    folder = BenchmarkFolder(Path(out))
    if len(official_symbols(synonyms)) < shape.universe:
        raise PlanError(synonym_path, f"preset {preset} needs a synonym map with at least "
                        f"{shape.universe:,} official symbols (the full map: "
                        "download/get_gene_synonyms.py --gene-info Homo_sapiens.gene_info.gz "
                        "--output-dir DIR)")
    generated = source_task_info is None
    task_info = generated_task_info(shape, synonyms, seed) if generated \
        else dict(source_task_info)
    plan = subset_plan(preset_plan(shape, synonyms, task_info, seed, generated), n_cohorts)
    kept = restrict_task_info(task_info, plan) if n_cohorts else \
        {t: task_info[t] for t in sorted(task_info)}
    for name in (GENE_SYNONYM_NAME, ENTREZ_MAP_NAME, ENSEMBL_MAP_NAME):
        source = synonym_path.parent / name if name != GENE_SYNONYM_NAME else synonym_path
        if source.is_file():
            atomic_write_bytes(folder.metadata / name, source.read_bytes())
    write_task_info(folder.metadata / "task_info.json", kept)
    start = time.monotonic()
    generate(plan, Sources(synonyms, task_info, entrez), folder.input, folder.truth,
             source=f"<preset {preset}>", progress=progress, jobs=jobs,
             compression=compression, reference_dir=folder.reference / "preprocess")
    seconds = time.monotonic() - start
    summary = plan_statistics(plan)
    summary.update(seconds=seconds, input_bytes=folder_bytes(folder.input),
                   reference_bytes=folder_bytes(folder.reference),
                   problems=len(kept) + sum(len(e["conditions"]) for e in kept.values()))
    return summary


def folder_bytes(root: Path) -> int:
    """Bytes of every file below ``root``."""
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.is_dir() \
        else 0
