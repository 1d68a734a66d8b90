"""Logging and progress bars of the command-line tools, configured one way.

Every CLI takes ``-v`` (INFO: one line per unit of work) and ``-vv`` (DEBUG:
the decisions inside each unit); without it only warnings and errors are
logged. Progress bars go to stderr and are drawn only when stderr is a
terminal, so a log file or a CI log never fills with bar redraws.
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING, Any, Iterable, Optional

if TYPE_CHECKING:  # tqdm is imported when a bar is made, so that --help stays fast
    from tqdm import tqdm

LOG_FORMAT = "%(levelname)s %(name)s: %(message)s"
LEVELS = (logging.WARNING, logging.INFO, logging.DEBUG)


def add_verbosity_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``-v/--verbose`` (repeatable) to a parser."""
    parser.add_argument("-v", "--verbose", action="count", default=0,
                        help="more logging on stderr: -v INFO (one line per unit of work), "
                             "-vv DEBUG (the decisions inside each)")


def level_for(verbosity: int) -> int:
    """The logging level of ``-v`` given ``verbosity`` times (0: WARNING).

    >>> level_for(0) == logging.WARNING, level_for(1) == logging.INFO, level_for(5) == logging.DEBUG
    (True, True, True)
    """
    return LEVELS[max(0, min(int(verbosity), len(LEVELS) - 1))]


def configure_logging(verbosity: int = 0) -> int:
    """Send log records of the chosen level to stderr; returns the level.

    Replaces handlers an imported library may have installed, so ``-v``
    always takes effect.
    """
    level = level_for(verbosity)
    logging.basicConfig(level=level, format=LOG_FORMAT, stream=sys.stderr, force=True)
    return level


def progress(iterable: Optional[Iterable[Any]] = None, *, enabled: bool = True,
             **options: Any) -> tqdm:
    """A tqdm bar on stderr, drawn only when ``enabled`` and stderr is a terminal.

    Parameters
    ----------
    iterable : iterable, optional
    enabled : bool
        False hides the bar whatever the terminal (``--no-progress``).
    **options
        Passed to :class:`tqdm.tqdm` (``total``, ``desc``, ``unit``, ...).
    """
    from tqdm.auto import tqdm

    return tqdm(iterable, disable=None if enabled else True, file=sys.stderr, **options)
