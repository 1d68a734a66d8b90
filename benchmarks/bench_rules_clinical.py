#!/usr/bin/env python
"""Accuracy and speed of the rule-based clinical step on real curators' decisions.

    python benchmarks/bench_rules_clinical.py [--dev DIR] [--subset clean] [--folds N]

On the development split (``../shared/data/clinical_dev``: real GEO series with
the GenoTEX curators' rows and conversions), scored by the split's own
``score.py``:

* the rules cross-validated by trait -- each trait answered by ranking weights
  fitted without it (leave one trait out by default, ``--folds`` for k folds;
  ``--nested`` chooses the L2 penalty inside each fold too);
* the same rules with the shipped weights (fitted on the whole split: an
  in-sample figure, shown beside for scale only);
* the split's keyword baseline;

overall, per trait category and by the curators' verdict on each cohort
(usable or not), with the decisions the split itself contradicts
(:mod:`tools.preprocess.clinical_rules.label_audit`), then the time to answer the whole split
(every series, all three rows and every conversion) with the shipped weights,
in a fresh process pinned to one core. These are development figures: the
rules were written while this split was in view (see docs/preprocessing_clinical.md).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tools.preprocess.clinical_rules import devset  # noqa: E402
from tools.preprocess.clinical_rules import infer_clinical_rows, infer_clinical_values  # noqa: E402,E501
from tools.preprocess.clinical_rules.label_audit import audit_labels  # noqa: E402

DEFAULT_DEV = REPO.parent / "shared" / "data" / "clinical_dev"
HEADLINE = ("trait_row", "trait_values", "age_row", "gender_row", "all_rows")
CATEGORY_COLUMNS = (("trait", "row_accuracy", "trait row"),
                    ("trait", "conversion_value_accuracy", "trait values"),
                    ("age", "row_accuracy", "age row"), ("gender", "row_accuracy", "gender row"))


def pct(value: Optional[float]) -> str:
    return "   -" if value is None else f"{100 * value:5.1f}"


def headline_lines(rows: Dict[str, Dict[str, float]]) -> List[str]:
    names = list(rows)
    lines = ["| figure | " + " | ".join(names) + " |",
             "|---|" + "---|" * len(names)]
    for metric in HEADLINE:
        lines.append(f"| {metric.replace('_', ' ')} | "
                     + " | ".join(pct(rows[n][metric]) for n in names) + " |")
    return lines


def category_lines(cv: Dict, baseline: Dict) -> List[str]:
    header = ["category", "n"] + [f"{label} (CV / baseline)" for _, _, label in CATEGORY_COLUMNS]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---|" * (len(header) - 1)]
    for category, summary in cv["by_category"].items():
        base = baseline["by_category"][category]
        cells = [category, str(summary["n_cohorts"])]
        for feature, key, _ in CATEGORY_COLUMNS:
            cells.append(f"{pct(summary[feature][key])} / {pct(base[feature][key])}")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def usability_lines(scorer, records: Sequence[Dict], held_out: devset.HeldOutRules,
                    baseline_module) -> List[str]:
    """The headline figures on each group of :func:`devset.usability_groups`."""
    header = ["cohorts", "n"] + [m.replace("_", " ") for m in HEADLINE]
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---|" * (len(header) - 1)]
    for name, group in devset.usability_groups(records).items():
        if not group:
            continue
        rules = devset.headline(devset.score(scorer, group, held_out.rows, held_out.values))
        base = devset.headline(devset.score(scorer, group, baseline_module.pick_rows,
                                            baseline_module.convert))
        lines.append(f"| {name} | {len(group)} | "
                     + " | ".join(f"{pct(rules[m])} / {pct(base[m])}" for m in HEADLINE)
                     + " |")
    return lines


def timing_child(corpus: Path) -> None:
    """Answer every series of the corpus (all three rows, every conversion); print seconds."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    start, cpu = time.perf_counter(), time.process_time()
    records = devset.read_corpus(corpus, "all")
    for record in records:
        characteristics = devset.characteristics_of(record)
        background = record.get("background") or ""
        infer_clinical_rows(characteristics, record["trait"], background)
        for feature, conversion in (record.get("conversions") or {}).items():
            values = [v for v in conversion["values"] if isinstance(v, str)]
            infer_clinical_values(feature, values, record["trait"], background)
    print(f"{len(records)} {time.perf_counter() - start:.3f} {time.process_time() - cpu:.3f}")


def time_whole_split(corpus: Path, repeats: int = 3) -> List[Sequence[float]]:
    """``(series, wall seconds, CPU seconds)`` of fresh processes, cold caches each."""
    runs = []
    for _ in range(repeats):
        out = subprocess.run([sys.executable, __file__, "--time-child", str(corpus)],
                             capture_output=True, text=True, check=True, cwd=REPO)
        n, wall, cpu = out.stdout.split()
        runs.append((int(n), float(wall), float(cpu)))
    return runs


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Print the figures; 0 on success, 2 when the split is absent."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev", type=Path, default=DEFAULT_DEV,
                        help=f"the development split (default: {DEFAULT_DEV})")
    parser.add_argument("--subset", default="clean", choices=devset.SUBSETS,
                        help="records scored (default: clean, as the issue's figures)")
    parser.add_argument("--folds", type=int, default=None,
                        help="k folds of traits (default: leave one trait out)")
    parser.add_argument("--nested", action="store_true",
                        help="also choose the L2 penalty inside each fold (nested "
                             "cross-validation by trait; slower)")
    parser.add_argument("--time-child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.time_child:
        timing_child(args.time_child)
        return 0
    corpus = args.dev / devset.CORPUS_FILE
    if not corpus.is_file():
        print(f"development split not found: {corpus}")
        return 2
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f} (1/5/15 min), {os.cpu_count()} CPUs")
    records = devset.read_corpus(corpus, args.subset)
    scorer = devset.load_module(args.dev / devset.SCORER_FILE)
    baseline_module = devset.load_module(args.dev / devset.BASELINE_FILE)
    folds = "leave one trait out" if args.folds is None else f"{args.folds} folds of traits"
    if args.nested:
        folds += f", L2 penalty chosen inside each fold from {devset.L2_GRID}"
    start = time.perf_counter()
    held_out = devset.held_out_rules(records, args.folds,
                                     l2_grid=devset.L2_GRID if args.nested else None)
    cv = devset.score(scorer, records, held_out.rows, held_out.values)
    cv_seconds = time.perf_counter() - start
    shipped = devset.score(scorer, records, infer_clinical_rows, infer_clinical_values)
    baseline = devset.score(scorer, records, baseline_module.pick_rows,
                            baseline_module.convert)
    traits = len({r["trait"] for r in records})
    print(f"\n{args.subset} subset: {len(records)} series of {traits} traits; "
          f"cross-validation: {folds} ({cv_seconds:.0f} s)\n")
    print("\n".join(headline_lines({
        "rules, cross-validated by trait": devset.headline(cv),
        "keyword baseline": devset.headline(baseline),
        "rules, shipped weights (in-sample)": devset.headline(shipped)})))
    print("\nPer trait category (rules cross-validated / keyword baseline):\n")
    print("\n".join(category_lines(cv, baseline)))
    print("\nBy the curators' verdict on the cohort (rules cross-validated / keyword "
          "baseline; a cohort not usable never enters a problem):\n")
    print("\n".join(usability_lines(scorer, records, held_out, baseline_module)))
    findings = audit_labels(records)
    print(f"\nDecisions the split itself contradicts ({len(findings)}; devset "
          f"--label-audit):\n")
    print("\n".join(f"* {finding.describe()}" for finding in findings))
    runs = time_whole_split(corpus)
    best = min(runs, key=lambda r: r[1])
    print(f"\nWhole split ({best[0]} series, every row and conversion), fresh process on one "
          f"core: {best[1]:.2f} s wall, {best[2]:.2f} s CPU (best of {len(runs)}; all: "
          + ", ".join(f"{w:.2f}" for _, w, _ in runs) + " s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
