"""Throughput of the download machinery against a local server (no internet).

Prints: plain transfer MB/s of a 64 MB file, the same with a truncation half-way
(resumed with Range), and SHA-256 manifest hashing MB/s of the downloaded tree.

    python benchmarks/bench_download.py
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from download.fetch import HttpClient, fetch_resumable  # noqa: E402
from download.manifest import generate_manifest  # noqa: E402
from genotex.testing.fake_download import FakeHub  # noqa: E402
from utils.io.http import RetryPolicy  # noqa: E402

SIZE = 64 * 1024 * 1024


def timed_fetch(hub: FakeHub, state: Path, name: str, fault: str | None) -> float:
    if fault:
        hub.fail("/big.bin", fault)
    client = HttpClient(RetryPolicy(backoff_base=0.001), sleep=lambda s: None,
                        rng=random.Random(0))
    start = time.perf_counter()
    fetch_resumable(client, hub.base_url + "/big.bin", state, name, expected_size=SIZE,
                    progress=False)
    return time.perf_counter() - start


def main() -> None:
    data = os.urandom(SIZE)
    with tempfile.TemporaryDirectory() as tmp, FakeHub() as hub:
        hub.chunk_size = 1 << 20
        hub.add_file("/big.bin", data)
        root = Path(tmp)
        plain = timed_fetch(hub, root / "s1", "a.bin", None)
        resumed = timed_fetch(hub, root / "s2", "b.bin", "truncate")
        start = time.perf_counter()
        generate_manifest(root, root / "m.sha256", jobs=2, progress=False)
        hashing = time.perf_counter() - start
    mb = SIZE / 1e6
    print(f"fetch 64 MB, plain:                 {plain:.2f} s ({mb / plain:.0f} MB/s)")
    print(f"fetch 64 MB, truncated + resumed:   {resumed:.2f} s ({mb / resumed:.0f} MB/s)")
    print(f"manifest of 2 x 64 MB, 2 threads:   {hashing:.2f} s ({2 * mb / hashing:.0f} MB/s)")


if __name__ == "__main__":
    main()
