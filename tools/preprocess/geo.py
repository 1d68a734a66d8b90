"""GEO series matrix readers (SPEC 4.1).

A series matrix (``<GSE>_series_matrix.txt[.gz]``) is a header of ``!Series_*``
lines (one value each) and ``!Sample_*`` lines (one tab-separated, quoted value
per sample), followed by the expression table between
``!series_matrix_table_begin`` and ``!series_matrix_table_end``.

Public functions
----------------
* :func:`read_series_header` - every header line, parsed and checked.
* :func:`get_background_and_clinical_data` - background text and the sample
  characteristics table (Appendix A).
* :func:`get_sample_rows` - other per-sample lines (titles, source names, ...).
* :func:`get_unique_values_by_row` - the row -> distinct values dictionary.
* :func:`get_genetic_data` - the expression table, streamed into pandas.
* :func:`find_geo_files`, :func:`geo_get_relevant_filepaths` - the files of a
  cohort folder, including multi-platform series.
* :func:`read_gene_count_table` - NCBI-generated RNA-seq count tables.

Every file may be gzip-compressed or plain; text is decoded as UTF-8 with a
latin-1 fallback per undecodable byte (:mod:`utils.io`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from tools.preprocess.table_stream import LineStream, TableSection, find_bad_row
from utils.errors import InputFileError, NoExpressionTableError, SuperSeriesError
from utils.io import FALLBACK_ERRORS, PathLike, open_binary

logger = logging.getLogger(__name__)

TABLE_BEGIN = "!series_matrix_table_begin"
TABLE_END = "!series_matrix_table_end"
SAMPLE_ID_KEY = "!Sample_geo_accession"
BACKGROUND_PREFIXES = ["!Series_title", "!Series_summary", "!Series_overall_design"]
CLINICAL_PREFIXES = [SAMPLE_ID_KEY, "!Sample_characteristics_ch1"]
HUMAN_TAXID = "9606"
HUMAN_ORGANISM = "homo sapiens"

#: Cell texts read as missing in expression tables (besides the empty string).
MISSING_VALUE_TEXTS = ["", "NA", "N/A", "n/a", "NaN", "nan", "-NaN", "-nan", "NULL",
                       "null", "None", "none", "#N/A", "<NA>", "."]

_PLATFORM_IN_NAME = re.compile(r"-(GPL\d+)_series_matrix", re.IGNORECASE)
_GPL_NUMBER = re.compile(r"GPL(\d+)", re.IGNORECASE)
_SUBSERIES = re.compile(r"SuperSeries of:\s*(GSE\d+)", re.IGNORECASE)


# ---------------------------------------------------------------------------
# Header
# ---------------------------------------------------------------------------
def unquote(cell: str) -> str:
    """Strip surrounding whitespace and one pair of surrounding double quotes."""
    cell = cell.strip()
    if len(cell) >= 2 and cell[0] == '"' and cell[-1] == '"':
        return cell[1:-1]
    return cell


@dataclass(frozen=True)
class HeaderLine:
    """One ``!Series_*`` or ``!Sample_*`` line.

    Attributes
    ----------
    key : str
        The tag, e.g. ``!Sample_characteristics_ch1``.
    values : tuple of str
        The unquoted values (one per sample for ``!Sample_*`` lines).
    line : int
        1-based line number in the file.
    raw : str
        The line as it stands in the file (decoded, without line ending).
    """

    key: str
    values: Tuple[str, ...]
    line: int
    raw: str


@dataclass
class SeriesMatrixHeader:
    """The parsed header of a series matrix.

    Attributes
    ----------
    path : pathlib.Path
    series : list of HeaderLine
        ``!Series_*`` lines in file order.
    samples : list of HeaderLine
        ``!Sample_*`` lines in file order (the accession line included).
    sample_ids : list of str
        GSM ids from ``!Sample_geo_accession`` (empty when absent).
    table_begin_line : int or None
        Line number of ``!series_matrix_table_begin`` (None when absent).
    """

    path: Path
    series: List[HeaderLine] = field(default_factory=list)
    samples: List[HeaderLine] = field(default_factory=list)
    sample_ids: List[str] = field(default_factory=list)
    table_begin_line: Optional[int] = None

    def series_values(self, key: str) -> List[str]:
        """All values of the ``!Series_*`` lines tagged ``key``, in file order."""
        return [value for line in self.series if line.key == key for value in line.values]

    def sample_lines(self, prefixes: Iterable[str]) -> List[HeaderLine]:
        """``!Sample_*`` lines whose tag starts with one of ``prefixes``."""
        prefixes = tuple(prefixes)
        return [line for line in self.samples if line.key.startswith(prefixes)]

    def background_text(self, prefixes: Iterable[str] = BACKGROUND_PREFIXES) -> str:
        """The matching header lines as they stand in the file, one per line."""
        prefixes = tuple(prefixes)
        lines = [line.raw for line in self.series + self.samples
                 if line.key.startswith(prefixes)]
        return "\n".join(lines)

    @property
    def platform_ids(self) -> List[str]:
        """Platform ids of the series (``!Series_platform_id``), else of the samples."""
        ids = self.series_values("!Series_platform_id")
        if not ids:
            ids = [v for line in self.sample_lines(["!Sample_platform_id"])
                   for v in line.values]
        return sorted(set(ids), key=platform_sort_key)

    @property
    def is_human(self) -> Optional[bool]:
        """True/False from the sample taxids or organisms; None when not stated."""
        taxids = {v.strip() for line in self.sample_lines(["!Sample_taxid_ch"])
                  for v in line.values if v.strip()}
        if not taxids:
            taxids = {v.strip() for v in self.series_values("!Series_sample_taxid")}
        if taxids:
            return HUMAN_TAXID in taxids
        organisms = {v.strip().lower() for line in self.sample_lines(["!Sample_organism_ch"])
                     for v in line.values if v.strip()}
        if organisms:
            return HUMAN_ORGANISM in organisms
        return None

    @property
    def subseries(self) -> List[str]:
        """GSE ids listed as ``SuperSeries of:`` relations."""
        return [m.group(1) for v in self.series_values("!Series_relation")
                for m in [_SUBSERIES.search(v)] if m]

    def superseries_error(self) -> SuperSeriesError:
        """The error describing a matrix without samples."""
        if self.subseries:
            why = ("SuperSeries: it has no samples of its own; its samples live in the "
                   f"SubSeries {', '.join(self.subseries)}")
        else:
            why = ("no samples (no '!Sample_geo_accession' values): probably a SuperSeries "
                   "whose samples live in SubSeries")
        return SuperSeriesError(self.path, why)


def platform_sort_key(platform_id: str) -> tuple:
    """Sort GPL ids by their number (GPL96 before GPL570), then by text."""
    match = _GPL_NUMBER.search(platform_id or "")
    return (int(match.group(1)) if match else float("inf"), platform_id or "")


def _parse_header(stream: LineStream, path: Path, stop_marker: str) -> SeriesMatrixHeader:
    """Read header lines until ``stop_marker`` (consumed) or end of file."""
    header = SeriesMatrixHeader(path=path)
    n_samples: Optional[int] = None
    saw_any = False
    while True:
        raw = stream.readline()
        if raw is None:
            break
        saw_any = saw_any or bool(raw.strip())
        if raw.startswith(stop_marker):
            header.table_begin_line = stream.line_no
            break
        if not raw.startswith("!"):
            continue
        key, _, rest = raw.partition("\t")
        key = key.strip()
        values = tuple(unquote(v) for v in rest.split("\t")) if rest else ()
        line = HeaderLine(key=key, values=values, line=stream.line_no, raw=raw)
        if key.startswith("!Series_"):
            header.series.append(line)
        elif key.startswith("!Sample_"):
            if key == SAMPLE_ID_KEY and n_samples is None:
                values = _trim_trailing_empty(values)
                _check_unique_samples(path, values, stream.line_no)
                n_samples = len(values)
                header.sample_ids = list(values)
                line = HeaderLine(key, values, line.line, raw)
            header.samples.append(line)
    if not saw_any:
        raise InputFileError(path, "empty file, expected a GEO series matrix")
    if n_samples is not None:
        header.samples = [_fit_sample_line(path, line, n_samples)
                          for line in header.samples]
    return header


def _trim_trailing_empty(values: Tuple[str, ...]) -> Tuple[str, ...]:
    end = len(values)
    while end > 0 and values[end - 1] == "":
        end -= 1
    return values[:end]


def _fit_sample_line(path: Path, line: HeaderLine, n_samples: int) -> HeaderLine:
    """Check a ``!Sample_*`` line has one value per sample (trailing blanks ignored)."""
    values = line.values
    if len(values) > n_samples:
        values = values[:n_samples] + _trim_trailing_empty(values[n_samples:])
    if len(values) != n_samples:
        raise InputFileError(
            path, f"'{line.key}' has {len(values)} values but the series has "
            f"{n_samples} samples ('{SAMPLE_ID_KEY}')", line=line.line)
    return HeaderLine(line.key, values, line.line, line.raw)


def _check_unique_samples(path: Path, ids: Sequence[str], line: int) -> None:
    seen = set()
    duplicates = sorted({s for s in ids if s in seen or seen.add(s)})
    if duplicates:
        raise InputFileError(path, f"duplicate sample ids: {', '.join(duplicates)}",
                             line=line)
    if any(s == "" for s in ids):
        raise InputFileError(path, "empty sample id", line=line)


def read_series_header(file_path: PathLike) -> SeriesMatrixHeader:
    """Parse the header of a series matrix (everything before the table).

    Parameters
    ----------
    file_path : path-like
        ``*_series_matrix.txt[.gz]``.

    Returns
    -------
    SeriesMatrixHeader

    Raises
    ------
    InputFileError
        Empty or unreadable file (truncated gzip), duplicate sample ids, or a
        ``!Sample_*`` line whose number of values differs from the samples.
    """
    path = Path(file_path)
    with open_binary(path) as handle:
        return _parse_header(LineStream(handle, path), path, TABLE_BEGIN)


# ---------------------------------------------------------------------------
# Characteristics and other per-sample lines
# ---------------------------------------------------------------------------
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


def get_background_and_clinical_data(
        file_path: PathLike,
        prefixes_a: Sequence[str] = ['!Series_title', '!Series_summary',
                                     '!Series_overall_design'],
        prefixes_b: Sequence[str] = ['!Sample_geo_accession',
                                     '!Sample_characteristics_ch1'],
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
    """
    header = read_series_header(file_path)
    if not header.sample_ids:
        raise header.superseries_error()
    return header.background_text(prefixes_a), _sample_table(header, prefixes_b)


def get_sample_rows(file_path: PathLike,
                    prefixes: Sequence[str] = ("!Sample_title", "!Sample_source_name_ch1",
                                               "!Sample_description",
                                               "!Sample_characteristics_ch2")
                    ) -> pd.DataFrame:
    """Other per-sample lines, in the same shape as the characteristics table.

    Trait information often lives in sample titles, source names,
    descriptions or second-channel characteristics.

    Parameters
    ----------
    file_path : path-like
    prefixes : sequence of str
        ``!Sample_*`` tags to include (prefix match).

    Returns
    -------
    pandas.DataFrame
        First column ``!Sample_geo_accession`` = row tag, one column per GSM,
        index ``0..k-1`` in file order.
    """
    header = read_series_header(file_path)
    if not header.sample_ids:
        raise header.superseries_error()
    return _sample_table(header, prefixes)


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
    """
    table = dataframe.drop(columns=[SAMPLE_ID_KEY], errors="ignore")
    result = {}
    for label, row in zip(table.index, table.to_numpy(dtype=object)):
        distinct = dict.fromkeys(None if _is_missing(value) else value for value in row)
        result[label] = list(distinct)[:max_len]
    return result


def _is_missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA


# ---------------------------------------------------------------------------
# Expression table
# ---------------------------------------------------------------------------
def _parse_table_header(raw: Optional[str], path: Path, line: int) -> List[str]:
    if raw is None:
        raise InputFileError(path, f"file ends right after '{TABLE_BEGIN}': no table "
                             "header and no end marker (truncated?)", line=line)
    names = [unquote(cell) for cell in raw.split("\t")]
    if names[0] == "":
        names[0] = "ID_REF"
    samples = names[1:]
    _check_unique_samples(path, samples, line)
    return names


def _read_table(section: TableSection, names: List[str], numeric: bool) -> pd.DataFrame:
    """Parse a table section with pandas; ``numeric=False`` keeps text cells."""
    index_col, samples = names[0], names[1:]
    dtypes = {index_col: "str"}
    if numeric:
        dtypes.update({name: "float64" for name in samples})
    else:
        dtypes.update({name: "object" for name in samples})
    return pd.read_csv(
        section, sep="\t", header=None, names=names, index_col=0, dtype=dtypes,
        keep_default_na=False, na_values={name: MISSING_VALUE_TEXTS for name in samples},
        encoding="utf-8", encoding_errors=FALLBACK_ERRORS, engine="c",
        skip_blank_lines=True)


def _raise_bad_row(path: Path, first_line: int, n_fields: int,
                   cause: Optional[Exception] = None) -> None:
    bad = find_bad_row(path, first_line, n_fields, TABLE_END)
    if bad is not None:
        line, found = bad
        raise InputFileError(path, f"expression table row has {found} fields, expected "
                             f"{n_fields} (as in the table header at line "
                             f"{first_line - 1})", line=line) from cause
    if cause is not None:
        raise InputFileError(path, f"cannot parse the expression table ({cause})",
                             line=first_line) from cause


def _load_expression_table(path: Path, marker: str, numeric: bool
                           ) -> Tuple[pd.DataFrame, SeriesMatrixHeader, int]:
    with open_binary(path) as handle:
        stream = LineStream(handle, path)
        header = _parse_header(stream, path, marker)
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
        section = stream.section(TABLE_END)
        try:
            table = _read_table(section, names, numeric)
        except pd.errors.EmptyDataError:
            table = pd.DataFrame(columns=names[1:], dtype="float64",
                                 index=pd.Index([], dtype="str", name=names[0]))
        except pd.errors.ParserError as exc:
            _raise_bad_row(path, header_line + 1, len(names), exc)
            raise
        section.drain()
        if not section.found_end:
            raise InputFileError(path, f"missing '{TABLE_END}': the expression table "
                                 "is not closed (file truncated?)", line=stream.line_no)
        if section.n_tabs != section.n_lines * (len(names) - 1):
            _raise_bad_row(path, header_line + 1, len(names))
    return table, header, header_line


def get_genetic_data(file_path: PathLike,
                     marker: str = "!series_matrix_table_begin") -> pd.DataFrame:
    """Read the expression table of a series matrix (Appendix A).

    The table is streamed from the (possibly gzipped) file straight into
    :func:`pandas.read_csv`; nothing but the header is held as Python strings.

    Parameters
    ----------
    file_path : path-like
        Series matrix, gzip or plain.
    marker : str
        The line that opens the table.

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
        Missing begin/end marker, a row with the wrong number of fields,
        duplicate sample ids, empty or truncated file.
    """
    path = Path(file_path)
    try:
        table, header, header_line = _load_expression_table(path, marker, numeric=True)
    except ValueError as exc:
        if isinstance(exc, InputFileError):
            raise
        # A non-numeric cell: re-read keeping text, then coerce cell by cell.
        table, header, header_line = _load_expression_table(path, marker, numeric=False)
        table = _coerce_numeric(table, path)
    if table.shape[0] == 0:
        raise NoExpressionTableError(
            path, f"expression table is empty (header with {table.shape[1]} samples, "
            "0 rows); RNA-seq series keep their data in supplementary files",
            line=header_line)
    table.index = table.index.astype("str")
    table.index.name = "ID"
    table.columns = pd.Index([str(c) for c in table.columns])
    if table.index.has_duplicates:
        logger.warning("%s: %d duplicated probe ids in the expression table", path,
                       int(table.index.duplicated().sum()))
    return table


def _coerce_numeric(table: pd.DataFrame, path: Path) -> pd.DataFrame:
    coerced = table.apply(pd.to_numeric, errors="coerce").astype("float64")
    bad = int((coerced.isna() & table.notna()).to_numpy().sum())
    logger.warning("%s: %d non-numeric expression values read as NaN", path, bad)
    return coerced


# ---------------------------------------------------------------------------
# RNA-seq count tables (GEO supplementary / NCBI-generated)
# ---------------------------------------------------------------------------
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
        Empty file, duplicate sample ids, or a row with too many fields.
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
        _check_unique_samples(path, names[1:], stream.line_no)
        section = stream.section(None)
        try:
            table = pd.read_csv(section, sep=sep, header=None, names=names, index_col=0,
                                dtype={names[0]: "str"}, keep_default_na=False,
                                na_values={n: MISSING_VALUE_TEXTS for n in names[1:]},
                                encoding="utf-8", encoding_errors=FALLBACK_ERRORS)
        except pd.errors.ParserError as exc:
            raise InputFileError(path, f"malformed count table ({exc})") from exc
        except pd.errors.EmptyDataError as exc:
            raise InputFileError(path, "count table has a header but no rows") from exc
    non_float = [c for c in table.columns if table[c].dtype.kind not in "fiub"]
    if non_float:
        table = _coerce_numeric(table, path)
    table = table.astype("float64")
    table.index = table.index.astype("str")
    return table


# ---------------------------------------------------------------------------
# Cohort folders
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class SeriesMatrixFile:
    """One series matrix of a cohort folder.

    Attributes
    ----------
    path : pathlib.Path
    platform_id : str or None
        From the file name (``<GSE>-<GPL>_series_matrix``) or the header.
    is_human : bool or None
        From the sample taxids/organisms; None when the header does not say.
    n_samples : int
    """

    path: Path
    platform_id: Optional[str]
    is_human: Optional[bool]
    n_samples: int


@dataclass(frozen=True)
class GeoCohortFiles:
    """The input files of one GEO cohort folder.

    Attributes
    ----------
    cohort_dir : pathlib.Path
    soft_path : pathlib.Path or None
        The family SOFT file, else a stand-alone platform SOFT.
    matrices : tuple of SeriesMatrixFile
        Every series matrix, human platforms first, then by platform number
        and file name (never by directory order).
    count_tables : tuple of pathlib.Path
        NCBI-generated RNA-seq count tables (``*_counts_*``), sorted.
    """

    cohort_dir: Path
    soft_path: Optional[Path]
    matrices: Tuple[SeriesMatrixFile, ...]
    count_tables: Tuple[Path, ...]

    @property
    def human_matrices(self) -> Tuple[SeriesMatrixFile, ...]:
        """Matrices of human platforms (or of platforms whose organism is unstated)."""
        return tuple(m for m in self.matrices if m.is_human is not False)

    @property
    def matrix_path(self) -> Optional[Path]:
        """The first human matrix (see :attr:`matrices` for the order)."""
        human = self.human_matrices
        return human[0].path if human else None


def _is_matrix_name(name: str) -> bool:
    return "series_matrix" in name.lower()


def _is_soft_name(name: str) -> bool:
    lower = name.lower()
    return lower.endswith((".soft", ".soft.gz")) or "family.soft" in lower


def _is_count_table_name(name: str) -> bool:
    lower = name.lower()
    return "_counts" in lower and lower.endswith((".tsv", ".tsv.gz", ".txt", ".txt.gz",
                                                  ".csv", ".csv.gz"))


def _describe_matrix(path: Path) -> SeriesMatrixFile:
    header = read_series_header(path)
    match = _PLATFORM_IN_NAME.search(path.name)
    if match:
        platform = match.group(1).upper()
    else:
        platforms = header.platform_ids
        platform = platforms[0] if platforms else None
    return SeriesMatrixFile(path=path, platform_id=platform, is_human=header.is_human,
                            n_samples=len(header.sample_ids))


def _matrix_order(matrix: SeriesMatrixFile) -> tuple:
    human_rank = {True: 0, None: 1, False: 2}[matrix.is_human]
    return (human_rank, platform_sort_key(matrix.platform_id or ""), matrix.path.name)


def find_geo_files(cohort_dir: PathLike) -> GeoCohortFiles:
    """List the series matrices, SOFT file and count tables of a cohort folder.

    Parameters
    ----------
    cohort_dir : path-like
        ``input/GEO/<Trait>/<GSE>/``.

    Returns
    -------
    GeoCohortFiles
        Matrices are described from their headers (platform id, organism).

    Raises
    ------
    InputFileError
        The folder does not exist, or a matrix header cannot be read.
    """
    folder = Path(cohort_dir)
    if not folder.is_dir():
        raise InputFileError(folder, "cohort folder not found")
    names = sorted(p.name for p in folder.iterdir() if p.is_file())
    family = [n for n in names if "family.soft" in n.lower()]
    soft_names = family or [n for n in names if _is_soft_name(n)]
    matrices = sorted((_describe_matrix(folder / n) for n in names if _is_matrix_name(n)),
                      key=_matrix_order)
    return GeoCohortFiles(
        cohort_dir=folder,
        soft_path=folder / soft_names[0] if soft_names else None,
        matrices=tuple(matrices),
        count_tables=tuple(folder / n for n in names if _is_count_table_name(n)),
    )


def geo_get_relevant_filepaths(cohort_dir: PathLike) -> Tuple[str, str]:
    """The SOFT file and the series matrix of a cohort (Appendix A).

    For a multi-platform series the matrix of the first human platform is
    returned (platforms sorted by number; see :func:`find_geo_files` for all).

    Parameters
    ----------
    cohort_dir : path-like

    Returns
    -------
    (soft_path, matrix_path) : tuple of str

    Raises
    ------
    InputFileError
        Naming the folder, when it lacks a SOFT file, a series matrix, or a
        matrix of a human platform.
    """
    files = find_geo_files(cohort_dir)
    found = ", ".join(sorted(p.name for p in files.cohort_dir.iterdir())) or "nothing"
    missing = []
    if files.soft_path is None:
        missing.append("a SOFT file (*_family.soft[.gz] or GPL*.soft[.gz])")
    if not files.matrices:
        missing.append("a series matrix (*_series_matrix.txt[.gz])")
    if missing:
        raise InputFileError(files.cohort_dir, f"cohort folder lacks {' and '.join(missing)}"
                             f" (found: {found})")
    if files.matrix_path is None:
        platforms = ", ".join(m.platform_id or m.path.name for m in files.matrices)
        raise InputFileError(files.cohort_dir, "no series matrix of a human platform "
                             f"(platforms: {platforms})")
    return str(files.soft_path), str(files.matrix_path)
