"""The expression table of a GEO series matrix (SPEC 4.1, Appendix A).

The file is opened once and read once: the header is parsed line by line, then
the rows between ``!series_matrix_table_begin`` and
``!series_matrix_table_end`` stream from the same (possibly gzipped) handle
into pandas' C parser, with every row's width checked on the way
(:class:`utils.io.tables.TableSection`). Nothing is re-read,
neither to recover from a text cell nor to name a bad row.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import List, Optional

import pandas as pd

from tools.preprocess.geo.header import (SAMPLE_ID_KEY, TABLE_BEGIN, TABLE_END,
                                         SeriesMatrixHeader, check_unique_samples,
                                         parse_header, unquote)
from tools.preprocess.geo.numeric import as_float_table, read_numeric_table
from utils.errors import InputFileError, NoExpressionTableError
from utils.input_safety import ReadLimits
from utils.io import PathLike
from utils.io.tables import TableSection, open_lines, row_problem

logger = logging.getLogger(__name__)


def _parse_table_header(raw: Optional[str], path: Path, line: int) -> List[str]:
    if raw is None:
        raise InputFileError(path, f"file ends right after '{TABLE_BEGIN}': no table "
                             "header and no end marker (truncated?)", line=line)
    if raw.startswith("!"):
        raise InputFileError(path, f"expected the table header (ID_REF and the sample ids) "
                             f"after '{TABLE_BEGIN}', found {raw[:40]!r}", line=line)
    names = [unquote(cell) for cell in raw.split("\t")]
    if names[0] == "":
        names[0] = "ID_REF"
    check_unique_samples(path, names[1:], line)
    return names


def check_table_samples(path: Path, header: SeriesMatrixHeader, names: List[str],
                        line: int) -> None:
    """The table header must name the samples of ``!Sample_geo_accession`` (any order).

    Raises
    ------
    InputFileError
        Naming the table header's line and the missing and extra sample ids.
    """
    if not header.sample_ids or names[1:] == header.sample_ids:
        return
    listed, in_table = set(header.sample_ids), set(names[1:])
    missing = [s for s in header.sample_ids if s not in in_table]
    extra = [s for s in names[1:] if s not in listed]
    if not missing and not extra:
        return  # the same samples in another order: columns are labelled by the table
    parts = [f"missing {', '.join(missing[:5])}" if missing else "",
             f"not listed {', '.join(extra[:5])}" if extra else ""]
    raise InputFileError(path, "the expression table's sample ids differ from "
                         f"'{SAMPLE_ID_KEY}' (line {header.sample_id_line}): "
                         f"{'; '.join(p for p in parts if p)}", line=line)


def _read_rows(section: TableSection, names: List[str], path: Path,
               header_line: int) -> pd.DataFrame:
    """The table's rows, as pandas inferred them; errors name the file and line."""
    try:
        return read_numeric_table(section, names)
    except pd.errors.EmptyDataError:
        return pd.DataFrame(columns=names[1:], dtype="float64",
                            index=pd.Index([], dtype="str", name=names[0]))
    except pd.errors.ParserError as exc:
        problem = row_problem(path, section, "expression table row", len(names), header_line)
        if problem is not None:
            raise problem from exc
        raise InputFileError(path, f"cannot parse the expression table ({exc})",
                             line=section.first_line) from exc


def _load_expression_table(path: Path, marker: str, limits: Optional[ReadLimits]
                           ) -> tuple[pd.DataFrame, SeriesMatrixHeader, int]:
    with open_lines(path, limits) as stream:
        header = parse_header(stream, path, marker)
        if header.table_begin_line is None:
            raise InputFileError(path, f"no '{marker}' line: not a series matrix, or "
                                 "the file is truncated before its expression table")
        if stream.startswith(TABLE_END.encode("ascii")):
            raise NoExpressionTableError(path, "expression table has no header row and "
                                         "no data", line=stream.line_no + 1)
        header_line = stream.line_no + 1
        names = _parse_table_header(stream.readline(), path, header_line)
        if len(names) == 1 and not header.sample_ids:
            raise header.superseries_error()
        check_table_samples(path, header, names, header_line)
        section = stream.section(TABLE_END, n_fields=len(names), stray_markers=(marker,))
        table = _read_rows(section, names, path, header_line)
        section.drain()
        problem = row_problem(path, section, "expression table row", len(names), header_line)
        if problem is not None:
            raise problem
        if not section.found_end:
            raise InputFileError(path, f"missing '{TABLE_END}': the expression table "
                                 "is not closed (file truncated?)", line=stream.line_no)
        _check_nothing_after_table(stream, path)
    return table, header, header_line


def _check_nothing_after_table(stream, path: Path) -> None:
    """Only blank lines may follow the end marker (GEO ends the file there).

    Rows after it mean an end marker inside the table (the rows after it would
    be silently lost) or two files joined.
    """
    end_line = stream.line_no
    while True:
        line = stream.readline_bytes()
        if line is None:
            return
        if line.strip():
            raise InputFileError(path, f"content after '{TABLE_END}' (line {end_line}): an "
                                 "end marker inside the table, or two files joined?",
                                 line=stream.line_no)


def get_genetic_data(file_path: PathLike,
                     marker: str = "!series_matrix_table_begin", *,
                     limits: Optional[ReadLimits] = None) -> pd.DataFrame:
    """Read the expression table of a series matrix (Appendix A).

    The table is streamed from the (possibly gzipped) file straight into
    :func:`pandas.read_csv`; nothing but the header is held as Python strings,
    and the file is opened and decompressed once.

    Parameters
    ----------
    file_path : path-like
        Series matrix, gzip or plain.
    marker : str
        The line that opens the table.
    limits : ReadLimits, optional
        Line-length and size caps (default
        :data:`utils.input_safety.DEFAULT_LIMITS`).

    Returns
    -------
    pandas.DataFrame
        Index ``ID`` (probe ids, str); one float column per GSM id in file
        order. Non-numeric cells are NaN (never 0); a warning says how many.

    Raises
    ------
    NoExpressionTableError
        The table has no rows (RNA-seq series keep data in supplementary files).
    SuperSeriesError
        The matrix has no samples.
    InputFileError
        Missing begin/end marker, a second begin marker inside the table, a
        row with the wrong number of fields, table sample ids that differ from
        ``!Sample_geo_accession``, duplicate sample ids, an empty, truncated,
        UTF-16, binary or HTML file, a line or a file over the caps.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "GSE1_series_matrix.txt"
    >>> _ = path.write_text('!Sample_geo_accession\\t"GSM1"\\t"GSM2"\\n'
    ...                     '!series_matrix_table_begin\\n'
    ...                     '"ID_REF"\\t"GSM1"\\t"GSM2"\\n'
    ...                     '"1007_s_at"\\t7.5\\tnull\\n'
    ...                     '"1053_at"\\t5.25\\t6\\n'
    ...                     '!series_matrix_table_end\\n')
    >>> get_genetic_data(path)
               GSM1  GSM2
    ID
    1007_s_at  7.50   NaN
    1053_at    5.25   6.0
    >>> folder.cleanup()
    """
    path = Path(file_path)
    table, header, header_line = _load_expression_table(path, marker, limits)
    if table.shape[0] == 0:
        raise NoExpressionTableError(
            path, f"expression table is empty (header with {table.shape[1]} samples, "
            "0 rows); RNA-seq series keep their data in supplementary files",
            line=header_line)
    table = as_float_table(table, path)
    table.index = table.index.astype("str")
    table.index.name = "ID"
    table.columns = pd.Index([str(c) for c in table.columns])
    if table.index.has_duplicates:
        logger.warning("%s: %d duplicated probe ids in the expression table", path,
                       int(table.index.duplicated().sum()))
    return table
