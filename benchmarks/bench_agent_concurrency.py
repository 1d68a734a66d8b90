"""How much ``run_agent.py -j N`` gains when the model takes its time: the demo, -j 1 vs -j N.

Runs ``llm-no-data`` (one request per problem), then GenoAgent, on the whole demo
(15 cohorts, 37 problems: 52 tasks) against the scripted server
(``genotex/testing/fake_llm.py``; GenoAgent's replies from
``genotex/testing/reply_styles.py``: the code a capable model could write)
with a fixed latency per reply (default 2 s), once with ``-j 1`` and once with
``-j N`` (default 8), side by side in one process. Prints wall times, the
speed-up, the machine load (``os.getloadavg``) before and after each run (the
machine is shared), the kernels' peak resident memory (``VmHWM`` of each kernel
process, from the run log's ``kernel`` events), and whether the two prediction
trees are byte-identical. ``--kernel-reuse-only`` compares, at ``-j N``, a new
kernel per task with the pool's reused kernels.

    python benchmarks/bench_agent_concurrency.py [--latency 2] [--jobs 8] [--skip-llm-no-data]
    python benchmarks/bench_agent_concurrency.py --kernel-reuse-only   # -j N, reuse vs none
"""

from __future__ import annotations

import argparse
import filecmp
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from genotex.methods.genoagent.settings import AgentSettings  # noqa: E402
from genotex.methods.llm_no_data import LLMWithoutData  # noqa: E402
from genotex.methods.runlog import read_log  # noqa: E402
from genotex.methods.runner import RunOptions, run_method  # noqa: E402
from genotex.testing import agent_harness as harness  # noqa: E402
from genotex.testing.fake_llm import FakeLLM, Script  # noqa: E402
from genotex.testing.reply_styles import Style, whole_demo_script  # noqa: E402
from utils.paths import resolve_paths  # noqa: E402
from utils.problems import enumerate_problems, load_task_info  # noqa: E402
from utils.symbols import load_synonym_map  # noqa: E402


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def same_tree(a: Path, b: Path) -> bool:
    files = sorted(str(p.relative_to(a)) for p in a.rglob("*") if p.is_file())
    if files != sorted(str(p.relative_to(b)) for p in b.rglob("*") if p.is_file()):
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, files, shallow=False)
    return not mismatch and not errors


def genoagent_run(run_dir: Path, jobs: int, latency: float, problems: List[Any],
                  reuse: bool = True) -> Dict[str, Any]:
    with FakeLLM(whole_demo_script(Style())) as server:
        server.latency = latency
        before = load()
        start = time.monotonic()
        settings = AgentSettings(step_timeout=300.0, reuse_kernels=reuse)
        summary = harness.run_genoagent(run_dir, server.base_url, problems, settings=settings,
                                        jobs=jobs)
        seconds = time.monotonic() - start
    kernels = [e for e in read_log(run_dir / "run_log.jsonl") if e["event"] == "kernel"]
    peaks = [e["peak_rss_mb"] for e in kernels if e.get("peak_rss_mb") is not None]
    return {"seconds": seconds, "before": before, "after": load(),
            "requests": len(server.requests), "failed": len(summary.failures()),
            "kernels": len(kernels), "tasks_per_kernel": [e["tasks"] for e in kernels],
            "peak_max": max(peaks, default=float("nan")),
            "peak_median": statistics.median(peaks) if peaks else float("nan")}


def no_data_run(run_dir: Path, jobs: int, latency: float, problems: List[Any]
                ) -> Dict[str, Any]:
    paths = resolve_paths()
    script = Script().add("genes", *(['["TNF", "IL6", "TP53"]'] * len(problems)))
    with FakeLLM(script) as server:
        server.latency = latency
        method = LLMWithoutData(harness.client(server.base_url),
                                load_synonym_map(paths.gene_synonyms), harness.PRICES)
        before = load()
        start = time.monotonic()
        summary = run_method(method, paths, problems,
                             RunOptions(run_dir=run_dir, progress=False, jobs=jobs))
        seconds = time.monotonic() - start
    return {"seconds": seconds, "before": before, "after": load(),
            "requests": len(server.requests), "failed": len(summary.failures())}


def report(name: str, labels: List[str], one: Dict[str, Any], many: Dict[str, Any],
           same: bool) -> None:
    print(f"{name}: {labels[0]} {one['seconds']:.1f} s (load {one['before']} -> "
          f"{one['after']}), {labels[1]} {many['seconds']:.1f} s (load {many['before']} -> "
          f"{many['after']}); speed-up {one['seconds'] / many['seconds']:.2f}x; requests "
          f"{one['requests']} / {many['requests']}; failed tasks {one['failed']} / "
          f"{many['failed']}; trees byte-identical: {same}")
    for label, run in zip(labels, (one, many)):
        if "kernels" in run:
            print(f"  {label}: {run['kernels']} kernels, tasks per kernel "
                  f"{run['tasks_per_kernel']}, peak RSS per kernel median "
                  f"{run['peak_median']:.0f} MiB, max {run['peak_max']:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=2.0, help="seconds per reply")
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--skip-llm-no-data", action="store_true")
    parser.add_argument("--skip-genoagent", action="store_true")
    parser.add_argument("--kernel-reuse-only", action="store_true",
                        help="only GenoAgent with -j N: a new kernel per task vs reused kernels")
    args = parser.parse_args()
    problems = enumerate_problems(load_task_info(resolve_paths().task_info))
    work = Path(tempfile.mkdtemp(prefix="bench-concurrency-"))
    print(f"cores: {os.cpu_count()}; latency {args.latency:g} s per reply; load {load()}")
    if args.kernel_reuse_only:
        folders = [work / "new-kernels", work / "reused-kernels"]
        fresh = genoagent_run(folders[0], args.jobs, args.latency, problems, reuse=False)
        reused = genoagent_run(folders[1], args.jobs, args.latency, problems)
        report(f"genoagent -j {args.jobs}", ["new kernel per task", "reused kernels"], fresh,
               reused, same_tree(folders[0] / "prediction", folders[1] / "prediction"))
        return
    methods = [("llm-no-data", no_data_run)] if not args.skip_llm_no_data else []
    methods += [("genoagent", genoagent_run)] if not args.skip_genoagent else []
    for name, run in methods:
        folders = [work / f"{name}-{jobs}" for jobs in (1, args.jobs)]
        one = run(folders[0], 1, args.latency, problems)
        many = run(folders[1], args.jobs, args.latency, problems)
        report(name, ["-j 1", f"-j {args.jobs}"], one, many,
               same_tree(folders[0] / "prediction", folders[1] / "prediction"))


if __name__ == "__main__":
    main()
