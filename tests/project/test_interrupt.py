"""Ctrl-C in the middle of a run, then a second run (the interrupt-and-resume promise).

A terminal's Ctrl-C sends SIGINT to the whole foreground process group: the
command and its ``-j`` worker processes. Each command here is started in a
session of its own; a hook sends that SIGINT to the group right after the
first result is written (no timing involved). The command must stop with one
line and exit code 130 (no traceback, from it or its workers), leave no
temporary file, and a second run without ``--force`` must end with exactly the
files of an uninterrupted run.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.process_exit import still_running

pytestmark = pytest.mark.slow

TEMP_FILE = re.compile(r"\..+\.[0-9]+\.[0-9a-f]{16}\.tmp\Z")

# Runs the command's main with a hook on a function of the main process (one called
# once a unit of work is finished, or once the workers are started): right after the
# hooked function returns, once, either Ctrl-C (SIGINT to the process group), or
# kill -9 of the command alone after printing its worker processes' ids.
HARNESS = """
import importlib, os, signal, sys
action, module_name, owner, attribute, command = sys.argv[1:6]
module = importlib.import_module(module_name)
holder = getattr(module, owner) if owner != "-" else module
original = getattr(holder, attribute)
def hooked(*args, **kwargs):
    result = original(*args, **kwargs)
    if action == "sigint":
        os.killpg(os.getpgrp(), signal.SIGINT)
    else:
        import psutil
        workers = [child.pid for child in psutil.Process().children()
                   if "spawn_main" in " ".join(child.cmdline())]
        print("workers", *workers, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    return result
setattr(holder, attribute, hooked)
sys.argv = [command, *sys.argv[6:]]
cli = importlib.import_module("genotex.cli." + {"regress.py": "regress", "eval.py": "evaluate",
                                                 "run_agent.py": "agent"}[command])
sys.exit(cli.main())
"""


def _interrupted(hook, command, args, action="sigint"):
    done = subprocess.run([sys.executable, "-c", HARNESS, action, *hook, command, *args],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=600,
                          start_new_session=True)
    return done


def _resume(command, args):
    return subprocess.run([sys.executable, command, *args], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=600)


def _files(folder: Path):
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _temp_files(folder: Path):
    return [p for p in folder.rglob("*") if TEMP_FILE.match(p.name)]


def _assert_stopped_quietly(done, command):
    assert done.returncode == 130, (done.returncode, done.stderr[-3000:])
    assert "Traceback" not in done.stderr and "KeyboardInterrupt" not in done.stderr, \
        done.stderr[-3000:]
    assert f"{command}: interrupted" in done.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_regress_interrupted_then_resumed(tmp_path, jobs):
    folder = tmp_path / "regress"
    args = ["--regress-dir", str(folder), "--no-progress", "-j", jobs]
    done = _interrupted(("genotex.regress.runner", "-", "_settle"), "regress.py", args)
    _assert_stopped_quietly(done, "regress.py")
    written = _files(folder)
    assert 0 < len(written) < 37, "the interrupt came after the first result, before the end"
    assert not _temp_files(folder)
    again = _resume("regress.py", args)
    assert again.returncode == 0, again.stderr
    assert f"{len(written)} up-to-date" in again.stdout
    assert _files(folder) == _files(REPO_ROOT / "output" / "regress")
    assert not _temp_files(folder)


def test_rules_run_interrupted_then_resumed(tmp_path):
    """Two worker processes; compared with an uninterrupted run."""
    run, clean = tmp_path / "run", tmp_path / "clean"
    args = ["--method", "rules", "--run-dir", str(run), "--no-progress", "-j", "2"]
    straight = _resume("run_agent.py", ["--method", "rules", "--run-dir", str(clean),
                                        "--no-progress", "-j", "2"])
    assert straight.returncode == 0, straight.stderr
    done = _interrupted(("genotex.methods.runner", "_Recorder", "__call__"), "run_agent.py",
                        args)
    _assert_stopped_quietly(done, "run_agent.py")
    assert not _temp_files(run)
    again = _resume("run_agent.py", args)
    assert again.returncode == 0, again.stderr
    assert not _temp_files(run)
    assert "resumed" in again.stdout or "skipped" in again.stdout or again.stdout
    assert _files(run / "prediction") == _files(clean / "prediction")


EVAL_HOOK = ("genotex.evaluation.preprocessing", "-", "as_completed")  # workers started


def _eval_args(tmp_path):
    """Score the demo's reference against itself, two worker processes."""
    report = tmp_path / "report.json"
    return report, ["-p", str(REPO_ROOT / "output"), "-r", str(REPO_ROOT / "output"),
                    "--report", str(report), "--no-progress", "-j", "2"]


def test_eval_interrupted_keeps_the_previous_report(tmp_path):
    report, args = _eval_args(tmp_path)
    previous = '{"previous": "a complete earlier report"}\n'
    report.write_text(previous)
    done = _interrupted(EVAL_HOOK, "eval.py", args)
    _assert_stopped_quietly(done, "eval.py")
    assert report.read_text() == previous
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]
    again = _resume("eval.py", args)
    assert again.returncode == 0, again.stderr
    assert report.read_text() != previous and not _temp_files(tmp_path)


def test_eval_killed_leaves_no_worker_behind(tmp_path):
    """Before: eval.py's comparison workers outlived a kill -9 of eval.py, idle for ever
    (holding its stdout open: a caller reading it to the end never returned)."""
    psutil = pytest.importorskip("psutil")
    _, args = _eval_args(tmp_path)
    # the workers' line is read, not the output to its end: before the fix, the orphaned
    # workers kept the pipe open for ever
    proc = subprocess.Popen([sys.executable, "-c", HARNESS, "kill", *EVAL_HOOK, "eval.py",
                             *args], cwd=REPO_ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    with proc.stdout:
        line = proc.stdout.readline()
    assert proc.wait(timeout=600) == -9
    pids = [int(pid) for pid in line.split()[1:]]
    assert len(pids) == 2, line
    workers = []
    for pid in pids:
        try:
            workers.append(psutil.Process(pid))
        except psutil.NoSuchProcess:
            pass
    # a safety net only: a worker sees its parent gone within a second
    alive = still_running(workers, timeout=120)
    for worker in alive:
        worker.kill()
    assert not alive, f"worker processes still running after eval.py was killed: {alive}"
