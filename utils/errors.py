"""Exceptions that name the offending file (and line) in their message."""

from __future__ import annotations

import functools
import os
import sys
from typing import Callable, Optional, TypeVar, Union

#: Exit code of a command stopped by Ctrl-C (128 + SIGINT, what a shell reports).
INTERRUPTED_EXIT = 130
#: What a command says when Ctrl-C stops it.
INTERRUPTED_MESSAGE = ("interrupted; the files written so far are complete (atomic writes); "
                       "run the same command again to resume")

_Main = TypeVar("_Main", bound=Callable[..., int])


class InputFileError(ValueError):
    """A file could not be read or has the wrong content.

    The message always starts with the file path (and ``:line`` when known), so
    the user can go straight to the problem.

    Parameters
    ----------
    path : path-like
        The offending file (or folder); a packaged resource
        (:mod:`importlib.resources`) is named by its text.
    problem : str
        What is wrong, in plain words.
    line : int, optional
        1-based line number where the problem was found.
    """

    def __init__(self, path: Union[str, os.PathLike], problem: str,
                 line: Optional[int] = None) -> None:
        self.path = os.fspath(path) if isinstance(path, (str, os.PathLike)) else str(path)
        self.problem = problem
        self.line = line
        where = self.path if line is None else f"{self.path}:{line}"
        super().__init__(f"{where}: {problem}")


class OutputFileError(InputFileError):
    """A file or folder could not be written (a folder where a file is meant, a file
    where a folder is meant, no permission, a read-only or full disk).

    A subclass of :class:`InputFileError` so that every command line that reports
    a bad file in one line reports an unwritable one the same way; the message
    starts with the path that could not be written.
    """


class NoGeneDataError(InputFileError):
    """A cohort has no usable gene-expression data (e.g. no symbol column)."""


class NoExpressionTableError(InputFileError):
    """A series matrix has an empty expression table (e.g. RNA-seq series)."""


class SuperSeriesError(InputFileError):
    """A series matrix belongs to a SuperSeries: its samples live in SubSeries."""


def command_error(problem: object) -> str:
    """The one line a command prints for a user error: ``<command>: error: <problem>``.

    ``<command>`` is the name the process was started by (``download_geo.py``),
    as argparse names it in its own usage errors.
    """
    return command_message(f"error: {problem}")


def command_message(text: str) -> str:
    """``<command>: <text>``, the command named as it was started (``regress.py``)."""
    return f"{os.path.basename(sys.argv[0]) or 'genotex'}: {text}"


def exits_quietly_on_interrupt(main: _Main) -> _Main:
    """Decorate a command-line ``main``: Ctrl-C ends it with one line and exit code 130.

    ``<command>: interrupted; ...`` goes to stderr (on a line of its own, after
    a progress bar) instead of a traceback. The work stops where it was: every
    output is written atomically, so a file is either complete or not there,
    and a second run resumes (finished work is skipped). For the ``main``
    functions of command lines only (library code lets ``KeyboardInterrupt``
    through).
    """
    @functools.wraps(main)
    def run(*args, **kwargs) -> int:
        try:
            return main(*args, **kwargs)
        except KeyboardInterrupt:
            sys.stdout.flush()
            sys.stderr.write("\n" + command_message(INTERRUPTED_MESSAGE) + "\n")
            sys.stderr.flush()
            return INTERRUPTED_EXIT

    return run  # type: ignore[return-value]
