"""A self-contained HTML report of one or several methods (``eval.py --html FILE``).

One file, viewable offline: inline CSS and inline SVG charts
(:mod:`genotex.evaluation.svg_plots`), no script, nothing fetched. It holds

* the leaderboard (methods as rows, :mod:`genotex.evaluation.leaderboard`); a
  method given as a run folder of repeats shows ``mean ± sd`` in each cell
  (:mod:`genotex.evaluation.repeats`), and its resources per problem;
* ``plot-overview``: the headline scores of each method (error bars: ± sd of
  the repeats);
* ``plot-categories``: analysis F1, AUROC and GSEA ES by problem category
  (error bars likewise);
* ``plot-auroc``: the distribution of the per-problem AUROC over the problems scored;
* ``plot-csc``: the CSC of each cohort, per preprocessing subtask;
* each method's text summary (:func:`genotex.evaluation.text_summary.format_report`).

Missing items are never drawn as zeros of a distribution: a problem without a valid
result file stays out of the AUROC histogram and a missing or unusable table is drawn
as a missing marker in the CSC charts (:class:`~genotex.evaluation.svg_plots.Series`
``missing``); under each chart a note counts, per method, what is missing and what the
means count as 0. Each chart's plot area has its own light tint (:data:`TINTS`), which
the browser test uses to find it in a screenshot.
"""

from __future__ import annotations

import math
from html import escape
from pathlib import Path
from typing import Any, List, Mapping, Optional, Sequence

from genotex.evaluation.leaderboard import HEADINGS, build_leaderboard
from genotex.evaluation.statuses import OK, STATUSES
from genotex.evaluation.summary import OVERALL
from genotex.evaluation.svg_plots import Series, grouped_bars, series_color
from genotex.evaluation.text_summary import (CONVENTION_NAMES, format_report,
                                             gene_symbol_reading)
from genotex.evaluation.layout import SUBTASKS
from utils.io import PathLike, atomic_write_text
from utils.problems import CATEGORIES

#: Plot-area tint of each chart (light, distinct from every method colour).
TINTS = {"overview": "#eef3fb", "categories": "#eefbf0", "auroc": "#fbf3ee",
         "csc": "#f6eefb"}
#: Headline columns of the overview chart: (column key, label, factor to percent).
OVERVIEW = (("selection.filtering.f1", "DF F1", 1.0),
            ("selection.dataset selection.accuracy", "DS accuracy", 1.0),
            ("preprocessing.gene.csc", "gene CSC", 1.0),
            ("preprocessing.clinical.csc", "clinical CSC", 1.0),
            ("preprocessing.linked.csc", "linked CSC", 1.0),
            ("analysis.overall.f1", "F1", 1.0),
            ("analysis.overall.auroc", "AUROC x100", 100.0),
            ("analysis.overall.gsea_es", "GSEA ES x100", 100.0),
            ("analysis.overall.success_rate", "success", 1.0))
AUROC_BINS = 10
STYLE = """
body { font-family: sans-serif; margin: 24px; color: #222; background: #ffffff; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; }
h3 { font-size: 15px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; }
th, td { border: 1px solid #cccccc; padding: 3px 7px; text-align: right; }
th { background: #f0f0f0; } td.method { text-align: left; font-weight: bold; }
.meta { color: #555; font-size: 13px; } .plots { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0; overflow-x: auto; max-width: 100%; }
pre { background: #f7f7f7; padding: 10px; font-size: 12px; overflow-x: auto; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 5px; }
"""


def _number(value: Optional[float], digits: int = 2) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:.{digits}f}"


def _cell(row: Mapping[str, Any], column: Mapping[str, Any]) -> str:
    digits = {"unit": 3, "count": 0, "usd": 4, "seconds": 1}.get(column["scale"], 2)
    text = _number(row["scores"].get(column["key"]), digits)
    spread = (row.get("sd") or {}).get(column["key"])
    if row.get("sd") is not None and text != "n/a":
        text += f" \u00b1 {_number(spread, digits)}"
    return f"<td>{escape(text)}</td>"


def leaderboard_html(leaderboard: Mapping[str, Any]) -> str:
    """Tables (selection and preprocessing; analysis; resources for repeats), one row per
    method; ``mean ± sd`` for a method with repeats."""
    colors = {row["method"]: series_color(i) for i, row in enumerate(leaderboard["rows"])}
    parts = []
    for table_id, title, tasks in (("leaderboard-selection", "Selection and preprocessing "
                                    "(percent)", ("selection", "preprocessing")),
                                   ("leaderboard-analysis", "Analysis (percent; AUROC and "
                                    "GSEA ES 0-1)", ("analysis",)),
                                   ("leaderboard-resources", "Resources per problem (tokens, "
                                    "US dollars, seconds)", ("resources",))):
        columns = [c for c in leaderboard["columns"] if c["task"] in tasks]
        if not columns:
            continue
        spans: List[List[Any]] = []
        for column in columns:
            if spans and spans[-1][0] == column["group"]:
                spans[-1][1] += 1
            else:
                spans.append([column["group"], 1])
        group_row = "".join(f'<th colspan="{n}">{escape(HEADINGS.get(g, g))}</th>'
                            for g, n in spans)
        metric_row = "".join(f"<th>{escape(HEADINGS.get(c['metric'], c['metric']))}</th>"
                             for c in columns)
        rows = []
        for row in leaderboard["rows"]:
            cells = "".join(_cell(row, c) for c in columns)
            name = escape(row["method"])
            repeats = f" ({row['repeats']} repeats)" if row.get("repeats") else ""
            rows.append(f'<tr class="method-row" data-method="{name}">'
                        f'<td class="method"><span class="swatch" style="background:'
                        f'{colors[row["method"]]}"></span>{name}{escape(repeats)}</td>'
                        f'{cells}</tr>')
        parts.append(f"<h3>{escape(title)}</h3>\n<table id=\"{table_id}\">"
                     f'<tr><th rowspan="2">method</th>{group_row}</tr><tr>{metric_row}</tr>'
                     + "\n".join(rows) + "</table>")
    return "\n".join(parts)


def _spreads(row: Mapping[str, Any], keys: Sequence[str], factor: float = 1.0
             ) -> Optional[List[Optional[float]]]:
    """The sd of a method's repeats for each of ``keys`` (None without repeats)."""
    if row.get("sd") is None:
        return None
    return [_scaled(row["sd"].get(key), factor) for key in keys]


def overview_plot(leaderboard: Mapping[str, Any]) -> str:
    """Headline scores per method (percent; AUROC and GSEA ES x100; ± sd of repeats)."""
    series = [Series(row["method"], series_color(i),
                     [_scaled(row["scores"].get(key), factor) for key, _, factor in OVERVIEW],
                     spreads=([_scaled((row.get("sd") or {}).get(key), factor)
                               for key, _, factor in OVERVIEW]
                              if row.get("sd") is not None else None))
              for i, row in enumerate(leaderboard["rows"])]
    return grouped_bars("Headline scores (percent)", [label for _, label, _ in OVERVIEW],
                        series, y_max=100.0, y_label="percent", x_label="score",
                        tint=TINTS["overview"], plot_id="plot-overview")


def _scaled(value: Optional[float], factor: float) -> Optional[float]:
    return None if value is None else value * factor


def _not_ok(items: Sequence[Mapping[str, Any]]) -> List[Mapping[str, Any]]:
    """The prediction items that could not be scored (missing, malformed, empty)."""
    return [i for i in items if i["status"] != OK and i["status"] in STATUSES]


def _by_status(items: Sequence[Mapping[str, Any]]) -> str:
    """``missing 5, malformed 1``: the items counted by status."""
    counts: dict = {}
    for item in items:
        counts[item["status"]] = counts.get(item["status"], 0) + 1
    return ", ".join(f"{status} {count}" for status, count in counts.items())


def category_plots(leaderboard: Mapping[str, Any],
                   reports: Sequence[Mapping[str, Any]]) -> List[str]:
    """Analysis F1, AUROC and GSEA ES by category (one chart per metric; ± sd of repeats).

    The values are the leaderboard's (a method's mean over its repeats); these are the
    task's means, in which a problem without a valid result counts as 0
    (docs/evaluation.md); the note under each chart says how many such problems each
    report (each repeat) has.
    """
    groups = [*CATEGORIES, OVERALL]
    notes = []
    for r in reports:
        failed = _not_ok(r["analysis"]["problems"]) if r.get("analysis") else []
        if failed:
            notes.append(f"{r['method']}: {len(failed)} of {len(r['analysis']['problems'])} "
                         f"problems have no valid result ({_by_status(failed)}); they count "
                         "as 0 in these means")
    charts = []
    for metric, title, top, label in (("f1", "Analysis F1 by category", 100.0, "F1 (percent)"),
                                      ("auroc", "AUROC by category", 1.0, "mean AUROC"),
                                      ("gsea_es", "GSEA ES by category", 1.0, "mean GSEA ES")):
        keys = [f"analysis.{g}.{metric}" for g in groups]
        series = [Series(row["method"], series_color(i),
                         [row["scores"].get(key) for key in keys],
                         spreads=_spreads(row, keys))
                  for i, row in enumerate(leaderboard["rows"])
                  if any(row["scores"].get(key) is not None for key in keys)]
        charts.append(grouped_bars(title, [HEADINGS[g] for g in groups], series, y_max=top,
                                   y_label=label, x_label="problem category", notes=notes,
                                   tint=TINTS["categories"],
                                   plot_id=f"plot-categories-{metric}"))
    return charts


def auroc_plot(reports: Sequence[Mapping[str, Any]]) -> str:
    """How many problems fall in each AUROC tenth, per method.

    Only problems with a valid result and a defined AUROC are counted; the problems
    without a valid result (scored 0 in the means) are counted in a note instead, so
    they do not fill the lowest bin.
    """
    labels = [f"{i / AUROC_BINS:.1f}-{(i + 1) / AUROC_BINS:.1f}" for i in range(AUROC_BINS)]
    series, notes = [], []
    for i, report in enumerate(reports):
        if not report.get("analysis"):
            continue
        counts = [0] * AUROC_BINS
        problems = report["analysis"]["problems"]
        scored = [item for item in problems if item["status"] == OK]
        for item in scored:
            value = item.get("auroc")
            if isinstance(value, float) and math.isfinite(value):
                counts[min(int(value * AUROC_BINS), AUROC_BINS - 1)] += 1
        series.append(Series(report["method"], series_color(i), counts))
        failed = _not_ok(problems)
        drawn = sum(counts)
        note = f"{report['method']}: {drawn} problems drawn"
        if failed:
            note += (f"; {len(failed)} without a valid result ({_by_status(failed)}) are "
                     "not drawn")
        if len(scored) > drawn:
            note += f"; {len(scored) - drawn} with AUROC undefined"
        notes.append(note)
    return grouped_bars("Per-problem AUROC (problems per interval)", labels, series,
                        y_label="problems", x_label="AUROC", notes=notes,
                        tint=TINTS["auroc"], plot_id="plot-auroc")


def csc_plots(reports: Sequence[Mapping[str, Any]]) -> List[str]:
    """CSC of each reference cohort, one chart per subtask (methods side by side).

    A table that is missing or unusable is drawn as a missing marker, not as a CSC of
    0, and counted in the note under the chart.
    """
    charts = []
    for subtask in SUBTASKS:
        blocks = [(i, r["preprocessing"][subtask]) for i, r in enumerate(reports)
                  if (r.get("preprocessing") or {}).get(subtask)]
        if not blocks:
            continue
        cohorts = list(dict.fromkeys(f"{item['trait']}/{item['cohort']}"
                                     for _, block in blocks for item in block["cohorts"]))
        series, notes = [], []
        for i, block in blocks:
            by_cohort = {f"{item['trait']}/{item['cohort']}": item for item in block["cohorts"]}
            items = [by_cohort.get(c) for c in cohorts]
            series.append(Series(reports[i]["method"], series_color(i),
                                 [item["csc"] if item else None for item in items],
                                 [bool(item) and item["status"] != OK for item in items]))
            failed = _not_ok(block["cohorts"])
            if failed:
                notes.append(f"{reports[i]['method']}: {len(failed)} tables missing or "
                             f"unusable ({_by_status(failed)}), drawn as missing; they "
                             "score 0 in the means")
        charts.append(grouped_bars(f"CSC per cohort: {subtask} tables (percent)", cohorts,
                                   series, y_max=100.0, y_label="CSC (percent)",
                                   x_label="trait/cohort", notes=notes, tint=TINTS["csc"],
                                   plot_id=f"plot-csc-{subtask}"))
    return charts


def render_html(reports: Sequence[Mapping[str, Any]],
                leaderboard: Optional[Mapping[str, Any]] = None) -> str:
    """The whole report page (``leaderboard`` default: one row per report; give
    :func:`genotex.evaluation.repeats.repeated_leaderboard` for methods with repeats)."""
    leaderboard = leaderboard if leaderboard is not None else build_leaderboard(reports)
    sections = [f"<h1>GenoTEX evaluation: "
                f"{escape(', '.join(r['method'] for r in leaderboard['rows']))}</h1>",
                f'<p class="meta">reference {escape(leaderboard["reference"])}<br>'
                f"conventions {escape(CONVENTION_NAMES[leaderboard['conventions']])}<br>"
                "gene symbols "
                f"{escape(gene_symbol_reading(leaderboard.get('gene_synonyms')))}</p>",
                '<section id="leaderboard"><h2>Leaderboard</h2>'
                f"{leaderboard_html(leaderboard)}</section>",
                _section("overview", "Headline scores", [overview_plot(leaderboard)])]
    if any(r.get("analysis") for r in reports):
        sections.append(_section("categories", "Analysis by problem category",
                                 category_plots(leaderboard, reports)))
        sections.append(_section("auroc", "Distribution of the per-problem AUROC",
                                 [auroc_plot(reports)]))
    charts = csc_plots(reports)
    if charts:
        sections.append(_section("csc", "CSC per cohort", charts))
    details = "".join(f'<h3>{escape(r["method"])}</h3><pre class="summary">'
                      f"{escape(format_report(r))}</pre>" for r in reports)
    sections.append(f'<section id="details"><h2>Per-method summaries</h2>{details}</section>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>GenoTEX evaluation</title><style>{STYLE}</style></head>\n<body>\n"
            + "\n".join(sections) + "\n</body></html>\n")


def _section(name: str, title: str, charts: Sequence[str]) -> str:
    figures = "".join(f'<figure class="plot">{chart}</figure>' for chart in charts)
    return (f'<section id="plot-{name}-section"><h2>{escape(title)}</h2>'
            f'<div class="plots">{figures}</div></section>')


def write_html_report(reports: Sequence[Mapping[str, Any]], path: PathLike,
                      leaderboard: Optional[Mapping[str, Any]] = None) -> Path:
    """Write :func:`render_html` of the reports to ``path`` (atomically); returns it."""
    target = Path(path)
    atomic_write_text(target, render_html(reports, leaderboard))
    return target

