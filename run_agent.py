#!/usr/bin/env python
"""Run an automated method (random, llm-no-data, rules, genoagent) to a prediction tree.

A thin wrapper: the command line lives in :mod:`genotex.cli.agent`. See
``python run_agent.py --help`` and docs/methods.md.
"""

import sys

from genotex.cli.agent import build_parser, main  # noqa: F401 (build_parser: for --help tooling)

if __name__ == "__main__":
    sys.exit(main())
