"""Gene tables by rule: expression source, scale, probe mapping, symbols.

* Source: the series-matrix table; when it is empty (RNA-seq), GEO's
  NCBI-generated count table.
* Scale: counts become log2 counts per million (``log2(count / library size *
  1e6 + 1)``); array values whose 99th percentile exceeds
  :data:`LINEAR_PERCENTILE_99` (and that are never negative) are linear
  intensities and become ``log2(max(value, 1))``; anything else is kept.
* Identifiers: rows already named by gene symbols (most ids known to the
  synonym map) or by Entrez / Ensembl ids are normalized directly; probe ids
  are mapped with the annotation columns the library suggests, from the
  platform of the chosen matrix in a multi-platform SOFT file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Mapping, Optional, Tuple

import numpy as np
import pandas as pd

from tools.preprocess import (NoExpressionTableError, apply_gene_mapping, find_geo_files,
                              get_gene_annotation, get_gene_mapping, get_genetic_data,
                              normalize_gene_symbols_in_index, read_gene_count_table,
                              read_platform_annotations, suggest_mapping_columns)
from utils.errors import NoGeneDataError

#: 99th percentile above which non-negative array values are linear intensities.
LINEAR_PERCENTILE_99 = 100.0
#: Share of row ids known to the synonym map above which rows are gene symbols.
SYMBOL_ID_SHARE = 0.5


@dataclass
class GeneTable:
    """A cohort's gene table and how it was made.

    Attributes
    ----------
    genes : DataFrame or None
        Official symbols x samples; None when the cohort has no gene data.
    decisions : dict
        Source, scale, mapping columns (for the run log and the cohort note).
    """

    genes: Optional[pd.DataFrame]
    decisions: Dict[str, object] = field(default_factory=dict)

    def note(self) -> str:
        """The decisions as a short sentence part for the cohort record."""
        d = self.decisions
        if self.genes is None:
            return f"no gene data ({d.get('reason', 'unknown')})"
        parts = [f"{d['source']}", f"scale {d['scale']}"]
        if d.get("probe_col"):
            parts.append(f"mapped {d['probe_col']} -> {d['gene_col']}")
        return ", ".join(parts)


def is_linear_scale(values: np.ndarray) -> bool:
    """Whether array values look like linear (unlogged) intensities.

    The 99th percentile is computed only when the largest value exceeds the
    threshold (it cannot otherwise: log2 tables answer after a min and a max).
    """
    finite = np.isfinite(values)
    if not finite.all():
        values = values[finite]
    if values.size == 0 or values.min() < 0 or values.max() <= LINEAR_PERCENTILE_99:
        return False
    return float(np.percentile(values, 99)) > LINEAR_PERCENTILE_99


def log2_counts_per_million(counts: pd.DataFrame) -> pd.DataFrame:
    """``log2(count / library size * 1e6 + 1)`` per sample."""
    return np.log2(counts / counts.sum(axis=0) * 1e6 + 1)


def ids_are_symbols(ids: pd.Index, synonyms: Mapping[str, str]) -> bool:
    """Whether most row ids are gene symbols the synonym map knows."""
    if len(ids) == 0:
        return False
    keys = pd.Index([str(i) for i in ids], dtype=object).str.strip().str.upper()
    known = int(np.count_nonzero(keys.isin(synonyms.keys())))
    return known / len(ids) > SYMBOL_ID_SHARE


def _annotation(soft_path: Path, platform: Optional[str]) -> pd.DataFrame:
    tables = read_platform_annotations(soft_path)
    if platform in tables:
        return tables[platform]
    if len(tables) == 1:
        return next(iter(tables.values()))
    return get_gene_annotation(soft_path)


def _expression(cohort_dir: Path) -> Tuple[pd.DataFrame, Dict[str, object]]:
    files = find_geo_files(cohort_dir)
    matrix = files.matrix_path
    try:
        table = get_genetic_data(matrix)
        decisions: Dict[str, object] = {"source": f"series matrix {matrix.name}",
                                        "platform": files.human_matrices[0].platform_id}
        if is_linear_scale(table.to_numpy(dtype=float)):
            decisions["scale"] = "linear -> log2"
            table = np.log2(table.clip(lower=1.0))
        else:
            decisions["scale"] = "log2 kept"
        return table, decisions
    except NoExpressionTableError:
        if not files.count_tables:
            raise
    counts = read_gene_count_table(files.count_tables[0])
    return log2_counts_per_million(counts), {"source": f"count table "
                                                       f"{files.count_tables[0].name}",
                                             "scale": "counts -> log2 CPM",
                                             "platform": None, "ids": "gene ids"}


def geo_gene_table(cohort_dir: Path, soft_path: Path, synonym_path: Path,
                   synonyms: Mapping[str, str]) -> GeneTable:
    """The gene table of a GEO cohort by the rules above (never raises for missing data)."""
    try:
        table, decisions = _expression(cohort_dir)
    except NoExpressionTableError as exc:
        return GeneTable(None, {"reason": exc.problem})
    if decisions.get("ids") != "gene ids" and not ids_are_symbols(table.index, synonyms):
        annotation = _annotation(soft_path, decisions.get("platform"))
        try:
            suggestion = suggest_mapping_columns(annotation, list(table.index),
                                                 synonyms=synonyms)
        except NoGeneDataError as exc:
            return GeneTable(None, {**decisions, "reason": exc.problem})
        decisions.update(probe_col=suggestion.probe_col, gene_col=suggestion.gene_col)
        mapping = get_gene_mapping(annotation, suggestion.probe_col, suggestion.gene_col)
        table = apply_gene_mapping(table, mapping)
    genes = normalize_gene_symbols_in_index(table, synonym_path=synonym_path)
    if genes.empty:
        return GeneTable(None, {**decisions, "reason": "no row maps to an official symbol"})
    decisions["genes"] = len(genes)
    return GeneTable(genes, decisions)


def symbol_table(table: pd.DataFrame, source: str, synonym_path: Path) -> GeneTable:
    """A table already labelled by genes (TCGA), normalized to official symbols."""
    genes = normalize_gene_symbols_in_index(table, synonym_path=synonym_path)
    if genes.empty:
        return GeneTable(None, {"source": source, "reason": "no row maps to an official symbol"})
    return GeneTable(genes, {"source": source, "scale": "log2 kept", "genes": len(genes)})
