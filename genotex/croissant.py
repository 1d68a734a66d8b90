"""Croissant 1.0 (JSON-LD) description of a GenoTEX tree: ``metadata.json``.

The document lists

* one ``cr:FileObject`` per committed metadata file (``task_info.json``, the
  gene maps, the synthetic truth when present) with its SHA-256;
* one ``cr:FileSet`` per family of data files found below ``input/`` and
  ``output/`` (series matrices, family SOFT files, count tables, Xena
  clinical and expression files, preprocessed CSVs, ``cohort_info.json``
  files, regression JSONs), each with a glob and an encoding format;
* ``cr:RecordSet`` s for task info, cohort records and regression results,
  whose fields say where each value comes from (JSONPath inside the file or a
  regular expression on the file path).

Paths are relative to the folder of ``metadata.json`` (the repository root by
default). Run ``python -m genotex.cli.croissant --help``.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from genotex.synthetic.options import TRUTH_NAME as SYNTHETIC_TRUTH_NAME
from utils.io import PathLike, atomic_write_json, file_sha256
from utils.paths import ProjectPaths

logger = logging.getLogger(__name__)

CONFORMS_TO = "http://mlcommons.org/croissant/1.0"
DEFAULT_LICENSE = "https://opensource.org/licenses/MIT"
CITATION = ("GenoTEX: a benchmark for automated gene expression data analysis "
            "(Liu et al., arXiv:2406.15341, 2024)")
GZIP_FORMAT = "application/gzip"
TSV = "text/tab-separated-values"
JSON = "application/json"
CSV = "text/csv"

CONTEXT: Dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}


@dataclass(frozen=True)
class FileFamily:
    """A ``cr:FileSet``: files of one kind below a data root."""

    id: str
    root: str  # "input" or "output"
    pattern: str  # glob relative to that root
    encoding: str
    description: str


FILE_FAMILIES: Sequence[FileFamily] = (
    FileFamily("geo-series-matrix", "input", "GEO/*/*/*_series_matrix.txt.gz", GZIP_FORMAT,
               "GEO series matrix files (gzip): series/sample annotation lines and the "
               "expression table (probes x samples)."),
    FileFamily("geo-family-soft", "input", "GEO/*/*/*_family.soft.gz", GZIP_FORMAT,
               "GEO family SOFT files (gzip): platform annotation tables (probe -> gene "
               "symbol) and per-sample blocks."),
    FileFamily("geo-count-tables", "input", "GEO/*/*/*_raw_counts_*.tsv.gz", GZIP_FORMAT,
               "RNA-seq count tables (gzip TSV): NCBI GeneID rows x GSM columns."),
    FileFamily("xena-clinical", "input", "TCGA/*/*_clinicalMatrix", TSV,
               "UCSC Xena TCGA clinical matrices: one row per sample barcode."),
    FileFamily("xena-expression", "input", "TCGA/*/*.sampleMap_HiSeqV2*.gz", GZIP_FORMAT,
               "UCSC Xena TCGA RNA-seq matrices (gzip TSV): genes x samples, "
               "log2(norm count + 1) or pan-cancer normalized."),
    FileFamily("preprocess-gene", "output", "preprocess/*/gene_data/*.csv", CSV,
               "Preprocessed gene tables: normalized gene symbols (rows) x samples."),
    FileFamily("preprocess-clinical", "output", "preprocess/*/clinical_data/*.csv", CSV,
               "Preprocessed clinical tables: trait, Age, Gender (rows) x samples."),
    FileFamily("preprocess-linked", "output", "preprocess/*/*.csv", CSV,
               "Linked tables: samples (rows) x [trait, Age, Gender, genes]."),
    FileFamily("cohort-info", "output", "preprocess/*/cohort_info.json", JSON,
               "Per-trait cohort records: usability flags, sample size, note."),
    FileFamily("regression-results", "output", "regress/*/significant_genes_condition_*.json",
               JSON, "Per-problem regression results: ranked significant genes and "
               "cross-validation performance."),
)

METADATA_FILES = (("task-info", "task_info", "Traits -> related genes and conditions."),
                  ("gene-synonyms", "gene_synonyms",
                   "Gene alias (upper case) -> official symbol."))
COMPANION_MAPS = (("gene-entrez", "gene_entrez.json", "NCBI GeneID -> official symbol."),
                  ("gene-ensembl", "gene_ensembl.json", "Ensembl gene id -> official symbol."))


def _relative(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()


def _file_object(node_id: str, path: Path, base: Path, encoding: str,
                 description: str) -> Dict[str, Any]:
    return {"@type": "cr:FileObject", "@id": node_id, "name": node_id,
            "description": description, "contentUrl": _relative(path, base),
            "contentSize": f"{path.stat().st_size} B",
            "encodingFormat": encoding, "sha256": file_sha256(path)}


def _file_set(family: FileFamily, root: Path, base: Path, count: int) -> Dict[str, Any]:
    return {"@type": "cr:FileSet", "@id": family.id, "name": family.id,
            "description": f"{family.description} ({count} file(s) when described.)",
            "encodingFormat": family.encoding,
            "includes": f"{_relative(root, base)}/{family.pattern}"}


def _field(record_set: str, name: str, data_type: str, description: str,
           source: Dict[str, Any], repeated: bool = False) -> Dict[str, Any]:
    node = {"@type": "cr:Field", "@id": f"{record_set}/{name}", "name": name,
            "description": description, "dataType": data_type, "source": source}
    if repeated:
        node["repeated"] = True
    return node


def _json_source(kind: str, node_id: str, path: str) -> Dict[str, Any]:
    return {kind: {"@id": node_id}, "extract": {"jsonPath": path}}


def _path_source(node_id: str, regex: str) -> Dict[str, Any]:
    return {"fileSet": {"@id": node_id}, "extract": {"fileProperty": "fullpath"},
            "transform": {"regex": regex}}


def task_info_record_set() -> Dict[str, Any]:
    """Record set over ``task_info.json`` (one record per trait)."""
    rs = "task_info"
    return {"@type": "cr:RecordSet", "@id": rs, "name": rs,
            "description": "One record per trait, in file order (trait names are the "
                           "object keys of task_info.json).",
            "field": [
                _field(rs, "related_genes", "sc:Text",
                       "Known related genes (official symbols), strongest first.",
                       _json_source("fileObject", "task-info", "$.*.related_genes"),
                       repeated=True),
                _field(rs, "conditions", "sc:Text",
                       "Conditions paired with the trait: Age, Gender or other traits.",
                       _json_source("fileObject", "task-info", "$.*.conditions"),
                       repeated=True)]}


def cohort_info_record_set() -> Dict[str, Any]:
    """Record set over every ``cohort_info.json`` (one record per cohort)."""
    rs = "cohort_info"
    flags = [("is_usable", "sc:Boolean", "Available and not biased."),
             ("is_gene_available", "sc:Boolean", "Gene expression data usable."),
             ("is_trait_available", "sc:Boolean", "Trait recorded per sample."),
             ("is_available", "sc:Boolean", "Gene and trait available."),
             ("is_biased", "sc:Boolean", "Trait distribution too unbalanced."),
             ("has_age", "sc:Boolean", "Age column kept."),
             ("has_gender", "sc:Boolean", "Gender column kept."),
             ("sample_size", "sc:Integer", "Rows of the final linked table."),
             ("note", "sc:Text", "Free-text note of the curator.")]
    fields = [_field(rs, "trait", "sc:Text", "Trait folder name.",
                     _path_source("cohort-info", r"^.*/preprocess/([^/]+)/cohort_info\.json$"))]
    fields += [_field(rs, name, kind, text, _json_source("fileSet", "cohort-info", f"$.*.{name}"))
               for name, kind, text in flags]
    return {"@type": "cr:RecordSet", "@id": rs, "name": rs,
            "description": "Usability records of every cohort (docs/formats.md, \"cohort_info\").",
            "field": fields}


def regression_record_set() -> Dict[str, Any]:
    """Record set over the regression JSONs (one record per problem)."""
    rs = "regression"
    files = "regression-results"
    return {"@type": "cr:RecordSet", "@id": rs, "name": rs,
            "description": "Ranked significant genes of each problem (trait, condition).",
            "field": [
                _field(rs, "trait", "sc:Text", "Trait folder name.",
                       _path_source(files, r"^.*/regress/([^/]+)/[^/]+\.json$")),
                _field(rs, "condition", "sc:Text", "Condition (None when unconditional).",
                       _path_source(files, r"^.*/significant_genes_condition_(.+)\.json$")),
                _field(rs, "genes", "sc:Text", "Significant genes, most important first.",
                       _json_source("fileSet", files, "$.significant_genes.Variable"),
                       repeated=True),
                _field(rs, "coefficients", "sc:Float", "Coefficient of each gene.",
                       _json_source("fileSet", files, "$.significant_genes.Coefficient"),
                       repeated=True)]}


def synthetic_truth_path(paths: ProjectPaths) -> Path:
    """The synthetic truth: ``<metadata>/synthetic_truth.json``, else (older trees)
    ``<output>/synthetic_truth.json``; the first path when neither exists."""
    candidates = (paths.metadata / SYNTHETIC_TRUTH_NAME, paths.output / SYNTHETIC_TRUTH_NAME)
    return next((path for path in candidates if path.is_file()), candidates[0])


def build_metadata(paths: ProjectPaths, base: Optional[PathLike] = None,
                   name: Optional[str] = None, description: Optional[str] = None,
                   url: str = "", license_url: str = DEFAULT_LICENSE,
                   version: str = "1.0.0", synthetic: Optional[bool] = None,
                   date_published: Optional[str] = None) -> Dict[str, Any]:
    """Build the Croissant document of a tree.

    Parameters
    ----------
    paths : ProjectPaths
        Resolved metadata / input / output roots.
    base : path-like, optional
        Folder that will hold ``metadata.json`` (paths are relative to it);
        defaults to the repository root.
    name, description, url, license_url, version : str
        Dataset-level properties (defaults describe the benchmark or the demo).
    date_published : str, optional
        ISO date; omitted when not given (the document stays reproducible).
    synthetic : bool, optional
        Describe a synthetic demo (default: when the synthetic truth exists, see
        :func:`synthetic_truth_path`).

    Returns
    -------
    dict
        JSON-LD document.
    """
    base_path = Path(base) if base is not None else paths.root
    truth = synthetic_truth_path(paths)
    synthetic = truth.is_file() if synthetic is None else synthetic
    distribution: List[Dict[str, Any]] = []
    for node_id, attr, text in METADATA_FILES:
        path = getattr(paths, attr)
        if path.is_file():
            distribution.append(_file_object(node_id, path, base_path, JSON, text))
        else:
            logger.warning("%s not found: not described", path)
    for node_id, file_name, text in COMPANION_MAPS:
        path = paths.gene_synonyms.parent / file_name
        if path.is_file():
            distribution.append(_file_object(node_id, path, base_path, JSON, text))
    if truth.is_file():
        distribution.append(_file_object(
            "synthetic-truth", truth, base_path, JSON,
            "Planted truth of the synthetic demo: planted genes, effects, labels."))
    present = set()
    for family in FILE_FAMILIES:
        root = paths.input if family.root == "input" else paths.output
        count = sum(1 for p in root.glob(family.pattern) if p.is_file()) if root.is_dir() else 0
        if count:
            distribution.append(_file_set(family, root, base_path, count))
            present.add(family.id)
    record_sets = []
    if any(d["@id"] == "task-info" for d in distribution):
        record_sets.append(task_info_record_set())
    if "cohort-info" in present:
        record_sets.append(cohort_info_record_set())
    if "regression-results" in present:
        record_sets.append(regression_record_set())
    if synthetic:
        default_name = "GenoTEX-demo"
        default_text = ("SYNTHETIC offline demo of the GenoTEX benchmark: real trait names "
                        "and gene symbols, but every cohort (GEO series and TCGA/Xena "
                        "files) is generated by generate_synthetic.py with planted trait "
                        "genes; no real subject. See datasheet.md.")
    else:
        default_name = "GenoTEX"
        default_text = ("GenoTEX benchmark for automated gene expression data analysis: "
                        "gene-trait association problems over public GEO and TCGA (UCSC "
                        "Xena) cohorts, with preprocessed tables and regression results. "
                        "See datasheet.md.")
    document = {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "name": name or default_name,
        "description": description or default_text,
        "conformsTo": CONFORMS_TO,
        "citeAs": CITATION,
        "license": license_url,
        "version": version,
        "isLiveDataset": False,
        "keywords": ["gene expression", "GEO", "TCGA", "gene-trait association",
                     "benchmark", "bioinformatics"] + (["synthetic"] if synthetic else []),
        "rai:dataCollection": (
            "Generated by generate_synthetic.py from a seeded plan; no collection."
            if synthetic else
            "GEO series found by Entrez searches per trait; TCGA cohorts from the UCSC "
            "Xena hub; known genes from Open Targets."),
        "rai:personalSensitiveInformation": (
            "None: all subjects are synthetic." if synthetic else
            "De-identified public expression data with age and sex; no direct identifiers."),
        "distribution": distribution,
        "recordSet": record_sets,
    }
    if url:
        document["url"] = url
    if date_published:
        document["datePublished"] = date_published
    return document


def write_metadata(paths: ProjectPaths, out: Optional[PathLike] = None,
                   **kwargs: Any) -> Path:
    """Build the document (see :func:`build_metadata`) and write it atomically."""
    target = Path(out) if out is not None else paths.root / "metadata.json"
    document = build_metadata(paths, base=target.parent, **kwargs)
    atomic_write_json(target, document, indent=2)
    return target


def validate(path: PathLike) -> None:
    """Load ``path`` with ``mlcroissant``; raises its ValidationError on problems."""
    import mlcroissant  # optional dependency (requirements-dev)

    mlcroissant.Dataset(jsonld=str(path))
