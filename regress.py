#!/usr/bin/env python
"""Statistical analysis of every gene-trait association problem (SPEC 5).

A thin wrapper: the command line lives in :mod:`genotex.cli.regress` (also installed as
the ``genotex-regress`` command by ``pip install .``). See ``python regress.py --help``.
"""

import sys

from genotex.cli.regress import build_parser, main  # noqa: F401 (build_parser: for --help tooling)

if __name__ == "__main__":
    sys.exit(main())
