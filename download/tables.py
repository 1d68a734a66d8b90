"""Reading the committed tab-separated tables of ``download/`` (comments start with ``#``).

The tables ship inside the package (package data: ``xena_cohorts.tsv``,
``cancer_traits.txt``, ``trait_diseases.tsv``) and are found with
:mod:`importlib.resources`, so they are there in an installed copy too; a
user's own table is read from a path.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from typing import Iterator, List, Sequence, Tuple, Union

from utils.errors import InputFileError
from utils.io import PathLike, read_text

#: A table: a path, or a file shipped with the package (:func:`packaged_table`).
TableSource = Union[PathLike, Traversable]


def packaged_table(name: str) -> Traversable:
    """A table shipped in the ``download`` package, e.g. ``"xena_cohorts.tsv"``.

    Examples
    --------
    >>> packaged_table("cancer_traits.txt").name
    'cancer_traits.txt'
    """
    return resources.files(__package__).joinpath(name)


def data_lines(path: TableSource) -> Iterator[Tuple[int, str]]:
    """``(line number, text)`` of the non-empty, non-comment lines of a file.

    Examples
    --------
    >>> lines = dict(data_lines(packaged_table("cancer_traits.txt")))
    >>> "Breast_Cancer" in lines.values()
    True
    """
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield number, line


def read_table(path: TableSource, columns: Sequence[str]) -> List[Tuple[int, List[str]]]:
    """Rows of a TSV whose header is exactly ``columns``, as ``(line, stripped cells)``.

    Raises
    ------
    InputFileError
        When the header differs or a row has the wrong number of cells (naming the line).
    """
    lines = list(data_lines(path))
    if not lines or tuple(lines[0][1].split("\t")) != tuple(columns):
        raise InputFileError(path, f"header must be {' / '.join(columns)} (tab-separated)")
    rows = []
    for number, line in lines[1:]:
        cells = [cell.strip() for cell in line.split("\t")]
        if len(cells) != len(columns) or not cells[0]:
            raise InputFileError(path, f"expected {len(columns)} tab-separated cells",
                                 line=number)
        rows.append((number, cells))
    return rows
