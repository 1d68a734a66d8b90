"""Build gene_synonym.json, gene_entrez.json and gene_ensembl.json (SPEC 8.3).

Example::

    python download/get_gene_synonyms.py --gene-info Homo_sapiens.gene_info.gz

See docs/gene_synonyms.md for the precedence rules.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional

if __package__ in (None, ""):  # run as a script (python download/x.py): use this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from utils.errors import InputFileError, command_error
from utils.logs import add_verbosity_argument, configure_logging
from utils.paths import exits_when_root_is_missing, resolve_paths
from utils.runtime import in_utf8_mode

# The builder (pandas) is imported in main(), after the arguments are parsed.


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        description="Build the gene symbol maps (gene_synonym.json, gene_entrez.json, "
                    "gene_ensembl.json) from NCBI Homo_sapiens.gene_info.")
    parser.add_argument("--gene-info", required=True, metavar="PATH",
                        help="NCBI Homo_sapiens.gene_info, gzip-compressed or plain "
                             "(only tax_id 9606 rows are used)")
    parser.add_argument("--output-dir", default=None, metavar="PATH",
                        help="folder to write the three maps into (default: the project's "
                             "metadata folder, env GENOTEX_METADATA or <root>/metadata)")
    parser.add_argument("--restrict-to", default=None, metavar="FILE",
                        help="file of official gene symbols, one per line ('#' comments "
                             "allowed): keep only these genes (small demo maps)")
    add_verbosity_argument(parser)
    return parser


@in_utf8_mode
@exits_when_root_is_missing
def main(argv: Optional[List[str]] = None) -> int:
    """Run the builder; returns the process exit code."""
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    from utils.gene_maps import build_gene_synonyms

    output_dir = args.output_dir or resolve_paths().metadata
    try:
        written = build_gene_synonyms(args.gene_info, output_dir,
                                      restrict_to_path=args.restrict_to)
    except InputFileError as exc:
        print(command_error(exc), file=sys.stderr)
        return 2
    for path in written.values():
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
