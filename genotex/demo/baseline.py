"""A deliberately simple baseline: writes a GenoTEX prediction tree for eval.py.

It shows what ``eval.py`` measures by making the mistakes a hurried, fully
automatic pipeline makes. Per cohort, with no human reading:

* **trait**: the first characteristics row that has at least two distinct values
  and mentions a word of the trait name (``arthritis``, ``heart``, ...); a cell
  mentioning such a word is a case (1), any other cell a control (0), so
  ``unknown`` becomes a control. A row of numbers is read as a continuous trait.
  Titles and source names are never read, so traits recorded there are missed.
* **Age / Gender**: rows whose key starts with ``age`` / is ``sex`` or
  ``gender``, with the ready converters of ``tools.preprocess.clinical``.
* **expression**: the series-matrix table as it is (no log transform of linear
  intensities); RNA-seq series, whose matrix table is empty, count as having no
  gene data (the supplementary count table is not looked at).
* **mapping**: the suggested annotation columns; symbols are **not**
  normalized, so aliases stay as written.
* missing values as SPEC 4.6, but **no bias check**: a cohort with 3 controls
  counts as usable.
* TCGA: barcode trait, first Age / Gender candidate columns, symbols not
  normalized.

Analysis, per problem: the largest usable cohort of the trait; genes ranked by
the absolute Pearson correlation with the trait; significant = nominal p < 0.05
(**no multiple-testing correction**). Conditions are ignored (no covariates, no
two-step): every problem of a trait gets the same list.

Tables are written with 4 significant digits to keep the committed tree small.

Use :func:`write_baseline`; ``examples/make_baseline.py`` is its command line and
``python -m genotex.cli.demo --steps baseline`` rebuilds the committed tree with it.
"""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd
from scipy import stats

from tools.preprocess.clinical import convert_age, convert_gender, value_after_colon
from tools.preprocess.cohort_info import validate_and_save_cohort_info
from tools.preprocess.gene_mapping import apply_gene_mapping
from tools.preprocess.geo import (geo_get_relevant_filepaths, get_background_and_clinical_data,
                                  get_genetic_data)
from tools.preprocess.linking import geo_link_clinical_genetic_data, handle_missing_values
from tools.preprocess.soft import get_gene_annotation, get_gene_mapping, suggest_mapping_columns
from tools.preprocess.tcga import (first_candidate, tcga_age_candidates, tcga_gender_candidates,
                                   tcga_get_relevant_filepaths, tcga_read_clinical_data,
                                   tcga_read_genetic_data, tcga_select_clinical_features)
from utils.columns import AGE, GENDER, gene_columns
from utils.errors import InputFileError
from utils.io import PathLike, atomic_to_csv
from utils.problems import enumerate_problems, load_task_info, result_path
from utils.schemas.result import write_result
from utils.selection import load_cohort_info, usable_cohorts

logger = logging.getLogger(__name__)

FLOAT_FORMAT = "%.4g"
P_VALUE = 0.05
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def trait_words(trait: str) -> List[str]:
    """Lower-case words of a trait name with at least 4 letters."""
    return [w for w in re.split(r"[_\W]+", trait.lower()) if len(w) >= 4]


def choose_trait_row(clinical: pd.DataFrame, trait: str) -> Optional[int]:
    """First characteristics row with >= 2 distinct values mentioning a trait word."""
    words = trait_words(trait)
    for row, cells in clinical.iloc[:, 1:].iterrows():
        values = {str(v).lower() for v in cells.dropna()}
        if len(values) >= 2 and any(w in v for v in values for w in words):
            return int(row)
    return None


def trait_converter(cells: pd.Series, trait: str) -> Callable:
    """Numbers for a numeric row, else 1 if a trait word is mentioned, else 0."""
    values = [value_after_colon(c) or "" for c in cells.dropna()]
    numeric = [v for v in values if _NUMBER.fullmatch(v.split(" ")[0] or "x")]
    if len(numeric) >= 0.8 * max(len(values), 1) and len(set(numeric)) > 2:
        def convert(cell):
            match = _NUMBER.search(value_after_colon(cell) or "")
            return float(match.group()) if match else None
        return convert
    words = trait_words(trait)
    return lambda cell: float(any(w in (value_after_colon(cell) or "").lower() for w in words))


def row_by_key(clinical: pd.DataFrame, keys: Tuple[str, ...]) -> Optional[int]:
    """First row whose key (text before ':') starts with one of ``keys``."""
    for row, cells in clinical.iloc[:, 1:].iterrows():
        first = next((str(c) for c in cells if isinstance(c, str) and ":" in c), "")
        if first.split(":")[0].strip().lower().startswith(keys):
            return int(row)
    return None


def convert_row(clinical: pd.DataFrame, row: int, name: str, convert: Callable) -> pd.Series:
    """One clinical row converted to floats (missing cells stay missing)."""
    cells = clinical.iloc[row, 1:]
    return pd.Series([np.nan if pd.isna(c) or convert(c) is None else float(convert(c))
                      for c in cells], index=cells.index, name=name, dtype=float)


def geo_tables(cohort_dir: Path, trait: str) -> Tuple[Optional[pd.DataFrame], pd.DataFrame]:
    """(clinical features x samples or None, gene table) of a GEO series."""
    _, matrix = geo_get_relevant_filepaths(cohort_dir)
    _, clinical = get_background_and_clinical_data(matrix)
    trait_row = choose_trait_row(clinical, trait)
    features = None
    if trait_row is not None:
        rows = [convert_row(clinical, trait_row, trait,
                            trait_converter(clinical.iloc[trait_row, 1:], trait))]
        for name, keys, convert in ((AGE, ("age",), convert_age),
                                    (GENDER, ("sex", "gender"), convert_gender)):
            row = row_by_key(clinical, keys)
            if row is not None and row != trait_row:
                rows.append(convert_row(clinical, row, name, convert))
        features = pd.DataFrame(rows)
    expression = get_genetic_data(matrix)  # raises NoExpressionTableError for RNA-seq
    soft, _ = geo_get_relevant_filepaths(cohort_dir)
    annotation = get_gene_annotation(soft)
    suggestion = suggest_mapping_columns(annotation, expression.index)
    mapping = get_gene_mapping(annotation, suggestion.probe_col, suggestion.gene_col)
    return features, apply_gene_mapping(expression, mapping)


def tcga_tables(cohort_dir: Path, trait: str) -> Tuple[pd.DataFrame, pd.DataFrame]:
    """(clinical features x samples, gene table) of a Xena cohort."""
    clinical_path, genetic_path = tcga_get_relevant_filepaths(cohort_dir)
    clinical = tcga_read_clinical_data(clinical_path)
    features = tcga_select_clinical_features(
        clinical, trait, age_col=first_candidate(tcga_age_candidates(clinical)),
        gender_col=first_candidate(tcga_gender_candidates(clinical)))
    return features.T, tcga_read_genetic_data(genetic_path)


def preprocess_cohort(trait: str, cohort: str, cohort_dir: Path, source: str,
                      out: Path) -> None:
    """Write the baseline's tables and cohort record for one cohort."""
    info = out / trait / "cohort_info.json"
    try:
        reader = geo_tables if source == "GEO" else tcga_tables
        features, genes = reader(cohort_dir, trait)
    except InputFileError as exc:
        validate_and_save_cohort_info(False, cohort, info, False, True, note=exc.problem)
        return
    atomic_to_csv(genes, out / trait / "gene_data" / f"{cohort}.csv", float_format=FLOAT_FORMAT)
    if features is None:
        validate_and_save_cohort_info(False, cohort, info, True, False,
                                      note="no characteristics row names the trait")
        return
    atomic_to_csv(features, out / trait / "clinical_data" / f"{cohort}.csv",
                  float_format=FLOAT_FORMAT)
    linked = handle_missing_values(geo_link_clinical_genetic_data(features, genes), trait)
    if validate_and_save_cohort_info(True, cohort, info, True, True, False, linked,
                                     note="baseline: no bias check"):
        atomic_to_csv(linked, out / trait / f"{cohort}.csv", float_format=FLOAT_FORMAT)


def correlation_ranking(linked: pd.DataFrame, trait: str) -> Dict[str, List]:
    """Genes with nominal Pearson p < P_VALUE, by decreasing |r|."""
    y = linked[trait].to_numpy(dtype=float)
    genes = gene_columns(linked.columns, trait)
    x = linked[genes].to_numpy(dtype=float)
    xc, yc = x - x.mean(axis=0), y - y.mean()
    denominator = np.sqrt((xc ** 2).sum(axis=0) * (yc ** 2).sum())
    r = np.divide(xc.T @ yc, denominator, out=np.zeros(len(genes)), where=denominator > 0)
    n = len(y)
    t = r * np.sqrt((n - 2) / np.clip(1 - r ** 2, 1e-12, None))
    p = 2 * stats.t.sf(np.abs(t), df=n - 2)
    significant = p < P_VALUE
    order = [i for i in np.argsort(-np.abs(r), kind="stable") if significant[i]]
    coefficients = [round(float(r[i]), 6) for i in order]
    return {"Variable": [genes[i] for i in order], "Coefficient": coefficients,
            "Absolute Coefficient": [abs(c) for c in coefficients]}


def analyse(out: Path, task_info_path: Path) -> int:
    """One JSON per problem from the baseline's own preprocess tree."""
    task_info = load_task_info(task_info_path)
    rankings: Dict[str, Optional[Dict[str, List]]] = {}
    written = 0
    for problem in enumerate_problems(task_info):
        if problem.trait not in rankings:
            info_path = out / "preprocess" / problem.trait / "cohort_info.json"
            cohorts = usable_cohorts(load_cohort_info(info_path)) if info_path.is_file() else {}
            best = min(cohorts.values(), key=lambda c: (-c.sample_size, c.cohort), default=None)
            rankings[problem.trait] = None if best is None else correlation_ranking(
                pd.read_csv(out / "preprocess" / problem.trait / f"{best.cohort}.csv",
                            index_col=0), problem.trait)
        if rankings[problem.trait] is not None:
            write_result(result_path(out / "regress", problem),
                         {"significant_genes": rankings[problem.trait],
                          "cv_performance": {"prediction": {}, "selection": {}}})
            written += 1
    return written


def cohort_folders(input_dir: Path) -> List[Tuple[str, str, Path, str]]:
    """(trait, cohort, folder, source) of every GEO series and Xena cohort of a tree."""
    geo = [(p.parent.name, p.name, p, "GEO") for p in sorted((input_dir / "GEO").glob("*/*"))]
    tcga = [(p.name.split("_(")[0].removeprefix("TCGA_"), "Xena", p, "TCGA")
            for p in sorted((input_dir / "TCGA").glob("TCGA_*"))]
    return geo + tcga


def write_baseline(out: PathLike, input_dir: PathLike, task_info_path: PathLike) -> Tuple[int, int]:
    """(Re)write the baseline prediction tree ``out`` from the inputs of ``input_dir``.

    Parameters
    ----------
    out : path
        The tree to write (removed first when it exists): ``preprocess/`` and
        ``regress/``.
    input_dir : path
        Input root holding ``GEO/`` and ``TCGA/``.
    task_info_path : path
        ``task_info.json`` listing the problems.

    Returns
    -------
    (int, int)
        Cohort records and regression results written.
    """
    out = Path(out)
    if out.exists():
        shutil.rmtree(out)
    cohorts = cohort_folders(Path(input_dir))
    for trait, cohort, folder, source in cohorts:
        preprocess_cohort(trait, cohort, folder, source, out / "preprocess")
    written = analyse(out, Path(task_info_path))
    logger.info("wrote %d cohort records and %d regression results under %s",
                len(cohorts), written, out)
    return len(cohorts), written
