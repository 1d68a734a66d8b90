"""The evaluator's processes reuse the memory they free (genotex.evaluation.allocator)."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from genotex.evaluation import preprocessing
from genotex.evaluation.allocator import retain_freed_memory

REPO = Path(__file__).resolve().parents[3]

# Allocates, touches and frees a 64 MB buffer, then does it again, and prints the
# page faults of the second round: a fresh mapping faults on each of its 16,384
# pages; memory kept by malloc and reused faults on none of them.
FAULTS_OF_A_REUSED_BUFFER = textwrap.dedent("""
    import resource, sys
    sys.path.insert(0, sys.argv[1])
    from genotex.evaluation.allocator import retain_freed_memory
    if sys.argv[2] == "retain":
        assert retain_freed_memory()
    def touch():
        buffer = bytearray(64 << 20)
        buffer[::4096] = b"x" * len(range(0, 64 << 20, 4096))
        del buffer
    touch()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    touch()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
""")


def _faults(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", FAULTS_OF_A_REUSED_BUFFER, str(REPO), mode],
                          capture_output=True, text=True, check=True)
    return int(done.stdout.strip())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc malloc settings")
def test_freed_buffers_are_reused_without_page_faults():
    if not retain_freed_memory():
        pytest.skip("the C library has no mallopt (not glibc)")
    assert _faults("default") >= 16_000  # 16,384 pages mapped afresh
    assert _faults("retain") < 1_000


def test_comparing_in_process_retains_freed_memory(monkeypatch):
    calls = []
    monkeypatch.setattr(preprocessing, "retain_freed_memory", lambda: calls.append(1))
    monkeypatch.setattr(preprocessing, "compare_cohort_tables", lambda *job: [job])
    assert preprocessing.run_jobs([("a",), ("b",)], 1, lambda items, n, what: items) == [
        [("a",)], [("b",)]]
    assert calls == [1]
