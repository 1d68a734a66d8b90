"""TCGA cohorts from the UCSC Xena hub (SPEC 4.5).

A cohort folder ``input/TCGA/<Xena folder>/`` holds
``TCGA.<CODE>.sampleMap_<CODE>_clinicalMatrix`` (tab-separated, one row per
sample, first column ``sampleID``) and the RNA-seq matrix
``TCGA.<CODE>.sampleMap_HiSeqV2[.gz]`` (non-normalized, preferred) and/or
``..._HiSeqV2_PANCAN[.gz]`` (genes x samples, log2 values). Either file may be
gzip-compressed or plain.

* Trait (tumour vs normal) comes from the sample barcode's type code,
  characters 14-15 of ``TCGA-XX-XXXX-NN``: ``01``-``09`` tumour -> 1,
  ``10``-``19`` normal -> 0, anything else (``20`` control analytes,
  ``50`` cell lines, ``60`` xenografts, malformed ids) -> missing.
* Age and Gender come from clinicalMatrix columns the author picks; the
  candidate finders list plausible columns with a preview of their values.
"""

from __future__ import annotations

import logging
import math
import re
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import pandas as pd

from tools.preprocess.clinical import AGE, GENDER, MAX_AGE_YEARS, convert_gender, is_missing
from utils.errors import InputFileError, NoGeneDataError
from utils.input_safety import ReadLimits
from utils.io import FALLBACK_ERRORS, PathLike, decode_text
from utils.io.tables import (LineStream, open_lines, repeated_column_problem,
                             unterminated_problem)

logger = logging.getLogger(__name__)

CLINICAL_MARKER = "clinicalmatrix"
SAMPLE_ID_COLUMN = "sampleID"
HISEQ_SUFFIX = "HiSeqV2"
PANCAN_SUFFIX = "HiSeqV2_PANCAN"
DAYS_PER_YEAR = 365.25

_BARCODE = re.compile(r"^[A-Za-z]+-[A-Za-z0-9]{2}-[A-Za-z0-9]{4}-(\d{2})")
_PREFERRED_AGE_COLUMNS = ("age_at_initial_pathologic_diagnosis", "age_at_diagnosis",
                          "age", "days_to_birth")
_PREFERRED_GENDER_COLUMNS = ("gender", "sex")


# --------------------------------------------------------------------------- files
def _data_name(path: Path) -> str:
    """File name without a trailing ``.gz``."""
    name = path.name
    return name[:-3] if name.lower().endswith(".gz") else name


def tcga_get_relevant_filepaths(cohort_dir: PathLike) -> Tuple[str, str]:
    """The clinicalMatrix and gene-expression files of a Xena cohort folder.

    Parameters
    ----------
    cohort_dir : path-like
        E.g. ``input/TCGA/TCGA_Lung_Adenocarcinoma_(LUAD)``.

    Returns
    -------
    clinical_path, genetic_path : str
        The genetic file is the non-normalized ``HiSeqV2`` matrix when present,
        else ``HiSeqV2_PANCAN``. Several candidates of one kind: the first in
        sorted order (logged).

    Raises
    ------
    InputFileError
        When the folder is missing or has no clinicalMatrix.
    NoGeneDataError
        When the folder has no HiSeqV2 / HiSeqV2_PANCAN matrix.
    """
    folder = Path(cohort_dir)
    if not folder.is_dir():
        raise InputFileError(folder, "TCGA cohort folder not found")
    files = sorted(p for p in folder.iterdir()
                   if p.is_file() and not p.name.startswith("."))
    clinical = [p for p in files if CLINICAL_MARKER in p.name.lower()]
    hiseq = [p for p in files if _data_name(p).endswith(HISEQ_SUFFIX)]
    pancan = [p for p in files if _data_name(p).endswith(PANCAN_SUFFIX)]
    if not clinical:
        raise InputFileError(folder, "no clinicalMatrix file in the TCGA cohort folder "
                             "(expected TCGA.<CODE>.sampleMap_<CODE>_clinicalMatrix)")
    genetic = hiseq or pancan
    if not genetic:
        raise NoGeneDataError(folder, "no gene-expression file in the TCGA cohort folder "
                              "(expected TCGA.<CODE>.sampleMap_HiSeqV2[.gz] or "
                              "..._HiSeqV2_PANCAN[.gz])")
    for kind, found in (("clinicalMatrix", clinical), ("expression", genetic)):
        if len(found) > 1:
            logger.warning("%s: %d %s files, using %s", folder, len(found), kind,
                           found[0].name)
    return str(clinical[0]), str(genetic[0])


def _header_fields(stream: LineStream, path: PathLike) -> List[str]:
    """The header line's tab-separated fields (the line is not consumed)."""
    first = stream.peek_line_bytes()
    if first is None or not first.strip():
        raise InputFileError(path, "empty file (no header line)", line=1)
    return decode_text(first).split("\t")


def _check_unique(path: PathLike, labels: Sequence[Any], what: str,
                  line_of: Optional[Callable[[int], int]] = None) -> None:
    seen: Dict[Any, int] = {}
    for position, label in enumerate(labels):
        if label in seen:
            line = line_of(position) if line_of else None
            raise InputFileError(path, f"duplicate {what} {label!r}", line=line)
        seen[label] = position


def _read_checked_table(stream: LineStream, path: PathLike, n_fields: int,
                        **kwargs: Any) -> pd.DataFrame:
    """Parse the tab-separated table at the stream (header line first), checking rows.

    Every non-blank row must have the header's ``n_fields`` fields, and the last
    row must end with a line ending (a file cut short is refused).
    """
    section = stream.section(None, n_fields=n_fields)
    try:
        table = pd.read_csv(section, sep="\t", index_col=0, low_memory=False,
                            encoding="utf-8", encoding_errors=FALLBACK_ERRORS, **kwargs)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        if section.bad_row is None:
            raise InputFileError(path, f"malformed tab-separated table ({exc})") from exc
        table = None
    section.drain()
    if section.bad_row is not None:
        line, found = section.bad_row
        raise InputFileError(path, f"expected {n_fields} tab-separated fields like the "
                             f"header, found {found}", line=line)
    problem = unterminated_problem(path, section)
    if problem is not None:
        raise problem
    return table


def tcga_read_clinical_data(path: PathLike, *,
                            limits: Optional[ReadLimits] = None) -> pd.DataFrame:
    """Read a Xena clinicalMatrix: one row per sample, indexed by ``sampleID``.

    Parameters
    ----------
    path : path-like
        Plain or gzipped tab-separated file whose first column is ``sampleID``.
    limits : ReadLimits, optional
        Line-length and size caps (default
        :data:`utils.input_safety.DEFAULT_LIMITS`).

    Returns
    -------
    DataFrame
        Samples (index, str) x clinical columns (pandas-inferred types).

    Raises
    ------
    InputFileError
        Empty file, wrong first column, a column name repeated, no sample
        row, wrong number of fields, duplicate ids, a last row without line
        ending (truncated file), UTF-16, binary or HTML content, a line or a
        file over the caps.
    """
    with open_lines(path, limits) as stream:
        header = _header_fields(stream, path)
        if header[0].strip() != SAMPLE_ID_COLUMN:
            raise InputFileError(path, f"not a Xena clinicalMatrix: first column is "
                                 f"{header[0][:40]!r}, expected {SAMPLE_ID_COLUMN!r}", line=1)
        problem = repeated_column_problem(path, [name.strip() for name in header], line=1)
        if problem is not None:
            raise problem
        table = _read_checked_table(stream, path, len(header),
                                    dtype={SAMPLE_ID_COLUMN: str})
    if not len(table.index):
        raise InputFileError(path, "clinicalMatrix has a header but no sample rows")
    table.index = table.index.astype(str)
    _check_unique(path, list(table.index), "sampleID", line_of=lambda i: i + 2)
    return table


#: Share of an expression matrix's values that may be text before it is refused
#: (a clinical matrix passed by mistake is mostly text; a real one has a few "NA").
MOSTLY_TEXT = 0.5


def tcga_read_genetic_data(path: PathLike, *,
                           limits: Optional[ReadLimits] = None) -> pd.DataFrame:
    """Read a Xena HiSeqV2 / HiSeqV2_PANCAN matrix: genes x samples.

    Parameters
    ----------
    path : path-like
        Plain or gzipped tab-separated matrix, first column gene ids, header
        row of sample barcodes.
    limits : ReadLimits, optional
        Line-length and size caps (default
        :data:`utils.input_safety.DEFAULT_LIMITS`).

    Returns
    -------
    DataFrame
        Float values (non-numeric cells become NaN, never 0), index ``Gene``.

    Raises
    ------
    InputFileError
        Empty file, no sample columns, wrong number of fields, duplicate
        sample ids, a last row without line ending (truncated file), UTF-16,
        binary or HTML content, a line or a file over the caps, not
        enough memory for the table, or more than half of the values not
        numbers (:data:`MOSTLY_TEXT`: a clinical matrix passed by mistake).
    """
    with open_lines(path, limits) as stream:
        header = _header_fields(stream, path)
        if len(header) < 2:
            raise InputFileError(path, "expression matrix has no sample columns", line=1)
        _check_unique(path, header[1:], "sample id", line_of=lambda i: 1)
        table = _read_checked_table(stream, path, len(header), dtype={header[0]: str})
        table.index = table.index.astype(str)
        table.index.name = "Gene"
        non_numeric = [c for c in table.columns
                       if not pd.api.types.is_numeric_dtype(table[c])]
        if non_numeric:
            before = table[non_numeric].notna().to_numpy().sum()
            table[non_numeric] = table[non_numeric].apply(pd.to_numeric, errors="coerce")
            lost = before - table[non_numeric].notna().to_numpy().sum()
            present = int(before + table.drop(columns=non_numeric).notna().to_numpy().sum())
            if lost > MOSTLY_TEXT * present:
                raise InputFileError(path, f"{lost} of its {present} values are not numbers: "
                                           "not an expression matrix (a clinical matrix?)")
            if lost:
                logger.warning("%s: %d non-numeric expression values read as NaN", path,
                               lost)
        return table.astype("float64")


# --------------------------------------------------------------------------- converters
def tcga_sample_type_code(sample_id: Any) -> Optional[int]:
    """The two-digit sample type code of a TCGA barcode (chars 14-15), or None."""
    if is_missing(sample_id):
        return None
    match = _BARCODE.match(str(sample_id).strip())
    return int(match.group(1)) if match else None


def tcga_convert_trait(row_index: Any) -> Optional[int]:
    """Tumour (1) / normal (0) label of a TCGA sample barcode.

    Parameters
    ----------
    row_index : str
        A barcode such as ``TCGA-05-4244-01`` (longer aliquot barcodes work).

    Returns
    -------
    int or None
        1 for type codes 01-09 (tumour), 0 for 10-19 (normal), ``None`` for any
        other code or a malformed barcode (upstream used -1: a bug).
    """
    code = tcga_sample_type_code(row_index)
    if code is None:
        return None
    if 1 <= code <= 9:
        return 1
    if 10 <= code <= 19:
        return 0
    return None


def tcga_convert_gender(cell: Any) -> Optional[float]:
    """0 (female) / 1 (male) from a clinicalMatrix gender cell, else None."""
    return convert_gender(cell)


def _as_float(cell: Any) -> Optional[float]:
    if is_missing(cell) or isinstance(cell, bool):
        return None
    try:
        number = float(str(cell).strip())
    except ValueError:
        return None
    return None if math.isnan(number) or math.isinf(number) else number


def tcga_convert_age(cell: Any, unit: Optional[str] = None) -> Optional[float]:
    """Age in years from a clinicalMatrix cell.

    Parameters
    ----------
    cell : object
        A number (or numeric text); ``[Not Available]`` and the like give None.
    unit : {None, "years", "days"}
        ``"days"``: the cell is ``days_to_birth`` (negative days before the
        diagnosis) -> ``-cell / 365.25``; a non-negative value is invalid.
        ``"years"``: the cell is already in years. ``None`` (default): a negative
        value is read as ``days_to_birth``, otherwise as years.

    Returns
    -------
    float or None
        Years, or None when missing, unparseable or outside 0-130 years.
    """
    number = _as_float(cell)
    if number is None:
        return None
    if unit not in (None, "years", "days"):
        raise ValueError(f"unit must be None, 'years' or 'days', got {unit!r}")
    if unit == "days" or (unit is None and number < 0):
        if number >= 0:
            return None
        years = -number / DAYS_PER_YEAR
    else:
        years = number
    return years if 0.0 <= years <= MAX_AGE_YEARS else None


def age_unit_of_column(column: str) -> str:
    """``"days"`` for a days-valued column such as ``days_to_birth``, else ``"years"``."""
    return "days" if "days" in column.lower() else "years"


def tcga_trait_labels(sample_ids: Sequence[Any]) -> pd.Series:
    """Barcode trait labels (1.0 / 0.0 / NaN) for many samples at once."""
    labels = [tcga_convert_trait(s) for s in sample_ids]
    return pd.Series([math.nan if v is None else float(v) for v in labels],
                     index=pd.Index(sample_ids), dtype="float64")


def tcga_select_clinical_features(clinical_df: pd.DataFrame, trait: str,
                                  age_col: Optional[str] = None,
                                  gender_col: Optional[str] = None) -> pd.DataFrame:
    """Trait, Age and Gender of every sample of a clinicalMatrix.

    Parameters
    ----------
    clinical_df : DataFrame
        From :func:`tcga_read_clinical_data` (index = sample barcodes).
    trait : str
        Trait name; the label column gets this name.
    age_col, gender_col : str, optional
        Chosen columns; a column whose name contains ``days`` (``days_to_birth``)
        is converted from days, any other from years.

    Returns
    -------
    DataFrame
        Samples (rows, in file order) x ``[<trait>, Age?, Gender?]``, floats.
        Samples-as-rows is the original library's orientation, kept so existing
        TCGA notebooks (``pd.concat([clinical, genes.T], axis=1)``) run
        unchanged; :func:`tools.preprocess.linking.geo_link_clinical_genetic_data`
        accepts either orientation, and ``.T`` gives the SPEC's features x
        samples layout for saving.
    """
    for name, column in (("age_col", age_col), ("gender_col", gender_col)):
        if column is not None and column not in clinical_df.columns:
            raise KeyError(f"{name}={column!r} is not a column of the clinical table")
    features = {trait: tcga_trait_labels(list(clinical_df.index)).to_numpy()}
    if age_col is not None:
        unit = age_unit_of_column(age_col)
        features[AGE] = [tcga_convert_age(v, unit=unit) for v in clinical_df[age_col]]
    if gender_col is not None:
        features[GENDER] = [tcga_convert_gender(v) for v in clinical_df[gender_col]]
    table = pd.DataFrame(features, index=clinical_df.index).astype("float64")
    return table


# --------------------------------------------------------------------------- candidates
def _name_tokens(column: str) -> List[str]:
    return [t for t in re.split(r"[^a-z0-9]+", column.lower()) if t]


def _is_age_column(column: str) -> bool:
    return "age" in _name_tokens(column) or "days_to_birth" in column.lower()


def _is_gender_column(column: str) -> bool:
    tokens = _name_tokens(column)
    return "gender" in tokens or "sex" in tokens


def _preview_values(values: pd.Series, n: int) -> List[Any]:
    kept = [v for v in values.tolist() if not is_missing(v)][:n]
    return [v.item() if hasattr(v, "item") else v for v in kept]


def _candidates(clinical_df: pd.DataFrame, matches: Callable[[str], bool],
                preferred: Sequence[str], n: int) -> Dict[str, List[Any]]:
    found = [c for c in clinical_df.columns
             if isinstance(c, str) and matches(c) and clinical_df[c].notna().any()]
    rank = {name: i for i, name in enumerate(preferred)}
    found.sort(key=lambda c: (rank.get(c.lower(), len(rank)),))
    return {c: _preview_values(clinical_df[c], n) for c in found}


def tcga_age_candidates(clinical_df: pd.DataFrame, n: int = 5) -> Dict[str, List[Any]]:
    """Columns that may hold age, best first, each with its first ``n`` values.

    ``age_at_initial_pathologic_diagnosis`` (years) ranks before
    ``days_to_birth`` (negative days); other columns with an ``age`` word follow
    in file order. All-missing columns are left out.
    """
    return _candidates(clinical_df, _is_age_column, _PREFERRED_AGE_COLUMNS, n)


def tcga_gender_candidates(clinical_df: pd.DataFrame, n: int = 5) -> Dict[str, List[Any]]:
    """Columns that may hold gender (``gender``, ``sex``), best first, with previews."""
    return _candidates(clinical_df, _is_gender_column, _PREFERRED_GENDER_COLUMNS, n)


def first_candidate(candidates: Dict[str, List[Any]]) -> Optional[str]:
    """The best candidate column name, or None when there is none."""
    return next(iter(candidates), None)
