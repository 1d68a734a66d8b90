"""Presentation of an evaluation report: text table, JSON file and per-task CSVs.

The JSON file follows :class:`utils.schemas.report.EvaluationReport`: the report is
validated against it (after NaN becomes null) before anything is written.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

import pandas as pd

from genotex.evaluation.preprocessing import TABLE_METRICS
from genotex.evaluation.statuses import STATUSES
from genotex.evaluation.summary import OVERALL
from utils.io import PathLike, atomic_to_csv, atomic_write_json
from utils.metrics import GENE_METRICS
from utils.problems import CATEGORIES
from utils.schemas.report import report_document

GENE_HEADINGS = {"precision": "precision", "recall": "recall", "f1": "F1",
                 "jaccard": "Jaccard", "auroc": "AUROC", "gsea_es": "GSEA ES"}


def json_ready(obj: Any) -> Any:
    """Copy of ``obj`` with NaN/inf floats replaced by None (strict JSON)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {str(key): json_ready(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(value) for value in obj]
    return obj


def _flatten_item(item: Mapping[str, Any]) -> Dict[str, Any]:
    row: Dict[str, Any] = {}
    for key, value in item.items():
        if isinstance(value, Mapping):
            for inner, inner_value in value.items():
                row[f"{key}.{inner}"] = inner_value
        else:
            row[key] = value
    return row


def item_tables(report: Mapping[str, Any]) -> Dict[str, pd.DataFrame]:
    """One DataFrame per task part: ``filtering``, ``dataset_selection``,
    ``preprocessing`` (all subtasks, with a ``subtask`` column) and ``analysis``."""
    tables: Dict[str, pd.DataFrame] = {}
    selection = report.get("selection")
    if selection:
        tables["filtering"] = pd.DataFrame(selection["filtering"]["cohorts"])
        tables["dataset_selection"] = pd.DataFrame(selection["dataset_selection"]["problems"])
    preprocessing = report.get("preprocessing")
    if preprocessing:
        rows = [item for subtask in report["subtasks"]
                for item in preprocessing[subtask]["cohorts"]]
        tables["preprocessing"] = pd.DataFrame(rows)
    analysis = report.get("analysis")
    if analysis:
        tables["analysis"] = pd.DataFrame([_flatten_item(i) for i in analysis["problems"]])
    return tables


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
    target = Path(path)
    document = report_document(json_ready(report))
    atomic_write_json(target, document, indent=2)
    written = [target]
    stem = target.with_suffix("") if target.suffix == ".json" else target
    for name, table in item_tables(report).items():
        csv_path = stem.parent / f"{stem.name}.{name}.csv"
        atomic_to_csv(table, csv_path, index=False)
        written.append(csv_path)
    return written


def _fmt(value: Optional[float], width: int = 8) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return f"{'n/a':>{width}}"
    return f"{value:>{width}.2f}"


def _statuses(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{name} {counts.get(name, 0)}" for name in STATUSES
                     if counts.get(name, 0)) or "none"


def format_report(report: Mapping[str, Any], max_problems: int = 10) -> str:
    """Readable plain-text summary of a report (scores in percent except AUROC/ES).

    Parameters
    ----------
    report : mapping
        As returned by :meth:`genotex.evaluation.evaluator.Evaluator.run`.
    max_problems : int
        How many non-ok items to list per task with their messages.
    """
    lines = ["GenoTEX evaluation", f"  prediction: {report['prediction']}",
             f"  reference:  {report['reference']}", ""]
    issues: List[str] = []
    selection = report.get("selection")
    if selection:
        filtering = selection["filtering"]
        s = filtering["summary"]
        lines += ["Selection",
                  f"  dataset filtering   F1 {_fmt(s['f1'], 6)}"
                  f"  precision {_fmt(s['precision'], 6)}"
                  f"  recall {_fmt(s['recall'], 6)}  accuracy {_fmt(s['accuracy'], 6)}"
                  f"   (cohorts {s['n']}; {_statuses(filtering['status_counts'])})"]
        ds = selection["dataset_selection"]
        parts = [f"{name} {_fmt(block['mean'], 6)} (n={block['n']})"
                 for name, block in ds["summary"].items()]
        lines += ["  dataset selection   accuracy: " + "; ".join(parts),
                  f"                      ({_statuses(ds['status_counts'])})", ""]
        issues += _issue_lines("filtering", filtering["cohorts"], max_problems,
                               lambda i: f"{i['trait']}/{i['cohort']}")
        issues += _issue_lines("dataset selection", ds["problems"], max_problems,
                               lambda i: f"{i['trait']}|{i['condition']}")
    preprocessing = report.get("preprocessing")
    if preprocessing:
        lines += ["Preprocessing (percent)",
                  f"  {'subtask':<10}{'AJ':>8}{'SJ':>8}{'CSC':>8}{'cohorts':>9}   statuses"]
        for subtask in report["subtasks"]:
            block = preprocessing[subtask]
            summary = block["summary"]
            lines.append(f"  {subtask:<10}" + "".join(_fmt(summary[m]["mean"])
                                                     for m in TABLE_METRICS)
                         + f"{summary['cohorts']:>9}   {_statuses(block['status_counts'])}")
            issues += _issue_lines(f"preprocessing {subtask}", block["cohorts"], max_problems,
                                   lambda i: f"{i['trait']}/{i['cohort']}")
        lines.append("")
    analysis = report.get("analysis")
    if analysis:
        lines += _analysis_lines(analysis)
        issues += _issue_lines("analysis", analysis["problems"], max_problems,
                               lambda i: f"{i['trait']}|{i['condition']}")
    if issues:
        lines += ["Items not scored as ok (first of each task)"] + issues
    return "\n".join(lines).rstrip() + "\n"


def _analysis_lines(analysis: Mapping[str, Any]) -> List[str]:
    header = "".join(f"{GENE_HEADINGS[m]:>10}" for m in GENE_METRICS)
    lines = ["Analysis (precision..Jaccard in percent; AUROC, GSEA ES in 0-1)",
             f"  {'category':<22}{header}{'problems':>10}{'success %':>11}"]
    for category in (*CATEGORIES, OVERALL):
        block = analysis["summary"][category]
        lines.append(f"  {category:<22}" + "".join(_fmt(block[m]["mean"], 10)
                                                  for m in GENE_METRICS)
                     + f"{block['problems']:>10}{_fmt(block['success_rate'], 11)}")
    undefined = {m: analysis["summary"][OVERALL][m]["n"] for m in ("auroc", "gsea_es")}
    lines.append(f"  (AUROC defined on {undefined['auroc']} problems, GSEA ES on "
                 f"{undefined['gsea_es']}; statuses: {_statuses(analysis['status_counts'])})")
    predicted = analysis["trait_prediction"]["predicted"].get(OVERALL, {})
    reference = analysis["trait_prediction"]["reference"].get(OVERALL, {})
    if predicted or reference:
        lines.append("  trait prediction (cv_performance.prediction, overall mean):")
        for name in sorted(set(predicted) | set(reference)):
            pred = predicted.get(name, {"mean": None, "n": 0})
            ref = reference.get(name, {"mean": None, "n": 0})
            lines.append(f"    {name:<28} predicted {_fmt(pred['mean'], 10)} (n={pred['n']})"
                         f"   reference {_fmt(ref['mean'], 10)} (n={ref['n']})")
    lines.append("")
    return lines


def _issue_lines(task: str, items: List[Mapping[str, Any]], limit: int, name) -> List[str]:
    bad = [i for i in items if i.get("status") not in ("ok", None)]
    lines = [f"  [{task}] {i['status']}: {name(i)}: {i.get('message', '')}" for i in bad[:limit]]
    if len(bad) > limit:
        lines.append(f"  [{task}] ... and {len(bad) - limit} more (see --report)")
    return lines
