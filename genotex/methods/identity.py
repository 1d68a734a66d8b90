"""What "the same run, byte for byte" covers: the files two runs must share exactly.

Two runs of one method on the same inputs -- ``-j 1`` and ``-j 8``, a local run
and a Dask run, a run and its replay -- must agree on:

* every file of the prediction tree (``prediction/``: preprocess tables and
  ``cohort_info.json`` records, regression results, notebooks), byte for byte;
* ``tasks.csv`` and ``resources.csv`` without their ``seconds`` column;
* ``resources.json`` without its wall times (``seconds_per_problem``,
  ``total_seconds``, each problem's ``seconds``) and without what says how the run
  was made (``budget``, ``replayed_from``).

Left out, with the reason: wall times measure this run, not the method (a replay
waits for no model; a concurrent run overlaps its tasks); ``run_log.jsonl`` holds
a time per event and events of concurrent tasks interleave; ``exchanges/``
records each session's id; ``state.json`` keeps times too; ``scratch/`` is
working space. :func:`reproducible_files` gives the covered content, so a test
(or a user) compares two runs with ``==``.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, Dict

TIME_COLUMNS = ("seconds",)
TIME_KEYS = ("seconds_per_problem", "total_seconds", "seconds")
RUN_KEYS = ("budget", "replayed_from")


def _without_columns(text: str, columns: tuple) -> bytes:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return b""
    keep = [i for i, name in enumerate(rows[0]) if name not in columns]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for row in rows:
        writer.writerow([row[i] for i in keep if i < len(row)])
    return buffer.getvalue().encode("utf-8")


def _without_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_keys(v) for k, v in value.items()
                if k not in TIME_KEYS and k not in RUN_KEYS}
    if isinstance(value, list):
        return [_without_keys(v) for v in value]
    return value


def reproducible_files(run_dir: Path) -> Dict[str, bytes]:
    """``{relative path: content}`` of what two equal runs share (see module docstring)."""
    run_dir = Path(run_dir)
    files: Dict[str, bytes] = {}
    tree = run_dir / "prediction"
    for path in sorted(p for p in tree.rglob("*") if p.is_file()):
        files[str(path.relative_to(run_dir))] = path.read_bytes()
    for name in ("tasks.csv", "resources.csv"):
        path = run_dir / name
        if path.is_file():
            files[name] = _without_columns(path.read_text("utf-8"), TIME_COLUMNS)
    path = run_dir / "resources.json"
    if path.is_file():
        document = _without_keys(json.loads(path.read_text("utf-8")))
        files["resources.json"] = json.dumps(document, indent=1, sort_keys=True).encode()
    return files
