"""Byte-reproducible file output: deterministic gzip and numeric formatting."""

from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import Iterable, List, Sequence

import numpy as np

from utils.io import PathLike, atomic_write_bytes

GZIP_LEVEL = 9


def gzip_bytes(data: bytes, level: int = GZIP_LEVEL) -> bytes:
    """Gzip ``data`` reproducibly: no file name and mtime 0 in the header.

    The same input gives the same bytes on every run (and with the same zlib,
    on every machine), so generated trees and re-compressed trees can be
    compared byte for byte.
    """
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0,
                       compresslevel=level) as handle:
        handle.write(data)
    return buffer.getvalue()


def write_output(path: PathLike, text: str, compress: bool) -> Path:
    """Atomically write UTF-8 ``text``, gzip-compressed when asked."""
    data = text.encode("utf-8")
    atomic_write_bytes(path, gzip_bytes(data) if compress else data)
    return Path(path)


def format_matrix(values: np.ndarray, decimals: int, missing: str = "",
                  integers: bool = False) -> List[List[str]]:
    """Cells of a numeric matrix as strings; NaN -> ``missing``.

    Parameters
    ----------
    values : ndarray, shape (rows, columns)
    decimals : int
        Fixed decimals (ignored for ``integers``).
    missing : str
        Text of a missing cell (``""``, ``"null"``, ``"NA"``).
    integers : bool
        Write whole numbers without a decimal point.
    """
    fmt = "%d" if integers else f"%.{decimals}f"
    finite = np.isfinite(values)
    rounded = np.where(finite, np.round(values, 0 if integers else decimals), 0.0)
    rounded[rounded == 0] = 0.0  # no "-0.0000" for tiny negatives
    cells = np.where(finite, np.char.mod(fmt, rounded), missing)
    return cells.tolist()


def tsv_lines(rows: Iterable[Sequence[str]]) -> str:
    """Tab-separated lines with a final newline."""
    return "".join("\t".join(row) + "\n" for row in rows)


def quoted(value: str) -> str:
    """A GEO series-matrix cell: ``"value"`` (inner quotes kept as they are)."""
    return f'"{value}"'
