"""``run_agent.py`` at scale: replay, repeats and ``eval.py`` mean +- sd, budgets, flags."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from genotex.cli import agent
from genotex.cli.agent import main
from genotex.cli.evaluate import main as evaluate
from genotex.methods.identity import reproducible_files
from genotex.methods.llm import ratelimit
from genotex.testing import agent_harness as harness
from genotex.testing.fake_llm import FakeLLM

KEY = harness.API_KEY


@pytest.fixture
def prices(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"models": {"fake-model": {"input": 1.0, "output": 2.0}}}))
    return path


def genes(body):
    """A different gene list per problem (the problem's line is in the request)."""
    text = body["messages"][-1]["content"]
    return '["TNF", "IL6"]' if "Age" in text else '["MET", "EGFR", "TP53"]'


def no_data(server, run_dir, prices, *more):
    return ["--method", "llm-no-data", "--base-url", server.base_url, "--model", "fake-model",
            "--traits", "Heart_rate", "--run-dir", str(run_dir), "--prices", str(prices),
            "--no-progress", *more]


def eval_report(tree: Path, target: Path) -> dict:
    """The report, its own tree's path (which it names) replaced by a placeholder."""
    assert evaluate(["-p", str(tree), "--report", str(target), "--no-progress"]) == 0
    return json.loads(target.read_text().replace(str(tree), "<tree>"))


def test_a_replay_reproduces_the_run_offline_and_at_no_cost(tmp_path, prices, monkeypatch,
                                                            capfd):
    monkeypatch.setenv("GENOTEX_LLM_API_KEY", KEY)
    original, replayed = tmp_path / "original", tmp_path / "replayed"
    with FakeLLM(genes) as server:
        assert main(no_data(server, original, prices, "-j", "3")) == 0
    sent = len(server.requests)
    # the server is gone: the replay needs no network (and no key)
    monkeypatch.delenv("GENOTEX_LLM_API_KEY")
    assert main(["--replay", str(original), "--run-dir", str(replayed), "--no-progress",
                 "-j", "2"]) == 0
    out, err = capfd.readouterr()
    assert len(server.requests) == sent
    assert reproducible_files(original) == reproducible_files(replayed)
    assert eval_report(original / "prediction", tmp_path / "a.json") == \
        eval_report(replayed / "prediction", tmp_path / "b.json")
    summary = json.loads((replayed / "resources.json").read_text())["summary"]
    assert summary["budget"]["spent_usd"] == 0.0
    assert summary["replayed_from"] == str(original.resolve())
    # the tokens and cost of the original's exchanges are reported as they were
    before = json.loads((original / "resources.json").read_text())["summary"]
    assert summary["total_input_tokens"] == before["total_input_tokens"] > 0
    assert summary["total_cost_usd"] == before["total_cost_usd"] > 0
    assert "Heart_rate|Age" in (replayed / "tasks.csv").read_text()


def test_a_replay_that_departs_from_its_original_stops_naming_the_request(
        tmp_path, prices, monkeypatch, capfd):
    monkeypatch.setenv("GENOTEX_LLM_API_KEY", KEY)
    original = tmp_path / "original"
    with FakeLLM(genes) as server:
        assert main(no_data(server, original, prices, "--genes", "20")) == 0
    config = json.loads((original / "run_config.json").read_text())
    config["genes"] = 30                        # the replay now asks for 30 genes
    (original / "run_config.json").write_text(json.dumps(config))
    capfd.readouterr()
    code = main(["--replay", str(original), "--run-dir", str(tmp_path / "r"), "--no-progress"])
    out, err = capfd.readouterr()
    assert code == 2
    assert "no recorded answer for request 1 of task Heart_rate|None" in err
    assert "REQUEST: genes; TASK: Heart_rate|None" in err
    assert "List up to 30" in err and "List up to 20" in err
    assert "--run-dir must differ" in _error_of(["--replay", str(original), "--run-dir",
                                                 str(original)], capfd)


def _error_of(argv, capfd):
    assert main(argv) == 2
    return capfd.readouterr().err


def test_repeats_of_random_give_a_leaderboard_with_mean_and_sd(tmp_path, capfd):
    run_dir = tmp_path / "random3"
    assert main(["--method", "random", "--repeats", "3", "--run-dir", str(run_dir),
                 "--no-progress", "-j", "4"]) == 0
    trees = [run_dir / f"repeat-{k}" / "prediction" for k in (1, 2, 3)]
    assert all(tree.is_dir() for tree in trees)
    seeds = [json.loads((tree.parent / "run_config.json").read_text())["seed"] for tree in trees]
    assert seeds == [42, 43, 44]
    capfd.readouterr()
    report = tmp_path / "eval.json"
    assert evaluate(["-p", str(run_dir), "--report", str(report), "--html",
                     str(tmp_path / "eval.html"), "--no-progress"]) == 0
    out, _ = capfd.readouterr()
    assert "random3 (x3)" in out and "+- sd" in out
    document = json.loads(report.read_text())
    (row,) = document["leaderboard"]["rows"]
    assert row["repeats"] == 3 and row["prediction"] == str(run_dir)
    per_repeat = [r["analysis"]["summary"]["overall"]["f1"]["mean"] for r in document["reports"]]
    assert [r["method"] for r in document["reports"]] == [
        "random3/repeat-1", "random3/repeat-2", "random3/repeat-3"]
    assert row["scores"]["analysis.overall.f1"] == pytest.approx(statistics.fmean(per_repeat))
    assert row["sd"]["analysis.overall.f1"] == pytest.approx(statistics.stdev(per_repeat))
    assert row["sd"]["analysis.overall.f1"] > 0                  # the repeats differ
    assert row["scores"]["resources.per problem.cost_usd"] == 0.0
    board = (tmp_path / "eval.leaderboard.csv").read_text().splitlines()
    assert "analysis.overall.f1 sd" in board[0] and len(board) == 2
    page = (tmp_path / "eval.html").read_text()
    assert page.count('class="spread"') >= 3 and "\u00b1" in page and "3 repeats" in page
    # a run of repeats is replayed repeat by repeat
    again = tmp_path / "again"
    assert main(["--replay", str(run_dir), "--run-dir", str(again), "--no-progress"]) == 0
    for k in (1, 2, 3):
        assert reproducible_files(run_dir / f"repeat-{k}") == \
            reproducible_files(again / f"repeat-{k}")


def test_the_budget_stops_the_run_and_the_summary_says_so(tmp_path, prices, monkeypatch,
                                                          capfd):
    monkeypatch.setenv("GENOTEX_LLM_API_KEY", KEY)
    run_dir = tmp_path / "run"
    with FakeLLM(genes) as server:
        code = main(no_data(server, run_dir, prices, "--max-cost", "0.0003"))
    out, err = capfd.readouterr()
    assert code == 1
    sent = len(server.requests)
    costs = [float(line.split(",")[-2]) for line in
             (run_dir / "tasks.csv").read_text().splitlines()[1:]]
    # the last task started while the spent cost was under the limit, and reached it
    assert len(costs) == sent < 4 and sum(costs[:-1]) < 0.0003 <= sum(costs)
    assert "budget reached" in out and f"{4 - sent} task(s) not started" in out
    summary = json.loads((run_dir / "resources.json").read_text())["summary"]
    assert summary["budget"]["stopped"] and summary["budget"]["not_started"] == 4 - sent


def test_scale_flags_are_checked(tmp_path, capfd, monkeypatch):
    assert "-j/--jobs must be at least 1" in _error_of(
        ["--method", "random", "-j", "0", "--run-dir", str(tmp_path)], capfd)
    assert "--repeats must be at least 1" in _error_of(
        ["--method", "random", "--repeats", "0", "--run-dir", str(tmp_path)], capfd)
    assert "--method is required" in _error_of(["--run-dir", str(tmp_path)], capfd)
    (tmp_path / "old").mkdir()
    assert "run_config.json" in _error_of(
        ["--replay", str(tmp_path / "old"), "--run-dir", str(tmp_path / "r")], capfd)
    monkeypatch.setenv("GENOTEX_LLM_API_KEY", KEY)
    err = _error_of(["--method", "llm-no-data", "--base-url", "http://127.0.0.1:9/v1",
                     "--model", "no-price-model", "--max-cost", "1",
                     "--run-dir", str(tmp_path / "x")], capfd)
    assert "--max-cost needs a price for every model; none for no-price-model" in err


def test_a_missing_input_tree_or_an_unwritable_run_folder_is_one_line(tmp_path, capfd):
    err = _error_of(["--method", "rules", "--input-dir", str(tmp_path / "typo"),
                     "--run-dir", str(tmp_path / "run"), "--no-progress"], capfd)
    assert f"{tmp_path / 'typo'}: input tree not found" in err and "Traceback" not in err
    (tmp_path / "a_file").write_text("")
    err = _error_of(["--method", "random", "--run-dir", str(tmp_path / "a_file"),
                     "--no-progress"], capfd)
    assert f"{tmp_path / 'a_file'} is a file, not a folder" in err and "Traceback" not in err


def test_rpm_and_tpm_reach_one_limiter_shared_by_every_task(tmp_path, prices, monkeypatch):
    """``--rpm``/``--tpm`` build one limiter that admits every request of the concurrent
    tasks; with the window shortened to 1 s, ``--rpm 2`` lets at most two requests start
    in any second (starts read from the limiter's own clock: no timing of the machine)."""
    monkeypatch.setenv("GENOTEX_LLM_API_KEY", KEY)
    monkeypatch.setattr(ratelimit, "WINDOW_SECONDS", 1.0)
    limiters, starts = [], []

    class Recording(ratelimit.RateLimiter):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            limiters.append(self)

        def acquire(self, tokens=0):
            ticket = super().acquire(tokens)
            starts.append(ticket.start)
            return ticket

    monkeypatch.setattr(agent, "RateLimiter", Recording)
    with FakeLLM(genes) as server:
        assert main(no_data(server, tmp_path / "run", prices, "-j", "4", "--rpm", "2",
                            "--tpm", "100000")) == 0
    assert [limiter.limits for limiter in limiters] == [ratelimit.RateLimits(2, 100000)]
    assert len(starts) == len(server.requests) == 4
    starts.sort()
    assert all(later - earlier >= 1.0 - 1e-9 for earlier, later in zip(starts, starts[2:]))
