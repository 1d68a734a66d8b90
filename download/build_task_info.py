"""Build ``metadata/task_info.json``: related genes from Open Targets, then conditions.

Examples::

    # local copy of the release (folder of part-*.parquet or part-*.json files)
    python download/build_task_info.py --associations ~/ot/associationByOverallDirect
    # files by URL (cached in the download state folder, resumable)
    python download/build_task_info.py --associations https://host/path/part-00000.json
    python download/build_task_info.py --associations https://host/path/part-00000.parquet
    # check the trait -> disease table against the release's disease index
    python download/build_task_info.py --diseases ~/ot/diseases --check
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional, Sequence

if __package__ in (None, ""):  # run as a script (python download/x.py): use this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from download.cli import (add_transfer_arguments, http_client_from_args,
                          run_network_command, state_dir_from_args)
from download.defaults import MIN_SCORE, PAPER_THRESHOLD, TRAIT_DISEASES
from download.fetch import fetch_resumable, install_file
from utils.arguments import fraction
from utils.errors import InputFileError, command_error
from utils.io.http import DownloadError
from utils.paths import (ProjectPaths, add_path_arguments, exits_when_root_is_missing,
                         paths_from_args)
from utils.runtime import in_utf8_mode

# The builders (numpy, pandas) are imported by the functions that run them, after the
# arguments are parsed, so that --help comes back at once.


def build_parser() -> argparse.ArgumentParser:
    """Argument parser of the task-info builder."""
    parser = argparse.ArgumentParser(
        description="Fill each trait's related_genes from Open Targets "
                    "associationByOverallDirect (parquet or JSON lines; score > "
                    "--min-score, strongest first, Ensembl -> symbol via the synonym build, "
                    "normalized, de-duplicated), then recompute the conditions with the "
                    "pair rules, and write task_info.json.")
    parser.add_argument("--associations", nargs="+", metavar="PATH_OR_URL",
                        help="release folder(s) or file(s) of associationByOverallDirect "
                             "(parquet part files, or JSON lines plain or .gz), or http(s) "
                             "URLs of such files")
    parser.add_argument("--table", default=TRAIT_DISEASES, metavar="TSV",
                        help="trait -> disease id table (default: trait_diseases.tsv, "
                             "shipped in the download package)")
    parser.add_argument("--traits", nargs="+", metavar="TRAIT",
                        help="only these traits of the table (default: all)")
    parser.add_argument("--min-score", type=fraction, default=MIN_SCORE,
                        help="keep targets whose overall direct score is above this "
                             "(default: 0.2)")
    parser.add_argument("--ensembl-map", metavar="JSON", default=None,
                        help="Ensembl gene id -> symbol map (default: gene_ensembl.json "
                             "beside the synonym map)")
    parser.add_argument("--threshold", type=fraction, default=PAPER_THRESHOLD,
                        help="Jaccard threshold of the pair rules (default: 0.1)")
    parser.add_argument("--strict", action="store_true",
                        help="pair rule uses Jaccard > threshold instead of >=")
    parser.add_argument("--keep-conditions", action="store_true",
                        help="keep the existing conditions instead of recomputing them")
    parser.add_argument("--output", metavar="PATH", default=None,
                        help="write here instead of over --task-info")
    parser.add_argument("--diseases", nargs="+", metavar="PATH",
                        help="the release's 'diseases' dataset (folder or files, parquet "
                             "or JSON lines), used by --check")
    parser.add_argument("--check", action="store_true",
                        help="with --diseases: report table ids missing from the release, "
                             "differing names and suggestions for unresolved traits; "
                             "write nothing")
    add_path_arguments(parser, ("root", "metadata", "gene_synonyms", "task_info"))
    add_transfer_arguments(parser, units=False)
    return parser


def local_files(sources: Sequence[str], args: argparse.Namespace,
                paths: ProjectPaths) -> List[Path]:
    """Resolve local paths and fetch URLs into the state folder's cache."""
    from download.opentargets import association_files
    from download.parquet_rows import PARQUET_SUFFIX, verify_parquet

    files: List[Path] = []
    http = None
    cache = state_dir_from_args(args, paths) / "opentargets"
    for source in sources:
        if source.startswith(("http://", "https://")):
            http = http or http_client_from_args(args)
            name = source.rstrip("/").rsplit("/", 1)[-1] or "associations.json"
            target = cache / name
            if args.force or not target.is_file():
                # a parquet file is framed by magic bytes: a truncated body is retried
                verify = verify_parquet if name.endswith(PARQUET_SUFFIX) else None
                result = fetch_resumable(http, source, cache / ".partial", name,
                                         item=f"Open Targets {name}", verify=verify,
                                         progress=not args.no_progress)
                install_file(result.path, target)
            files.extend(association_files(target))
        else:
            files.extend(association_files(source))
    return files


def run_check(args: argparse.Namespace, table) -> int:
    """``--check``: print the table report; exit 1 when something needs attention."""
    from download.opentargets import association_files, check_table, read_disease_index

    files = [f for source in args.diseases for f in association_files(source)]
    report = check_table(table, read_disease_index(files))
    print("\n".join(report) if report else "trait -> disease table matches the release")
    return 1 if report else 0


@in_utf8_mode
@exits_when_root_is_missing
def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the builder; return the exit code (0 ok, 1 check findings / failures, 2 bad input)."""
    return run_network_command(build_parser, run, argv)


def run(args: argparse.Namespace) -> int:
    """The builder on parsed arguments (see :func:`main`)."""
    from download.opentargets import (build_related_genes, merge_related_genes,
                                      read_trait_diseases)
    from download.pairs import PairRules, build_task_info
    from utils.problems import load_task_info, normalize_trait
    from utils.schemas.task_info import write_task_info
    from utils.symbols import ENSEMBL_MAP_NAME, companion_map_path, load_gene_map

    paths = paths_from_args(args)
    try:
        table = read_trait_diseases(args.table)
        if args.traits:
            wanted = {normalize_trait(t) for t in args.traits}
            table = [row for row in table if row.trait in wanted]
        if args.check:
            if not args.diseases:
                raise InputFileError(args.table, "--check needs --diseases")
            return run_check(args, table)
        if not args.associations:
            raise InputFileError(args.table, "give --associations (folder, file or URL)")
        ensembl_path = (Path(args.ensembl_map) if args.ensembl_map
                        else companion_map_path(ENSEMBL_MAP_NAME, paths.gene_synonyms))
        ensembl = load_gene_map(ensembl_path)
        synonyms = load_gene_map(paths.gene_synonyms)
        files = local_files(args.associations, args, paths)
        existing = load_task_info(paths.task_info) if paths.task_info.is_file() else {}
        related = build_related_genes(files, table, ensembl, synonyms, args.min_score,
                                      progress=not args.no_progress)
    except (InputFileError, OSError, DownloadError) as exc:
        print(command_error(exc), file=sys.stderr)
        return 2
    task_info = merge_related_genes(existing, related)
    if not args.keep_conditions:
        rules = PairRules(threshold=args.threshold, inclusive=not args.strict)
        genes = {trait: entry["related_genes"] for trait, entry in task_info.items()}
        task_info = build_task_info(genes, rules)
    target = Path(args.output) if args.output else paths.task_info
    write_task_info(target, task_info)
    unresolved = [row.trait for row in table if not row.disease_ids]
    empty = [trait for trait, genes in related.items() if not genes]
    print(f"wrote {target}: {len(task_info)} traits, "
          f"{sum(len(e['conditions']) for e in task_info.values())} conditions; "
          f"{len(related) - len(empty)} traits with related genes, {len(empty)} without"
          + (f" ({len(unresolved)} have no disease id in the table)" if unresolved else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
