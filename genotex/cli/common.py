"""Pieces shared by the command lines of :mod:`genotex.cli` (standard library only).

Kept free of heavy imports so that every command that uses them still answers
``--help`` at once (``tests/project/test_cli_help.py``).
"""

from __future__ import annotations

#: The ``--traits`` / ``--problems`` rule, quoted in the help of every command that
#: selects problems.
SELECTION_HELP = ("--traits and --problems combine as a union: every problem of each "
                  "trait named, plus each problem named")


class UsageError(ValueError):
    """A command line that names something that does not exist or cannot work."""
