"""Repeated runs of a method: finding the repeats, mean and sd, and the drawn spread."""

from __future__ import annotations

import json
import math

from genotex.evaluation.repeats import (RESOURCE_COLUMNS, find_repeats, mean_and_sd,
                                        repeat_folder, resource_scores)
from genotex.evaluation.svg_plots import Series, grouped_bars


def test_repeats_are_found_in_numeric_order(tmp_path):
    for k in (10, 2, 1):
        (repeat_folder(tmp_path, k) / "prediction").mkdir(parents=True)
    (tmp_path / "repeat-x").mkdir()                    # not a repeat
    (tmp_path / "notes").mkdir()
    assert find_repeats(tmp_path) == [tmp_path / f"repeat-{k}" / "prediction"
                                      for k in (1, 2, 10)]
    assert find_repeats(tmp_path / "notes") is None    # a plain folder: no repeats
    assert find_repeats(tmp_path / "missing") is None


def test_mean_and_sample_sd_of_the_defined_values():
    # 1, 2, 3: mean 2, sample variance ((1 + 0 + 1) / (3 - 1)) = 1
    assert mean_and_sd([1.0, None, 2.0, math.nan, 3.0]) == (2.0, 1.0)
    assert mean_and_sd([5.0]) == (5.0, None)            # one value: no spread
    assert mean_and_sd([None, None]) == (None, None)


def test_resource_columns_come_from_the_repeat_s_resources_json(tmp_path):
    summary = {"input_tokens_per_problem": 1200, "output_tokens_per_problem": 300.5,
               "cost_per_problem_usd": 0.25, "seconds_per_problem": "n/a"}
    (tmp_path / "resources.json").write_text(json.dumps({"summary": summary}))
    scores = resource_scores(tmp_path / "prediction")
    assert [scores[c.key] for c in RESOURCE_COLUMNS] == [1200.0, 300.5, 0.25, None]
    assert resource_scores(tmp_path / "elsewhere" / "prediction") is None


def test_a_series_with_spreads_gets_error_bars_at_mean_plus_and_minus_sd():
    svg = grouped_bars("t", ["a", "b"], [Series("m", "#000", [50.0, 20.0], spreads=[10.0, None])],
                       y_max=100.0, height=240)
    # plot area from y=30 (value 100) to y=270 (value 0): 40 -> 174, 60 -> 126
    assert svg.count('class="spread"') == 1
    assert 'V126.0' in svg and ',174.0V' in svg
    assert "50 \u00b1 10" in svg
    plain = grouped_bars("t", ["a"], [Series("m", "#000", [50.0])], y_max=100.0)
    assert 'class="spread"' not in plain

