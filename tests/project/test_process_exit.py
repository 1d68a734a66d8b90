"""tests/process_exit.py: a zombie nobody reaps has exited (the workers of a killed
command, re-parented to a container's first process that never reaps them)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.process_exit import still_running

psutil = pytest.importorskip("psutil")

# A parent that never reaps: its child exits at once and stays a zombie while the
# parent waits on its stdin (as under an init that does not reap orphans).
NO_REAPER = """
import os, sys
pid = os.fork()
if pid == 0:
    os._exit(0)
print(pid, flush=True)
sys.stdin.read()
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX processes")
def test_a_zombie_nobody_reaps_counts_as_exited():
    parent = subprocess.Popen([sys.executable, "-c", NO_REAPER], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        zombie = psutil.Process(int(parent.stdout.readline()))
        # exited (the child's first statement) but not reaped: what a test waited on
        assert still_running([zombie], timeout=120) == []
        assert zombie.status() == psutil.STATUS_ZOMBIE
        # before: wait_procs polls whether the pid exists, which a zombie's does
        _, alive = psutil.wait_procs([zombie], timeout=0.2)
        assert alive == [zombie]
        # a process that runs is still reported running once the wait is over
        assert still_running([psutil.Process(parent.pid)], timeout=0.2) == \
            [psutil.Process(parent.pid)]
    finally:
        parent.stdin.close()
        parent.wait(timeout=120)
