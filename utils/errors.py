"""Exceptions that name the offending file (and line) in their message."""

from __future__ import annotations

import os
import sys
from typing import Optional, Union


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
    return f"{os.path.basename(sys.argv[0]) or 'genotex'}: error: {problem}"
