"""Repeated runs of a method: finding them, and their leaderboard row as mean ± sd.

``run_agent.py --repeats K --run-dir RUN`` writes K independent runs into
``RUN/repeat-1/`` ... ``RUN/repeat-K/``, each a run folder with its
``prediction/`` tree and ``resources.json``. ``eval.py -p RUN`` finds them
(:func:`find_repeats`), scores every tree, and ranks the method by the mean of
each leaderboard column over its repeats, with the sample standard deviation
beside it (:func:`repeated_leaderboard`) -- the paper's Table 2 columns, plus
the run's resources per problem (input and output tokens, cost, seconds) read
from each repeat's ``resources.json``.
"""

from __future__ import annotations

import json
import math
import re
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from genotex.evaluation.leaderboard import Column, build_leaderboard

REPEAT_PREFIX = "repeat-"
PREDICTION = "prediction"
RESOURCES = "resources.json"
_REPEAT = re.compile(rf"^{REPEAT_PREFIX}(\d+)$")
#: Resource columns: (metric, summary key of resources.json, scale).
RESOURCE_METRICS = (("input_tokens", "input_tokens_per_problem", "count"),
                    ("output_tokens", "output_tokens_per_problem", "count"),
                    ("cost_usd", "cost_per_problem_usd", "usd"),
                    ("seconds", "seconds_per_problem", "seconds"))
RESOURCE_COLUMNS = tuple(Column("resources", "per problem", metric, scale)
                         for metric, _, scale in RESOURCE_METRICS)


def repeat_folder(run_dir: Path, k: int) -> Path:
    """The run folder of the ``k``-th repeat (``RUN/repeat-<k>``)."""
    return Path(run_dir) / f"{REPEAT_PREFIX}{k}"


def find_repeats(folder: Path) -> Optional[List[Path]]:
    """The prediction trees of the repeats in ``folder``, in repeat order, or None.

    ``folder`` holds repeats when it has ``repeat-<k>/`` sub-folders; each
    contributes ``repeat-<k>/prediction`` (which the evaluator reports as missing
    when a repeat never wrote it).
    """
    folder = Path(folder)
    if not folder.is_dir():
        return None
    found = sorted((int(m.group(1)), entry) for entry in folder.iterdir()
                   if entry.is_dir() and (m := _REPEAT.match(entry.name)))
    return [entry / PREDICTION for _, entry in found] or None


def resource_scores(tree: Path) -> Optional[Dict[str, Optional[float]]]:
    """The resource columns of the run folder holding ``tree`` (None without a report)."""
    path = Path(tree).parent / RESOURCES
    try:
        summary = json.loads(path.read_text("utf-8"))["summary"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    scores: Dict[str, Optional[float]] = {}
    for column, (_, key, _) in zip(RESOURCE_COLUMNS, RESOURCE_METRICS):
        value = summary.get(key) if isinstance(summary, dict) else None
        scores[column.key] = float(value) if isinstance(value, (int, float)) else None
    return scores


def mean_and_sd(values: Sequence[Optional[float]]) -> tuple:
    """Mean and sample standard deviation of the defined values (None when too few)."""
    defined = [v for v in values if v is not None and math.isfinite(v)]
    mean = statistics.fmean(defined) if defined else None
    sd = statistics.stdev(defined) if len(defined) >= 2 else None
    return mean, sd


@dataclass(frozen=True)
class MethodRuns:
    """One method's evaluated trees: a single tree, or the repeats of a run folder.

    Attributes
    ----------
    method : str
    folder : Path
        What was given (the tree, or the run folder of the repeats).
    reports : sequence of dict
        One evaluation report per tree.
    repeated : bool
        Whether the trees are repeats of a run folder.
    """

    method: str
    folder: Path
    reports: Sequence[Mapping[str, Any]]
    repeated: bool = False


def repeated_leaderboard(methods: Sequence[MethodRuns]) -> Dict[str, Any]:
    """The leaderboard with one row per method: the mean of each column over its trees,
    and for repeated methods the sample sd and the number of repeats.

    Raises
    ------
    ValueError
        When the reports disagree on the reference or the conventions.
    """
    every = [report for method in methods for report in method.reports]
    board = build_leaderboard(every)
    keys = [column["key"] for column in board["columns"]]
    per_report = {id(report): row["scores"] for report, row in zip(every, board["rows"])}
    resources = {id(report): resource_scores(Path(report["prediction"]))
                 for method in methods if method.repeated for report in method.reports}
    if any(scores is not None for scores in resources.values()):
        board["columns"] += [column.as_dict() for column in RESOURCE_COLUMNS]
        keys += [column.key for column in RESOURCE_COLUMNS]
    rows = []
    for method in methods:
        scores = [{**per_report[id(r)], **(resources.get(id(r)) or {})} for r in method.reports]
        row: Dict[str, Any] = {"method": method.method, "prediction": str(method.folder),
                               "scores": {}}
        if method.repeated:
            row["sd"], row["repeats"] = {}, len(method.reports)
        for key in keys:
            mean, sd = mean_and_sd([s.get(key) for s in scores])
            row["scores"][key] = mean
            if method.repeated:
                row["sd"][key] = sd
        rows.append(row)
    board["rows"] = rows
    return board
