"""Numeric tables parsed in one pass: expression tables and count tables (SPEC 4.1).

A table arrives as a stream (:class:`utils.io.tables.TableSection`)
that cannot be rewound without opening and decompressing the file again. So
pandas infers each column's type while parsing instead of being told
``float64`` (which fails at the first text cell, and used to make the reader
start over in text mode); the few columns that come out as text are coerced
afterwards, cell by cell. Numeric cells are converted by the same correctly
rounded parser either way, so the values are those of a ``float64`` read.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path
from typing import IO, List

import numpy as np
import pandas as pd

from utils.io import FALLBACK_ERRORS

logger = logging.getLogger(__name__)

#: Cell texts read as missing in expression tables (besides the empty string).
MISSING_VALUE_TEXTS = ["", "NA", "N/A", "n/a", "NaN", "nan", "-NaN", "-nan", "NULL",
                       "null", "None", "none", "#N/A", "<NA>", "."]


def read_numeric_table(source: IO[bytes], names: List[str], sep: str = "\t") -> pd.DataFrame:
    """Parse delimited rows into a table indexed by the first column (one pass).

    Parameters
    ----------
    source : binary file object
        The rows, without the header line (e.g. a table section).
    names : list of str
        Index column name, then one name per value column.
    sep : str
        Field separator.

    Returns
    -------
    pandas.DataFrame
        Index = first column as text; value columns as pandas inferred them
        (float, integer, boolean or, with a text cell, object). Pass the
        result to :func:`as_float_table`.

    Raises
    ------
    pandas.errors.ParserError
        A row with more fields than ``names``.
    pandas.errors.EmptyDataError
        No rows at all.
    """
    samples = names[1:]
    with warnings.catch_warnings():
        # a text cell in one parsing chunk only: the column becomes object, as wanted
        warnings.simplefilter("ignore", pd.errors.DtypeWarning)
        return pd.read_csv(
            source, sep=sep, header=None, names=names, index_col=0,
            dtype={names[0]: "str"}, keep_default_na=False,
            na_values={name: MISSING_VALUE_TEXTS for name in samples},
            encoding="utf-8", encoding_errors=FALLBACK_ERRORS, engine="c",
            skip_blank_lines=True)


def as_float_table(table: pd.DataFrame, path: Path) -> pd.DataFrame:
    """The table with every column ``float64``; non-numeric cells become NaN, never 0.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`read_numeric_table`.
    path : pathlib.Path
        Named in the warning that counts the non-numeric cells.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> raw = pd.DataFrame({"a": [1, 2], "b": ["3.5", "n/d"], "c": [True, False]})
    >>> as_float_table(raw, Path("x.txt"))
         a    b   c
    0  1.0  3.5 NaN
    1  2.0  NaN NaN
    """
    text_columns = [name for name, dtype in table.dtypes.items() if dtype.kind not in "fiu"]
    if not text_columns:
        return table.astype("float64")
    # Only the text columns are replaced (by position: probe ids may repeat); the float
    # block pandas parsed is kept, not copied, so the peak memory stays near the table's.
    table = table.copy(deep=False)
    n_bad = 0
    for name in text_columns:
        column, coerced = table[name], _coerce_column(table[name])
        n_bad += int((coerced.isna() & column.notna()).sum())
        table[name] = coerced.to_numpy()
    logger.warning("%s: %d non-numeric expression values read as NaN", path, n_bad)
    return table.astype("float64")


def _coerce_column(column: pd.Series) -> pd.Series:
    """Numbers of a text column; text and true/false cells become NaN."""
    if column.dtype.kind == "b":
        return pd.Series(np.nan, index=column.index, name=column.name)
    values = column.to_numpy(dtype=object)
    is_bool = np.fromiter((isinstance(v, (bool, np.bool_)) for v in values), dtype=bool,
                          count=len(values))
    if is_bool.any():
        values = np.where(is_bool, None, values)
    numbers = pd.to_numeric(pd.Series(values, index=column.index, name=column.name),
                            errors="coerce")
    return numbers.astype("float64")

