#!/usr/bin/env python
"""Score a prediction tree against the reference outputs (SPEC 6).

A thin wrapper: the command line lives in :mod:`genotex.cli.evaluate` (also installed as
the ``genotex-eval`` command by ``pip install .``). See ``python eval.py --help``.
"""

import sys

from genotex.cli.evaluate import build_parser, main  # noqa: F401 (build_parser: for --help tooling)

if __name__ == "__main__":
    sys.exit(main())
