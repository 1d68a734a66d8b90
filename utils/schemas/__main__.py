"""``python -m utils.schemas [--out DIR]``: write the JSON Schema of every file format.

The default folder is ``<root>/schemas``, the copy committed with the project.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional

from utils.paths import add_path_arguments, paths_from_args
from utils.schemas.export import write_json_schemas


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        prog="python -m utils.schemas",
        description="Write <format>.schema.json (JSON Schema draft 2020-12) for the file "
                    "formats: cohort_info, result, task_info, report, comparison.")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="folder to write (default: <root>/schemas)")
    add_path_arguments(parser, ("root",))
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Write the schemas; returns the exit code."""
    args = build_parser().parse_args(argv)
    folder = Path(args.out) if args.out else paths_from_args(args).root / "schemas"
    for path in write_json_schemas(folder):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
