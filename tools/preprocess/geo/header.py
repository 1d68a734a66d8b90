"""The header of a GEO series matrix: ``!Series_*`` and ``!Sample_*`` lines (SPEC 4.1).

A series matrix (``<GSE>_series_matrix.txt[.gz]``) is a header of ``!Series_*``
lines (one value each) and ``!Sample_*`` lines (one tab-separated, quoted value
per sample), followed by the expression table between
``!series_matrix_table_begin`` and ``!series_matrix_table_end``. This module
parses the header and checks it (one value per sample, unique sample ids);
:mod:`tools.preprocess.geo.expression` reads the table after it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, List, Optional, Sequence, Tuple

from utils.errors import InputFileError, SuperSeriesError
from utils.input_safety import ReadLimits
from utils.io import PathLike
from utils.io.tables import LineStream, open_lines

TABLE_BEGIN = "!series_matrix_table_begin"
TABLE_END = "!series_matrix_table_end"
SAMPLE_ID_KEY = "!Sample_geo_accession"
BACKGROUND_PREFIXES = ["!Series_title", "!Series_summary", "!Series_overall_design"]
CLINICAL_PREFIXES = [SAMPLE_ID_KEY, "!Sample_characteristics_ch1"]
HUMAN_TAXID = "9606"
HUMAN_ORGANISM = "homo sapiens"

_GPL_NUMBER = re.compile(r"GPL(\d+)", re.IGNORECASE)
_SUBSERIES = re.compile(r"SuperSeries of:\s*(GSE\d+)", re.IGNORECASE)


def unquote(cell: str) -> str:
    """Strip surrounding whitespace and one pair of surrounding double quotes.

    Examples
    --------
    >>> unquote(' "GSM1" ')
    'GSM1'
    >>> unquote('say "hi"')
    'say "hi"'
    """
    cell = cell.strip()
    if len(cell) >= 2 and cell[0] == '"' and cell[-1] == '"':
        return cell[1:-1]
    return cell


def platform_sort_key(platform_id: str) -> tuple:
    """Sort GPL ids by their number (GPL96 before GPL570), then by text.

    Examples
    --------
    >>> sorted(["GPL570", "GPL96", "other"], key=platform_sort_key)
    ['GPL96', 'GPL570', 'other']
    """
    match = _GPL_NUMBER.search(platform_id or "")
    return (int(match.group(1)) if match else float("inf"), platform_id or "")


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
    sample_id_line : int or None
        Line number of ``!Sample_geo_accession`` (None when absent).
    """

    path: Path
    series: List[HeaderLine] = field(default_factory=list)
    samples: List[HeaderLine] = field(default_factory=list)
    sample_ids: List[str] = field(default_factory=list)
    table_begin_line: Optional[int] = None
    sample_id_line: Optional[int] = None

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


def parse_header(stream: LineStream, path: Path, stop_marker: str) -> SeriesMatrixHeader:
    """Read header lines from ``stream`` until ``stop_marker`` (consumed) or end of file.

    Parameters
    ----------
    stream : LineStream
        At the start of the file; left after the marker line, so the table
        can be read from the same stream.
    path : pathlib.Path
        Named in errors.
    stop_marker : str
        The line that ends the header (normally :data:`TABLE_BEGIN`).

    Returns
    -------
    SeriesMatrixHeader

    Raises
    ------
    InputFileError
        Empty file, duplicate sample ids, or a ``!Sample_*`` line whose number
        of values differs from the samples.
    """
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
                check_unique_samples(path, values, stream.line_no)
                n_samples = len(values)
                header.sample_ids = list(values)
                header.sample_id_line = stream.line_no
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


def check_unique_samples(path: Path, ids: Sequence[str], line: int) -> None:
    """Raise :class:`InputFileError` (naming ``line``) on a duplicate or empty sample id."""
    seen = set()
    duplicates = sorted({s for s in ids if s in seen or seen.add(s)})
    if duplicates:
        raise InputFileError(path, f"duplicate sample ids: {', '.join(duplicates)}",
                             line=line)
    if any(s == "" for s in ids):
        raise InputFileError(path, "empty sample id", line=line)


def read_series_header(file_path: PathLike, *,
                       limits: Optional[ReadLimits] = None) -> SeriesMatrixHeader:
    """Parse the header of a series matrix (everything before the table).

    Parameters
    ----------
    file_path : path-like
        ``*_series_matrix.txt[.gz]``.
    limits : ReadLimits, optional
        Line-length and size caps (default
        :data:`utils.input_safety.DEFAULT_LIMITS`).

    Returns
    -------
    SeriesMatrixHeader

    Raises
    ------
    InputFileError
        Empty or unreadable file (truncated gzip, not a regular file, UTF-16,
        binary or HTML content, a line or a file over the caps), duplicate
        sample ids, or a ``!Sample_*`` line whose number of values differs
        from the samples.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "GSE1_series_matrix.txt"
    >>> _ = path.write_text('!Series_title\\t"A study"\\n'
    ...                     '!Sample_geo_accession\\t"GSM1"\\t"GSM2"\\n'
    ...                     '!Sample_taxid_ch1\\t"9606"\\t"9606"\\n'
    ...                     '!series_matrix_table_begin\\n')
    >>> header = read_series_header(path)
    >>> header.sample_ids, header.is_human, header.table_begin_line
    (['GSM1', 'GSM2'], True, 4)
    >>> folder.cleanup()
    """
    path = Path(file_path)
    with open_lines(path, limits) as stream:
        return parse_header(stream, path, TABLE_BEGIN)
