#!/usr/bin/env python
"""Accuracy of the rule-based clinical step (``tools.preprocess.clinical_rules``).

    python benchmarks/bench_rules_clinical.py [--verbose]

Prints row accuracy and value accuracy on

* the 13 demo GEO cohorts (truth: the curator's records and committed clinical
  tables);
* the real GEO series of ``../shared/data`` (11 series x trait; hand-made truth in
  ``tests/tools/preprocess/clinical_rules/real_truth.py``; skipped when absent);
* GEO characteristics from upstream notebooks (rows only): 9 series seen while the
  rules were tuned and 13 held out.

in two modes: ``ch1`` (characteristics only: the two contract functions) and ``ext``
(titles, source names and descriptions searched too). Definitions:
``tests/tools/preprocess/clinical_rules/scoring.py``. Takes about a second.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.tools.preprocess.clinical_rules import heldout_cases, scoring  # noqa: E402
from tools.preprocess.clinical_rules import infer_clinical_rows  # noqa: E402

SHARED_DATA = REPO.parent / "shared" / "data"


def _summary_lines(label: str, cohorts: Sequence[scoring.Cohort], verbose: bool) -> List[str]:
    lines = [f"{label} ({len(cohorts)}):"]
    for mode in scoring.MODES:
        summary = scoring.summarize(cohorts, mode)
        rows = ", ".join(f"{f} {summary.rows_right[f]}/{summary.cohorts}"
                         for f in scoring.FEATURES)
        values = ", ".join(f"{f} {summary.value_hits[f]}/{summary.value_total[f]} "
                           f"({summary.value_share(f):.1%})"
                           for f in scoring.FEATURES if summary.value_total[f])
        lines.append(f"  [{mode}] rows: {rows}")
        lines.append(f"  [{mode}] values: {values}; all {summary.value_share():.1%}")
        if verbose:
            lines.extend(f"      {miss}" for miss in summary.misses)
    return lines


def _heldout_lines(verbose: bool) -> List[str]:
    lines = []
    for label, cases in (("upstream-notebook series seen while tuning", heldout_cases.DEV2),
                         ("upstream-notebook series held out", heldout_cases.HELDOUT)):
        hits, misses = heldout_cases.score_cases(cases, infer_clinical_rows)
        upstream = {f: sum(c["upstream"][f] in c["truth"][f] for c in cases)
                    for f in scoring.FEATURES}
        n = len(cases)
        lines.append(f"{label} ({n}), characteristics only, rows: "
                     + ", ".join(f"{f} {hits[f]}/{n}" for f in scoring.FEATURES)
                     + "   [upstream LLM agent vs the same truth: "
                     + ", ".join(f"{f} {upstream[f]}/{n}" for f in scoring.FEATURES) + "]")
        if verbose or misses:
            lines.extend(f"      {miss}" for miss in misses)
    return lines


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Print the figures; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list every imperfect cohort")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    lines = _summary_lines("demo GEO cohorts", scoring.demo_cohorts(REPO), args.verbose)
    if (SHARED_DATA / "geo").is_dir():
        lines += _summary_lines("real GEO series x trait (../shared/data)",
                                scoring.real_cohorts(SHARED_DATA), args.verbose)
    else:
        lines.append(f"real GEO series: skipped ({SHARED_DATA} absent)")
    lines += _heldout_lines(args.verbose)
    lines.append(f"({time.perf_counter() - start:.1f} s)")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
