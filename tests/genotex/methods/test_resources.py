"""Prices, costs and the Table 2 summary (:mod:`genotex.methods.resources`)."""

from __future__ import annotations

import json
import math

import pytest

from genotex.methods.base import COHORT, DONE, FAILED, PROBLEM, TaskOutcome, Usage
from genotex.methods.resources import (Price, cost_of, format_summary, load_price_table,
                                       price_for, problem_rows, summary)
from utils.errors import InputFileError
from utils.problems import Problem

TABLE = {"gpt-4o": Price(2.5, 10.0), "gpt-4o-mini": Price(0.15, 0.6)}


def test_longest_prefix_prices_a_model():
    assert price_for("gpt-4o-2024-08-06", TABLE) == Price(2.5, 10.0)
    assert price_for("gpt-4o-mini-2024", TABLE) == Price(0.15, 0.6)
    assert price_for("llama3", TABLE) is None
    assert cost_of("gpt-4o", 1_000_000, 100_000, TABLE) == pytest.approx(2.5 + 1.0)
    assert math.isnan(cost_of("llama3", 10, 10, TABLE))


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
