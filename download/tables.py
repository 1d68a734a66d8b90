"""Reading the committed tab-separated tables of ``download/`` (comments start with ``#``)."""

from __future__ import annotations

from typing import Iterator, List, Sequence, Tuple

from utils.errors import InputFileError
from utils.io import PathLike, read_text


def data_lines(path: PathLike) -> Iterator[Tuple[int, str]]:
    """``(line number, text)`` of the non-empty, non-comment lines of a file."""
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield number, line


def read_table(path: PathLike, columns: Sequence[str]) -> List[Tuple[int, List[str]]]:
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
