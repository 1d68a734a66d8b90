"""``run_agent.py --scheduler``: tasks on a Dask cluster of separate processes, same bytes.

The cluster is a ``LocalCluster(processes=True)``: two worker processes that
import the project and receive every task (the method's config, the task) over
the wire, as remote workers would.
"""

from __future__ import annotations

import pytest

from genotex.cli.agent import main
from genotex.methods.identity import reproducible_files
from genotex.methods.runlog import read_log
from genotex.testing import agent_harness as harness
from genotex.testing.fake_llm import FakeLLM
from tests.dask_clusters import local_cluster

pytest.importorskip("distributed")

KEY = harness.API_KEY


@pytest.fixture(scope="module")
def scheduler():
    """Two worker processes started with the API key in their environment."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GENOTEX_LLM_API_KEY", KEY)
        with local_cluster(2) as cluster:
            yield cluster.scheduler_address


def workers_line(run_dir):
    return next(e["backend"] for e in read_log(run_dir / "run_log.jsonl")
                if e["event"] == "workers")


def test_rules_on_a_cluster_writes_the_bytes_of_a_local_run(tmp_path, scheduler):
    local, cluster = tmp_path / "local", tmp_path / "cluster"
    assert main(["--method", "rules", "--run-dir", str(local), "--no-progress"]) == 0
    assert main(["--method", "rules", "--run-dir", str(cluster), "--no-progress",
                 "--scheduler", scheduler]) == 0
    assert "Dask cluster" in workers_line(cluster) and "2 workers" in workers_line(cluster)
    files = reproducible_files(local)
    assert files == reproducible_files(cluster)
    # the cohorts' tables and records, and every problem's result
    assert sum(name.endswith("cohort_info.json") for name in files) == 8
    assert sum("significant_genes_condition_" in name for name in files) == 37


def test_llm_no_data_on_a_cluster_reads_the_key_on_the_workers(tmp_path, scheduler, monkeypatch,
                                                                capfd):
    """The workers inherit the environment here (as a cluster's workers must be given the
    key): the runner sends the client without it, the workers' copies find it."""
    monkeypatch.setenv("GENOTEX_LLM_API_KEY", KEY)
    with FakeLLM(lambda body: '["TNF", "IL6"]') as server:
        code = main(["--method", "llm-no-data", "--base-url", server.base_url, "--model",
                     "fake-model", "--traits", "Heart_rate", "--run-dir", str(tmp_path / "c"),
                     "--no-progress", "--scheduler", scheduler])
    out, err = capfd.readouterr()
    assert code == 0, out + err
    # the probe (runner) and the four problems (workers), each with the key
    assert len(server.requests) >= 4
    assert all(h["Authorization"] == f"Bearer {KEY}" for h in server.headers)
    assert not [p for p in (tmp_path / "c").rglob("*") if p.is_file()
                and KEY.encode() in p.read_bytes()]


def test_workers_without_the_key_stop_the_run_with_one_message(tmp_path, monkeypatch, capfd):
    monkeypatch.delenv("GENOTEX_LLM_API_KEY", raising=False)
    with local_cluster(1) as cluster, FakeLLM(lambda body: '["TNF"]') as server:
        monkeypatch.setenv("GENOTEX_LLM_API_KEY", KEY)         # the runner has it
        code = main(["--method", "llm-no-data", "--base-url", server.base_url, "--model",
                     "fake-model", "--traits", "Heart_rate", "--run-dir", str(tmp_path),
                     "--no-progress", "--scheduler", cluster.scheduler_address])
    err = capfd.readouterr().err
    assert code == 2
    assert "the run stopped: the API key is not in $GENOTEX_LLM_API_KEY on this worker" in err
    assert KEY not in err


def test_an_unreachable_scheduler_is_one_clear_error(tmp_path, capfd, refused_port):
    address = f"tcp://127.0.0.1:{refused_port}"
    code = main(["--method", "random", "--run-dir", str(tmp_path), "--no-progress",
                 "--scheduler", address])
    assert code == 2
    assert f"cannot reach the Dask scheduler at {address}" in capfd.readouterr().err


def test_a_cluster_starts_while_the_default_dashboard_port_is_taken():
    """Before: ``dashboard_address=None`` still made the scheduler's HTTP server try
    8787 first; taken (CI's log: "Port 8787 is already in use"), that was a warning, and
    a failed start where warnings are errors. Now the OS picks a free port."""
    import socket
    import warnings

    with socket.socket() as holder:
        try:
            holder.bind(("127.0.0.1", 8787))
            holder.listen()
        except OSError:
            pass  # already taken by something else: the situation this test makes
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with local_cluster(1) as cluster:
                port = cluster.scheduler_info["services"]["dashboard"]
    assert port != 8787
