"""Defensive reading of prediction and reference trees for the evaluator.

Every file of a prediction tree is untrusted. A :class:`TreeReader` only opens
regular files whose real path (symbolic links resolved) lies inside its root,
caps how many bytes it reads (gzip included, so a compressed bomb cannot
expand), refuses binary content and (for predictions) invalid UTF-8, and
validates types, duplicates and orientation. Any problem raises
:class:`ItemError` carrying a status and a message that starts with the file
path; the evaluator turns it into a score of 0 for that item.

Statuses
--------
``ok``         the item was read and scored.
``missing``    the file (or its folder, or the record in ``cohort_info.json``)
               does not exist.
``malformed``  the file exists but cannot be used: invalid JSON or CSV, wrong
               types, NaN/inf where numbers are required, duplicate labels,
               wrong orientation, binary or non-UTF-8 content, too large, a
               symbolic link leading outside the tree, not a regular file.
``empty``      the file holds nothing (zero bytes, only whitespace, or a CSV
               with a header and no data row).
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from utils.errors import InputFileError
from utils.io import GZIP_MAGIC, PathLike, decode_text, open_binary
from utils.problems import Problem

OK = "ok"
MISSING = "missing"
MALFORMED = "malformed"
EMPTY = "empty"
REFERENCE_ERROR = "reference-error"
STATUSES = (OK, MISSING, MALFORMED, EMPTY)

SUBTASKS = ("gene", "clinical", "linked")
COHORT_INFO_NAME = "cohort_info.json"
TCGA_COHORT = "Xena"
COHORT_ALIASES: Mapping[str, Tuple[str, ...]] = {TCGA_COHORT: ("TCGA",)}

MIB = 1024 * 1024
_NA_TOKENS = frozenset(["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                        "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None",
                        "n/a", "nan", "null"])


class ItemError(InputFileError):
    """An evaluated item could not be used; carries its status.

    Parameters
    ----------
    path : path-like
        The offending file (named first in the message).
    status : str
        ``missing``, ``malformed`` or ``empty``.
    problem : str
        What is wrong.
    line : int, optional
        1-based line number.
    """

    def __init__(self, path: PathLike, status: str, problem: str,
                 line: Optional[int] = None) -> None:
        super().__init__(path, problem, line=line)
        self.status = status


@dataclass(frozen=True)
class Limits:
    """Size limits applied to untrusted files.

    Attributes
    ----------
    max_json_bytes : int
        Largest JSON file read (after gzip decompression).
    max_table_bytes : int
        Largest CSV table read, whatever the reference size.
    table_size_ratio : float
        A predicted table may also exceed ``max_table_bytes`` up to this many
        times the size of its reference table.
    max_header_bytes : int
        Largest first line read when only a CSV header is needed.
    """

    max_json_bytes: int = 64 * MIB
    max_table_bytes: int = 64 * MIB
    table_size_ratio: float = 8.0
    max_header_bytes: int = 16 * MIB

    def table_cap(self, reference_bytes: Optional[int] = None) -> int:
        """Byte cap for a predicted table whose reference has ``reference_bytes``."""
        if reference_bytes is None:
            return self.max_table_bytes
        return max(self.max_table_bytes, int(self.table_size_ratio * reference_bytes))


@dataclass
class LabeledMatrix:
    """A numeric table in features (rows) x samples (columns) orientation.

    Attributes
    ----------
    features, samples : list of str
        Canonical (stripped, upper-cased) unique labels.
    values : numpy.ndarray
        Float matrix ``(len(features), len(samples))``; NaN = missing.
    path : pathlib.Path
        File it was read from.
    nbytes : int
        Bytes parsed (after decompression).
    notes : list of str
        Non-fatal remarks (e.g. infinite values read as missing).
    """

    features: List[str]
    samples: List[str]
    values: np.ndarray
    path: Path
    nbytes: int = 0
    notes: List[str] = field(default_factory=list)


@dataclass
class RegressResult:
    """The parts of a regression JSON the evaluator uses.

    Attributes
    ----------
    genes : list of str
        ``significant_genes.Variable`` as written (stripped, blanks removed).
    prediction_metrics : dict
        Finite numeric entries of ``cv_performance.prediction`` (nested
        objects flattened with dotted keys).
    notes : list of str
        Non-fatal remarks (e.g. missing ``cv_performance``).
    """

    genes: List[str]
    prediction_metrics: Dict[str, float]
    notes: List[str] = field(default_factory=list)


def canonical_label(label: str) -> str:
    """Strip and upper-case a table label or gene symbol."""
    return label.strip().upper()


_NON_ASCII_SPACE = re.compile(r"[^\S\n]")


def canonical_labels(labels: Iterable[str]) -> List[str]:
    """:func:`canonical_label` of many labels, with one C-level ``upper()`` call."""
    labels = list(labels)
    joined = "\n".join(labels)
    if len(labels) < 2 or joined.count("\n") != len(labels) - 1:
        return [canonical_label(label) for label in labels]
    texts = joined.upper().split("\n")
    has_space = (any(space in joined for space in " \t\r\x0b\x0c") if joined.isascii()
                 else _NON_ASCII_SPACE.search(joined) is not None)
    return [text.strip() for text in texts] if has_space else texts


# --------------------------------------------------------------------------- parsing

def decode_content(data: bytes, path: Path, strict: bool) -> str:
    """Decode bytes as UTF-8 (a leading BOM is dropped).

    ``strict`` rejects invalid UTF-8 with :class:`ItemError` (malformed);
    otherwise undecodable bytes become latin-1 characters.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not strict:
        return decode_text(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ItemError(path, MALFORMED, f"not valid UTF-8 text (byte 0x{data[exc.start]:02x} "
                        f"at offset {exc.start})", line=line) from exc


def _reject_duplicate_keys(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    result: Dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def parse_json_bytes(data: bytes, path: Path, strict: bool = True) -> Any:
    """Parse JSON bytes; NaN/Infinity literals become floats, duplicate keys fail.

    Raises
    ------
    ItemError
        ``empty`` for blank content, ``malformed`` for anything unparsable.
    """
    if b"\x00" in data:
        raise ItemError(path, MALFORMED, "binary content (NUL bytes), expected JSON text")
    text = decode_content(data, path, strict)
    if not text.strip():
        raise ItemError(path, EMPTY, "empty file, expected JSON")
    try:
        return json.loads(text, object_pairs_hook=_reject_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise ItemError(path, MALFORMED, f"invalid JSON ({exc.msg})", line=exc.lineno) from exc
    except (ValueError, RecursionError) as exc:
        raise ItemError(path, MALFORMED, f"invalid JSON ({exc})") from exc


def _split_header(text: str, path: Path) -> List[str]:
    if '"' not in text:
        cells = text.split(",")
        return [cell.strip() for cell in cells] if (" " in text or "\t" in text) else cells
    try:
        row = next(csv.reader([text], strict=True), [])
    except csv.Error as exc:
        raise ItemError(path, MALFORMED, f"unreadable CSV header ({exc})", line=1) from exc
    return [cell.strip() for cell in row]


def _to_float(cell: str) -> float:
    token = cell.strip()
    if token in _NA_TOKENS:
        return math.nan
    return float(token)


def _parse_rows_slow(text: str, n_columns: int, path: Path) -> Tuple[List[str], np.ndarray]:
    """Row labels and values of a CSV body with the csv module (handles quotes)."""
    labels: List[str] = []
    rows: List[List[float]] = []
    reader = csv.reader(io.StringIO(text), strict=True)
    try:
        for row in reader:
            line = reader.line_num + 1  # the header is line 1
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) != n_columns + 1:
                raise ItemError(path, MALFORMED, f"row has {len(row)} fields, the header has "
                                f"{n_columns + 1}", line=line)
            try:
                rows.append([_to_float(cell) for cell in row[1:]])
            except ValueError:
                bad = next(c for c in row[1:] if not _is_number(c))
                raise ItemError(path, MALFORMED, f"non-numeric value {bad[:40]!r} in row "
                                f"{row[0][:40]!r}", line=line) from None
            labels.append(row[0])
    except csv.Error as exc:
        raise ItemError(path, MALFORMED, f"unreadable CSV ({exc})",
                        line=reader.line_num + 1) from exc
    values = np.asarray(rows, dtype=float).reshape(len(rows), n_columns)
    return labels, values


def _is_number(cell: str) -> bool:
    try:
        _to_float(cell)
    except ValueError:
        return False
    return True


def _parse_rows_fast(work: bytearray, n_columns: int, path: Path
                     ) -> Optional[Tuple[List[str], np.ndarray]]:
    """Fast path for unquoted numeric CSV bodies (already validated text).

    ``work`` is a private copy of the body (modified in place). Finds line
    ends and commas with NumPy, checks every row's field count, overwrites
    the row labels with ``0`` and the commas with newlines, and parses every
    cell as one column with pandas' C parser, which is fast whatever the
    table's width. Returns None when a value does not parse, so that the slow
    path can name the offending cell.
    """
    end = len(work)
    while end and work[end - 1] == 10:
        end -= 1
    if not end:
        return [], np.empty((0, n_columns))
    buf = np.frombuffer(work, dtype=np.uint8, count=end)
    ends = np.append(np.flatnonzero(buf == 10), end)
    starts = np.concatenate(([0], ends[:-1] + 1))
    line_numbers: Optional[List[int]] = None
    if np.any(starts == ends):  # drop blank lines, remembering the line numbers
        lines = bytes(work[:end]).split(b"\n")
        line_numbers = [k + 2 for k, line in enumerate(lines) if line]
        work = bytearray(b"\n".join(line for line in lines if line))
        end = len(work)
        buf = np.frombuffer(work, dtype=np.uint8, count=end)
        ends = np.append(np.flatnonzero(buf == 10), end)
        starts = np.concatenate(([0], ends[:-1] + 1))
    commas = np.flatnonzero(buf == 44)
    first = np.searchsorted(commas, starts)
    counts = np.searchsorted(commas, ends) - first
    bad = np.flatnonzero(counts != n_columns)
    if bad.size:
        row = int(bad[0])
        line = line_numbers[row] if line_numbers else row + 2
        raise ItemError(path, MALFORMED, f"row has {int(counts[row]) + 1} fields, the header "
                        f"has {n_columns + 1}", line=line)
    label_end = commas[first]
    raw = memoryview(work)
    labels = decode_text(b"\n".join([raw[a:b] for a, b in zip(starts.tolist(),
                                                            label_end.tolist())])).split("\n")
    lengths = label_end - starts
    shift = np.repeat(starts - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    buf[shift + np.arange(shift.size)] = ord("0")  # labels become numeric tokens
    # No empty cell and no letter that can start a missing-value token: skip
    # pandas' NA matching (about 15 % faster).
    last_comma = commas[first + n_columns - 1]
    plain = not (np.any(label_end == starts) or np.any(last_comma + 1 == ends)
                 or np.any(np.diff(commas) == 1)
                 or any(work.find(c, 0, end) >= 0 for c in (b"N", b"n", b"#", b"<")))
    buf[commas] = ord("\n")
    cells = memoryview(work)[:end]
    try:
        column = pd.read_csv(io.BytesIO(cells), header=None, names=["v"], dtype=np.float64,
                             skip_blank_lines=False, na_filter=not plain,
                             engine="c")["v"].to_numpy()
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return None
    if column.size != starts.size * (n_columns + 1):
        return None
    return labels, column.reshape(starts.size, n_columns + 1)[:, 1:]


def parse_numeric_csv(data: bytes, path: Path, strict: bool = True
                      ) -> Tuple[List[str], List[str], np.ndarray, List[str]]:
    """Parse a labelled numeric CSV: first row = column labels, first column = row labels.

    Parameters
    ----------
    data : bytes
        File content (already decompressed).
    path : pathlib.Path
        For messages.
    strict : bool
        Reject invalid UTF-8 (predictions) instead of decoding it as latin-1.

    Returns
    -------
    (row_labels, column_labels, values, notes)
        Labels as written (see :func:`canonical_unique`); ``values`` is ``(rows, columns)``
        float with NaN for missing cells (and for infinities, noted).

    Raises
    ------
    ItemError
        ``empty`` or ``malformed`` with the line when one applies.
    """
    if b"\x00" in data:
        raise ItemError(path, MALFORMED, "binary content (NUL bytes), expected CSV text")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if not data or data.isspace():
        raise ItemError(path, EMPTY, "empty file, expected a CSV table")
    if strict and not data.isascii():
        decode_content(data, path, strict=True)  # validate once; parts decode leniently
    start = len(data) - len(data.lstrip(b"\n")) if data[:1] == b"\n" else 0
    newline = data.find(b"\n", start)
    newline = len(data) if newline < 0 else newline
    header = _split_header(decode_text(data[start:newline]), path)
    n_columns = len(header) - 1
    if n_columns < 1:
        raise ItemError(path, EMPTY, "the header has no data column", line=1)
    for position, name in enumerate(header[1:], start=2):
        if not name:
            raise ItemError(path, MALFORMED, f"empty column name at column {position}", line=1)
    parsed = None
    body = memoryview(data)[newline + 1:]
    if data.find(b'"', newline + 1) < 0:
        parsed = _parse_rows_fast(bytearray(body), n_columns, path)
    if parsed is None:
        parsed = _parse_rows_slow(decode_text(bytes(body)), n_columns, path)
    labels, values = parsed
    if not labels:
        raise ItemError(path, EMPTY, "no data row below the header")
    notes: List[str] = []
    infinite = np.isinf(values)
    if infinite.any():
        values = np.where(infinite, np.nan, values)
        notes.append(f"{int(infinite.sum())} infinite value(s) read as missing")
    return labels, header[1:], values, notes


def canonical_unique(labels: Sequence[str], path: Path, what: str) -> List[str]:
    """Canonical labels; a blank label or a repeat (after canonicalization) is malformed."""
    canonical = canonical_labels(labels)
    distinct = set(canonical)
    if "" in distinct:
        raise ItemError(path, MALFORMED, f"empty {what} label at position "
                        f"{canonical.index('') + 1}")
    if len(distinct) == len(canonical):
        return canonical
    seen: Dict[str, int] = {}
    for position, label in enumerate(canonical):
        if label in seen:
            raise ItemError(path, MALFORMED, f"duplicate {what} {labels[position]!r} "
                            f"(positions {seen[label] + 1} and {position + 1})")
        seen[label] = position
    return canonical  # pragma: no cover - unreachable


_FLAG_KEYS = ("is_gene_available", "is_trait_available", "is_available", "is_biased",
              "has_age", "has_gender")


def record_problem(record: Any) -> Optional[str]:
    """Why a ``cohort_info`` record is malformed (SPEC 4.8 types), or None.

    ``is_usable`` must be true or false; the other flags, when present, true,
    false or null; ``sample_size``, when present, a non-negative integer or
    null. Unknown keys are ignored.
    """
    if not isinstance(record, Mapping):
        return f"record is {type(record).__name__}, expected an object"
    usable = record.get("is_usable")
    if not isinstance(usable, bool):
        return f"'is_usable' must be true or false, found {usable!r:.40}"
    for key in _FLAG_KEYS:
        value = record.get(key)
        if value is not None and not isinstance(value, bool):
            return f"{key!r} must be true, false or null, found {value!r:.40}"
    size = record.get("sample_size")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
        return f"'sample_size' must be a non-negative integer or null, found {size!r:.40}"
    return None


def flatten_numbers(obj: Mapping[str, Any], prefix: str = "") -> Dict[str, float]:
    """Finite numbers of a nested mapping, keyed by dotted paths (bools skipped)."""
    result: Dict[str, float] = {}
    for key, value in obj.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            result.update(flatten_numbers(value, name + "."))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if math.isfinite(value):
                result[name] = float(value)
    return result


_GENE_LIST_KEYS = ("Coefficient", "Absolute Coefficient", "p_value", "corrected_p_value")


def parse_regress_result(obj: Any, path: Path) -> RegressResult:
    """Validate a regression JSON (SPEC 2) and extract genes and CV metrics.

    Raises
    ------
    ItemError
        ``malformed`` when ``significant_genes.Variable`` is absent or not a
        list of strings, or when a parallel list (coefficients, p-values) has
        another length or holds a non-finite or non-numeric value.
    """
    if not isinstance(obj, dict):
        raise ItemError(path, MALFORMED, f"expected a JSON object, found {type(obj).__name__}")
    genes_block = obj.get("significant_genes")
    if genes_block is None:
        raise ItemError(path, MALFORMED, "missing key 'significant_genes'")
    if not isinstance(genes_block, dict):
        raise ItemError(path, MALFORMED, "'significant_genes' must be an object")
    variables = genes_block.get("Variable")
    if variables is None:
        raise ItemError(path, MALFORMED, "missing key 'significant_genes.Variable'")
    if not isinstance(variables, list):
        raise ItemError(path, MALFORMED, "'significant_genes.Variable' must be a list")
    for position, gene in enumerate(variables):
        if not isinstance(gene, str):
            raise ItemError(path, MALFORMED, f"'significant_genes.Variable'[{position}] is "
                            f"{type(gene).__name__} {gene!r:.40}, expected a gene symbol string")
    for key in _GENE_LIST_KEYS:
        if key in genes_block:
            _check_number_list(genes_block[key], len(variables), f"significant_genes.{key}", path)
    notes: List[str] = []
    genes = [gene.strip() for gene in variables]
    if any(not gene for gene in genes):
        notes.append("blank gene names ignored")
        genes = [gene for gene in genes if gene]
    metrics: Dict[str, float] = {}
    performance = obj.get("cv_performance")
    prediction = performance.get("prediction") if isinstance(performance, dict) else None
    if isinstance(prediction, dict):
        metrics = flatten_numbers(prediction)
    else:
        notes.append("no 'cv_performance.prediction' object: no trait-prediction metrics")
    return RegressResult(genes, metrics, notes)


def _check_number_list(values: Any, length: int, name: str, path: Path) -> None:
    if not isinstance(values, list):
        raise ItemError(path, MALFORMED, f"'{name}' must be a list")
    if len(values) != length:
        raise ItemError(path, MALFORMED, f"'{name}' has {len(values)} values for {length} genes")
    if not set(map(type, values)) <= {float, int}:  # bool is excluded: not a number here
        position = next(i for i, value in enumerate(values)
                        if isinstance(value, bool) or not isinstance(value, (int, float)))
        raise ItemError(path, MALFORMED, f"'{name}'[{position}] is not a number")
    finite = np.isfinite(np.asarray(values, dtype=float))
    if not finite.all():
        position = int(np.argmin(finite))
        raise ItemError(path, MALFORMED, f"'{name}'[{position}] is {values[position]} "
                        "(not finite)")


# --------------------------------------------------------------------------- tree reader

class TreeReader:
    """Reads one output tree (``preprocess/`` and ``regress/``) defensively.

    Parameters
    ----------
    root : path-like
        The tree root (holding ``preprocess`` and ``regress``).
    role : str
        ``"prediction"`` or ``"reference"`` (used in messages).
    strict_utf8 : bool
        Reject invalid UTF-8 instead of decoding it as latin-1.
    limits : Limits
        Byte caps.
    cohort_aliases : mapping, optional
        Alternative file names of a cohort id (e.g. ``{"Xena": ("TCGA",)}``).
    """

    def __init__(self, root: PathLike, role: str = "prediction", strict_utf8: bool = True,
                 limits: Limits = Limits(),
                 cohort_aliases: Optional[Mapping[str, Tuple[str, ...]]] = None) -> None:
        self.root = Path(root).expanduser().absolute()
        self.real_root = Path(os.path.realpath(self.root))
        self.role = role
        self.strict_utf8 = strict_utf8
        self.limits = limits
        self.cohort_aliases = dict(cohort_aliases or {})
        self._real_dirs: Dict[str, str] = {}

    # -- paths
    @property
    def preprocess_root(self) -> Path:
        """``<root>/preprocess``."""
        return self.root / "preprocess"

    @property
    def regress_root(self) -> Path:
        """``<root>/regress``."""
        return self.root / "regress"

    def table_path(self, trait: str, cohort: str, subtask: str) -> Path:
        """Path of a cohort's gene, clinical or linked table (first alias that exists)."""
        candidates = [self._table_path(trait, name, subtask)
                      for name in (cohort, *self.cohort_aliases.get(cohort, ()))]
        for candidate in candidates:
            if os.path.lexists(candidate):
                return candidate
        return candidates[0]

    def _table_path(self, trait: str, cohort: str, subtask: str) -> Path:
        base = self.preprocess_root / trait
        if subtask == "gene":
            return base / "gene_data" / f"{cohort}.csv"
        if subtask == "clinical":
            return base / "clinical_data" / f"{cohort}.csv"
        if subtask == "linked":
            return base / f"{cohort}.csv"
        raise ValueError(f"unknown subtask {subtask!r}")

    def cohort_info_path(self, trait: str) -> Path:
        """``preprocess/<trait>/cohort_info.json``."""
        return self.preprocess_root / trait / COHORT_INFO_NAME

    def result_path(self, problem: Problem) -> Path:
        """``regress/<trait>/significant_genes_condition_<C>.json``."""
        return self.regress_root / problem.trait / problem.result_name

    def traits_with_cohort_info(self) -> List[str]:
        """Trait folders under ``preprocess`` that hold a ``cohort_info.json`` (sorted)."""
        try:
            entries = sorted(os.listdir(self.preprocess_root))
        except OSError:
            return []
        return [name for name in entries if os.path.lexists(self.cohort_info_path(name))]

    # -- safe opening
    def real_path(self, path: PathLike) -> str:
        """``os.path.realpath`` of a file, resolving each folder once per reader."""
        parent, name = os.path.split(os.fspath(path))
        real_parent = self._real_dirs.get(parent)
        if real_parent is None:
            real_parent = self._real_dirs[parent] = os.path.realpath(parent)
        candidate = os.path.join(real_parent, name)
        return os.path.realpath(candidate) if os.path.islink(candidate) else candidate

    def check(self, path: PathLike) -> Tuple[str, os.stat_result]:
        """Validate that ``path`` is a regular file inside the tree.

        Returns
        -------
        (str, os.stat_result)
            The resolved path (open this one) and its status.

        Raises
        ------
        ItemError
            ``missing`` when it (or a folder on the way) does not exist,
            ``malformed`` when it resolves outside the tree, is not a regular
            file, or cannot be accessed.
        """
        path = Path(path)
        if "\x00" in str(path):
            raise ItemError(path, MALFORMED, "path contains a NUL character")
        real = self.real_path(path)
        root = str(self.real_root)
        if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
            raise ItemError(path, MALFORMED, f"resolves to {real}, outside the {self.role} "
                            f"tree {self.root}: refused")
        try:
            info = os.stat(real)
        except FileNotFoundError:
            what = "file not found" if not os.path.islink(path) else "dangling symbolic link"
            raise ItemError(path, MISSING, what) from None
        except OSError as exc:
            raise ItemError(path, MALFORMED, f"cannot access ({exc.strerror})") from None
        if stat.S_ISDIR(info.st_mode):
            raise ItemError(path, MALFORMED, "is a folder, expected a file")
        if not stat.S_ISREG(info.st_mode):
            raise ItemError(path, MALFORMED, "not a regular file")
        return real, info

    def read_bytes(self, path: PathLike, cap: int) -> bytes:
        """Read at most ``cap`` bytes (decompressed) of a checked file.

        Raises
        ------
        ItemError
            See :meth:`check`; ``malformed`` when larger than ``cap`` or when a
            gzip stream is damaged.
        """
        path = Path(path)
        real, info = self.check(path)
        try:
            with open(real, "rb") as handle:
                compressed = handle.read(2) == GZIP_MAGIC
            if not compressed and info.st_size > cap:
                raise ItemError(path, MALFORMED, f"file too large ({_size(info.st_size)}; "
                                f"limit {_size(cap)})")
            with open_binary(real) as handle:
                if compressed:
                    data = _read_capped(handle, cap)
                else:
                    data = handle.read(min(cap, info.st_size) + 1)
        except InputFileError as exc:
            if isinstance(exc, ItemError):
                raise
            raise ItemError(path, MALFORMED, exc.problem) from None
        except OSError as exc:
            raise ItemError(path, MALFORMED, f"cannot read ({exc.strerror or exc})") from None
        if len(data) > cap:
            raise ItemError(path, MALFORMED, f"decompressed content larger than {_size(cap)}")
        return data

    def read_json(self, path: PathLike) -> Any:
        """Read and parse a JSON file under the JSON size cap."""
        path = Path(path)
        return parse_json_bytes(self.read_bytes(path, self.limits.max_json_bytes), path,
                                self.strict_utf8)

    def read_header(self, path: PathLike) -> List[str]:
        """Column labels of a CSV (first line only, capped), stripped."""
        path = Path(path)
        real, _ = self.check(path)
        cap = self.limits.max_header_bytes
        try:
            with open_binary(real) as handle:
                line = handle.readline(cap + 1)
        except InputFileError as exc:
            raise ItemError(path, MALFORMED, exc.problem) from None
        except OSError as exc:
            raise ItemError(path, MALFORMED, f"cannot read ({exc.strerror or exc})") from None
        if len(line) > cap:
            raise ItemError(path, MALFORMED, f"header line longer than {_size(cap)}", line=1)
        if b"\x00" in line:
            raise ItemError(path, MALFORMED, "binary content (NUL bytes), expected CSV text")
        line = line.rstrip(b"\r\n")
        if not line.strip():
            raise ItemError(path, EMPTY, "empty CSV file (no header row)", line=1)
        return _split_header(decode_content(line, path, self.strict_utf8), path)

    # -- typed items
    def cohort_info(self, trait: str) -> Dict[str, Any]:
        """``cohort_info.json`` of a trait as ``{cohort: record}`` (aliases applied).

        Records are returned raw; callers validate the fields they need.
        """
        path = self.cohort_info_path(trait)
        data = self.read_json(path)
        if not isinstance(data, dict):
            raise ItemError(path, MALFORMED, "expected a JSON object {cohort: record}, found "
                            f"{type(data).__name__}")
        for canonical, aliases in self.cohort_aliases.items():
            for alias in aliases:
                if alias in data and canonical not in data:
                    data[canonical] = data.pop(alias)
        return data

    def regress_result(self, problem: Problem) -> RegressResult:
        """The validated regression JSON of a problem."""
        path = self.result_path(problem)
        return parse_regress_result(self.read_json(path), path)

    def linked_header(self, trait: str, cohort: str) -> List[str]:
        """Column labels (after the sample-id column) of a linked table."""
        return self.read_header(self.table_path(trait, cohort, "linked"))[1:]

    def table(self, trait: str, cohort: str, subtask: str,
              cap: Optional[int] = None) -> LabeledMatrix:
        """A gene, clinical or linked table as features x samples.

        Parameters
        ----------
        trait, cohort : str
        subtask : {"gene", "clinical", "linked"}
            Linked tables are stored samples x features and are transposed.
        cap : int, optional
            Byte cap (default ``limits.max_table_bytes``).
        """
        path = self.table_path(trait, cohort, subtask)
        data = self.read_bytes(path, self.limits.max_table_bytes if cap is None else cap)
        rows, columns, values, notes = parse_numeric_csv(data, path, self.strict_utf8)
        if subtask == "linked":
            samples = canonical_unique(rows, path, "sample id")
            features = canonical_unique(columns, path, "column")
            matrix = np.ascontiguousarray(values.T)
        else:
            what = "gene" if subtask == "gene" else "feature"
            features = canonical_unique(rows, path, what)
            samples = canonical_unique(columns, path, "sample id")
            matrix = values
        return LabeledMatrix(features, samples, matrix, path, len(data), notes)



def check_orientation(predicted: LabeledMatrix, reference: LabeledMatrix,
                      layout: str) -> None:
    """Refuse a predicted table that looks transposed relative to the reference.

    A table is called transposed when its row and column labels overlap the
    reference's swapped roles more than its own roles.

    Raises
    ------
    ItemError
        ``malformed`` naming the expected layout.
    """
    ref_features, ref_samples = set(reference.features), set(reference.samples)
    straight = (len(ref_features.intersection(predicted.features))
                + len(ref_samples.intersection(predicted.samples)))
    swapped = (len(ref_samples.intersection(predicted.features))
               + len(ref_features.intersection(predicted.samples)))
    if swapped > straight:
        raise ItemError(predicted.path, MALFORMED, f"table looks transposed: expected {layout}")


def _read_capped(handle, cap: int, chunk: int = 16 * MIB) -> bytes:
    """Read until EOF or until more than ``cap`` bytes were read."""
    parts: List[bytes] = []
    total = 0
    while total <= cap:
        part = handle.read(min(chunk, cap + 1 - total))
        if not part:
            break
        parts.append(part)
        total += len(part)
    return b"".join(parts)


def _size(n_bytes: int) -> str:
    return f"{n_bytes / MIB:.1f} MiB"
