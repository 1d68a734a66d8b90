#!/usr/bin/env python
"""Re-gzip files of an input tree that a data platform unpacked.

A thin wrapper: the command line lives in :mod:`genotex.cli.recompress` (also installed as
the ``genotex-recompress`` command by ``pip install .``). See ``python recompress_files.py --help``.
"""

import sys

from genotex.cli.recompress import (  # noqa: F401 (build_parser: for --help tooling)
    build_parser,
    main,
)

if __name__ == "__main__":
    sys.exit(main())
