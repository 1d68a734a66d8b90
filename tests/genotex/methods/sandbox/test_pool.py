"""The kernel pool: warm kernels, reused after a reset that leaks nothing of the last task."""

from __future__ import annotations

import os
import time

import pytest

from genotex.methods.genoagent.steps import warmup_code
from genotex.methods.runlog import MemoryLog
from genotex.methods.sandbox.kernel import SandboxSettings
from genotex.methods.sandbox.pool import KernelPool

pytest.importorskip("ipykernel")

KEY = "sk-pool-test-SECRET-7a7a7a"

TASK_A = """
secret_of_a = 41
import os, warnings, tempfile, pathlib
import numpy as np, pandas as pd
os.environ["LEFT_BY_A"] = "yes"
os.chdir(tempfile.gettempdir())
pathlib.Path(tempfile.gettempdir(), "left_by_a.txt").write_text("a")
np.set_printoptions(precision=2)
pd.set_option("display.max_rows", 3)
warnings.warn("shown once per process")
print("a done")
"""

TASK_B = """
import os, warnings, tempfile, pathlib
import numpy as np, pandas as pd
print("secret_of_a" in globals(), os.environ.get("LEFT_BY_A"), os.getcwd() == TREE,
      sorted(p.name for p in pathlib.Path(tempfile.gettempdir()).iterdir()),
      np.get_printoptions()["precision"], pd.get_option("display.max_rows"))
warnings.warn("shown once per process")
"""


def settings_for(tmp_path, monkeypatch):
    monkeypatch.setenv("SOME_TOKEN_HOLDER", KEY)          # the runner's environment holds a key
    monkeypatch.setenv("INNOCENT_NAME", f"prefix-{KEY}")

    def settings(number: int) -> SandboxSettings:
        return SandboxSettings(writable_root=tmp_path / "tree", scratch=tmp_path / f"k{number}",
                               hidden_values=(KEY,), lock_dir=tmp_path / "locks")
    return settings


def test_a_kernel_is_reused_after_a_clean_reset(tmp_path, monkeypatch):
    log = MemoryLog()
    pool = KernelPool(settings_for(tmp_path, monkeypatch), 1, warmup_code(), log=log).start()
    try:
        kernel = pool.acquire()
        first = kernel.execute(TASK_A)
        assert first.ok and first.execution_count == 1, first.error
        assert "shown once per process" in first.text
        pid = kernel.pid
        pool.release(kernel, reusable=True)
        again = pool.acquire()
        assert again is kernel and again.pid == pid                 # the same process
        tree = str((tmp_path / "tree").resolve())
        second = again.execute(f"TREE = {tree!r}\n" + TASK_B)
        assert second.ok, second.error
        # a fresh namespace, environment, folder, temp folder and display options;
        # numbering starts at 1 again; once-only warnings show again
        assert second.execution_count == 1
        assert "False None True [] 8 60" in second.text
        assert "shown once per process" in second.text
        environment = again.execute("import os\nprint(sorted(os.environ.items()))")
        assert KEY not in environment.text and "SOME_TOKEN_HOLDER" not in environment.text
        assert "INNOCENT_NAME" not in environment.text
        pool.release(again, reusable=True)
    finally:
        pool.close()
    events = [entry for _, entry in log.records if entry["event"] == "kernel"]
    assert [e["tasks"] for e in events] == [2] and events[0]["reason"] == "the run is over"
    assert events[0]["peak_rss_mb"] is None or events[0]["peak_rss_mb"] > 50
    assert pool.peak_summary() is None or pool.peak_summary()["kernels"] == 1


def test_a_kernel_is_not_reused_when_its_task_left_what_a_reset_cannot_undo(tmp_path,
                                                                             monkeypatch):
    log = MemoryLog()
    pool = KernelPool(settings_for(tmp_path, monkeypatch), 1, warmup_code(), log=log).start()
    try:
        kernel = pool.acquire()
        pid = kernel.pid
        # rebinding a global of a library module (even one the task imported itself)
        changed = kernel.execute("import tools.preprocess.cohort_info as ci\n"
                                 "ci.validate_and_save_cohort_info = print\n"
                                 "import genotex.methods.rules.tables as tables\n"
                                 "tables.save_table = print")
        assert changed.ok, changed.error
        pool.release(kernel, reusable=True)
        second = pool.acquire()
        assert second.pid != pid
        probe = second.execute("import tools.preprocess.cohort_info as ci\n"
                               "import genotex.methods.rules.tables as tables\n"
                               "print(ci.validate_and_save_cohort_info is print, "
                               "tables.save_table is print)")
        assert probe.text.strip() == "False False"
        # a task that did not end normally gives its kernel up too
        pid = second.pid
        pool.release(second, reusable=False)
        third = pool.acquire()
        assert third.pid != pid
        pool.release(third, reusable=True)
    finally:
        pool.close()
    reasons = [entry["reason"] for _, entry in log.records if entry["event"] == "kernel"]
    assert "tools.preprocess.cohort_info: validate_and_save_cohort_info changed" in reasons[0]
    assert "genotex.methods.rules.tables: save_table changed" in reasons[0]
    assert reasons[1] == "its task did not end normally"


def wait_until_ready(pool: KernelPool, count: int) -> None:
    """Wait (without asking for a kernel) until ``count`` kernels are warm and free."""
    deadline = time.monotonic() + 300
    while pool.ready < count:
        assert time.monotonic() < deadline, "the pool's kernels never became ready"
        time.sleep(0.05)


def test_kernels_are_started_ahead_and_reuse_can_be_switched_off(tmp_path, monkeypatch):
    pool = KernelPool(settings_for(tmp_path, monkeypatch), 1, warmup_code(),
                      reuse=False).start()
    try:
        wait_until_ready(pool, 1)           # started and warmed up before any task asks
        kernel = pool.acquire()
        pid = kernel.pid
        assert pool.ready == 0
        pool.release(kernel)
        wait_until_ready(pool, 1)           # its replacement, started ahead too
        replacement = pool.acquire()
        held = replacement.pid
        assert held != pid
        # close() shuts idle kernels down, not one still held: given back, it is shut down
        # (before: a kernel process per run outlived the test beside the xdist worker);
        # given back after close(), no replacement starts
        pool.close()
        pool.release(replacement)
        with pytest.raises(ProcessLookupError):
            os.kill(held, 0)
    finally:
        pool.close()
