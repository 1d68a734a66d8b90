"""Re-gzip files of an input tree that a data platform unpacked.

Rules (see genotex/recompress.py): a ``.gz`` file with plain content is gzipped in
place; a file that lost its ``.gz`` suffix (``*_series_matrix.txt``,
``*_family.soft``, ``*.sampleMap_HiSeqV2[_PANCAN]``, ``*_raw_counts_*.tsv``)
becomes ``<name>.gz``; a plain file whose ``.gz`` twin holds the same content is
removed; anything else (clinicalMatrix, JSON, CSV) is left alone. Every write is
verified and atomic; a second run changes nothing.

Examples
--------
    python recompress_files.py --dry-run          # show what would change in ./input
    python recompress_files.py --input-dir /data/genotex/input

``--root`` names the repository, as in the other commands (its ``input/`` is the default
tree). Before issue 22 it named the tree to repair; a ``--root`` that is not a GenoTEX
checkout is still read that way, with a warning to use ``--input-dir``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional

from genotex.recompress import LOST_SUFFIX_PATTERNS, recompress_tree
from utils.errors import command_error
from utils.logs import add_verbosity_argument, configure_logging
from utils.paths import add_path_arguments, exits_when_root_is_missing, is_checkout, paths_from_args
from utils.runtime import in_utf8_mode


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        description="Restore the gzip compression of GEO / Xena input files that a data "
                    "platform unpacked (idempotent, atomic, verified).",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    add_path_arguments(parser, ("root", "input"))
    parser.add_argument("--dry-run", action="store_true",
                        help="only list what would change; touch nothing")
    parser.add_argument("--verify", action="store_true",
                        help="also decompress every .gz file and report damaged ones")
    parser.add_argument("--pattern", action="append", default=[], metavar="GLOB",
                        help="extra file-name glob (without .gz) whose canonical form is "
                             "gzip; repeatable. Built in: " + ", ".join(LOST_SUFFIX_PATTERNS))
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print only the final summary line")
    add_verbosity_argument(parser)
    return parser


@in_utf8_mode
@exits_when_root_is_missing
def main(argv: Optional[List[str]] = None) -> int:
    """Run the CLI; exit code 0 when nothing failed or conflicts, else 1."""
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    if args.root and not is_checkout(Path(args.root)) and not args.input_dir:
        print(f"warning: --root {args.root} is not a GenoTEX checkout: read as the tree to "
              f"repair (its former meaning); use --input-dir {args.root} (--root names the "
              "repository, as in every command)", file=sys.stderr)
        args.input_dir, args.root = args.root, None
    root = paths_from_args(args).input
    try:
        report = recompress_tree(root, dry_run=args.dry_run,
                                 patterns=LOST_SUFFIX_PATTERNS + tuple(args.pattern),
                                 verify=args.verify)
    except FileNotFoundError as exc:
        print(command_error(exc), file=sys.stderr)
        return 2
    text = report.summary()
    print(text.splitlines()[-1] if args.quiet else text)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
