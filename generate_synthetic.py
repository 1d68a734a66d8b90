#!/usr/bin/env python
"""Generate synthetic GEO / TCGA (Xena) cohorts with a planted truth.

A thin wrapper: the command line lives in :mod:`genotex.cli.synthetic` (also installed as
the ``genotex-synthetic`` command by ``pip install .``). See ``python generate_synthetic.py --help``.
"""

import sys

from genotex.cli.synthetic import (  # noqa: F401 (build_parser: for --help tooling)
    build_parser,
    main,
)

if __name__ == "__main__":
    sys.exit(main())
