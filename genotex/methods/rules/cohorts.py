"""One cohort by rule, GEO or TCGA: the curator's notebook steps (SPEC 7) without a curator.

Each function returns the decisions taken (for the run log); the tables and the
cohort record are in the prediction tree afterwards.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional

import pandas as pd

from genotex.methods.base import CohortTask
from genotex.methods.rules.expression import geo_gene_table, symbol_table
from genotex.methods.rules.tables import (CohortFiles, drop_outputs, link_and_record,
                                          record_unavailable, save_table)
from tools.preprocess import (geo_get_relevant_filepaths, geo_select_clinical_features,
                              get_background_and_clinical_data, tcga_age_candidates,
                              tcga_gender_candidates, tcga_get_relevant_filepaths,
                              tcga_read_clinical_data, tcga_read_genetic_data,
                              tcga_select_clinical_features)
from tools.preprocess.clinical_rules import (convert_sample_line,
                                             infer_clinical_rows_with_sample_lines,
                                             infer_clinical_values, sample_lines_from_matrix)

CHARACTERISTICS_TAG = "!Sample_characteristics_ch1"

Converter = Callable[[Any], Optional[float]]


def _row_cells(clinical: pd.DataFrame, row: int) -> List[Any]:
    return [cell for cell in clinical.loc[row].iloc[1:].tolist()]


def _lookup(cells: List[Any], values: List[Optional[float]]) -> Converter:
    """A converter answering from the values decided for the row's cells."""
    table = {cell: value for cell, value in zip(cells, values) if isinstance(cell, str)}
    return lambda cell: table.get(cell)


def clinical_converters(clinical: pd.DataFrame, rows: Mapping[str, Any], trait: str,
                        background: str) -> Dict[str, Optional[Converter]]:
    """Converters of the chosen rows, decided with each row's full context."""
    converters: Dict[str, Optional[Converter]] = {"trait": None, "age": None, "gender": None}
    for feature in converters:
        row = rows[f"{feature}_row"]
        if row is None:
            continue
        cells = _row_cells(clinical, row)
        source = rows.get("trait_source") if feature == "trait" else CHARACTERISTICS_TAG
        if source and source != CHARACTERISTICS_TAG:
            values = convert_sample_line(source, cells, trait, background)
        else:
            values = infer_clinical_values(feature, cells, trait, background)
        converters[feature] = _lookup(cells, values)
    return converters


def _row_note(rows: Mapping[str, Any]) -> str:
    source = rows.get("trait_source") or CHARACTERISTICS_TAG
    where = "" if source == CHARACTERISTICS_TAG else f" ({source.removeprefix('!Sample_')})"
    return (f"rows: trait {rows['trait_row']}{where}, age {rows['age_row']}, "
            f"gender {rows['gender_row']}")


def preprocess_geo(task: CohortTask, trait_dir: Path, synonym_path: Path,
                   synonyms: Mapping[str, str]) -> Dict[str, Any]:
    """Preprocess one GEO series by rule; returns the decisions."""
    files = CohortFiles(trait_dir, task.cohort)
    drop_outputs(files)
    soft_path, matrix_path = geo_get_relevant_filepaths(task.input_dir)
    background, _ = get_background_and_clinical_data(matrix_path)
    rows = infer_clinical_rows_with_sample_lines(sample_lines_from_matrix(matrix_path),
                                                 task.trait, background)
    gene_table = geo_gene_table(task.input_dir, Path(soft_path), synonym_path, synonyms)
    decisions: Dict[str, Any] = {"rows": {k: rows[k] for k in ("trait_row", "age_row",
                                                                "gender_row", "trait_source")},
                                 "genes": gene_table.decisions}
    note = f"rules agent: {_row_note(rows)}; {gene_table.note()}"
    uncertain = rows["decisions"].note()
    if uncertain:
        note = f"{note}; {uncertain}"
    decisions["confidence"] = {d.feature: round(d.confidence, 3)
                               for d in rows["decisions"].decisions}
    if gene_table.genes is not None:
        save_table(gene_table.genes, files.gene)
    if gene_table.genes is None or rows["trait_row"] is None:
        reason = "no characteristics or sample line separates cases from controls" \
            if rows["trait_row"] is None else gene_table.note()
        record_unavailable(files, gene_table.genes is not None, rows["trait_row"] is not None,
                           f"rules agent: {reason}" + (f"; {uncertain}" if uncertain else ""))
        decisions["outcome"] = reason
        return decisions
    _, clinical = get_background_and_clinical_data(matrix_path, prefixes_b=rows["prefixes_b"])
    convert = clinical_converters(clinical, rows, task.trait, background)
    selected = geo_select_clinical_features(
        clinical, trait=task.trait, trait_row=rows["trait_row"], convert_trait=convert["trait"],
        age_row=rows["age_row"], convert_age=convert["age"], gender_row=rows["gender_row"],
        convert_gender=convert["gender"])
    save_table(selected, files.clinical)
    result = link_and_record(files, task.trait, selected, gene_table.genes, note)
    decisions.update(usable=result.is_usable, biased=result.is_biased, samples=result.samples,
                     diagnostics=result.diagnostics)
    return decisions


def preprocess_tcga(task: CohortTask, trait_dir: Path, synonym_path: Path) -> Dict[str, Any]:
    """Preprocess one Xena TCGA cohort by rule (barcode trait, best age / sex columns)."""
    files = CohortFiles(trait_dir, task.cohort)
    drop_outputs(files)
    clinical_path, genetic_path = tcga_get_relevant_filepaths(task.input_dir)
    clinical = tcga_read_clinical_data(clinical_path)
    age_col = next(iter(tcga_age_candidates(clinical)), None)
    gender_col = next(iter(tcga_gender_candidates(clinical)), None)
    selected = tcga_select_clinical_features(clinical, task.trait, age_col=age_col,
                                             gender_col=gender_col)
    save_table(selected.T, files.clinical)
    gene_table = symbol_table(tcga_read_genetic_data(genetic_path), Path(genetic_path).name,
                              synonym_path)
    decisions: Dict[str, Any] = {"age_col": age_col, "gender_col": gender_col,
                                 "genes": gene_table.decisions}
    if gene_table.genes is None:
        record_unavailable(files, False, True, f"rules agent: {gene_table.note()}")
        return decisions
    save_table(gene_table.genes, files.gene)
    note = (f"rules agent: trait from barcode type codes, age {age_col}, gender {gender_col}; "
            f"{gene_table.note()}")
    result = link_and_record(files, task.trait, selected, gene_table.genes, note)
    decisions.update(usable=result.is_usable, biased=result.is_biased, samples=result.samples,
                     diagnostics=result.diagnostics)
    return decisions
