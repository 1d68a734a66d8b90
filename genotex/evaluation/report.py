"""Presentation of an evaluation report: JSON file and per-task CSVs.

The JSON file follows :class:`utils.schemas.report.EvaluationReport` (one method) or
:class:`utils.schemas.report.Comparison` (several): the document is validated
against it (after NaN becomes null) before anything is written. The CSV files have
the same columns in every run (those of the schema's item models), whatever the
items hold. The text summary is :mod:`genotex.evaluation.summary_text`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Mapping, Sequence

import pandas as pd

from utils.io import PathLike, atomic_to_csv, atomic_write_json
from utils.schemas.report import (AnalysisItem, DatasetSelectionItem, FilteringItem,
                                  TableItem, comparison_document, report_document)

#: Trait-prediction metrics (SPEC 5.5) given their own CSV columns, in this order.
PREDICTION_METRICS = ("accuracy", "precision", "recall", "f1", "normalized_mse", "r2")
CV_SIDES = ("predicted_cv", "reference_cv")


def json_ready(obj: Any) -> Any:
    """Copy of ``obj`` with NaN/inf floats replaced by None (strict JSON)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {str(key): json_ready(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(value) for value in obj]
    return obj


def csv_columns() -> Dict[str, List[str]]:
    """The columns of each per-task CSV (fixed: the fields of the schema's item models).

    The analysis CSV replaces ``predicted_cv`` / ``reference_cv`` by one column per
    SPEC 5.5 trait-prediction metric (``predicted_cv.accuracy`` ...); other metric
    names a result file may hold are in the JSON report only.
    """
    analysis: List[str] = []
    for name in AnalysisItem.model_fields:
        if name in CV_SIDES:
            analysis += [f"{name}.{metric}" for metric in PREDICTION_METRICS]
        else:
            analysis.append(name)
    return {"filtering": list(FilteringItem.model_fields),
            "dataset_selection": list(DatasetSelectionItem.model_fields),
            "preprocessing": list(TableItem.model_fields), "analysis": analysis}


def _analysis_row(item: Mapping[str, Any]) -> Dict[str, Any]:
    row = {key: value for key, value in item.items() if key not in CV_SIDES}
    for side in CV_SIDES:
        for metric in PREDICTION_METRICS:
            row[f"{side}.{metric}"] = item.get(side, {}).get(metric)
    return row


def item_tables(report: Mapping[str, Any]) -> Dict[str, pd.DataFrame]:
    """One DataFrame per evaluated task part: ``filtering``, ``dataset_selection``,
    ``preprocessing`` (all subtasks, with a ``subtask`` column) and ``analysis``,
    each with the columns of :func:`csv_columns`."""
    rows: Dict[str, List[Mapping[str, Any]]] = {}
    selection = report.get("selection")
    if selection:
        rows["filtering"] = selection["filtering"]["cohorts"]
        rows["dataset_selection"] = selection["dataset_selection"]["problems"]
    preprocessing = report.get("preprocessing")
    if preprocessing:
        rows["preprocessing"] = [item for subtask in report["subtasks"]
                                 for item in preprocessing[subtask]["cohorts"]]
    analysis = report.get("analysis")
    if analysis:
        rows["analysis"] = [_analysis_row(i) for i in analysis["problems"]]
    columns = csv_columns()
    return {name: pd.DataFrame(list(items), columns=columns[name])
            for name, items in rows.items()}


def _csv_path(target: Path, name: str) -> Path:
    stem = target.with_suffix("") if target.suffix == ".json" else target
    return stem.parent / f"{stem.name}.{name}.csv"


def write_report(report: Mapping[str, Any], path: PathLike) -> List[Path]:
    """Write the JSON report and, beside it, one CSV per task part.

    ``report.json`` gives ``report.filtering.csv``, ``report.dataset_selection.csv``,
    ``report.preprocessing.csv`` and ``report.analysis.csv`` (those evaluated).

    Returns
    -------
    list of pathlib.Path
        Every file written, JSON first.

    Raises
    ------
    utils.schemas.base.FormatError
        When the report does not follow :class:`utils.schemas.report.EvaluationReport`
        (nothing is written).
    """
    return _write_files(Path(path), report_document(json_ready(report)), item_tables(report))


def _write_files(target: Path, document: Mapping[str, Any],
                 tables: Mapping[str, pd.DataFrame]) -> List[Path]:
    """The validated JSON document at ``target``, then ``<stem>.<name>.csv`` per table."""
    atomic_write_json(target, document, indent=2)
    written = [target]
    for name, table in tables.items():
        written.append(_csv_path(target, name))
        atomic_to_csv(table, written[-1], index=False)
    return written


def leaderboard_table(leaderboard: Mapping[str, Any]) -> pd.DataFrame:
    """The leaderboard as a table: one row per method, one column per score key (and,
    when methods have repeats, ``repeats`` and a ``<key> sd`` column per score)."""
    keys = [column["key"] for column in leaderboard["columns"]]
    spread = any(row.get("sd") is not None for row in leaderboard["rows"])
    names = ["method", "prediction", *keys]
    if spread:
        names += ["repeats", *[f"{key} sd" for key in keys]]
    rows = []
    for row in leaderboard["rows"]:
        values = {"method": row["method"], "prediction": row["prediction"],
                  **{key: row["scores"].get(key) for key in keys}}
        if spread:
            sd = row.get("sd") or {}
            values.update({"repeats": row.get("repeats") or 1,
                           **{f"{key} sd": sd.get(key) for key in keys}})
        rows.append(values)
    return pd.DataFrame(rows, columns=names)


def write_comparison(leaderboard: Mapping[str, Any], reports: Sequence[Mapping[str, Any]],
                     path: PathLike) -> List[Path]:
    """Write several methods' comparison: the JSON document and, beside it,
    ``<stem>.leaderboard.csv`` and one CSV per task part with a leading ``method`` column.

    Raises
    ------
    utils.schemas.base.FormatError
        When the document does not follow :class:`utils.schemas.report.Comparison`
        (nothing is written).
    """
    document = comparison_document(json_ready({"leaderboard": leaderboard,
                                               "reports": list(reports)}))
    tables: Dict[str, pd.DataFrame] = {"leaderboard": leaderboard_table(leaderboard)}
    parts: Dict[str, List[pd.DataFrame]] = {}
    for report in reports:
        for name, table in item_tables(report).items():
            parts.setdefault(name, []).append(table.assign(method=report["method"]))
    for name, frames in parts.items():
        combined = pd.concat(frames, ignore_index=True)
        tables[name] = combined[["method", *[c for c in combined.columns if c != "method"]]]
    return _write_files(Path(path), document, tables)
