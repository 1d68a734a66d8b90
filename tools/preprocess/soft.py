"""Platform annotation from SOFT files (SPEC 4.2).

A family SOFT file (``<GSE>_family.soft[.gz]``) holds ``^SERIES``, one
``^PLATFORM`` block per platform and one ``^SAMPLE`` block per sample. The
annotation of a platform is the table between ``!platform_table_begin`` and
``!platform_table_end`` of its ``^PLATFORM`` block; sample data tables
(``!sample_table_begin``) are never part of it. A stand-alone platform SOFT
(``GPLxxx.soft[.gz]``) has a single ``^PLATFORM`` block.

* :func:`read_platform_annotations` - ``{platform_id: DataFrame}``.
* :func:`get_gene_annotation` - the first platform's table (Appendix A).
* :func:`get_gene_mapping` - the probe -> gene-text table (Appendix A).
* :func:`suggest_mapping_columns` - which columns hold probe ids and symbols.
"""

from __future__ import annotations

import csv
import io
import logging
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Dict, Mapping, Optional, Sequence

import pandas as pd

from tools.preprocess.gene_mapping import symbols_per_value
from utils.errors import InputFileError, NoGeneDataError
from utils.input_safety import ReadLimits
from utils.io import FALLBACK_ERRORS, PathLike, decode_text
from utils.io.rows import first_bad_row
from utils.io.tables import (LineStream, TableSection, open_lines, repeated_column_problem,
                             row_problem, row_width_error, unterminated_problem)
from utils.symbols import load_synonym_map, synonym_map_path

logger = logging.getLogger(__name__)

PLATFORM_KEY = "^PLATFORM"
SAMPLE_KEY = "^SAMPLE"
TABLE_BEGIN = "!platform_table_begin"
TABLE_END = "!platform_table_end"
#: Annotation cells read as missing.
MISSING_TEXTS = [""]
#: Rows sampled per column when scoring candidate gene-symbol columns.
SCORING_SAMPLE_ROWS = 2000
#: A gene column needs at least this share of distinct symbols per probe...
MIN_SYMBOL_SHARE = 0.01
#: ... and at least this many distinct symbols.
MIN_DISTINCT_SYMBOLS = 2
#: Words in a column name that break ties in favour of that column.
SYMBOL_NAME_HINTS = ("symbol", "gene_assignment", "orf", "gene")


def _block_id(line: str) -> str:
    """``^PLATFORM = GPL96`` -> ``GPL96``."""
    return line.partition("=")[2].strip()


def _table_header(stream: LineStream, path: Path, platform_id: str) -> Optional[bytes]:
    """The table's header line (not consumed); a marker line in its place is refused."""
    header = stream.peek_line_bytes()
    if header is not None and header.startswith(b"!") \
            and not header.startswith(TABLE_END.encode("ascii")):
        text = header[:40].decode("ascii", "replace")
        raise InputFileError(path, f"platform {platform_id}: expected the annotation table "
                             f"header after '{TABLE_BEGIN}', found {text!r} (a repeated "
                             "marker: damaged file?)", line=stream.line_no + 1)
    return header


def _check_header_names(path: Path, names: Sequence[str], line: int) -> None:
    """Refuse a repeated column name (pandas would rename the second ``<name>.1``)."""
    problem = repeated_column_problem(path, [name.strip() for name in names], line)
    if problem is not None:
        raise problem


def _read_platform_table(stream: LineStream, path: Path, platform_id: str) -> pd.DataFrame:
    header = _table_header(stream, path, platform_id)
    header_line = stream.line_no + 1
    n_fields = header.count(b"\t") + 1 if header and header.strip() else None
    if n_fields:
        _check_header_names(path, decode_text(header).split("\t"), header_line)
    section = stream.section(TABLE_END, n_fields=n_fields, stray_markers=(TABLE_BEGIN,))
    what = f"platform {platform_id} annotation row"
    try:
        with warnings.catch_warnings():  # a row longer than the header: reported below
            warnings.simplefilter("ignore", pd.errors.ParserWarning)
            table = pd.read_csv(section, sep="\t", header=0, dtype=str,
                                keep_default_na=False, na_values=MISSING_TEXTS,
                                quoting=csv.QUOTE_NONE, index_col=False, encoding="utf-8",
                                encoding_errors=FALLBACK_ERRORS, engine="c",
                                skip_blank_lines=True)
    except pd.errors.EmptyDataError:
        table = pd.DataFrame()
    except pd.errors.ParserError as exc:
        problem = row_problem(path, section, what, n_fields or 0, header_line)
        raise problem or InputFileError(path, f"{what} ({exc})",
                                        line=section.first_line) from exc
    section.drain()
    problem = row_problem(path, section, what, n_fields or 0, header_line)
    if problem is not None:
        raise problem
    if not section.found_end:
        raise InputFileError(path, f"platform {platform_id}: missing '{TABLE_END}' "
                             "(file truncated?)", line=stream.line_no)
    table.attrs.update({"source_path": str(path), "platform_id": platform_id})
    return table


def _platform_tables(stream: LineStream, path: Path,
                     scan_whole_file: bool) -> Dict[str, pd.DataFrame]:
    """The annotation tables of the ``^PLATFORM`` blocks read from ``stream``."""
    tables: Dict[str, pd.DataFrame] = {}
    current: Optional[str] = None
    saw_text = False
    while True:
        line = stream.readline()
        if line is None:
            break
        saw_text = saw_text or bool(line.strip())
        if line.startswith("^"):
            if line.startswith(SAMPLE_KEY) and tables and not scan_whole_file:
                break
            current = _block_id(line) if line.startswith(PLATFORM_KEY) else None
            if current is not None:
                tables.setdefault(current, _empty_annotation(path, current))
        elif current is not None and line.startswith(TABLE_BEGIN):
            tables[current] = _read_platform_table(stream, path, current)
        elif current is not None and line.strip() and not line.startswith(("!", "#")):
            raise InputFileError(path, f"platform {current}: a line outside the annotation "
                                 "table that is not a SOFT line ('^', '!', '#'): an end "
                                 "marker inside the table, or a damaged file?",
                                 line=stream.line_no)
    if not saw_text:
        raise InputFileError(path, "empty file, expected a SOFT file")
    if not tables:
        raise InputFileError(path, "no '^PLATFORM' block: not a family or platform SOFT "
                             "file")
    return tables


def read_platform_annotations(file_path: PathLike, scan_whole_file: bool = False, *,
                              limits: Optional[ReadLimits] = None) -> Dict[str, pd.DataFrame]:
    """Every platform annotation table of a family or platform SOFT file.

    Parameters
    ----------
    file_path : path-like
        SOFT file, gzip or plain.
    scan_whole_file : bool
        GEO writes every ``^PLATFORM`` block before the first ``^SAMPLE``
        block, so by default reading stops at the first ``^SAMPLE`` line once
        a platform was seen (sample tables can be hundreds of MB). Set True
        to scan to the end anyway.
    limits : ReadLimits, optional
        Line-length and size caps (default
        :data:`utils.input_safety.DEFAULT_LIMITS`).

    Returns
    -------
    dict
        ``{platform_id: DataFrame}`` in file order; all cells are text, empty
        cells missing; a platform without a table maps to an empty DataFrame.
        Each DataFrame's ``attrs`` hold ``source_path`` and ``platform_id``.

    Raises
    ------
    InputFileError
        Empty or truncated file, no ``^PLATFORM`` block, an unclosed table,
        a repeated ``!platform_table_begin``, a row with more fields than the
        table header, UTF-16, binary or HTML content, a line or a file over
        the caps.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "GPL1.soft"
    >>> _ = path.write_text("^PLATFORM = GPL1\\n!platform_table_begin\\nID\\tSymbol\\n"
    ...                     "p1\\tTP53\\np2\\t\\n!platform_table_end\\n")
    >>> read_platform_annotations(path)["GPL1"]
       ID Symbol
    0  p1   TP53
    1  p2    NaN
    >>> folder.cleanup()
    """
    path = Path(file_path)
    with open_lines(path, limits) as stream:
        return _platform_tables(stream, path, scan_whole_file)


def _empty_annotation(path: Path, platform_id: str) -> pd.DataFrame:
    table = pd.DataFrame()
    table.attrs.update({"source_path": str(path), "platform_id": platform_id})
    return table


def _skip_blank_lines(stream: LineStream) -> Optional[bytes]:
    """Consume blank lines; the next non-blank line (not consumed), or None at the end."""
    while True:
        line = stream.peek_line_bytes()
        if line is None or line.strip():
            return line
        stream.readline_bytes()


def _read_plain_table(stream: LineStream, path: Path) -> pd.DataFrame:
    """A delimited probe -> symbol table (not SOFT), e.g. a derived id2symbol map.

    Every row must have the header's number of fields (tab-separated: checked
    as the rows go by; comma-separated, where quoted cells may hold commas: by
    :func:`utils.io.rows.first_bad_row` before parsing); the last row must end
    with a line ending.
    """
    first = _skip_blank_lines(stream) or b""
    if not first:
        raise InputFileError(path, "empty file, expected a SOFT file or an annotation table")
    header_line = stream.line_no + 1
    if b"\t" in first:
        _check_header_names(path, decode_text(first).split("\t"), header_line)
        section = stream.section(None, n_fields=first.count(b"\t") + 1)
        table = _parse_plain_table(section, path, "\t", header_line)
    else:
        section = stream.section(None)
        data = section.read()
        header = next(csv.reader([decode_text(first)]), [])
        _check_header_names(path, header, header_line)
        bad = first_bad_row(data, len(header), ",", header_line)
        if bad is not None:
            raise row_width_error(path, "annotation table row", bad[0], bad[1], len(header),
                                  header_line)
        table = _parse_plain_table(io.BytesIO(data), path, ",", header_line)
    problem = unterminated_problem(path, section)
    if problem is not None:
        raise problem
    unnamed = [c for c in table.columns if str(c).startswith("Unnamed:") or c == ""]
    table = table.drop(columns=unnamed)
    table.attrs.update({"source_path": str(path), "platform_id": None})
    return table


def _parse_plain_table(source: IO[bytes], path: Path, sep: str,
                       header_line: int) -> pd.DataFrame:
    """Parse a plain annotation table; a streamed section's rows are checked as read."""
    section = source if isinstance(source, TableSection) else None
    what = "annotation table row"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            table = pd.read_csv(source, sep=sep, dtype=str, keep_default_na=False,
                                na_values=["", "NA"], index_col=False, encoding="utf-8",
                                encoding_errors=FALLBACK_ERRORS)
    except (pd.errors.ParserError, pd.errors.ParserWarning,
            pd.errors.EmptyDataError) as exc:
        problem = section and row_problem(path, section, what, section.n_fields, header_line)
        raise problem or InputFileError(path, f"cannot read annotation table ({exc})") \
            from exc
    if section is not None:
        section.drain()
        problem = row_problem(path, section, what, section.n_fields, header_line)
        if problem is not None:
            raise problem
    return table


def _is_soft_text(first_line: Optional[bytes]) -> bool:
    """A SOFT file's first non-blank line starts with ``^``, ``!`` or ``#``."""
    return bool(first_line) and first_line.strip().startswith((b"^", b"!", b"#"))


def get_gene_annotation(file_path: PathLike,
                        prefixes: Sequence[str] = ['^', '!', '#'], *,
                        limits: Optional[ReadLimits] = None) -> pd.DataFrame:
    """The platform annotation table of a SOFT file (Appendix A).

    Parameters
    ----------
    file_path : path-like
        Family SOFT or stand-alone platform SOFT (gzip or plain). A plain
        delimited table (not SOFT, e.g. a derived probe -> symbol map) is read
        as is.
    prefixes : sequence of str
        Kept for compatibility: the table is located by its begin/end markers,
        so sample tables and header lines are never read whatever the prefixes.
    limits : ReadLimits, optional
        Line-length and size caps (default
        :data:`utils.input_safety.DEFAULT_LIMITS`).

    Returns
    -------
    pandas.DataFrame
        The first platform with a non-empty table (see
        :func:`read_platform_annotations` for all); text cells, first column
        normally ``ID``.

    Raises
    ------
    NoGeneDataError
        No platform of the file has an annotation table (e.g. sequencing).
    InputFileError
        Unreadable or malformed file.
    """
    del prefixes  # the markers, not line prefixes, delimit the annotation
    path = Path(file_path)
    with open_lines(path, limits) as stream:
        if not _is_soft_text(_skip_blank_lines(stream)):
            table = _read_plain_table(stream, path)
            if table.empty:
                raise NoGeneDataError(path, "annotation table has no rows")
            return table
        tables = _platform_tables(stream, path, scan_whole_file=False)
    for table in tables.values():
        if not table.empty:
            return table
    raise NoGeneDataError(path, f"platform(s) {', '.join(tables)} have no annotation table "
                          "(e.g. a sequencing platform): no probe -> gene information")


# ---------------------------------------------------------------------------
# Mapping
# ---------------------------------------------------------------------------
def _source(annotation: pd.DataFrame) -> str:
    return str(annotation.attrs.get("source_path") or "<annotation table>")


def get_gene_mapping(annotation: pd.DataFrame, prob_col: str, gene_col: str) -> pd.DataFrame:
    """Probe id -> gene-text table from an annotation (Appendix A).

    Parameters
    ----------
    annotation : pandas.DataFrame
        From :func:`get_gene_annotation`.
    prob_col, gene_col : str
        Columns holding probe ids and gene symbols (see
        :func:`suggest_mapping_columns`).

    Returns
    -------
    pandas.DataFrame
        Columns ``ID`` (str) and ``Gene`` (the annotation text; symbols are
        extracted by :func:`tools.preprocess.gene_mapping.apply_gene_mapping`); rows
        without gene text dropped.

    Raises
    ------
    KeyError
        A column is not in the annotation.
    NoGeneDataError
        ``gene_col`` holds nothing that looks like a gene symbol.
    """
    for column in (prob_col, gene_col):
        if column not in annotation.columns:
            raise KeyError(f"column {column!r} not in the annotation of {_source(annotation)}"
                           f" (columns: {', '.join(map(str, annotation.columns))})")
    mapping = annotation[[prob_col, gene_col]].dropna()
    mapping = pd.DataFrame({"ID": mapping[prob_col].astype("str").to_numpy(),
                            "Gene": mapping[gene_col].astype("str").to_numpy()})
    mapping = mapping[mapping["Gene"].str.strip() != ""].reset_index(drop=True)
    sample = mapping["Gene"].drop_duplicates().head(SCORING_SAMPLE_ROWS).tolist()
    if not any(symbols_per_value(sample)):
        examples = ", ".join(repr(v) for v in sample[:3]) or "no values"
        raise NoGeneDataError(_source(annotation), f"column {gene_col!r} holds no gene "
                              f"symbols (e.g. {examples}); this platform has no gene data")
    return mapping


@dataclass(frozen=True)
class MappingSuggestion:
    """Suggested annotation columns for probe -> gene mapping.

    Attributes
    ----------
    probe_col : str
        Column with the probe ids (best overlap with the expression table ids).
    gene_col : str
        Column with the most distinct gene symbols.
    scores : dict
        ``{column: distinct symbols found}`` for every candidate column.
    """

    probe_col: str
    gene_col: str
    scores: Dict[str, int]


def _probe_column(annotation: pd.DataFrame, expression_ids: Optional[Sequence[str]]) -> str:
    columns = [str(c) for c in annotation.columns]
    if expression_ids is None:
        return "ID" if "ID" in columns else columns[0]
    wanted = set(map(str, expression_ids))
    overlaps = {c: annotation[c].dropna().astype("str").isin(wanted).sum() for c in columns}
    best = max(columns, key=lambda c: (overlaps[c], c == "ID"))
    return best if overlaps[best] > 0 else ("ID" if "ID" in columns else columns[0])


def _name_hint(column: str) -> int:
    """Higher for column names that announce gene symbols."""
    name = column.lower()
    return next((len(SYMBOL_NAME_HINTS) - i for i, hint in enumerate(SYMBOL_NAME_HINTS)
                 if hint in name), 0)


def suggest_mapping_columns(annotation: pd.DataFrame,
                            expression_ids: Optional[Sequence[str]] = None,
                            synonyms: Optional[Mapping[str, str]] = None,
                            use_synonyms: bool = True) -> MappingSuggestion:
    """Suggest the probe-id and gene-symbol columns of an annotation (SPEC 4.2).

    Each column except the probe column is scored by the number of distinct
    symbol-like tokens in (up to) its first 2,000 distinct values; with a
    synonym map only tokens the map knows count. Ties go to a column whose
    name mentions a symbol (``Gene Symbol``, ``gene_assignment``, ``ORF``).
    The notebook author decides.

    Parameters
    ----------
    annotation : pandas.DataFrame
    expression_ids : sequence of str, optional
        Probe ids of the expression table, to pick the probe column by overlap
        (default: ``ID``, else the first column).
    synonyms : mapping, optional
        ``{ALIAS_UPPER: Official}``; default: the project's map when it exists.
    use_synonyms : bool
        False scores by the symbol pattern alone (no map is read).

    Returns
    -------
    MappingSuggestion

    Raises
    ------
    NoGeneDataError
        No column holds enough symbols (at least 2 distinct, and 1 per 100
        probes), e.g. a circRNA platform.
    """
    if annotation.shape[1] == 0:
        raise NoGeneDataError(_source(annotation), "annotation table has no columns")
    if not use_synonyms:
        synonyms = None
    elif synonyms is None and synonym_map_path().is_file():
        synonyms = load_synonym_map()
    probe_col = _probe_column(annotation, expression_ids)
    scores = {}
    for column in annotation.columns:
        if str(column) == probe_col:
            continue
        values = annotation[column].dropna().drop_duplicates().head(SCORING_SAMPLE_ROWS)
        tokens = {t for group in symbols_per_value(values.tolist()) for t in group}
        if synonyms is not None:
            tokens = {t for t in tokens if t.upper() in synonyms}
        scores[str(column)] = len(tokens)
    n_probes = annotation[probe_col].nunique()
    needed = max(MIN_DISTINCT_SYMBOLS, int(MIN_SYMBOL_SHARE * min(n_probes,
                                                                 SCORING_SAMPLE_ROWS)))
    best = max(scores, key=lambda c: (scores[c], _name_hint(c)), default=None)
    if best is None or scores[best] < needed:
        detail = ", ".join(f"{c}: {n}" for c, n in scores.items()) or "no other columns"
        raise NoGeneDataError(
            _source(annotation),
            f"no annotation column holds gene symbols (distinct symbols per column: "
            f"{detail}; at least {needed} needed): the platform has no gene data")
    return MappingSuggestion(probe_col=probe_col, gene_col=best, scores=scores)
