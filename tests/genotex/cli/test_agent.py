"""``run_agent.py`` (:mod:`genotex.cli.agent`): the LLM methods through the command line.

GenoAgent completes a scripted run against ``--base-url http://127.0.0.1:PORT/v1``;
the API key comes from the environment and appears in no file, log line or
message, even when the server echoes it back.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from genotex.cli.agent import api_key, build_parser, main, role_models
from genotex.cli.regress import UsageError
from tests.fake_llm_server import FakeLLM, Script
from tests.genotex.methods.genoagent import harness
from utils.problems import Problem

KEY = harness.API_KEY


def files_holding(folder: Path, text: str):
    return [p for p in folder.rglob("*") if p.is_file() and text.encode() in p.read_bytes()]


@pytest.fixture
def prices(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"models": {"fake-model": {"input": 1.0, "output": 2.0}}}))
    return path


def test_genoagent_completes_a_scripted_run(tmp_path, prices, monkeypatch, capfd):
    monkeypatch.setenv("GENOTEX_LLM_API_KEY", KEY)
    script = harness.script_tcga_cohort(Script(), "Kidney_Chromophobe/Xena")
    harness.script_problems(script, [Problem("Kidney_Chromophobe")])
    run_dir = tmp_path / "run"
    with FakeLLM(script) as server:
        code = main(["--method", "genoagent", "--base-url", server.base_url,
                     "--model", "fake-model", "--problems", "Kidney_Chromophobe|None",
                     "--run-dir", str(run_dir), "--prices", str(prices), "--no-progress",
                     "--step-timeout", "120", "--memory-gb", "4", "-vv"])
    out, err = capfd.readouterr()
    assert code == 0, out + err
    assert "success 100.0 %" in out and "cohorts done 1/1" in out
    assert all(h["Authorization"] == f"Bearer {KEY}" for h in server.headers)
    assert script.left() == {}
    assert (run_dir / "prediction" / "code" / "Kidney_Chromophobe" / "Xena.ipynb").is_file()
    assert (run_dir / "prediction" / "regress" / "Kidney_Chromophobe" /
            "significant_genes_condition_None.json").is_file()
    summary = json.loads((run_dir / "resources.json").read_text())["summary"]
    assert summary["cost_per_problem_usd"] > 0 and summary["input_tokens_per_problem"] > 0
    assert KEY not in out + err and not files_holding(run_dir, KEY)


def test_a_server_echoing_the_key_never_gets_it_written(tmp_path, prices, monkeypatch, capfd):
    monkeypatch.setenv("MY_KEY", KEY)
    run_dir = tmp_path / "run"
    with FakeLLM(lambda body: '["TNF"]') as server:
        server.fail("echo-key")
        code = main(["--method", "llm-no-data", "--base-url", server.base_url, "--model",
                     "fake-model", "--api-key-env", "MY_KEY", "--traits", "Heart_rate",
                     "--run-dir", str(run_dir), "--prices", str(prices), "--no-progress",
                     "-vv"])
    out, err = capfd.readouterr()
    assert code == 1
    assert "failed problem Heart_rate|None: LLMError: HTTP 401" in out
    assert "[redacted]" in out
    assert KEY not in out + err and not files_holding(run_dir, KEY)
    assert files_holding(run_dir, "[redacted]")          # the log kept the (redacted) error


def test_usage_errors(tmp_path, capsys):
    assert main(["--method", "genoagent", "--run-dir", str(tmp_path)]) == 2
    assert "needs --base-url and --model" in capsys.readouterr().err
    assert main(["--method", "rules", "--traits", "Not_A_Trait"]) == 2
    assert "not in the task info" in capsys.readouterr().err
    assert main(["--method", "rules", "--traits", "Hypertensoin", "--problems",
                 "Heart_rate|Agee"]) == 2
    assert ("not in the task info: Hypertensoin (did you mean Hypertension?), "
            "Heart_rate|Agee (did you mean Heart_rate|Age?)") in capsys.readouterr().err
    assert main(["--method", "genoagent", "--base-url", "http://x/v1", "--model", "m",
                 "--role-model", "Janitor=m2"]) == 2


def test_help_states_that_traits_and_problems_combine_as_a_union():
    text = " ".join(build_parser().format_help().split())
    assert "--traits and --problems combine as a union" in text


def test_role_models_and_key_lookup():
    assert role_models(["code reviewer=small", "Domain Expert=big"]) == {
        "Code Reviewer": "small", "Domain Expert": "big"}
    with pytest.raises(UsageError):
        role_models(["Statistician"])
    assert api_key("GENOTEX_LLM_API_KEY", {"OPENAI_API_KEY": "k1"}) == "k1"
    assert api_key("GENOTEX_LLM_API_KEY", {"GENOTEX_LLM_API_KEY": "k2",
                                           "OPENAI_API_KEY": "k1"}) == "k2"
    assert api_key("OTHER", {"OPENAI_API_KEY": "k1"}) == ""
