"""Averages and status counts over scored items (NaN-aware, with denominators)."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Mapping, Sequence

from genotex.evaluation.statuses import STATUSES
from utils.metrics import nan_mean

OVERALL = "overall"


def summarize(items: Sequence[Mapping[str, Any]], metrics: Iterable[str]) -> Dict[str, Any]:
    """NaN-aware mean and denominator of each metric over items.

    Returns
    -------
    dict
        ``{metric: {"mean": float, "n": int}}``.
    """
    summary = {}
    for metric in metrics:
        mean, count = nan_mean(item.get(metric) for item in items)
        summary[metric] = {"mean": mean, "n": count}
    return summary


def status_counts(items: Sequence[Mapping[str, Any]]) -> Dict[str, int]:
    """How many items have each status (all four prediction statuses listed)."""
    counts = dict.fromkeys(STATUSES, 0)
    for item in items:
        counts[item["status"]] = counts.get(item["status"], 0) + 1
    return counts
