"""How long GenoAgent's prompts get: the context length a model server needs.

Runs GenoAgent on the whole demo against the scripted server
(``genotex/testing/fake_llm.py``; replies from ``genotex/testing/reply_styles.py``:
the code a capable model could write, as the prompts ask) and measures every request:
system prompt, task context and step request. No tokenizer is installed (and none may
download its vocabulary at run time), so tokens are estimated from characters: 4
characters per token (English prose, OpenAI's rule of thumb) and 3 per token (code and
tables, which tokenize denser) -- the second is the one to size a context window by.

    python benchmarks/bench_prompt_length.py [--run-dir DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from genotex.methods.genoagent.settings import AgentSettings  # noqa: E402
from genotex.testing import agent_harness as harness  # noqa: E402
from genotex.testing.fake_llm import FakeLLM, request_fields  # noqa: E402
from genotex.testing.reply_styles import Style, whole_demo_script  # noqa: E402
from utils.paths import resolve_paths  # noqa: E402
from utils.problems import enumerate_problems, load_task_info  # noqa: E402


def chars(body: dict) -> int:
    return sum(len(m.get("content") or "") for m in body["messages"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", help="run folder (default: a temporary one)")
    args = parser.parse_args()
    run_dir = Path(args.run_dir or tempfile.mkdtemp(prefix="prompt-length-"))
    problems = enumerate_problems(load_task_info(resolve_paths().task_info))
    script = whole_demo_script(Style())
    with FakeLLM(script) as server:
        summary = harness.run_genoagent(run_dir, server.base_url, problems,
                                        settings=AgentSettings(step_timeout=120.0))
    sizes = sorted(((chars(b), request_fields(b)) for b in server.requests),
                   key=lambda item: item[0])
    longest, fields = sizes[-1]
    systems = {m["content"] for b in server.requests for m in b["messages"]
               if m["role"] == "system"}
    failed = [o.key for o in summary.outcomes if o.status == "failed"]
    print(f"load: {os.getloadavg()[0]:.2f}; requests: {len(sizes)}; failed tasks: {failed}")
    print(f"longest system prompt: {max(map(len, systems)):,} characters")
    print(f"prompt characters: median {statistics.median(s for s, _ in sizes):,.0f}, "
          f"95th percentile {sizes[int(0.95 * (len(sizes) - 1))][0]:,}, longest {longest:,} "
          f"({fields['role']} {fields['request']} {fields['step']} {fields['task']})")
    print(f"longest prompt in tokens: ~{longest / 4:,.0f} (4 characters per token), "
          f"~{longest / 3:,.0f} (3 characters per token)")


if __name__ == "__main__":
    main()
