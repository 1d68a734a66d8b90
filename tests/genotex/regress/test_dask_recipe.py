"""The Dask recipe of docs/statistics.md, run as written (issue 22).

The scheduler and the workers are started with the recipe's own command lines, from the
checkout, in an environment without ``PYTHONPATH``: the project is importable only
where the recipe makes it so (``PYTHONPATH=$PWD`` of the workers; ``dask`` is a console
script, so the working folder is not on ``sys.path``). The scheduler thus never sees the
project, and ``regress.py --scheduler`` must still give the bytes of a serial run. A
worker started without the recipe's ``PYTHONPATH`` stops the run with one line.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Dict, List

import pytest

from genotex.regress.cluster import opaque_call, result_of
from genotex.regress.runner import RunSettings, run_problems
from tests.conftest import REPO_ROOT
from tests.nested_venv import clean_environment, command_path
from tests.regress_fixtures import small_benchmark
from utils.problems import enumerate_problems, load_task_info

pytestmark = pytest.mark.slow

DOC = REPO_ROOT / "docs" / "statistics.md"
RECIPE_PORT = "8786"
SCHEDULER = "dask scheduler --host 127.0.0.1 --port 8786 &"
WORKERS = "PYTHONPATH=$PWD dask worker tcp://127.0.0.1:8786 --nworkers 2 --nthreads 1 &"
REGRESS = "python regress.py --scheduler tcp://127.0.0.1:8786"
WITHOUT_PROJECT = "dask worker tcp://127.0.0.1:8786 --nworkers 1 --nthreads 1 &"
WAIT_SECONDS = 300  # generous: workers start in seconds on a quiet machine


def free_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


def tree_bytes(folder: Path) -> Dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.json"))}


def test_the_documented_recipe_is_the_one_tested():
    text = DOC.read_text(encoding="utf-8")
    for line in (SCHEDULER, WORKERS, REGRESS):
        assert line in text, f"docs/statistics.md no longer holds: {line}"


def test_opaque_calls_round_trip():
    import pickle

    assert result_of(pickle.loads(opaque_call(divmod, 7, 2))) == (3, 1)


class Recipe:
    """Processes started from recipe lines (shell, in the checkout); stopped at the end."""

    def __init__(self, port: str, bin_dir: Path) -> None:
        self.port = port
        self.env = clean_environment({"PATH": command_path(bin_dir)})
        self.processes: List[subprocess.Popen] = []

    def command(self, line: str) -> str:
        return line.rstrip(" &").replace(RECIPE_PORT, self.port)

    def start(self, line: str, log: Path) -> None:
        handle = log.open("w")
        self.processes.append(subprocess.Popen(
            self.command(line), shell=True, cwd=REPO_ROOT, env=self.env, stdout=handle,
            stderr=subprocess.STDOUT, start_new_session=True))

    def run(self, line: str, *extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(" ".join([self.command(line), *extra]), shell=True, cwd=REPO_ROOT,
                              env=self.env, capture_output=True, text=True, timeout=900)

    def wait_for_workers(self, count: int) -> None:
        from distributed import Client

        with Client(f"tcp://127.0.0.1:{self.port}", timeout=f"{WAIT_SECONDS}s") as client:
            client.wait_for_workers(count, timeout=WAIT_SECONDS)

    def stop(self) -> None:
        for process in self.processes:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
        for process in self.processes:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.fixture
def recipe(tmp_path):
    pytest.importorskip("distributed")
    if not (Path(sysconfig.get_path("scripts")) / "dask").is_file():
        pytest.skip("the dask command is not installed beside this interpreter")
    started = Recipe(free_port(), tmp_path / "bin")
    yield started
    started.stop()


def project_importable_without_the_recipe(tmp_path: Path) -> bool:
    done = subprocess.run([sys.executable, "-c", "import genotex"], cwd=tmp_path,
                          env=clean_environment(), capture_output=True)
    return done.returncode == 0


def test_recipe_gives_the_bytes_of_a_serial_run(recipe, tmp_path):
    tree = small_benchmark(tmp_path / "bench")
    problems = enumerate_problems(load_task_info(tree["task_info"]))
    run_problems(problems, RunSettings(tree["preprocess"], tmp_path / "serial",
                                       tree["task_info"]), jobs=1, progress=False)
    recipe.start(SCHEDULER, tmp_path / "scheduler.log")
    recipe.start(WORKERS, tmp_path / "workers.log")
    recipe.wait_for_workers(2)
    flags = ("--output-dir", str(tree["preprocess"].parent), "--task-info",
             str(tree["task_info"]), "--regress-dir", str(tmp_path / "dask"), "--no-progress")
    done = recipe.run(REGRESS, *flags)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 done" in done.stdout and "0 failed" in done.stdout, done.stdout
    assert tree_bytes(tmp_path / "dask") == tree_bytes(tmp_path / "serial")
    scheduler_log = (tmp_path / "scheduler.log").read_text()
    assert "ModuleNotFoundError" not in scheduler_log and "deserializ" not in scheduler_log

    if project_importable_without_the_recipe(tmp_path):
        pytest.skip("this environment imports the project from anywhere (an installed copy), "
                    "so a worker without the recipe's PYTHONPATH still has it")
    recipe.start(WITHOUT_PROJECT, tmp_path / "bare_worker.log")
    recipe.wait_for_workers(3)
    done = recipe.run(REGRESS, *flags, "--force")
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "cannot import this project (ModuleNotFoundError: No module named" in lines[0]
    assert "PYTHONPATH=<checkout>" in lines[0]
