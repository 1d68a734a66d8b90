"""The summary ``eval.py`` prints: one screen per method, or a leaderboard.

:func:`format_report` shows, per task and category, the scores with their
denominators, the filtering confusion counts, the preprocessing coverage and mean
correlation, then the worst items: those scored ``ok`` but wrong (flipped
usability, wrong selection, lowest CSC, lowest F1) and those not ``ok`` (counts by
status, the first messages). :func:`format_leaderboard` prints several methods as
rows in the shape of the paper's Table 2. Scores are percentages except AUROC and
GSEA ES (0-1).
"""

from __future__ import annotations

import math
import textwrap
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence

from genotex.evaluation.leaderboard import HEADINGS
from genotex.evaluation.statuses import OK, STATUSES
from genotex.evaluation.summary import OVERALL
from utils.metrics import GENE_METRICS
from utils.problems import CATEGORIES

WIDTH = 100
#: Trait-prediction metrics shown first (SPEC 5.5), others after in name order.
PREDICTION_ORDER = ("accuracy", "precision", "recall", "f1", "normalized_mse", "r2")
#: How many worst items each task lists.
WORST = 3
CONVENTION_NAMES = {"genotex": "genotex (docs/evaluation.md)",
                    "legacy": "legacy (the original evaluator's, docs/evaluation.md)"}
GENE_HEADINGS = {"precision": "precision", "recall": "recall", "f1": "F1",
                 "jaccard": "Jaccard", "auroc": "AUROC", "gsea_es": "GSEA ES"}
CATEGORY_NAMES = {"unconditional": "unconditional", "conditional one-step": "one-step",
                  "two-step": "two-step", "overall": "overall"}


def fmt(value: Optional[float], width: int = 7, digits: int = 2) -> str:
    """A score right-aligned in ``width`` characters (``n/a`` when undefined)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return f"{'n/a':>{width}}"
    return f"{value:>{width}.{digits}f}"


def status_text(counts: Mapping[str, int], skip_ok: bool = False) -> str:
    """``ok 11, missing 2`` (statuses with a count only)."""
    parts = [f"{name} {counts.get(name, 0)}" for name in STATUSES
             if counts.get(name, 0) and not (skip_ok and name == OK)]
    return ", ".join(parts) or ("none" if not skip_ok else "-")


def gene_symbol_reading(gene_synonyms: Optional[str]) -> str:
    """How analysis gene symbols were compared, and whether that is the canonical reading.

    >>> gene_symbol_reading(None)
    'as written, stripped and upper-cased (the canonical reading)'
    """
    if gene_synonyms is None:
        return "as written, stripped and upper-cased (the canonical reading)"
    return f"mapped through {gene_synonyms} (-g; the canonical reading maps none)"


def format_report(report: Mapping[str, Any]) -> str:
    """Readable one-screen summary of one method's report."""
    lines = [f"GenoTEX evaluation of {report['method']}",
             f"  prediction   {report['prediction']}",
             f"  reference    {report['reference']}",
             f"  conventions  {CONVENTION_NAMES[report['conventions']]}"]
    if report.get("analysis"):
        lines.append(f"  gene symbols {gene_symbol_reading(report.get('gene_synonyms'))}")
    lines.append("")
    if report.get("selection"):
        lines += _selection_lines(report["selection"])
    if report.get("preprocessing"):
        lines += _preprocessing_lines(report["preprocessing"], report["subtasks"])
    if report.get("analysis"):
        lines += _analysis_lines(report["analysis"])
    lines += _worst_lines(report)
    return "\n".join(lines).rstrip() + "\n"


def _selection_lines(selection: Mapping[str, Any]) -> List[str]:
    filtering = selection["filtering"]
    s = filtering["summary"]
    averaged = (f"mean over {len(filtering['traits'])} traits of" if filtering["averaged_over"]
                == "traits" else "over")
    lines = ["SELECTION",
             f"  filtering    F1 {fmt(s['f1'], 0)}  precision {fmt(s['precision'], 0)}  "
             f"recall {fmt(s['recall'], 0)}  accuracy {fmt(s['accuracy'], 0)}  "
             f"({averaged} {s['n']} cohorts)",
             f"               positive = {filtering['label']}: "
             f"TP {s['tp']}  FP {s['fp']}  FN {s['fn']}  TN {s['tn']}"]
    ds = selection["dataset_selection"]
    groups = (*CATEGORIES, OVERALL)
    counts = []
    for category in groups:
        chosen = [i for i in ds["problems"] if category in (OVERALL, i["category"])]
        scored = [i for i in chosen if i["correct"] is not None]
        counts.append(f"{sum(bool(i['correct']) for i in scored)}/{len(scored)}")
    lines += ["  selection  " + "".join(f"{CATEGORY_NAMES[c]:>15}" for c in groups),
              "    accuracy " + "".join(fmt(ds["summary"][c]["mean"], 15) for c in groups),
              "    correct  " + "".join(f"{count:>15}" for count in counts)]
    return lines + [""]


def _preprocessing_lines(preprocessing: Mapping[str, Any], subtasks: Sequence[str]
                         ) -> List[str]:
    lines = ["PREPROCESSING (percent; correlation over the tables read)",
             f"  {'subtask':<10}{'AJ':>8}{'SJ':>8}{'CSC':>8}{'coverage':>10}"
             f"{'correlation':>13}{'tables':>8}   not ok"]
    for subtask in subtasks:
        block = preprocessing[subtask]
        s = block["summary"]
        scores = "".join(fmt(s[m]["mean"], 8) for m in ("aj", "sj", "csc"))
        lines.append(f"  {subtask:<10}" + scores
                     + fmt(s["coverage"]["mean"], 10) + fmt(s["correlation"]["mean"], 13, 3)
                     + f"{s['cohorts']:>8}   {status_text(block['status_counts'], True)}")
    return lines + [""]


def _analysis_lines(analysis: Mapping[str, Any]) -> List[str]:
    header = "".join(f"{GENE_HEADINGS[m]:>10}" for m in GENE_METRICS)
    lines = ["ANALYSIS (percent; AUROC and GSEA ES 0-1)",
             f"  {'category':<15}{header}{'success':>17}"]
    for category in (*CATEGORIES, OVERALL):
        block = analysis["summary"][category]
        success = f"{fmt(block['success_rate'], 7)} ({block['succeeded']}/{block['problems']})"
        lines.append(f"  {CATEGORY_NAMES[category]:<15}"
                     + "".join(fmt(block[m]["mean"], 10) for m in GENE_METRICS)
                     + f"{success:>17}")
    overall = analysis["summary"][OVERALL]
    lines.append(f"  means over {overall['f1']['n']} problems (AUROC defined on "
                 f"{overall['auroc']['n']}, GSEA ES on {overall['gsea_es']['n']})")
    predicted = analysis["trait_prediction"]["predicted"].get(OVERALL, {})
    reference = analysis["trait_prediction"]["reference"].get(OVERALL, {})
    names = sorted(set(predicted) | set(reference),
                   key=lambda n: (PREDICTION_ORDER.index(n) if n in PREDICTION_ORDER
                                  else len(PREDICTION_ORDER), n))
    if names:
        cells = [max(len(name), 9) + 2 for name in names]
        empty = {"mean": None, "n": 0}
        lines.append("  trait prediction (cv_performance.prediction of the results read)")
        lines.append(f"  {'':<15}" + "".join(f"{n:>{w}}" for n, w in zip(names, cells)))
        for side, values in (("predicted", predicted), ("reference", reference)):
            lines.append(f"    {side:<13}" + "".join(
                fmt(values.get(n, empty)["mean"], w) for n, w in zip(names, cells)))
        lines.append(f"    {'n (pred/ref)':<13}" + "".join(
            f"{predicted.get(n, empty)['n']}/{reference.get(n, empty)['n']}".rjust(w)
            for n, w in zip(names, cells)))
    return lines + [""]


def _worst_lines(report: Mapping[str, Any]) -> List[str]:
    """Items scored ok but wrong (worst first), then the items that are not ok."""
    lines: List[str] = []
    selection = report.get("selection")
    if selection:
        flipped = [i for i in selection["filtering"]["cohorts"]
                   if i["status"] == OK and not i["correct"]]
        lines += _listed("filtering", "flipped", flipped, lambda i: (
            f"{i['trait']}/{i['cohort']} "
            f"({'FP' if i['predicted_positive'] else 'FN'})"))
        wrong = [i for i in selection["dataset_selection"]["problems"]
                 if i["status"] == OK and i["correct"] is False]
        lines += _listed("selection", "wrong", wrong, lambda i: (
            f"{i['trait']}|{i['condition']} {i['predicted'] or 'nothing'} "
            f"(reference {i['reference'] or 'nothing'})"))
    preprocessing = report.get("preprocessing")
    if preprocessing:
        tables = [i for s in report["subtasks"] for i in preprocessing[s]["cohorts"]
                  if i["status"] == OK and _finite(i["csc"]) and i["csc"] < 99.995]
        tables.sort(key=lambda i: i["csc"])
        lines += _listed("preprocessing", "below CSC 100", tables, lambda i: (
            f"{i['subtask']} {i['trait']}/{i['cohort']} CSC {i['csc']:.1f} "
            f"(coverage {fmt(i['coverage'], 0, 1)})"))
    analysis = report.get("analysis")
    if analysis:
        problems = [i for i in analysis["problems"]
                    if i["status"] == OK and _finite(i["f1"]) and i["f1"] < 99.995]
        problems.sort(key=lambda i: i["f1"])
        lines += _listed("analysis", "below F1 100", problems, lambda i: (
            f"{i['trait']}|{i['condition']} F1 {i['f1']:.1f}"))
    not_ok = _not_ok(report)
    if not_ok:
        counts: Dict[str, int] = {}
        for _, item in not_ok:
            counts[item["status"]] = counts.get(item["status"], 0) + 1
        root = str(report["prediction"]).rstrip("/") + "/"
        repeats: Dict[tuple, int] = {}  # one line per distinct message, in item order
        for task, item in not_ok:
            key = (task, item["status"], item["message"].replace(root, ""))
            repeats[key] = repeats.get(key, 0) + 1
        lines.append(f"  {'not ok':<15}{len(not_ok)} items ({status_text(counts)}), "
                     f"{len(repeats)} distinct message{'s' if len(repeats) != 1 else ''}, "
                     "first:")
        for (task, status, message), count in list(repeats.items())[:WORST]:
            times = f" ({count} items)" if count > 1 else ""
            text = f"    [{task}] {status}{times}: {message}"
            lines.append(text if len(text) <= WIDTH else text[:WIDTH - 3] + "...")
    if not lines:
        return []
    return ["WORST ITEMS (paths relative to the prediction; all items: --report FILE)"] + lines


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def _listed(task: str, what: str, items: Sequence[Mapping[str, Any]],
            name: Callable[[Mapping[str, Any]], str]) -> List[str]:
    if not items:
        return []
    shown = "; ".join(name(i) for i in items[:WORST])
    more = f"; ... {len(items) - WORST} more" if len(items) > WORST else ""
    return textwrap.wrap(f"{task:<15}{len(items)} {what}: {shown}{more}", WIDTH,
                         initial_indent="  ", subsequent_indent=" " * 17,
                         break_long_words=False)


def _not_ok(report: Mapping[str, Any]) -> List[tuple]:
    """``(task, item)`` of every prediction item whose status is not ``ok``."""
    found: List[tuple] = []

    def add(task: str, items: Iterable[Mapping[str, Any]]) -> None:
        found.extend((task, i) for i in items if i["status"] in STATUSES and i["status"] != OK)

    selection = report.get("selection")
    if selection:
        add("filtering", selection["filtering"]["cohorts"])
        add("selection", selection["dataset_selection"]["problems"])
    preprocessing = report.get("preprocessing")
    if preprocessing:
        for subtask in report["subtasks"]:
            add(f"preprocessing {subtask}", preprocessing[subtask]["cohorts"])
    if report.get("analysis"):
        add("analysis", report["analysis"]["problems"])
    return found


# --------------------------------------------------------------------------- leaderboard

def format_leaderboard(leaderboard: Mapping[str, Any],
                       reports: Sequence[Mapping[str, Any]] = ()) -> str:
    """Several methods as rows: selection and preprocessing, then analysis (then the
    resources per problem, for run folders of repeats).

    A method with repeats shows the mean over its repeats, and under it a ``± sd``
    line (sample standard deviation).

    Parameters
    ----------
    leaderboard : mapping
        :func:`genotex.evaluation.leaderboard.build_leaderboard` or
        :func:`genotex.evaluation.repeats.repeated_leaderboard`.
    reports : sequence of mapping
        The methods' reports, for a line of item statuses per method.
    """
    columns = leaderboard["columns"]
    rows = leaderboard["rows"]
    names = [_row_name(row) for row in rows]
    width = max([len("method")] + [len(name) for name in names]) + 2
    lines = [f"GenoTEX leaderboard of {len(rows)} methods",
             f"  reference    {leaderboard['reference']}",
             f"  conventions  {CONVENTION_NAMES[leaderboard['conventions']]}",
             f"  gene symbols {gene_symbol_reading(leaderboard.get('gene_synonyms'))}", ""]
    if any(row.get("repeats") for row in rows):
        lines[-1:] = ["  methods with repeats: mean over the repeats, then +- the sample "
                      "standard deviation", ""]
    parts = (("SELECTION AND PREPROCESSING (percent)", ("selection", "preprocessing")),
             ("ANALYSIS (percent; AUROC and GSEA 0-1)", ("analysis",)),
             ("RESOURCES PER PROBLEM (tokens, US dollars, seconds)", ("resources",)))
    for title, tasks in parts:
        chosen = [c for c in columns if c["task"] in tasks]
        if chosen:
            lines += [title] + _table(chosen, rows, width) + [""]
    for report in reports:
        lines.append(f"  {report['method']}: items not ok: "
                     f"{_not_ok_counts(report) or 'none'}")
    return "\n".join(lines).rstrip() + "\n"


def _row_name(row: Mapping[str, Any]) -> str:
    return f"{row['method']} (x{row['repeats']})" if row.get("repeats") else row["method"]


def _digits(column: Mapping[str, Any]) -> int:
    return {"unit": 3, "count": 0, "usd": 4, "seconds": 1}.get(column["scale"], 2)


def _table(columns: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]],
           width: int) -> List[str]:
    cell = 8
    spans: List[List[Any]] = []  # [group heading, number of columns]
    for column in columns:
        group = HEADINGS.get(column["group"], column["group"])
        if spans and spans[-1][0] == group:
            spans[-1][1] += 1
        else:
            spans.append([group, 1])
    groups = " " * width + "".join(f"{group[:n * cell - 1]:>{n * cell}}" for group, n in spans)
    heads = f"{'method':<{width}}" + "".join(
        f"{HEADINGS.get(c['metric'], c['metric']):>{cell}}" for c in columns)
    lines = ["  " + groups.rstrip(), "  " + heads]
    for row in rows:
        line = f"{_row_name(row):<{width}}"
        for column in columns:
            line += fmt(row["scores"].get(column["key"]), cell, _digits(column))
        lines.append("  " + line)
        if row.get("sd") is not None:
            spread = f"{'  +- sd':<{width}}"
            for column in columns:
                spread += fmt(row["sd"].get(column["key"]), cell, _digits(column))
            lines.append("  " + spread)
    return lines


def _not_ok_counts(report: Mapping[str, Any]) -> str:
    counts: Dict[str, int] = {}
    for _, item in _not_ok(report):
        counts[item["status"]] = counts.get(item["status"], 0) + 1
    return status_text(counts) if counts else ""
