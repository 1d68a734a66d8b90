"""Time the shared reply readers on megabyte replies (issue 24: 1.86 s for one 1.3 MB reply).

Shapes: prose and code with scattered braces and a plan at the end (the case of
the issue); a 1.3 MB JSON gene list; adversarial replies (100,000 unterminated
nested objects, JSON-like and Python-like). The old reader (the first JSON value
from every ``{`` or ``[``, each decoded from a copy of the rest of the text) is
timed beside the new one on the first shape.

    python benchmarks/bench_reply_reading.py
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from genotex.methods.llm.genelists import read_gene_list  # noqa: E402
from genotex.methods.llm.jsonscan import json_objects  # noqa: E402
from genotex.methods.llm.reading import (  # noqa: E402
    answer_text, read_code, read_decision, read_plan)

REPEATS = 3


def old_first_json(text: str) -> Any:
    """The reader issue 24 replaced (kept here only to compare)."""
    decoder = json.JSONDecoder()
    for start, char in enumerate(text):
        if char in "{[":
            try:
                return decoder.raw_decode(text[start:])[0]
            except ValueError:
                continue
    return None


def best(action: Callable[[], Any]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    prose = ("Looking at {x} the outputs [1, x] of 'each' step, \"quoted\" {dict: 1} and "
             "{'k': [1, {'j': None}]} ") * 15_000 + '\n{"action": "skip"}'
    code = ("```python\nrow = {'a': [1, 2, {'b': 3}], \"c\": None}\nprint(row)\n```\n"
            * 20_000) + '\nDecision: {"action": "next"}'
    genes = json.dumps({"genes": [f"GENE{i}" for i in range(120_000)]})
    cases = [
        ("plan after 1.3 MB of prose with braces (new)", prose, lambda t: read_plan(t)),
        ("plan after 1.3 MB of prose with braces (old reader)", prose, old_first_json),
        ("plan after 1.2 MB of code blocks with dicts", code, lambda t: read_plan(t)),
        ("code blocks of the same reply", code, lambda t: read_code(t)),
        ("verdict of the same reply", code, lambda t: read_decision(t)),
        ("reasoning removal of the same reply", "<think>" + code + "</think>APPROVED",
         answer_text),
        ("1.3 MB JSON gene list", genes, lambda t: read_gene_list(t, {})),
        ("100,000 unterminated JSON objects", '{"action": ' * 100_000,
         lambda t: read_plan(t)),
        ("100,000 unterminated Python dicts", "{'a': " * 100_000,
         lambda t: list(json_objects(t))),
    ]
    print(f"load: {os.getloadavg()[0]:.2f} (1 min), best of {REPEATS}")
    print(f"{'reply':58s} {'MB':>5s} {'seconds':>9s}")
    for name, text, reader in cases:
        print(f"{name:58s} {len(text) / 1e6:5.2f} {best(lambda: reader(text)):9.4f}")


if __name__ == "__main__":
    main()
