"""Prices, costs and the resource report of a run (the columns of the paper's Table 2).

* :func:`load_price_table` reads ``{"models": {name: {"input": $, "output": $}}}``
  (US dollars per million tokens; default: ``genotex/methods/prices.json``,
  dated by its ``as_of``). :func:`price_for` looks a model up by its exact
  name, else by its name without a date suffix or provider prefix
  (``gpt-4o-2024-08-06`` -> ``gpt-4o``, ``openai/o3`` -> ``o3``) -- never by a
  shorter name it starts with (``o1-mini`` is not ``o1``); an unknown model
  costs NaN ("n/a"), and :func:`unpriced` names them for a warning.
* :func:`problem_rows` gives one row per problem: success (its analysis ran to
  the end), wall time, input / output tokens and cost. Preprocessing is shared:
  each trait's cohort tasks are charged in equal parts to the problems of that
  trait in the run (two-step problems also read the condition trait's cohorts,
  which are charged to that trait's own problems), so the rows add up to the
  run's totals.
* :func:`write_report` writes ``resources.csv`` (per problem),
  ``tasks.csv`` (per task) and ``resources.json`` (totals and means).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import defaultdict
from dataclasses import dataclass
from importlib import resources as package_files
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

from genotex.methods.base import COHORT, PROBLEM, TaskOutcome
from utils.errors import InputFileError
from utils.io import atomic_write_json, atomic_write_text, read_json
from utils.problems import Problem

PROBLEM_COLUMNS = ("problem", "category", "success", "seconds", "input_tokens",
                   "output_tokens", "cost_usd", "status", "reason")
TASK_COLUMNS = ("kind", "task", "status", "seconds", "calls", "failed_calls", "input_tokens",
                "output_tokens", "cost_usd", "reason")


@dataclass(frozen=True)
class Price:
    """US dollars per million input and output tokens."""

    input: float
    output: float


def default_price_path() -> Path:
    """The price table shipped with the package."""
    return Path(str(package_files.files("genotex.methods") / "prices.json"))


def load_price_table(path: Optional[Path] = None) -> Dict[str, Price]:
    """Read a price table (see module docstring).

    Raises
    ------
    InputFileError
        When the file is not a table of that shape.
    """
    path = Path(path) if path is not None else default_price_path()
    document = read_json(path)
    models = document.get("models") if isinstance(document, dict) else None
    if not isinstance(models, dict):
        raise InputFileError(path, 'expected {"models": {name: {"input": $, "output": $}}}')
    table = {}
    for name, entry in models.items():
        try:
            table[str(name)] = Price(float(entry["input"]), float(entry["output"]))
        except (KeyError, TypeError, ValueError):
            raise InputFileError(path, f"model {name!r}: needs numeric 'input' and "
                                       "'output' prices per million tokens") from None
    return table


#: Date suffixes of model snapshots: ``-2024-08-06``, ``-20241022``, ``-0613``, ``@20240620``.
_DATE_SUFFIX = re.compile(r"(?:[-@](?:20\d\d-\d\d-\d\d|20\d{6}|(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01]))"
                          r"|-latest)$")


def model_names(model: str) -> List[str]:
    """The names ``model`` is looked up by, in order (see module docstring).

    Examples
    --------
    >>> model_names("openai/gpt-4o-2024-08-06")
    ['openai/gpt-4o-2024-08-06', 'gpt-4o-2024-08-06', 'openai/gpt-4o', 'gpt-4o']
    """
    names = [model]
    if "/" in model:
        names.append(model.rsplit("/", 1)[1])
    for name in list(names):
        base = _DATE_SUFFIX.sub("", name)
        if base != name and base:
            names.append(base)
    return list(dict.fromkeys(names))


def price_for(model: str, table: Mapping[str, Price]) -> Optional[Price]:
    """The entry of ``model``: exact name, else without date suffix / provider prefix."""
    return next((table[name] for name in model_names(model) if name in table), None)


def unpriced(models: Iterable[str], table: Mapping[str, Price]) -> List[str]:
    """The models of ``models`` the table has no price for (their cost will be n/a)."""
    return [m for m in dict.fromkeys(models) if m and price_for(m, table) is None]


def cost_of(model: str, input_tokens: int, output_tokens: int,
            table: Mapping[str, Price]) -> float:
    """Cost in US dollars (NaN for a model without a price)."""
    price = price_for(model, table)
    if price is None:
        return math.nan
    return (input_tokens * price.input + output_tokens * price.output) / 1e6


def problem_rows(outcomes: Sequence[TaskOutcome], problems: Sequence[Problem]
                 ) -> List[Dict[str, Any]]:
    """One row per problem with its share of the preprocessing (module docstring)."""
    by_key = {(o.kind, o.key): o for o in outcomes}
    per_trait: Dict[str, int] = defaultdict(int)
    for problem in problems:
        per_trait[problem.trait] += 1
    shared: Dict[str, Dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for outcome in outcomes:
        if outcome.kind == COHORT:
            trait = outcome.key.split("/", 1)[0]
            share = shared[trait]
            share["seconds"] += outcome.seconds
            share["input_tokens"] += outcome.usage.input_tokens
            share["output_tokens"] += outcome.usage.output_tokens
            share["cost"] += outcome.usage.cost
    rows = []
    for problem in problems:
        own = by_key.get((PROBLEM, str(problem)))
        share = shared.get(problem.trait, {})
        parts = max(per_trait[problem.trait], 1)
        seconds = (own.seconds if own else 0.0) + share.get("seconds", 0.0) / parts
        tokens_in = (own.usage.input_tokens if own else 0) + share.get("input_tokens", 0) / parts
        tokens_out = (own.usage.output_tokens if own else 0) \
            + share.get("output_tokens", 0) / parts
        cost = (own.usage.cost if own else 0.0) + share.get("cost", 0.0) / parts
        rows.append({"problem": str(problem), "category": problem.category,
                     "success": bool(own and own.succeeded), "seconds": round(seconds, 3),
                     "input_tokens": round(tokens_in, 1), "output_tokens": round(tokens_out, 1),
                     "cost_usd": None if math.isnan(cost) else round(cost, 6),
                     "status": own.status if own else "not run",
                     "reason": own.reason if own else ""})
    return rows


def _mean(values: Sequence[float]) -> Optional[float]:
    present = [v for v in values if v is not None and not math.isnan(v)]
    return sum(present) / len(present) if present else None


def summary(rows: Sequence[Mapping[str, Any]], outcomes: Sequence[TaskOutcome],
            method: str) -> Dict[str, Any]:
    """Totals over the run and means per problem (Table 2 columns)."""
    n = len(rows)
    costs = [r["cost_usd"] for r in rows]
    return {
        "method": method,
        "problems": n,
        "success_rate": round(100.0 * sum(r["success"] for r in rows) / n, 2) if n else None,
        "seconds_per_problem": _round(_mean([r["seconds"] for r in rows])),
        "input_tokens_per_problem": _round(_mean([r["input_tokens"] for r in rows])),
        "output_tokens_per_problem": _round(_mean([r["output_tokens"] for r in rows])),
        "cost_per_problem_usd": None if any(c is None for c in costs) else _round(
            _mean(costs), 6),
        "cohort_tasks": sum(o.kind == COHORT for o in outcomes),
        "cohorts_done": sum(o.kind == COHORT and o.succeeded for o in outcomes),
        "total_seconds": round(sum(o.seconds for o in outcomes), 3),
        "total_calls": sum(o.usage.calls for o in outcomes),
        "total_failed_calls": sum(o.usage.failed_calls for o in outcomes),
        "total_input_tokens": sum(o.usage.input_tokens for o in outcomes),
        "total_output_tokens": sum(o.usage.output_tokens for o in outcomes),
        "total_cost_usd": _total_cost(outcomes),
    }


def _total_cost(outcomes: Sequence[TaskOutcome]) -> Optional[float]:
    """The run's cost (failed tasks included); None when a model had no price."""
    total = sum(o.usage.cost for o in outcomes)
    return None if math.isnan(total) else round(total, 6)


def _round(value: Optional[float], digits: int = 2) -> Optional[float]:
    return None if value is None else round(value, digits)


def _csv_text(columns: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), extrasaction="ignore",
                            lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if row.get(k) is None else row.get(k)) for k in columns})
    return buffer.getvalue()


def write_report(run_dir: Path, outcomes: Sequence[TaskOutcome], problems: Sequence[Problem],
                 method: str, extra: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Write ``resources.csv``, ``tasks.csv`` and ``resources.json``; returns the summary
    (``extra`` fields -- the budget, the replay -- added to it)."""
    rows = problem_rows(outcomes, problems)
    totals = {**summary(rows, outcomes, method), **dict(extra or {})}
    tasks = [{**o.as_dict(), "task": o.key,
              "cost_usd": o.as_dict()["cost"]} for o in outcomes]
    atomic_write_text(run_dir / "resources.csv", _csv_text(PROBLEM_COLUMNS, rows))
    atomic_write_text(run_dir / "tasks.csv", _csv_text(TASK_COLUMNS, tasks))
    atomic_write_json(run_dir / "resources.json", {"summary": totals, "problems": rows})
    return totals


def format_summary(totals: Mapping[str, Any]) -> str:
    """The summary as a few readable lines."""
    def shown(value: Any, unit: str = "") -> str:
        return "n/a" if value is None else f"{value}{unit}"

    return (f"{totals['method']}: {totals['problems']} problems, success "
            f"{shown(totals['success_rate'], ' %')}; per problem: "
            f"{shown(totals['seconds_per_problem'], ' s')}, "
            f"{shown(totals['input_tokens_per_problem'])} input / "
            f"{shown(totals['output_tokens_per_problem'])} output tokens, cost "
            f"{shown(totals['cost_per_problem_usd'], ' USD')}; cohorts done "
            f"{totals['cohorts_done']}/{totals['cohort_tasks']}")
