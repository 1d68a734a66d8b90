"""RNA-seq gene count tables of GEO series (NCBI-generated ``*_raw_counts_*.tsv.gz``).

RNA-seq series usually have an empty series-matrix table; NCBI computes gene x
sample count tables for many of them, stored beside the series as
supplementary files. The file is opened and read once; every row must have
exactly as many fields as the header (a header one name short or long never
shifts the labels), and the last row must end with a line ending (a file cut
short is refused, not read as a smaller table).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pandas as pd

from tools.preprocess.geo.header import check_unique_samples, unquote
from tools.preprocess.geo.numeric import as_float_table, read_numeric_table
from utils.errors import InputFileError
from utils.input_safety import ReadLimits
from utils.io import PathLike
from utils.io.tables import open_lines, row_problem, unterminated_problem


def read_gene_count_table(file_path: PathLike, *,
                          limits: Optional[ReadLimits] = None) -> pd.DataFrame:
    """Read a gene x sample count table (e.g. NCBI ``*_raw_counts_*.tsv.gz``).

    Parameters
    ----------
    file_path : path-like
        Tab- (or comma-) separated, gzip or plain; first column = gene ids
        (Entrez GeneID, Ensembl id or symbol), header row = sample ids. Field
        widths are checked by counting separators, so comma-separated cells
        must not hold quoted commas.
    limits : ReadLimits, optional
        Line-length and size caps (default
        :data:`utils.input_safety.DEFAULT_LIMITS`).

    Returns
    -------
    pandas.DataFrame
        Index = gene ids as str (named after the first header cell), float values;
        non-numeric cells NaN.

    Raises
    ------
    InputFileError
        Empty file, a header without rows, duplicate sample ids, a row with
        another number of fields than the header, a last row without line
        ending (truncated file), UTF-16, binary or HTML content, a line or a
        file over the caps.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "GSE1_raw_counts.tsv"
    >>> _ = path.write_text("GeneID\\tGSM1\\tGSM2\\n1\\t10\\t0\\n2\\t3\\t7\\n")
    >>> read_gene_count_table(path)
            GSM1  GSM2
    GeneID
    1       10.0   0.0
    2        3.0   7.0
    >>> folder.cleanup()
    """
    path = Path(file_path)
    with open_lines(path, limits) as stream:
        first = stream.readline()
        while first is not None and not first.strip():
            first = stream.readline()
        if first is None:
            raise InputFileError(path, "empty file, expected a gene count table")
        header_line = stream.line_no
        sep = "\t" if "\t" in first else ","
        names = [unquote(c) for c in first.split(sep)]
        if len(names) < 2:
            raise InputFileError(path, "the header names no sample column (expected gene "
                                 "ids, then one column per sample)", line=header_line)
        check_unique_samples(path, names[1:], header_line)
        section = stream.section(None, n_fields=len(names), sep=sep)
        try:
            table = read_numeric_table(section, names, sep=sep)
        except pd.errors.ParserError as exc:
            problem = row_problem(path, section, "count table row", len(names), header_line)
            raise problem or InputFileError(path, f"malformed count table ({exc})") from exc
        except pd.errors.EmptyDataError:
            table = pd.DataFrame()
        section.drain()
        problem = (row_problem(path, section, "count table row", len(names), header_line)
                   or unterminated_problem(path, section))
        if problem is not None:
            raise problem
    if table.shape[0] == 0:
        raise InputFileError(path, "count table has a header but no rows")
    table = as_float_table(table, path)
    table.index = table.index.astype("str")
    return table
