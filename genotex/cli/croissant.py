"""Croissant metadata.json of the trees: write and validate (``python -m genotex.cli.croissant``)."""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from genotex.croissant import DEFAULT_LICENSE, SYNTHETIC_TRUTH_NAME, validate, write_metadata
from utils.logs import add_verbosity_argument, configure_logging
from utils.paths import add_path_arguments, exits_when_root_is_missing, paths_from_args
from utils.runtime import in_utf8_mode


def build_parser() -> argparse.ArgumentParser:
    """CLI of ``python -m genotex.cli.croissant``."""
    parser = argparse.ArgumentParser(
        description="Write metadata.json: a Croissant 1.0 JSON-LD description of the "
                    "metadata/, input/ and output/ trees (file sets, SHA-256 of the "
                    "metadata files, record sets).")
    add_path_arguments(parser, ("root", "input", "output", "metadata", "gene_synonyms",
                                "task_info"))
    parser.add_argument("--out", metavar="FILE", default=None,
                        help="where to write (default: <root>/metadata.json); paths in the "
                             "document are relative to its folder")
    parser.add_argument("--name", default=None, help="dataset name (default: GenoTEX, or "
                        "GenoTEX-demo for a synthetic tree)")
    parser.add_argument("--description", default=None, help="dataset description")
    parser.add_argument("--url", default="", help="dataset / repository URL")
    parser.add_argument("--license", default=DEFAULT_LICENSE, dest="license_url",
                        help=f"license URL (default {DEFAULT_LICENSE})")
    parser.add_argument("--version", default="1.0.0", help="dataset version")
    parser.add_argument("--date-published", default=None, metavar="YYYY-MM-DD",
                        help="publication date (omitted by default)")
    parser.add_argument("--synthetic", choices=("auto", "yes", "no"), default="auto",
                        help="describe a synthetic demo (auto: when "
                             f"<metadata>/{SYNTHETIC_TRUTH_NAME} exists)")
    parser.add_argument("--validate", action="store_true",
                        help="validate the written file with mlcroissant")
    add_verbosity_argument(parser)
    return parser


@in_utf8_mode
@exits_when_root_is_missing
def main(argv: Optional[List[str]] = None) -> int:
    """Run the CLI."""
    args = build_parser().parse_args(argv)
    configure_logging(args.verbose)
    synthetic = {"auto": None, "yes": True, "no": False}[args.synthetic]
    target = write_metadata(paths_from_args(args), args.out, name=args.name,
                            description=args.description, url=args.url,
                            license_url=args.license_url, version=args.version,
                            synthetic=synthetic, date_published=args.date_published)
    if args.validate:
        validate(target)
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
