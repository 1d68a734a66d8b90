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
import json
import signal
import subprocess
import sys
import sysconfig
import threading
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
# The scheduler is given its ports by the OS: a port probed free here and passed on could
# be taken in between (by another test's cluster, or another program on the machine), and
# every Dask scheduler's HTTP server tries 8787 first ("Port 8787 is already in use").
FREE_PORTS = "--port 0 --scheduler-file {file} --no-dashboard --dashboard-address 127.0.0.1:0"


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

    def __init__(self, bin_dir: Path) -> None:
        self.port = RECIPE_PORT  # the scheduler's, once started
        self.env = clean_environment({"PATH": command_path(bin_dir)})
        self.processes: List[subprocess.Popen] = []

    def command(self, line: str) -> str:
        return line.rstrip(" &").replace(RECIPE_PORT, self.port)

    def start(self, line: str, log: Path) -> None:
        handle = log.open("w")
        self.processes.append(subprocess.Popen(
            self.command(line), shell=True, cwd=REPO_ROOT, env=self.env, stdout=handle,
            stderr=subprocess.STDOUT, start_new_session=True))

    def start_scheduler(self, line: str, log: Path) -> None:
        """Start the scheduler ``line`` on ports the OS picks; learn its port from the
        scheduler file it writes once it listens."""
        address_file = log.with_suffix(".address.json")
        free = FREE_PORTS.format(file=address_file)
        self.start(line.replace(f"--port {RECIPE_PORT}", free), log)
        scheduler = self.processes[-1]
        for _ in range(WAIT_SECONDS * 20):  # a hang guard: it listens within seconds
            assert scheduler.poll() is None, log.read_text()
            try:  # the file is written in place: read until it parses
                address = json.loads(address_file.read_text())["address"]
            except (OSError, ValueError, KeyError):
                threading.Event().wait(0.05)
                continue
            self.port = address.rsplit(":", 1)[1]
            return
        raise AssertionError(f"the scheduler wrote no address in {WAIT_SECONDS} s: "
                             + log.read_text())

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
    started = Recipe(tmp_path / "bin")
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
    recipe.start_scheduler(SCHEDULER, tmp_path / "scheduler.log")
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
