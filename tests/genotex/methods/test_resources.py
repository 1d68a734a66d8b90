"""Prices, costs and the Table 2 summary (:mod:`genotex.methods.resources`)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from genotex.methods.base import COHORT, DONE, FAILED, PROBLEM, TaskOutcome, Usage
from genotex.methods.resources import (Price, cost_of, format_summary, load_price_table,
                                       price_for, problem_rows, summary, unpriced)
from utils.errors import InputFileError
from utils.problems import Problem

TABLE = {"gpt-4o": Price(2.5, 10.0), "gpt-4o-mini": Price(0.15, 0.6)}


def test_exact_or_dated_names_price_a_model_never_a_prefix():
    assert price_for("gpt-4o-2024-08-06", TABLE) == Price(2.5, 10.0)
    assert price_for("gpt-4o-mini-2024-07-18", TABLE) == Price(0.15, 0.6)
    assert price_for("openai/gpt-4o", TABLE) == Price(2.5, 10.0)
    assert price_for("gpt-4o-mini-2024", TABLE) is None          # not a date: no guess
    assert price_for("gpt-4o-audio-preview", TABLE) is None       # a prefix is not a price
    assert price_for("llama3", TABLE) is None
    assert cost_of("gpt-4o", 1_000_000, 100_000, TABLE) == pytest.approx(2.5 + 1.0)
    assert math.isnan(cost_of("llama3", 10, 10, TABLE))


def test_the_shipped_table_prices_current_models_by_their_own_names():
    """Issue 24: o1-mini was priced as o1 and gpt-4.1-nano as gpt-4.1; o3 / o4-mini were n/a."""
    table = load_price_table()
    assert price_for("o1-mini", table) == Price(1.10, 4.40) != price_for("o1", table)
    assert price_for("o1-mini-2024-09-12", table) == Price(1.10, 4.40)
    assert price_for("gpt-4.1-nano", table) == Price(0.10, 0.40) != price_for("gpt-4.1", table)
    assert price_for("gpt-4.1-nano-2025-04-14", table) == Price(0.10, 0.40)
    assert price_for("o3", table) == Price(2.00, 8.00)
    assert price_for("o4-mini-2025-04-16", table) == Price(1.10, 4.40)
    assert price_for("gpt-4o-2024-05-13", table) == Price(5.00, 15.00)  # exact name first
    assert price_for("gpt-4o-2024-08-06", table) == Price(2.50, 10.00)
    assert price_for("claude-3-5-sonnet-20241022", table) == Price(3.00, 15.00)
    assert unpriced(["o3", "qwen2.5-coder:32b", "o3"], table) == ["qwen2.5-coder:32b"]
    document = json.loads((Path(__file__).parents[3] / "genotex" / "methods" /
                           "prices.json").read_text())
    assert document["as_of"] >= "2025-01-01"


def test_shipped_and_custom_tables(tmp_path):
    assert load_price_table()["local"] == Price(0.0, 0.0)
    good = tmp_path / "p.json"
    good.write_text(json.dumps({"models": {"m": {"input": 1, "output": 3}}}))
    assert load_price_table(good) == {"m": Price(1.0, 3.0)}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"models": {"m": {"input": "x"}}}))
    with pytest.raises(InputFileError, match="numeric"):
        load_price_table(bad)


def test_unknown_cost_is_reported_as_unknown():
    outcomes = [TaskOutcome(PROBLEM, "A|None", DONE, usage=Usage(1, 10, 1, math.nan)),
                TaskOutcome(PROBLEM, "A|Age", FAILED, "x", usage=Usage(1, 10, 1, 0.5))]
    problems = [Problem("A"), Problem("A", "Age")]
    rows = problem_rows(outcomes, problems)
    assert rows[0]["cost_usd"] is None and rows[1]["cost_usd"] == 0.5
    totals = summary(rows, outcomes, "m")
    assert totals["cost_per_problem_usd"] is None and totals["success_rate"] == 50.0
    assert "cost n/a" in format_summary(totals)


def test_preprocessing_is_shared_by_the_trait_problems():
    outcomes = [TaskOutcome(COHORT, "A/GSE1", DONE, seconds=30.0, usage=Usage(3, 300, 30, 0.3)),
                TaskOutcome(COHORT, "B/GSE2", DONE, seconds=10.0, usage=Usage(1, 100, 10, 0.1)),
                TaskOutcome(PROBLEM, "A|None", DONE, seconds=1.0, usage=Usage(1, 10, 1, 0.01))]
    problems = [Problem("A"), Problem("A", "Age"), Problem("A", "B")]
    rows = problem_rows(outcomes, problems)
    assert [r["seconds"] for r in rows] == [11.0, 10.0, 10.0]
    assert [r["input_tokens"] for r in rows] == [110.0, 100.0, 100.0]
    assert [r["success"] for r in rows] == [True, False, False]
    assert rows[1]["status"] == "not run"
