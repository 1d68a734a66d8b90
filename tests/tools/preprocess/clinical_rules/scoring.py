"""Scoring the clinical rules on the demo cohorts and the real GEO series.

Shared by the tests of this folder and ``benchmarks/bench_rules_clinical.py``.

Two modes are scored:

* ``ch1`` -- only :func:`infer_clinical_rows` / :func:`infer_clinical_values`
  on the characteristics table (``!Sample_characteristics_ch1``); a trait that
  lives in titles or source names cannot be found there, so its truth in this
  mode is "no row".
* ``ext`` -- :func:`infer_clinical_rows_with_sample_lines`, which also searches
  titles, source names, descriptions and channel-2 characteristics; rows are
  numbered in the re-read table.

Row accuracy: per feature (trait / age / gender), the share of cohorts whose
chosen row equals the truth (None == None counts as correct; for the trait in
``ext`` mode the extra line must match too). Value accuracy: over every
(sample, feature) pair whose reference feature exists, the share where the
converted value equals the reference (both missing counts as equal).

Demo truth is the curator's records (:mod:`genotex.demo.cohorts`) and the
committed clinical tables; real truth is :mod:`.real_truth`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import pandas as pd

from genotex.demo.cohorts import GEO_COHORTS
from tests.tools.preprocess.clinical_rules.real_truth import REAL, RealTruth, real_trait_truth
from tools.preprocess import geo_get_relevant_filepaths, get_background_and_clinical_data
from tools.preprocess.clinical_rules import (convert_sample_line, infer_clinical_rows,
                                             infer_clinical_rows_with_sample_lines,
                                             infer_clinical_values)
from utils.io import open_text

ACCESSION = "!Sample_geo_accession"
CH1 = "!Sample_characteristics_ch1"
ALL_PREFIXES = [ACCESSION, "!Sample_title", "!Sample_source_name", "!Sample_characteristics",
                "!Sample_description"]
FEATURES = ("trait", "age", "gender")
MODES = ("ch1", "ext")
#: GSE9100102 has no trait, so its record stops before choosing age and sex rows;
#: its characteristics do hold them (row 2 age, row 1 sex): those rows are scored.
DEMO_ROW_OVERRIDES = {"GSE9100102": {"age": 2, "gender": 1}}

Lines = List[Tuple[str, List[Optional[str]]]]   # (tag, per-sample cells) in file order


def _clean(cell: object) -> Optional[str]:
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return None
    text = str(cell)
    return text if text.strip() else None


def lines_from_matrix(matrix: Path) -> Tuple[str, List[str], Lines]:
    """Background, sample ids and every per-sample line of a series matrix (library reader)."""
    background, table = get_background_and_clinical_data(matrix, prefixes_b=ALL_PREFIXES)
    samples = [c for c in table.columns if c != ACCESSION]
    lines = [(str(row[ACCESSION]), [_clean(row[s]) for s in samples])
             for _, row in table.iterrows()]
    return background, samples, lines


def lines_from_soft(path: Path) -> Tuple[str, List[str], Lines]:
    """The same, rebuilt from the ``^SAMPLE`` blocks of a family SOFT file.

    The library reads characteristics from series matrices only; two real
    fixtures are (truncated) family SOFT files, so their sample blocks are
    read here: ``!Sample_<tag> = value`` lines, one line per tag occurrence.
    """
    background: List[str] = []
    samples: List[str] = []
    per_sample: Dict[str, Dict[str, List[str]]] = {}
    current: Optional[str] = None
    with open_text(path) as handle:
        for line in handle:
            line = line.rstrip("\n")
            if line.startswith("^"):
                kind, _, ident = line[1:].partition(" = ")
                current = ident.strip() if kind == "SAMPLE" else None
                if current and current not in per_sample:
                    samples.append(current)
                    per_sample[current] = {}
                continue
            if line.startswith(("!Series_title", "!Series_summary", "!Series_overall_design")):
                tag, _, value = line.partition(" = ")
                background.append(f'{tag}\t"{value}"')
            if current and line.startswith("!Sample_"):
                tag, _, value = line.partition(" = ")
                per_sample[current].setdefault(tag, []).append(value)
    lines: Lines = []
    for tag in ("!Sample_title", "!Sample_source_name_ch1", CH1, "!Sample_description"):
        depth = max((len(per_sample[s].get(tag, [])) for s in samples), default=0)
        for k in range(depth):
            cells = [per_sample[s].get(tag, [])[k] if k < len(per_sample[s].get(tag, []))
                     else None for s in samples]
            lines.append((tag, [_clean(c) for c in cells]))
    return "\n".join(background), samples, lines


def select(lines: Lines, prefixes: Sequence[str]) -> Lines:
    """Rows of the table ``get_background_and_clinical_data(prefixes_b=prefixes)``."""
    wanted = tuple(p for p in prefixes if p != ACCESSION)
    return [(tag, cells) for tag, cells in lines if tag.startswith(wanted)]


def unique_by_row(rows: Lines, max_len: int = 30) -> Dict[int, List[Optional[str]]]:
    """Same semantics as the library's ``get_unique_values_by_row``."""
    return {i: list(dict.fromkeys(cells))[:max_len] for i, (_, cells) in enumerate(rows)}


@dataclass
class Cohort:
    """One scored cohort: inputs, truth rows and reference values."""

    name: str
    kind: str                     # "demo" or "real"
    trait: str
    background: str
    samples: List[str]
    lines: Lines
    truth_ch1: Dict[str, Optional[int]]
    truth_ext: Dict[str, Optional[int]]
    truth_extra: Tuple[str, ...]
    alt_extra: Tuple[str, ...]
    reference: Dict[str, List[Optional[float]]] = field(default_factory=dict)


def _reference_values(csv: Path, trait: str, samples: Sequence[str]
                      ) -> Dict[str, List[Optional[float]]]:
    table = pd.read_csv(csv, index_col=0)
    reference: Dict[str, List[Optional[float]]] = {}
    for feature, label in (("trait", trait), ("age", "Age"), ("gender", "Gender")):
        if label in table.index:
            reference[feature] = [None if pd.isna(table.loc[label, s])
                                  else float(table.loc[label, s]) for s in samples]
    return reference


def demo_cohorts(repo_root: Path) -> List[Cohort]:
    """The 13 demo GEO cohorts with the curator's rows and the committed clinical tables."""
    cohorts = []
    for record in GEO_COHORTS:
        folder = repo_root / "input" / "GEO" / record.trait / record.cohort
        background, samples, lines = lines_from_matrix(
            Path(geo_get_relevant_filepaths(folder)[1]))
        override = DEMO_ROW_OVERRIDES.get(record.cohort, {})
        rows = {"trait": record.trait_row, "age": override.get("age", record.age_row),
                "gender": override.get("gender", record.gender_row)}
        shift = len(record.extra_rows)
        truth_ch1 = {f: None if row is None or (f == "trait" and shift) else row - shift
                     for f, row in rows.items()}
        csv = (repo_root / "output" / "preprocess" / record.trait / "clinical_data"
               / f"{record.cohort}.csv")
        reference = _reference_values(csv, record.trait, samples) if csv.exists() else {}
        cohorts.append(Cohort(f"{record.trait}/{record.cohort}", "demo", record.trait,
                              background, samples, lines, truth_ch1, rows,
                              tuple(record.extra_rows), (), reference))
    return cohorts


def _real_reference(truth: RealTruth, lines: Lines) -> Dict[str, List[Optional[float]]]:
    table = select(lines, [ACCESSION, *truth.extra_rows, CH1])
    reference: Dict[str, List[Optional[float]]] = {}
    if truth.trait_row_ext is not None:
        reference["trait"] = [real_trait_truth(truth, c) for c in table[truth.trait_row_ext][1]]
    if truth.age_row_ext is not None:
        reference["age"] = [None if c is None else float(c.split(":", 1)[1])
                            for c in table[truth.age_row_ext][1]]
    if truth.gender_row_ext is not None:
        reference["gender"] = [truth.gender_values.get(c) if c else None
                               for c in table[truth.gender_row_ext][1]]
    return reference


def real_cohorts(shared_data: Path) -> List[Cohort]:
    """The real series of ``../shared/data`` with the hand-made truth."""
    cohorts = []
    for truth in REAL:
        if truth.source == "soft":
            background, samples, lines = lines_from_soft(shared_data / truth.file)
        else:
            matrix = sorted((shared_data / "geo" / truth.gse).glob("*series_matrix*"))[0]
            background, samples, lines = lines_from_matrix(matrix)
        truth_ch1 = {"trait": truth.trait_row_ch1, "age": truth.age_row,
                     "gender": truth.gender_row}
        truth_ext = {"trait": truth.trait_row_ext, "age": truth.age_row_ext,
                     "gender": truth.gender_row_ext}
        cohorts.append(Cohort(f"{truth.trait}/{truth.gse}", "real", truth.trait, background,
                              samples, lines, truth_ch1, truth_ext, truth.extra_rows,
                              truth.alt_extra_rows, _real_reference(truth, lines)))
    return cohorts


def same_value(a: Optional[float], b: Optional[float]) -> bool:
    """Equal numbers (relative 1e-6), or both missing."""
    a_missing = a is None or (isinstance(a, float) and math.isnan(a))
    b_missing = b is None or (isinstance(b, float) and math.isnan(b))
    if a_missing or b_missing:
        return a_missing and b_missing
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


@dataclass
class Score:
    """Results of one cohort in one mode."""

    rows: Dict[str, Optional[int]]
    row_ok: Dict[str, bool]
    value_hits: Dict[str, int]
    value_total: Dict[str, int]
    extra: Tuple[str, ...] = ()

    @property
    def perfect(self) -> bool:
        """Every row right and every value right."""
        return all(self.row_ok.values()) and all(
            self.value_hits[f] == self.value_total[f] for f in self.value_hits)


def predict_values(rows: Lines, row: Optional[int], feature: str, trait: str,
                   background: str, n: int) -> List[Optional[float]]:
    """Converted per-sample values of the predicted row (all None without a row)."""
    if row is None:
        return [None] * n
    tag, cells = rows[row]
    if feature == "trait" and tag != CH1:
        return convert_sample_line(tag, cells, trait, background)
    return infer_clinical_values(feature, list(cells), trait, background)


def _ext_rows(cohort: Cohort) -> Tuple[Dict[str, Optional[int]], Dict[str, bool],
                                       Tuple[str, ...], Lines]:
    unique = [(tag, list(dict.fromkeys(cells))[:30]) for tag, cells in cohort.lines]
    pred = infer_clinical_rows_with_sample_lines(unique, cohort.trait, cohort.background)
    rows = {"trait": pred["trait_row"], "age": pred["age_row"], "gender": pred["gender_row"]}
    extra = tuple(pred["extra_rows"])
    truth = cohort.truth_ext
    row_ok = {f: rows[f] == truth[f] for f in ("age", "gender")}
    if extra == cohort.truth_extra:
        row_ok["trait"] = rows["trait"] == truth["trait"]
    else:   # an alternative line carrying the same groups counts when it is found
        row_ok["trait"] = bool(extra) and extra == cohort.alt_extra and rows["trait"] is not None
    return rows, row_ok, extra, select(cohort.lines, pred["prefixes_b"])


def score(cohort: Cohort, mode: str) -> Score:
    """Score one cohort in mode ``ch1`` or ``ext``."""
    if mode == "ch1":
        table = select(cohort.lines, [ACCESSION, CH1])
        pred = infer_clinical_rows(unique_by_row(table), cohort.trait, cohort.background)
        rows = {"trait": pred["trait_row"], "age": pred["age_row"], "gender": pred["gender_row"]}
        row_ok = {f: rows[f] == cohort.truth_ch1[f] for f in FEATURES}
        extra: Tuple[str, ...] = ()
    else:
        rows, row_ok, extra, table = _ext_rows(cohort)
    hits: Dict[str, int] = {}
    totals: Dict[str, int] = {}
    n = len(cohort.samples)
    for feature, reference in cohort.reference.items():
        predicted = predict_values(table, rows[feature], feature, cohort.trait,
                                   cohort.background, n)
        hits[feature] = sum(same_value(p, r) for p, r in zip(predicted, reference))
        totals[feature] = n
    return Score(rows, row_ok, hits, totals, extra)


@dataclass
class Summary:
    """Totals over cohorts in one mode."""

    mode: str
    cohorts: int
    rows_right: Dict[str, int]
    value_hits: Dict[str, int]
    value_total: Dict[str, int]
    misses: List[str]

    def value_share(self, feature: Optional[str] = None) -> float:
        """Share of right values of one feature (all features when None)."""
        features = FEATURES if feature is None else (feature,)
        total = sum(self.value_total[f] for f in features)
        return sum(self.value_hits[f] for f in features) / total if total else math.nan


def summarize(cohorts: Sequence[Cohort], mode: str) -> Summary:
    """Row and value accuracy over ``cohorts``; ``misses`` names every imperfect cohort."""
    rows_right = dict.fromkeys(FEATURES, 0)
    hits = dict.fromkeys(FEATURES, 0)
    totals = dict.fromkeys(FEATURES, 0)
    misses = []
    for cohort in cohorts:
        result = score(cohort, mode)
        for f in FEATURES:
            rows_right[f] += result.row_ok[f]
            hits[f] += result.value_hits.get(f, 0)
            totals[f] += result.value_total.get(f, 0)
        if not result.perfect:
            flags = " ".join(f"{f}={result.rows[f]}{'' if result.row_ok[f] else '(wrong)'}"
                             for f in FEATURES)
            values = " ".join(f"{f}:{result.value_hits[f]}/{result.value_total[f]}"
                              for f in result.value_hits)
            misses.append(f"{cohort.name}: {flags} | values {values}")
    return Summary(mode, len(cohorts), rows_right, hits, totals, misses)
