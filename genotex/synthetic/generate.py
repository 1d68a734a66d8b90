"""Generate a whole synthetic input tree and its planted truth from a plan."""

from __future__ import annotations

import hashlib
import logging
from concurrent.futures import as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from genotex.synthetic.cohorts import write_geo_cohort, write_tcga_cohort
from genotex.synthetic.files import DEMO_COMPRESSION, Compression
from genotex.synthetic.genes import GeneCatalog, build_catalog
from genotex.synthetic.ids import GSM_PER_SERIES, gsm_ids
from genotex.synthetic.model import Biology, build_biology
from genotex.synthetic.platform import ProbeDesign, design_platform
from genotex.synthetic.spec import Plan, PlanError, plan_to_mapping
from utils.columns import CLINICAL_COLUMNS
from utils.io import PathLike, atomic_write_json, dumps_json
from utils.logs import progress as progress_bar
from utils.runtime import worker_pool

logger = logging.getLogger(__name__)

TRUTH_FORMAT_VERSION = 1


@dataclass(frozen=True)
class Sources:
    """The metadata a generation reads (parsed), with their digests for provenance.

    Attributes
    ----------
    synonyms : mapping
        ``{ALIAS_UPPER: Official}``.
    task_info : mapping
        ``{trait: {"related_genes": [...], "conditions": [...]}}``.
    entrez : mapping, optional
        ``{GeneID: symbol}``.
    digests : dict
        File role -> SHA-256 of the file read (``None`` when not read from a file).
    """

    synonyms: Mapping[str, str]
    task_info: Mapping[str, Any]
    entrez: Optional[Mapping[str, str]] = None
    digests: Optional[Mapping[str, Optional[str]]] = None


def read_sources(gene_synonyms: PathLike, task_info: PathLike,
                 entrez_map: Optional[PathLike] = None) -> Sources:
    """Read the synonym map, the task info and the GeneID map, with their digests.

    Parameters
    ----------
    gene_synonyms, task_info : path
        ``gene_synonym.json`` and ``task_info.json``.
    entrez_map : path, optional
        ``{GeneID: symbol}`` JSON; default ``gene_entrez.json`` beside the synonym
        map, read only when that file exists.

    Raises
    ------
    InputFileError
        When a file cannot be read, or ``entrez_map`` is given and absent.
    """
    from utils.errors import InputFileError
    from utils.io import file_sha256
    from utils.problems import load_task_info
    from utils.symbols import ENTREZ_MAP_NAME, companion_map_path, load_gene_map

    entrez_path = (Path(entrez_map) if entrez_map is not None
                   else companion_map_path(ENTREZ_MAP_NAME, gene_synonyms))
    if entrez_map is not None and not entrez_path.is_file():
        raise InputFileError(entrez_path, "GeneID map not found")
    entrez = load_gene_map(entrez_path) if entrez_path.is_file() else None
    return Sources(synonyms=load_gene_map(gene_synonyms), task_info=load_task_info(task_info),
                   entrez=entrez,
                   digests={"gene_synonyms": file_sha256(gene_synonyms),
                            "task_info": file_sha256(task_info),
                            "gene_entrez": file_sha256(entrez_path) if entrez else None})


def check_sample_ids(plan: Plan, source: str = "<plan>") -> None:
    """Refuse plans whose GEO cohorts would share GSM accessions."""
    owner: Dict[str, str] = {}
    for cohort in plan.cohorts:
        if cohort.source != "geo":
            continue
        total = cohort.n_samples + sum(e.n_samples for e in cohort.extra_platforms)
        if cohort.gsm_start is None and total > GSM_PER_SERIES:
            raise PlanError(source, f"{cohort.key}: more than {GSM_PER_SERIES} samples "
                            "need an explicit gsm_start")
        for gsm in gsm_ids(cohort.gse_number, total, cohort.gsm_start):
            if gsm in owner:
                raise PlanError(source, f"{cohort.key} and {owner[gsm]} would both use "
                                f"{gsm}; set gsm_start or change a GSE number")
            owner[gsm] = cohort.key


def protected_genes(biology: Biology, catalog: GeneCatalog) -> List[str]:
    """Genes every human platform and Xena matrix must measure (planted, sex)."""
    planted = [g for model in biology.traits.values() for g in model.planted]
    return list(dict.fromkeys(planted + list(catalog.sex_genes)))


def design_platforms(plan: Plan, catalog: GeneCatalog, biology: Biology
                     ) -> Dict[str, ProbeDesign]:
    """Probe designs of every platform the plan's cohorts use."""
    protected = protected_genes(biology, catalog)
    no_multi = protected + list(biology.age_genes) + list(biology.gender_genes)
    used = []
    for cohort in plan.cohorts:
        if cohort.source == "geo":
            used.append(cohort.platform)
            used += [e.platform for e in cohort.extra_platforms]
    return {pid: design_platform(plan.platforms[pid], catalog, protected, no_multi, plan.seed)
            for pid in dict.fromkeys(used)}


def trait_truth(biology: Biology, catalog: GeneCatalog) -> Dict[str, Any]:
    """The planted model of every trait."""
    out = {}
    for name, model in sorted(biology.traits.items()):
        plan = model.plan
        out[name] = {"kind": plan.kind, "planted_genes": dict(model.planted),
                     "known": list(model.known), "novel": list(model.novel),
                     "age_effect": plan.age_effect, "gender_effect": plan.gender_effect,
                     "noise": plan.noise, "sex": plan.sex,
                     "related_genes_in_universe": list(catalog.related.get(name, ()))}
    return out


@dataclass(frozen=True)
class _CohortWriter:
    """What every cohort of a plan shares; writes one cohort (in this or a worker process)."""

    plan: Plan
    biology: Biology
    designs: Mapping[str, ProbeDesign]
    catalog: GeneCatalog
    protected: Sequence[str]
    out: Path
    compression: Compression
    reference: Optional[Path]

    def __call__(self, index: int) -> Dict[str, Any]:
        cohort = self.plan.cohorts[index]
        if cohort.source == "geo":
            record = write_geo_cohort(cohort, self.biology, self.designs, self.catalog,
                                      self.out, self.plan.seed, self.compression,
                                      self.reference)
        else:
            record = write_tcga_cohort(cohort, self.biology, self.catalog, self.protected,
                                       self.out, self.plan.seed, self.compression,
                                       self.reference)
        logger.info("wrote %s (%d samples)", cohort.key, record["n_samples"])
        return record


_WORKER: Optional[_CohortWriter] = None


def _start_worker(writer: _CohortWriter) -> None:
    """Worker start-up: keep the shared writer (sent once); the worker exits with the
    parent (:func:`utils.runtime.spawn_pool`)."""
    global _WORKER  # one writer per worker process, set once by the pool's initializer
    _WORKER = writer


def _write_in_worker(index: int) -> Tuple[int, Dict[str, Any]]:
    assert _WORKER is not None
    return index, _WORKER(index)


def _records(writer: _CohortWriter, jobs: int, progress: bool) -> List[Dict[str, Any]]:
    """Truth records of every cohort, in plan order (cohorts written by ``jobs`` processes)."""
    count = len(writer.plan.cohorts)
    if jobs <= 1 or count <= 1:
        return [writer(k) for k in progress_bar(range(count), desc="synthetic cohorts",
                                                enabled=progress)]
    records: List[Optional[Dict[str, Any]]] = [None] * count
    with worker_pool(min(jobs, count), _start_worker, (writer,)) as pool:
        futures = [pool.submit(_write_in_worker, k) for k in range(count)]
        with progress_bar(total=count, desc="synthetic cohorts", enabled=progress) as bar:
            for future in as_completed(futures):
                index, record = future.result()
                records[index] = record
                bar.update(1)
    return [r for r in records if r is not None]


def generate(plan: Plan, sources: Sources, out_dir: PathLike,
             truth_path: Optional[PathLike] = None, source: str = "<plan>",
             progress: bool = False, jobs: int = 1,
             compression: Compression = DEMO_COMPRESSION,
             reference_dir: Optional[PathLike] = None) -> Dict[str, Any]:
    """Write every cohort of ``plan`` below ``out_dir`` and return the planted truth.

    Parameters
    ----------
    plan : Plan
    sources : Sources
        Synonym map, task info and optional GeneID map.
    out_dir : path-like
        Input root: cohorts go to ``<out_dir>/GEO/...`` and ``<out_dir>/TCGA/...``.
    truth_path : path-like, optional
        Where to write the truth JSON (not written when omitted).
    source : str
        Plan file name for error messages.
    progress : bool
        Show a tqdm bar over cohorts.
    jobs : int
        Cohorts written at once, each in its own process (the files and the
        truth do not depend on it: every cohort draws from its own streams).
    compression : Compression
        gzip engine and level of the compressed files.
    reference_dir : path-like, optional
        Also write the reference preprocess tree of the planted truth there
        (:mod:`genotex.synthetic.reference`).

    Returns
    -------
    dict
        The truth document (see ``docs/synthetic.md``).
    """
    out = Path(out_dir)
    check_sample_ids(plan, source)
    catalog = build_catalog(plan, sources.synonyms, sources.task_info, sources.entrez, source)
    try:
        biology = build_biology(plan, catalog)
    except ValueError as exc:
        raise PlanError(source, str(exc)) from exc
    designs = design_platforms(plan, catalog, biology)
    writer = _CohortWriter(plan, biology, designs, catalog, protected_genes(biology, catalog),
                           out, compression, None if reference_dir is None
                           else Path(reference_dir))
    cohorts: Dict[str, Dict[str, Any]] = {}
    for cohort, record in zip(plan.cohorts, _records(writer, jobs, progress)):
        cohorts.setdefault(cohort.trait, {})[cohort.id] = record
    plan_text = dumps_json(plan_to_mapping(plan), indent=None)
    truth = {
        "synthetic": True,
        "description": "Planted truth of a synthetic GenoTEX input tree. No real subject.",
        "generator": {"program": "generate_synthetic.py", "format_version": TRUTH_FORMAT_VERSION,
                      "seed": plan.seed,
                      "plan_sha256": hashlib.sha256(plan_text.encode()).hexdigest(),
                      "inputs": dict(sources.digests or {})},
        "genes": {"universe": list(catalog.universe), "sex_genes": list(catalog.sex_genes),
                  "age_genes": dict(biology.age_genes),
                  "gender_genes": dict(biology.gender_genes)},
        "traits": trait_truth(biology, catalog),
        "cohorts": {t: cohorts[t] for t in sorted(cohorts)},
    }
    if truth_path is not None:
        atomic_write_json(truth_path, truth, indent=1)
    return truth


def demo_task_info(plan: Plan, task_info: Mapping[str, Any], catalog: GeneCatalog,
                   restrict_genes: bool = True) -> Dict[str, Any]:
    """``task_info.json`` for the plan's traits.

    Conditions keep Age, Gender and plan traits, in stored order; related genes
    are restricted to the gene universe (task order) when ``restrict_genes``.
    """
    universe = set(catalog.universe)
    out: Dict[str, Any] = {}
    for trait in sorted(plan.traits):
        entry = task_info.get(trait, {})
        genes = list(entry.get("related_genes", []))
        if restrict_genes:
            genes = [g for g in genes if g in universe]
        conditions = [c for c in entry.get("conditions", [])
                      if c in CLINICAL_COLUMNS or c in plan.traits]
        out[trait] = {"related_genes": genes, "conditions": conditions}
    return out
