"""Generate synthetic GEO / TCGA (Xena) cohorts with a planted truth.

Examples
--------
Whole demo from its plan (inputs under ./input, truth in ./metadata)::

    python generate_synthetic.py --demo-plan

The same from an installed copy, anywhere (name the metadata files)::

    genotex-synthetic --demo-plan --gene-synonyms meta/gene_synonym.json \
        --task-info meta/task_info.json --out /tmp/demo/input --truth /tmp/demo/truth.json

One GEO cohort for a quick experiment::

    python generate_synthetic.py --trait "Rheumatoid Arthritis" --n-samples 40 \
        --out /tmp/syn/input --truth /tmp/syn/truth.json

A benchmark shaped like the real one (911 cohorts, 1,384 problems; needs the full
gene maps of download/get_gene_synonyms.py), or its first 60 cohorts, 2 processes::

    python generate_synthetic.py --preset full-size --gene-synonyms /tmp/maps/gene_synonym.json \
        --out /data/genotex_full [--cohorts 60] [-j 2]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

from genotex.synthetic.options import (COUNT_IDS, PLATFORM_STYLES, PRESET_NAMES, SCALES,
                                       SOURCES, TRAIT_FIELDS, TRAIT_KINDS, TRUTH_NAME)
from utils.errors import InputFileError
from utils.logs import add_verbosity_argument, configure_logging
from utils.paths import (ProjectPaths, add_path_arguments, exits_when_root_is_missing,
                         paths_from_args)
from utils.runtime import in_utf8_mode

if TYPE_CHECKING:
    from genotex.synthetic import Sources
    from genotex.synthetic.files import Compression

# The generator (numpy, pandas) is imported by the functions that run it, after the
# arguments are parsed, so that --help comes back at once.


def default_truth_path(args: argparse.Namespace, out: Path, paths: ProjectPaths) -> Path:
    """Where the truth goes: ``--truth``, else inside ``--out`` when given, else metadata.

    A CLI writes only inside the folders its flags name: with ``--out DIR``
    and no ``--truth``, the truth lands in ``DIR``, never in the checkout. The
    metadata folder is resolved only when it is the answer.
    """
    if args.truth:
        return Path(args.truth)
    return (out if args.out else paths.metadata) / TRUTH_NAME


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        description="Write format-faithful synthetic GEO series (series matrix + family "
                    "SOFT) and UCSC Xena TCGA cohorts with planted trait genes, covariate "
                    "effects, batch structure and missing values, plus the planted truth "
                    "as JSON. Output is byte-identical for the same plan, seed and "
                    "metadata files.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    what = parser.add_argument_group("what to generate")
    plans = what.add_mutually_exclusive_group()
    plans.add_argument("--plan", metavar="FILE",
                       help="JSON or TOML plan of genes, traits, platforms and cohorts "
                            "(docs/synthetic.md); without a plan, the single-cohort flags "
                            "below describe one cohort")
    plans.add_argument("--demo-plan", action="store_true",
                       help="the bundled demo's plan (genotex/demo/plan.json, shipped with "
                            "the package)")
    plans.add_argument("--preset", choices=PRESET_NAMES,
                       help="a whole benchmark folder shaped like the real GenoTEX "
                            "(docs/synthetic.md, 'Presets'): --out DIR receives input/, "
                            "metadata/, reference/preprocess and the truth; traits from "
                            "--task-info when given, else generated; --gene-synonyms must be "
                            "the full map")
    what.add_argument("--cohorts", type=int, default=None, metavar="N",
                      help="with --preset: only its first N cohorts (a random sample of the "
                           "whole; the metadata keep the traits of those cohorts)")
    what.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                      help="cohorts written at once, one process each (default: 1); the "
                           "output does not depend on it")
    what.add_argument("--compression", default=None, metavar="ENGINE:LEVEL",
                      help="gzip of the written files: zlib:0-9 or isal:0-3 (ISA-L, about "
                           "20x faster than zlib level 6); default zlib:9, isal:3 with "
                           "--preset")
    what.add_argument("--seed", type=int, default=None,
                      help="random seed (overrides the plan's seed; default 0 without a plan)")
    where = parser.add_argument_group("where")
    add_path_arguments(where, ("input", "metadata", "gene_synonyms", "task_info"))
    where.add_argument("--out", metavar="DIR", default=None,
                       help="input root to write GEO/ and TCGA/ into (default: the "
                            "resolved input dir, i.e. --input-dir / GENOTEX_INPUT / "
                            "<root>/input)")
    where.add_argument("--truth", metavar="FILE", default=None,
                       help=f"planted-truth JSON (default: <DIR>/{TRUTH_NAME} with --out "
                            f"DIR, else <metadata dir>/{TRUTH_NAME}; move it away before "
                            "handing DIR to a method under test)")
    where.add_argument("--no-truth", action="store_true", help="do not write the truth JSON")
    where.add_argument("--entrez-map", metavar="FILE", default=None,
                       help="GeneID -> symbol JSON for ENTREZ_GENE_ID columns and RNA-seq "
                            "count tables (default: gene_entrez.json beside the synonym map, "
                            "if present)")
    extra = parser.add_argument_group("other outputs")
    extra.add_argument("--list-genes", action="store_true",
                       help="print the gene universe (one official symbol per line) and exit")
    extra.add_argument("--task-info-out", metavar="FILE", default=None,
                       help="also write a task_info.json for the plan's traits (conditions "
                            "limited to Age, Gender and plan traits; related genes limited "
                            "to the universe unless --full-related-genes)")
    extra.add_argument("--full-related-genes", action="store_true",
                       help="with --task-info-out: keep every related gene")
    one = parser.add_argument_group("single-cohort flags (used when --plan is absent)")
    one.add_argument("--trait", help="trait name, e.g. 'Rheumatoid Arthritis'")
    one.add_argument("--source", choices=SOURCES, default="geo", help="GEO series or Xena cohort")
    one.add_argument("--cohort-id", help="GSE accession (default GSE9100001) or Xena")
    one.add_argument("--kind", choices=TRAIT_KINDS, default="binary", help="trait type")
    one.add_argument("--n-samples", type=int, default=60, help="number of samples")
    one.add_argument("--case-fraction", type=float, default=0.5, help="share of cases")
    one.add_argument("--n-cases", type=int, default=None,
                     help="exact number of cases (e.g. 3 for a biased cohort)")
    one.add_argument("--platform-style", choices=PLATFORM_STYLES, default="affymetrix",
                     help="GEO probe-id / annotation conventions")
    one.add_argument("--scale", choices=SCALES, default=None,
                     help="GEO values (default log2; counts for rnaseq)")
    one.add_argument("--trait-field", choices=TRAIT_FIELDS, default="characteristics",
                     help="where a GEO series records the trait")
    one.add_argument("--count-ids", choices=COUNT_IDS, default="entrez",
                     help="row ids of an RNA-seq count table")
    one.add_argument("--tcga-code", default="", help="TCGA code of a Xena cohort, e.g. PRAD")
    one.add_argument("--n-other", type=int, default=0,
                     help="Xena samples with a type code neither tumour nor normal")
    one.add_argument("--batch", action="store_true", help="plant a strong batch effect")
    one.add_argument("--no-trait-data", action="store_true",
                     help="the files carry no trait information")
    one.add_argument("--no-age", action="store_true", help="no Age information")
    one.add_argument("--no-gender", action="store_true", help="no Gender information")
    one.add_argument("--missing-rate", type=float, default=0.0,
                     help="share of expression cells left empty")
    one.add_argument("--background", type=int, default=200,
                     help="background genes drawn from the synonym map")
    add_verbosity_argument(parser)
    return parser


def compression_of(args: argparse.Namespace, default: Compression) -> Compression:
    """The ``--compression ENGINE:LEVEL`` setting (``default`` when absent)."""
    from genotex.synthetic.files import Compression
    if not args.compression:
        return default
    engine, _, level = args.compression.partition(":")
    try:
        return Compression(engine, int(level))
    except ValueError as exc:
        raise SystemExit(f"error: --compression {args.compression}: {exc}") from exc


def run_preset(args: argparse.Namespace, paths: ProjectPaths) -> int:
    """``--preset``: a whole benchmark folder; prints its size and generation time."""
    if not args.out:
        raise SystemExit("error: --preset needs --out DIR (the benchmark folder)")
    from genotex.synthetic.benchmark import write_preset
    from genotex.synthetic.files import FAST_COMPRESSION
    from utils.symbols import ENTREZ_MAP_NAME, companion_map_path, load_gene_map
    synonyms = load_gene_map(paths.gene_synonyms)
    entrez_path = (Path(args.entrez_map) if args.entrez_map
                   else companion_map_path(ENTREZ_MAP_NAME, paths.gene_synonyms))
    entrez = load_gene_map(entrez_path) if entrez_path.is_file() else None
    source = load_task_info(args.task_info) if args.task_info else None
    summary = write_preset(args.preset, Path(args.out), synonyms, Path(paths.gene_synonyms),
                           entrez, source, args.cohorts, args.jobs,
                           args.seed if args.seed is not None else 0,
                           compression_of(args, FAST_COMPRESSION), progress=True)
    print(f"wrote {summary['cohorts']} cohort(s) of {summary['traits']} trait(s), "
          f"{summary['samples']:,} samples (mean {summary['mean_samples']:.1f}), "
          f"{summary['problems']:,} problems, in {summary['seconds']:.1f} s with "
          f"{args.jobs} process(es): input {summary['input_bytes'] / 1e9:.2f} GB, reference "
          f"{summary['reference_bytes'] / 1e9:.2f} GB under {args.out}")
    return 0


def plan_document(args: argparse.Namespace) -> tuple:
    """The plan (parsed) and its name for messages, from --plan or the flags."""
    from genotex.demo.plan import demo_plan, demo_plan_file
    from genotex.synthetic import load_plan
    from genotex.synthetic.spec import plan_from_mapping, single_cohort_mapping

    if args.plan or args.demo_plan:
        plan = demo_plan() if args.demo_plan else load_plan(args.plan)
        if args.seed is not None:
            plan = dataclasses.replace(plan, seed=args.seed)
        return plan, (str(demo_plan_file()) if args.demo_plan else args.plan)
    if not args.trait:
        raise SystemExit("error: give --plan FILE, --demo-plan or at least --trait NAME")
    extra = {"case_fraction": args.case_fraction, "batch": args.batch,
             "has_trait": not args.no_trait_data, "has_age": not args.no_age,
             "has_gender": not args.no_gender, "missing_rate": args.missing_rate}
    if args.n_cases is not None:
        extra["n_cases"] = args.n_cases
    if args.source == "geo":
        extra.update({"trait_field": args.trait_field, "count_ids": args.count_ids})
    else:
        extra["n_other"] = args.n_other
    mapping = single_cohort_mapping(args.trait, args.source, args.cohort_id, args.seed or 0,
                                    args.kind, args.n_samples, args.platform_style,
                                    args.scale, args.tcga_code, args.background, extra)
    return plan_from_mapping(mapping, "<flags>"), "<flags>"


def load_sources(args: argparse.Namespace, paths) -> Sources:
    """Read the synonym map, task info and optional GeneID map (``--entrez-map``)."""
    from genotex.synthetic import read_sources

    return read_sources(paths.gene_synonyms, paths.task_info, args.entrez_map)


@in_utf8_mode
@exits_when_root_is_missing
def main(argv: Optional[List[str]] = None) -> int:
    """Run the CLI; returns the exit code."""
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    from genotex.synthetic import demo_task_info, generate
    from genotex.synthetic.files import DEMO_COMPRESSION
    from genotex.synthetic.genes import build_catalog
    from utils.schemas.task_info import write_task_info

    paths = paths_from_args(args)
    try:
        if args.preset:
            return run_preset(args, paths)
        if args.cohorts is not None:
            raise SystemExit("error: --cohorts goes with --preset")
        plan, name = plan_document(args)
        sources = load_sources(args, paths)
        if args.list_genes or args.task_info_out:
            catalog = build_catalog(plan, sources.synonyms, sources.task_info, sources.entrez,
                                    str(name))
            if args.task_info_out:
                write_task_info(args.task_info_out,
                                demo_task_info(plan, sources.task_info, catalog,
                                               not args.full_related_genes))
            if args.list_genes:
                sys.stdout.write("".join(g + "\n" for g in catalog.universe))
                return 0
        out = Path(args.out) if args.out else paths.input
        truth = None if args.no_truth else default_truth_path(args, out, paths)
        result = generate(plan, sources, out, truth, source=str(name), progress=True,
                          jobs=args.jobs, compression=compression_of(args, DEMO_COMPRESSION))
    except InputFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    n = sum(len(c) for c in result["cohorts"].values())
    print(f"wrote {n} cohort(s) under {out}" + (f"; truth: {truth}" if truth else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
