"""``run_agent.py`` (:mod:`genotex.cli.agent`): the LLM methods through the command line.

GenoAgent completes a scripted run against ``--base-url http://127.0.0.1:PORT/v1``;
the API key comes from the environment and appears in no file, log line or
message, even when the server echoes it back.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from genotex.cli.agent import _agent_settings, api_key, build_parser, main, role_models
from genotex.cli.common import UsageError
from genotex.testing import agent_harness as harness
from genotex.testing.fake_llm import FakeLLM, Script
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
    assert code == 2                                    # a 401 stops the whole run
    assert "the run stopped" in err and "HTTP 401" in err and server.base_url in err
    assert "failed problem Heart_rate|None: EndpointError: " in out
    assert len(server.requests) == 1                    # the other problems were not tried
    assert "[redacted]" in out + err
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
    # before: the run's config was written first, by default into the checkout's runs/
    run_dir = tmp_path / "run"
    assert main(["--method", "genoagent", "--base-url", "http://x/v1", "--model", "m",
                 "--role-model", "Janitor=m2", "--run-dir", str(run_dir)]) == 2
    assert "Janitor" in capsys.readouterr().err and not run_dir.exists()


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


LEAKY_STEP = """
import os
print(dict(os.environ))
try:
    print(open(f"/proc/{os.getppid()}/environ").read())
except OSError as exc:
    print("refused:", exc)
"""


def test_the_key_never_leaves_the_http_client(tmp_path, prices, monkeypatch, capfd, caplog):
    """A key under an arbitrary name (and copied under another): steps print the environment
    and the parent's, the "model" echoes the request headers in its replies and code; no
    byte of the run folder, the output or the log holds the key."""
    monkeypatch.setenv("ZZ_MODEL_AUTH_42", KEY)
    monkeypatch.setenv("ALSO_THE_SAME_VALUE", KEY)
    monkeypatch.setenv("PATH_WITH_IT", f"/opt/{KEY}/bin")
    script = harness.script_tcga_cohort(Script(), "Kidney_Chromophobe/Xena")
    code = script.queues[("code", "initial_data_loading", "Kidney_Chromophobe/Xena")]
    code[0] = code[0].replace("```python\n", "```python\n" + LEAKY_STEP)
    harness.script_problems(script, [Problem("Kidney_Chromophobe")])
    run_dir = tmp_path / "run"

    def echoing(body):
        auth = server.headers[-1].get("Authorization", "")
        reply = script(body)
        return (f"Your request came with {auth}.\n" + reply.replace(
            "```python\n", f"```python\nheader = {auth!r}\nprint(header)\n", 1))

    caplog.set_level("DEBUG")
    with FakeLLM(echoing) as server:
        code = main(["--method", "genoagent", "--base-url", server.base_url,
                     "--model", "fake-model", "--api-key-env", "ZZ_MODEL_AUTH_42",
                     "--problems", "Kidney_Chromophobe|None", "--run-dir", str(run_dir),
                     "--prices", str(prices), "--no-progress", "-vv"])
    out, err = capfd.readouterr()
    assert code == 0, out + err
    assert all(h["Authorization"] == f"Bearer {KEY}" for h in server.headers)
    assert not any(KEY in json.dumps(r) for r in server.requests)     # the model never sees it
    notebook = (run_dir / "prediction" / "code" / "Kidney_Chromophobe" / "Xena.ipynb").read_text()
    assert "ALSO_THE_SAME_VALUE" not in notebook and "ZZ_MODEL_AUTH_42" not in notebook
    assert "GENOTEX_OUTPUT" in notebook and "refused:" in notebook       # the steps did run
    assert "[redacted]" in notebook                                   # the echoed header
    assert KEY not in out + err + caplog.text
    assert not files_holding(run_dir, KEY)
    assert not files_holding(run_dir, json.dumps(KEY)[1:-1])


@pytest.mark.parametrize("url, cause", [
    ("http://127.0.0.1:{refused_port}/v1", "connection refused"),
    ("http://genotex-model-server.invalid/v1", "does not resolve"),
])
def test_a_dead_endpoint_ends_the_run_at_once_with_one_message(tmp_path, capfd, url, cause,
                                                                 refused_port):
    url = url.format(refused_port=refused_port)
    run_dir = tmp_path / "run"
    code = main(["--method", "genoagent", "--base-url", url, "--model", "m",
                 "--run-dir", str(run_dir), "--no-progress"])
    out, err = capfd.readouterr()
    assert code == 2
    messages = [line for line in err.splitlines() if "error" in line.lower()]
    assert len(messages) == 1 and url in messages[0] and cause in messages[0]
    assert not (run_dir / "scratch").exists() or not any((run_dir / "scratch").iterdir())
    assert json.loads((run_dir / "resources.json").read_text())["summary"]["problems"] == 37


def test_a_wrong_base_url_is_caught_by_the_probe(tmp_path, capfd):
    with FakeLLM(lambda body: "ok") as server:
        wrong = server.base_url[:-len("/v1")]
        code = main(["--method", "llm-no-data", "--base-url", wrong, "--model", "fake-model",
                     "--run-dir", str(tmp_path / "run"), "--no-progress"])
    out, err = capfd.readouterr()
    assert code == 2 and "HTTP 404" in err and "/v1" in err
    assert server.requests and all(r.get("max_tokens") == 1 for r in server.requests)


def test_an_unknown_model_stops_llm_no_data_before_any_problem(tmp_path, capfd):
    with FakeLLM(lambda body: "ok") as server:
        server.models = ["another-model"]
        server.fail("404")
        code = main(["--method", "llm-no-data", "--base-url", server.base_url, "--model",
                     "fake-model", "--run-dir", str(tmp_path / "run"), "--no-progress"])
    out, err = capfd.readouterr()
    assert code == 2 and "not found" in err and len(server.requests) == 1


def test_failed_tasks_keep_their_accounting_and_notebook(tmp_path, prices, capfd):
    """A model error in the middle of a task: its calls, tokens, cost and time are in
    tasks.csv and the report; its notebook holds the steps that ran and the error."""
    script = harness.script_tcga_cohort(Script(), "Kidney_Chromophobe/Xena")
    run_dir = tmp_path / "run"
    with FakeLLM(script) as server:
        server.retry_after = "0"
        # the third model call fails for good (500 four times: --max-attempts 4)
        calls = {"n": 0}
        responder = server.responder

        def failing(body):
            calls["n"] += 1
            if calls["n"] == 3:
                server.fail("500", "500", "500")
            return responder(body)

        server.responder = failing
        code = main(["--method", "genoagent", "--base-url", server.base_url, "--model",
                     "fake-model", "--problems", "Kidney_Chromophobe|None", "--no-planning",
                     "--run-dir", str(run_dir), "--prices", str(prices), "--no-progress",
                     "--max-attempts", "3"])
    out, err = capfd.readouterr()
    assert code == 1, out + err
    tasks = (run_dir / "tasks.csv").read_text().splitlines()
    header = tasks[0].split(",")
    row = dict(zip(header, next(t for t in tasks if "Kidney_Chromophobe/Xena" in t).split(",")))
    assert row["status"] == "failed" and "gave up after 3 attempts" in row["reason"]
    assert int(row["calls"]) == 3 and int(row["failed_calls"]) == 1
    assert int(row["input_tokens"]) > 0 and float(row["cost_usd"]) > 0
    assert float(row["seconds"]) > 0
    summary = json.loads((run_dir / "resources.json").read_text())["summary"]
    assert summary["total_calls"] == 3 and summary["total_input_tokens"] == int(
        row["input_tokens"])
    notebook = json.loads((run_dir / "prediction" / "code" / "Kidney_Chromophobe" /
                           "Xena.ipynb").read_text())
    text = json.dumps(notebook)
    assert "tcga_read_clinical_data" in text and "The task failed" in text
    assert "gave up after 3 attempts" in text


@pytest.mark.parametrize("flags, expected", [([], True), (["--domain-hints"], True),
                                             (["--no-domain-hints"], False)])
def test_domain_hints_flag(flags, expected):
    """On by default; ``--no-domain-hints`` for the paper's ablations."""
    args = build_parser().parse_args(["--method", "genoagent", *flags])
    settings = _agent_settings(args)
    assert settings.domain_hints is expected
    assert settings.domain_expert is True
    assert "--no-domain-hints" in build_parser().format_help()
