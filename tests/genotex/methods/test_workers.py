"""Tasks run elsewhere: the model client travels without its key; worker processes."""

from __future__ import annotations

import pickle

import pytest

from genotex.methods import build_method
from genotex.methods.base import DONE, MethodConfig
from genotex.methods.llm.cache import ExchangeCache
from genotex.methods.llm.client import ChatClient, EndpointError, EndpointSettings
from genotex.methods.llm.ratelimit import RateLimiter, RateLimits
from genotex.methods.scheduler import build_tasks
from genotex.methods.workers import RemoteRun, run_elsewhere
from genotex.testing.fake_llm import FakeLLM
from utils.paths import resolve_paths
from utils.problems import Problem

KEY = "sk-worker-test-SECRET-42"
PATHS = resolve_paths()


def test_a_client_is_sent_without_its_key_and_finds_it_where_it_runs(monkeypatch):
    limiter = RateLimiter(RateLimits(rpm=30))
    client = ChatClient(EndpointSettings("http://127.0.0.1:9/v1", "m"), KEY, limiter=limiter,
                        key_variable="MY_LLM_KEY")
    data = pickle.dumps(client)
    assert KEY.encode() not in data
    monkeypatch.setenv("MY_LLM_KEY", KEY)
    copy = pickle.loads(data)
    assert copy.secrets == [KEY] and copy.settings == client.settings
    assert copy.limiter.limits == RateLimits(rpm=30)
    # a worker without the key (or with another one) cannot use the endpoint
    monkeypatch.setenv("MY_LLM_KEY", "another key")
    with pytest.raises(EndpointError, match=r"not in \$MY_LLM_KEY on this worker"):
        pickle.loads(data).chat([{"role": "user", "content": "hi"}])
    monkeypatch.delenv("MY_LLM_KEY")
    with pytest.raises(EndpointError, match="set it in the environment of every worker"):
        pickle.loads(data).probe()


def test_a_keyless_client_travels_as_is():
    client = ChatClient(EndpointSettings("http://127.0.0.1:9/v1", "m"))
    assert pickle.loads(pickle.dumps(client)).secrets == []


def test_a_task_run_elsewhere_returns_its_outcome_and_log(tmp_path, monkeypatch):
    """What a worker process (or a Dask worker) does, here in this process."""
    monkeypatch.setenv("WORKER_KEY", KEY)
    with FakeLLM(lambda body: '["TNF", "IL6"]') as server:
        chat = ChatClient(EndpointSettings(server.base_url, "fake-model"), KEY,
                          key_variable="WORKER_KEY")
        config = MethodConfig(paths=PATHS, chat=chat)
        run = RemoteRun("run-1", "llm-no-data", config, tmp_path, tmp_path / "prediction",
                        cache=ExchangeCache(tmp_path, "s1", [KEY]))
        run = pickle.loads(pickle.dumps(run))                      # as sent to a worker
        task = build_tasks([], [Problem("Heart_rate", None)])[0]
        outcome, records = run_elsewhere(run, task)
    assert outcome.status == DONE and outcome.usage.calls == 1
    assert [entry["event"] for _, entry in records] == ["system_prompt", "llm", "genes"]
    assert (tmp_path / "prediction" / "regress" / "Heart_rate"
            / "significant_genes_condition_None.json").is_file()
    assert server.headers[0]["Authorization"] == f"Bearer {KEY}"   # the worker's own key
    assert list((tmp_path / "exchanges").glob("*.jsonl"))


def test_build_method_keeps_its_config():
    config = MethodConfig(paths=PATHS, seed=7)
    method = build_method("random", config)
    assert method.config is config and method.seed == 7
