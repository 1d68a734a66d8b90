"""Timing of the synthetic-cohort generator and of recompress_files.

Run: ``python benchmarks/bench_synthetic.py``. Needs ``../shared/data`` for the
demo plan (gene maps are built from the real NCBI gene_info); otherwise only the
small test world is timed.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from genotex.recompress import recompress_tree  # noqa: E402
from genotex.demo.plan import demo_plan  # noqa: E402
from genotex.synthetic import Sources, generate  # noqa: E402
from genotex.synthetic.genes import build_catalog  # noqa: E402
from genotex.testing.synthetic_world import generate_world  # noqa: E402

SHARED = REPO.parent / "shared" / "data"


def timed(label: str, func, repeat: int = 2):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    print(f"{label:55s} {best:6.2f} s (best of {repeat})")
    return result


def tree_size(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def unpack(root: Path) -> int:
    import gzip
    count = 0
    for path in list(root.rglob("*.gz")):
        path.with_name(path.name[:-3]).write_bytes(gzip.decompress(path.read_bytes()))
        path.unlink()
        count += 1
    return count


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="bench_synthetic_"))
    try:
        timed("small test world (7 cohorts, 816 samples, 101 genes)",
              lambda: generate_world(work / "world"))
        gene_info = SHARED / "genes" / "Homo_sapiens.gene_info.gz"
        if not gene_info.is_file():
            print("shared data absent: demo plan not timed")
            return
        from utils.gene_maps import build_gene_maps, read_gene_info
        task_info = json.loads((SHARED / "opentargets" / "genomas_task_info.json").read_text())
        table = read_gene_info(gene_info)
        plan = demo_plan()
        full = build_gene_maps(table)
        universe = build_catalog(plan, full.synonyms, task_info, full.entrez).universe
        demo = build_gene_maps(table, restrict_to=universe)
        sources = Sources(demo.synonyms, task_info, demo.entrez)
        out = work / "demo"
        timed("demo plan (15 cohorts, 1,107 samples, 515 genes)",
              lambda: generate(plan, sources, out))
        print(f"{'demo input tree size':55s} {tree_size(out) / 1e6:6.2f} MB")
        unpacked = work / "unpacked"
        shutil.copytree(out, unpacked)
        n = unpack(unpacked)
        print(f"{'unpacked demo tree size':55s} {tree_size(unpacked) / 1e6:6.2f} MB")
        report = timed(f"recompress_files on the unpacked demo ({n} files)",
                       lambda: recompress_tree(unpacked), repeat=1)
        assert report.ok and len(report.done) == n
        timed("recompress_files second run (no-op scan)", lambda: recompress_tree(unpacked))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
