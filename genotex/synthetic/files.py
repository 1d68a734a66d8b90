"""Byte-reproducible file output: deterministic gzip and numeric formatting."""

from __future__ import annotations

import gzip
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, List, Sequence, Union

import numpy as np

from utils.io import PathLike, atomic_write_bytes

GZIP_LEVEL = 9
#: Cells formatted per block by :func:`table_lines`.
BLOCK_CELLS = 1 << 16


@dataclass(frozen=True)
class Compression:
    """How gzip files are compressed.

    Attributes
    ----------
    engine : {"zlib", "isal"}
        ``zlib`` (the demo's files: level 9) or ISA-L's deflate (levels 0-3,
        about 20x faster than zlib level 6 on numeric text, 7 % larger).
    level : int
    """

    engine: str = "zlib"
    level: int = GZIP_LEVEL

    def __post_init__(self) -> None:
        levels = {"zlib": range(0, 10), "isal": range(0, 4)}
        if self.engine not in levels or self.level not in levels[self.engine]:
            raise ValueError(f"compression {self.engine} level {self.level}: engines zlib "
                             "(levels 0-9) and isal (levels 0-3)")


DEMO_COMPRESSION = Compression()
#: Fast and still reproducible (same bytes for the same ISA-L version).
FAST_COMPRESSION = Compression("isal", 3)


def gzip_bytes(data: bytes, level: int = GZIP_LEVEL,
               compression: Compression | None = None) -> bytes:
    """Gzip ``data`` reproducibly: no file name and mtime 0 in the header.

    The same input gives the same bytes on every run (and with the same zlib,
    or ISA-L, on every machine), so generated trees and re-compressed trees can
    be compared byte for byte. ``compression`` overrides ``level`` (zlib).
    """
    compression = compression or Compression("zlib", level)
    if compression.engine == "isal":
        from isal import igzip

        return igzip.compress(data, compression.level, mtime=0)
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0,
                       compresslevel=compression.level) as handle:
        handle.write(data)
    return buffer.getvalue()


def write_output(path: PathLike, text: Union[str, bytes], compress: bool,
                 compression: Compression = DEMO_COMPRESSION) -> Path:
    """Atomically write ``text`` (UTF-8), gzip-compressed when asked."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    atomic_write_bytes(path, gzip_bytes(data, compression=compression) if compress else data)
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


def _digits(values: np.ndarray, width: int, out: np.ndarray, leading: bool) -> None:
    """ASCII digits of non-negative integers into ``out[:, :width]`` (last digit last).

    ``leading=False`` writes leading zeros as zero bytes (dropped later) except
    the units digit.
    """
    rest = values.copy()
    for column in range(width - 1, -1, -1):
        digit = rest % 10
        rest //= 10
        out[:, column] = digit + ord("0")
        if not leading and column < width - 1:
            out[values < 10 ** (width - 1 - column), column] = 0


def _cell_bytes(values: np.ndarray, decimals: int, missing: bytes, integers: bool,
                ends: np.ndarray) -> np.ndarray:
    """Zero-padded cell slots (rows x columns x width) as :func:`format_matrix` writes them."""
    rows, columns = values.shape
    flat = values.reshape(-1)
    finite = np.isfinite(flat)
    scale = 1.0 if integers else 10.0 ** decimals
    scaled = np.rint(np.where(finite, flat, 0.0) * scale)
    number = np.abs(scaled).astype(np.int64)
    negative = scaled < 0
    whole = number if integers else number // 10 ** decimals
    int_width = max(1, len(str(int(whole.max())))) if whole.size else 1
    frac_width = 0 if integers else decimals + 1
    width = max(1 + int_width + frac_width + 1, len(missing) + 1)
    slots = np.zeros((flat.size, width), dtype=np.uint8)
    slots[:, 0] = np.where(negative, ord("-"), 0)
    _digits(whole, int_width, slots[:, 1:1 + int_width], leading=False)
    if not integers:
        start = 1 + int_width
        slots[:, start] = ord(".")
        _digits(number % 10 ** decimals, decimals, slots[:, start + 1:start + 1 + decimals],
                leading=True)
    if not finite.all():
        hole = ~finite
        slots[hole, :-1] = 0
        if missing:
            slots[np.ix_(np.flatnonzero(hole), np.arange(len(missing)))] = \
                np.frombuffer(missing, dtype=np.uint8)
    cells = slots.reshape(rows, columns, width)
    cells[:, :, -1] = ends
    return cells


def table_lines(labels: Sequence[str], values: np.ndarray, decimals: int, missing: str = "",
                integers: bool = False) -> bytes:
    """``label<TAB>cell<TAB>...<LF>`` per row, cells as :func:`format_matrix` writes them.

    The same bytes as ``tsv_lines([label, *cells] ...)`` over :func:`format_matrix`,
    built with NumPy a block of rows at a time instead of one Python string per
    cell (rounding: ``rint(v * 10**decimals)``, as ``numpy.round``; no ``-0``).
    """
    values = np.asarray(values, dtype=float)
    rows, columns = values.shape
    if rows == 0:
        return b""
    if columns == 0:
        return b"".join(label.encode() + b"\n" for label in labels)
    encoded = [label.encode() + b"\t" for label in labels]
    label_width = max(len(label) for label in encoded)
    padded = np.frombuffer(b"".join(label.ljust(label_width, b"\0") for label in encoded),
                           dtype=np.uint8).reshape(rows, label_width)
    ends = np.full(columns, ord("\t"), dtype=np.uint8)
    ends[-1] = ord("\n")
    missing_bytes = missing.encode()
    step = max(1, BLOCK_CELLS // columns)
    parts = []
    for start in range(0, rows, step):
        stop = min(rows, start + step)
        cells = _cell_bytes(values[start:stop], decimals, missing_bytes, integers, ends)
        block = np.concatenate([padded[start:stop], cells.reshape(stop - start, -1)], axis=1)
        parts.append(block.tobytes().translate(None, b"\0"))
    return b"".join(parts)


def tsv_lines(rows: Iterable[Sequence[str]]) -> str:
    """Tab-separated lines with a final newline."""
    return "".join("\t".join(row) + "\n" for row in rows)


def quoted(value: str) -> str:
    """A GEO series-matrix cell: ``"value"`` (inner quotes kept as they are)."""
    return f'"{value}"'
