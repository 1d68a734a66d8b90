"""RNA-seq gene count tables of GEO series (NCBI-generated ``*_raw_counts_*.tsv.gz``).

RNA-seq series usually have an empty series-matrix table; NCBI computes gene x
sample count tables for many of them, stored beside the series as
supplementary files. The file is opened and read once.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tools.preprocess.geo.header import check_unique_samples, unquote
from tools.preprocess.geo.numeric import as_float_table, read_numeric_table
from tools.preprocess.table_stream import LineStream
from utils.errors import InputFileError
from utils.io import PathLike, open_binary


def read_gene_count_table(file_path: PathLike) -> pd.DataFrame:
    """Read a gene x sample count table (e.g. NCBI ``*_raw_counts_*.tsv.gz``).

    Parameters
    ----------
    file_path : path-like
        Tab- (or comma-) separated, gzip or plain; first column = gene ids
        (Entrez GeneID, Ensembl id or symbol), header row = sample ids.

    Returns
    -------
    pandas.DataFrame
        Index = gene ids as str (named after the first header cell), float values;
        non-numeric cells NaN.

    Raises
    ------
    InputFileError
        Empty file, a header without rows, duplicate sample ids, or a row
        with too many fields.

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
    with open_binary(path) as handle:
        stream = LineStream(handle, path)
        first = stream.readline()
        while first is not None and not first.strip():
            first = stream.readline()
        if first is None:
            raise InputFileError(path, "empty file, expected a gene count table")
        sep = "\t" if "\t" in first else ","
        names = [unquote(c) for c in first.split(sep)]
        check_unique_samples(path, names[1:], stream.line_no)
        try:
            table = read_numeric_table(stream.section(None), names, sep=sep)
        except pd.errors.ParserError as exc:
            raise InputFileError(path, f"malformed count table ({exc})") from exc
        except pd.errors.EmptyDataError:
            table = pd.DataFrame()
    if table.shape[0] == 0:
        raise InputFileError(path, "count table has a header but no rows")
    table = as_float_table(table, path)
    table.index = table.index.astype("str")
    return table
