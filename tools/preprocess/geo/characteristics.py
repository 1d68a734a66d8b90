"""Background text and per-sample tables of a series matrix header (SPEC 4.1, Appendix A).

The sample characteristics (``!Sample_characteristics_ch1``) and the other
per-sample lines (titles, source names, descriptions) become tables with one
row per header line and one column per GSM id, the shape the clinical
converters of :mod:`tools.preprocess.clinical` read.
"""

from __future__ import annotations

from typing import Dict, Iterable, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from tools.preprocess.geo.header import SAMPLE_ID_KEY, SeriesMatrixHeader, read_series_header
from utils.input_safety import ReadLimits
from utils.io import PathLike


def _sample_table(header: SeriesMatrixHeader, prefixes: Iterable[str]) -> pd.DataFrame:
    """Rows = matching ``!Sample_*`` lines; first column holds the row tag."""
    rows = [line for line in header.sample_lines(prefixes) if line.key != SAMPLE_ID_KEY]
    columns = [SAMPLE_ID_KEY] + header.sample_ids
    data = [[line.key] + [value if value != "" else None for value in line.values]
            for line in rows]
    table = pd.DataFrame(data, columns=columns, dtype="str") if data else \
        pd.DataFrame({c: pd.Series([], dtype="str") for c in columns})
    table.index = pd.RangeIndex(len(table))
    return table


def _header_with_samples(file_path: PathLike,
                         limits: Optional[ReadLimits] = None) -> SeriesMatrixHeader:
    header = read_series_header(file_path, limits=limits)
    if not header.sample_ids:
        raise header.superseries_error()
    return header


def get_background_and_clinical_data(
        file_path: PathLike,
        prefixes_a: Sequence[str] = ['!Series_title', '!Series_summary',
                                     '!Series_overall_design'],
        prefixes_b: Sequence[str] = ['!Sample_geo_accession',
                                     '!Sample_characteristics_ch1'], *,
        limits: Optional[ReadLimits] = None,
) -> Tuple[str, pd.DataFrame]:  # list defaults as in Appendix A; never mutated
    """Background text and sample characteristics of a series matrix (Appendix A).

    Parameters
    ----------
    file_path : path-like
        Series matrix, gzip or plain.
    prefixes_a : sequence of str
        Header tags whose lines form the background text.
    prefixes_b : sequence of str
        ``!Sample_*`` tags whose lines form the table (the accession line
        always provides the column names; every other matching line is a row).
    limits : ReadLimits, optional
        Line-length and size caps (default
        :data:`utils.input_safety.DEFAULT_LIMITS`).

    Returns
    -------
    background_text : str
        The matching lines as in the file, newline-separated.
    clinical_df : pandas.DataFrame
        First column ``!Sample_geo_accession`` holds each row's tag (e.g.
        ``!Sample_characteristics_ch1``), then one column per GSM id; integer
        index ``0..k-1`` in file order; quotes removed; empty cells missing.

    Raises
    ------
    SuperSeriesError
        The matrix lists no samples (a SuperSeries).
    InputFileError
        Unreadable or malformed header (see :func:`read_series_header`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "GSE1_series_matrix.txt"
    >>> _ = path.write_text('!Series_title\\t"A study"\\n'
    ...                     '!Sample_geo_accession\\t"GSM1"\\t"GSM2"\\n'
    ...                     '!Sample_characteristics_ch1\\t"age: 40"\\t"age: 51"\\n'
    ...                     '!series_matrix_table_begin\\n')
    >>> background, clinical = get_background_and_clinical_data(path)
    >>> background
    '!Series_title\\t"A study"'
    >>> clinical.loc[0, "GSM2"]
    'age: 51'
    >>> folder.cleanup()
    """
    header = _header_with_samples(file_path, limits)
    return header.background_text(prefixes_a), _sample_table(header, prefixes_b)


def get_sample_rows(file_path: PathLike,
                    prefixes: Sequence[str] = ("!Sample_title", "!Sample_source_name_ch1",
                                               "!Sample_description",
                                               "!Sample_characteristics_ch2"), *,
                    limits: Optional[ReadLimits] = None) -> pd.DataFrame:
    """Other per-sample lines, in the same shape as the characteristics table.

    Trait information often lives in sample titles, source names,
    descriptions or second-channel characteristics.

    Parameters
    ----------
    file_path : path-like
    prefixes : sequence of str
        ``!Sample_*`` tags to include (prefix match).
    limits : ReadLimits, optional
        Line-length and size caps.

    Returns
    -------
    pandas.DataFrame
        First column ``!Sample_geo_accession`` = row tag, one column per GSM,
        index ``0..k-1`` in file order.

    Raises
    ------
    SuperSeriesError
        The matrix lists no samples (a SuperSeries).
    InputFileError
        Unreadable or malformed header (see :func:`read_series_header`).
    """
    return _sample_table(_header_with_samples(file_path, limits), prefixes)


def get_unique_values_by_row(dataframe: pd.DataFrame, max_len: int = 30) -> Dict:
    """Distinct values of each row, first-seen order, at most ``max_len``.

    Parameters
    ----------
    dataframe : pandas.DataFrame
        A characteristics table; a ``!Sample_geo_accession`` tag column is ignored.
    max_len : int
        Maximum number of values kept per row.

    Returns
    -------
    dict
        ``{row_label: [value, ...]}``. A missing cell is listed once as None,
        so a reader sees that some samples lack the row.

    Examples
    --------
    >>> table = pd.DataFrame({"GSM1": ["age: 40", "sex: F"], "GSM2": ["age: 51", None],
    ...                       "GSM3": ["age: 40", "sex: M"]})
    >>> get_unique_values_by_row(table)
    {0: ['age: 40', 'age: 51'], 1: ['sex: F', None, 'sex: M']}
    """
    table = dataframe.drop(columns=[SAMPLE_ID_KEY], errors="ignore")
    result = {}
    for label, row in zip(table.index, table.to_numpy(dtype=object)):
        distinct = dict.fromkeys(None if _is_missing(value) else value for value in row)
        result[label] = list(distinct)[:max_len]
    return result


def _is_missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA
