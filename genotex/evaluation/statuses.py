"""Item statuses of an evaluation and the error that carries one.

Statuses
--------
``ok``               the item was read and scored.
``missing``          the file (or its folder, or the record in ``cohort_info.json``)
                     does not exist.
``malformed``        the file exists but cannot be used: invalid JSON or CSV, wrong
                     types, NaN/inf where numbers are required, duplicate labels,
                     wrong orientation, binary or non-UTF-8 content, too large, a
                     symbolic link leading outside the tree, not a regular file.
``empty``            the file holds nothing (zero bytes, only whitespace, or a CSV
                     with a header and no data row).
``reference-error``  a reference file is unusable (the item is not scored).
``no-reference``     the reference has no result for an analysis problem.
"""

from __future__ import annotations

from typing import Optional

from utils.errors import InputFileError
from utils.io import PathLike

OK = "ok"
MISSING = "missing"
MALFORMED = "malformed"
EMPTY = "empty"
REFERENCE_ERROR = "reference-error"
NO_REFERENCE = "no-reference"
#: The statuses of a scored prediction item.
STATUSES = (OK, MISSING, MALFORMED, EMPTY)


class ItemError(InputFileError):
    """An evaluated item could not be used; carries its status.

    Parameters
    ----------
    path : path-like
        The offending file (named first in the message).
    status : str
        ``missing``, ``malformed`` or ``empty``.
    problem : str
        What is wrong.
    line : int, optional
        1-based line number.
    """

    def __init__(self, path: PathLike, status: str, problem: str,
                 line: Optional[int] = None) -> None:
        super().__init__(path, problem, line=line)
        self.status = status
