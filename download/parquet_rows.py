"""Streaming reads of parquet files, one row group at a time (with ``fastparquet``).

Open Targets publishes its datasets as folders of parquet part files. The
readers of ``download/opentargets.py`` need only a few columns of them, so this
module reads the requested columns of one row group at a time: memory stays
bounded by the largest row group, whatever the size of the release.

Every failure of the parquet decoder (a truncated file, a damaged footer or
page, a missing column) becomes an :class:`~utils.errors.InputFileError` that
names the file (and the row group when known). fastparquet's compiled page
decoders do not check every bound, so a file whose page bytes were altered in
place can still crash the process; truncation and footer damage, the usual
results of an interrupted copy, are reported cleanly.
"""

from __future__ import annotations

import os
import struct
import warnings
from pathlib import Path
from typing import Iterator, List, Sequence

import pandas as pd

with warnings.catch_warnings():
    # fastparquet 2026.9.0 reads pandas' deprecated 'future.infer_string' option at import
    warnings.filterwarnings("ignore", category=DeprecationWarning, module="fastparquet")
    import fastparquet

from utils.errors import InputFileError
from utils.io import PathLike, open_raw

PARQUET_MAGIC = b"PAR1"
PARQUET_SUFFIX = ".parquet"
_FOOTER_SIZE = 8  # 4-byte metadata length + closing magic


def is_parquet(path: PathLike) -> bool:
    """True when ``path`` is named ``*.parquet`` or starts with the parquet magic bytes.

    Parameters
    ----------
    path : path-like
        An existing file.

    Returns
    -------
    bool
    """
    if Path(path).name.endswith(PARQUET_SUFFIX):
        return True
    with open_raw(path) as handle:
        return handle.read(len(PARQUET_MAGIC)) == PARQUET_MAGIC


def verify_parquet(path: PathLike) -> None:
    """Check the parquet frame of a downloaded file: magic at both ends, sane footer.

    Meant as the ``verify`` hook of :func:`download.fetch.fetch_resumable`, so a
    truncated body is retried even when the server sent no length.

    Raises
    ------
    ValueError
        When the file cannot be a complete parquet file.
    """
    with open_raw(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size < len(PARQUET_MAGIC) + _FOOTER_SIZE:
            raise ValueError(f"too short for a parquet file ({size} bytes)")
        head = handle.read(len(PARQUET_MAGIC))
        handle.seek(-_FOOTER_SIZE, 2)
        (footer_length,) = struct.unpack("<I", handle.read(4))
        tail = handle.read()
    if head != PARQUET_MAGIC or tail != PARQUET_MAGIC:
        raise ValueError("no parquet magic bytes at the start and end (truncated?)")
    if footer_length > size - len(PARQUET_MAGIC) - _FOOTER_SIZE:
        raise ValueError(f"footer length {footer_length} exceeds the file size {size}")


def _open(path: Path) -> fastparquet.ParquetFile:
    """Parse the footer of a parquet file.

    Raises
    ------
    InputFileError
        When the file is not a readable parquet file.
    """
    try:
        return fastparquet.ParquetFile(str(path), verify=True)
    except Exception as exc:  # the decoder raises many types on damaged input
        raise InputFileError(path, f"not a readable parquet file ({_reason(exc)})") from exc


def _reason(exc: BaseException) -> str:
    """``Type: message`` of a decoder exception, for an error message."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _select_columns(path: Path, available: Sequence[str], required: Sequence[str],
                    optional: Sequence[str]) -> List[str]:
    """The required columns plus the optional ones the file has.

    Raises
    ------
    InputFileError
        When a required column is missing (the file's columns are listed).
    """
    missing = [name for name in required if name not in available]
    if missing:
        raise InputFileError(path, f"missing parquet column(s) {', '.join(missing)} "
                             f"(columns: {', '.join(available)})")
    return list(required) + [name for name in optional if name in available]


def iter_row_groups(path: PathLike, required: Sequence[str],
                    optional: Sequence[str] = ()) -> Iterator[pd.DataFrame]:
    """The chosen columns of each row group of a parquet file, in file order.

    Parameters
    ----------
    path : path-like
        One parquet file (not a folder).
    required : sequence of str
        Columns that must exist. Nested struct fields are named with dots, as
        fastparquet flattens them (e.g. ``synonyms.hasExactSynonym``).
    optional : sequence of str
        Columns read only when the file has them.

    Yields
    ------
    pandas.DataFrame
        One frame per row group (no index), holding only the selected columns.

    Raises
    ------
    InputFileError
        On an unreadable file, a missing required column or a damaged row group
        (the message names the file and the row group).
    """
    path = Path(path)
    parquet = _open(path)
    columns = _select_columns(path, parquet.columns, required, optional)
    for number in range(len(parquet.row_groups)):
        try:
            frame = parquet[number].to_pandas(columns=columns, index=False)
        except Exception as exc:  # the decoder raises many types on damaged input
            raise InputFileError(path, f"row group {number}: cannot decode "
                                 f"({_reason(exc)})") from exc
        yield frame
