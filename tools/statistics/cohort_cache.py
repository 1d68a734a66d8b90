"""Loading linked tables once per run, keyed on file content.

A cohort is used by many problems (the unconditional one, Age, Gender and
every two-step pairing), and parsing a full-size linked table (167 x 18,530)
takes about half a second, so :class:`CohortCache` keeps parsed tables in
memory (least recently used first out, bounded in bytes).

Staleness: every entry remembers the SHA-256 of the file's bytes. A lookup
first compares the file's ``(size, mtime_ns, ctime_ns, inode)`` signature with
the one seen when the entry was made (any write changes ``ctime``, which no
tool can set back); if any differs, the file is read and hashed again and the
entry is reused only when the hash still matches. So a table edited between
two problems of a run is re-parsed, never served stale.

Reading: files are read through :mod:`utils.io` like every input (regular files
only, size caps, a gzip stream checked to its end); a plain numeric table is
parsed by :func:`utils.io.numeric_table.parse_numeric_rows`, anything else by
pandas, and a row whose field count differs from the header's is refused with its
line either way.
"""

from __future__ import annotations

import csv
import hashlib
import io
import logging
import re
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from utils.errors import InputFileError
from utils.io import PathLike, content_of, file_signature, read_raw_bytes
from utils.io.numeric_table import parse_numeric_rows
from utils.io.rows import first_bad_row

logger = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 2 * 1024 ** 3


@dataclass(frozen=True)
class LinkedTable:
    """A parsed linked table, as arrays.

    Attributes
    ----------
    path : pathlib.Path
    digest : str
        SHA-256 of the file's bytes.
    samples : tuple of str
        Sample ids (the first column).
    columns : tuple of str
        Column names after the sample ids.
    values : numpy.ndarray
        ``(samples, columns)`` float values.
    """

    path: Path
    digest: str
    samples: Tuple[str, ...]
    columns: Tuple[str, ...]
    values: np.ndarray

    @property
    def nbytes(self) -> int:
        """Memory held by the values."""
        return int(self.values.nbytes)

    def has(self, name: str) -> bool:
        """Whether a column exists."""
        return name in self._positions

    @property
    def _positions(self) -> Dict[str, int]:
        cached = self.__dict__.get("_position_map")
        if cached is None:
            cached = {name: i for i, name in enumerate(self.columns)}
            object.__setattr__(self, "_position_map", cached)
        return cached

    def column(self, name: str) -> np.ndarray:
        """One column as a float vector."""
        if name not in self._positions:
            raise InputFileError(self.path, f"no column {name!r} in the linked table")
        return self.values[:, self._positions[name]]

    def select(self, names: Sequence[str], rows: Optional[np.ndarray] = None) -> np.ndarray:
        """Several columns as a ``(samples, len(names))`` matrix (a copy), of the
        samples ``rows`` only when given."""
        positions = np.fromiter(map(self._positions.__getitem__, names), dtype=np.intp,
                                count=len(names))
        every_row = rows is None or (len(rows) == self.values.shape[0]
                                     and np.array_equal(rows, np.arange(len(rows))))
        if positions.size > 1 and np.all(np.diff(positions) == 1):
            # consecutive columns (the genes of a table): copies of row segments,
            # 3-5x faster than a gather of single values
            columns = slice(int(positions[0]), int(positions[-1]) + 1)
            if every_row:
                return self.values[:, columns].copy()
            return self.values[np.asarray(rows, dtype=np.intp), columns]
        if every_row:
            return self.values.take(positions, axis=1)
        return self.values[np.ix_(np.asarray(rows, dtype=np.intp), positions)]


def _signature(path: Path) -> Tuple[int, int, int, int]:
    try:
        return file_signature(path)
    except OSError as exc:
        raise InputFileError(path, f"cannot read file ({exc.strerror or exc})") from exc


def read_linked_bytes(path: PathLike) -> Tuple[bytes, str]:
    """The stored bytes of a linked table and their SHA-256 (guarded read, see
    :func:`utils.io.read_raw_bytes`)."""
    raw = read_raw_bytes(path)
    return raw, hashlib.sha256(raw).hexdigest()


def _header(raw: bytes) -> list:
    """The fields of the first CSV row, as written (pandas renames repeats ``X.1``)."""
    end = raw.find(b"\n")
    first = (raw if end < 0 else raw[:end]).decode("utf-8", errors="replace").rstrip("\r")
    return next(csv.reader([first]), [])


def _first_repeat(names: Sequence[str]) -> Optional[Tuple[str, int, int]]:
    """The first name that occurs twice, with both positions (0-based), or None."""
    seen: Dict[str, int] = {}
    for position, name in enumerate(names):
        if name in seen:
            return name, seen[name], position
        seen[name] = position
    return None


# sample ids the fast reader keeps: those pandas keeps verbatim (a label, not a
# number, a boolean or a missing-value code)
PLAIN_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\Z")
NOT_PLAIN_IDS = frozenset({"na", "nan", "null", "none", "true", "false"})


def _plain_id(text: str) -> bool:
    """Whether pandas would keep this sample id as the same text."""
    if not PLAIN_ID.match(text) or text.lower() in NOT_PLAIN_IDS:
        return False
    try:
        float(text)          # "inf", "infinity"
    except ValueError:
        return True
    return False


def _body(raw: bytes) -> memoryview:
    """The rows below the header line."""
    end = raw.find(b"\n")
    return memoryview(raw)[len(raw) if end < 0 else end + 1:]


def fast_parse(raw: bytes, path: PathLike = "<linked table>"
               ) -> Optional[Tuple[Tuple[str, ...], Tuple[str, ...], np.ndarray]]:
    r"""Sample ids, column names and values of an unquoted numeric table, or None.

    The common linked table (unquoted, every value a number or a missing-value
    text, sample ids that are labels) is parsed by
    :func:`utils.io.numeric_table.parse_numeric_rows` straight into one matrix:
    about 3.5x faster than building a pandas frame of ~18,500 columns. Anything
    else (quotes, text cells, an unnamed column, ids pandas would convert)
    returns None, and :func:`parse_linked_table` reads the table (and names what
    is wrong with it). The values are pandas' conversions either way.

    Raises
    ------
    InputFileError
        A row whose field count differs from the header's (naming the line).

    Examples
    --------
    >>> samples, columns, values = fast_parse(b"id,Trait,A1BG\nS1,1,2.5\nS2,0,\n")
    >>> samples, columns, values.tolist()
    (('S1', 'S2'), ('Trait', 'A1BG'), [[1.0, 2.5], [0.0, nan]])
    >>> fast_parse(b'id,Trait\n"S1",1\n') is None   # quotes: pandas' way
    True
    """
    columns = _header(raw)[1:]
    body = _body(raw)
    if not columns or not all(columns) or raw.find(b'"', len(raw) - len(body)) >= 0:
        return None
    parsed = parse_numeric_rows(body, len(columns), path)
    if parsed is None or not parsed[0] or not all(map(_plain_id, parsed[0])):
        return None
    return tuple(parsed[0]), tuple(columns), parsed[1]


def _decompressed(path: Path, raw: bytes) -> bytes:
    """The text of a linked table (plain or gzip), refused when empty or when a
    column name repeats (pandas would silently rename it ``X.1``)."""
    raw = content_of(raw, path)
    if not raw or raw.isspace():    # (without copying the table, as strip() would)
        raise InputFileError(path, "empty linked table")
    repeat = _first_repeat(_header(raw)[1:])
    if repeat is not None:
        name, first, second = repeat
        raise InputFileError(path, f"column {name!r} occurs twice (columns {first + 2} and "
                             f"{second + 2}); a duplicated gene must be merged, not read "
                             f"as {name}.1")
    return raw


def _frame_with_pandas(path: Path, raw: bytes) -> pd.DataFrame:
    """Any linked table pandas can read, checked: rows as wide as the header, numeric
    columns, text labels."""
    bad_row = first_bad_row(raw, len(_header(raw)))
    if bad_row is not None:
        line, found = bad_row
        raise InputFileError(path, f"row has {found} fields, the header has "
                             f"{len(_header(raw))}", line=line)
    try:
        frame = pd.read_csv(io.BytesIO(raw), index_col=0, low_memory=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError,
            ValueError) as exc:
        raise InputFileError(path, f"unreadable CSV ({str(exc).splitlines()[0]})") from exc
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise InputFileError(path, "linked table has no samples or no columns")
    bad = [str(c) for c in frame.select_dtypes(exclude="number").columns]
    if bad:
        shown = ", ".join(bad[:5]) + (" ..." if len(bad) > 5 else "")
        raise InputFileError(path, f"non-numeric values in {len(bad)} column(s): {shown}")
    frame.columns = [str(c) for c in frame.columns]
    frame.index = frame.index.astype(str)
    return frame


def _check_samples(path: Path, samples: Sequence[str]) -> None:
    repeat = _first_repeat(list(samples))
    if repeat is not None:
        name, first, second = repeat
        raise InputFileError(path, f"sample id {name!r} occurs twice (data rows {first + 1} "
                             f"and {second + 1})")


def parse_linked_arrays(path: PathLike, raw: bytes
                        ) -> Tuple[Tuple[str, ...], Tuple[str, ...], np.ndarray]:
    """Sample ids, column names and ``(samples, columns)`` values of a linked table.

    :func:`fast_parse` when the table is plain numbers, pandas otherwise.

    Parameters
    ----------
    path : path-like
        Named in errors.
    raw : bytes
        The stored bytes (plain or gzip), e.g. from :func:`read_linked_bytes`.

    Raises
    ------
    InputFileError
        Empty, undecodable or non-numeric content, a damaged gzip stream, a row
        whose field count differs from the header's, a column name or sample id
        that occurs twice; the message names the file.
    """
    path = Path(path)
    raw = _decompressed(path, raw)
    parsed = fast_parse(raw, path)
    if parsed is None:
        frame = _frame_with_pandas(path, raw)
        parsed = (tuple(frame.index), tuple(frame.columns), frame.to_numpy(dtype=float))
    _check_samples(path, parsed[0])
    return parsed


def parse_linked_table(path: PathLike, raw: bytes) -> pd.DataFrame:
    """Parse the bytes of a linked table (plain or gzip CSV) into a frame, with
    pandas; refuses what :func:`parse_linked_arrays` refuses."""
    path = Path(path)
    frame = _frame_with_pandas(path, _decompressed(path, raw))
    _check_samples(path, frame.index)
    return frame


class CohortCache:
    """Parsed linked tables and file digests, shared by the problems of a run.

    Parameters
    ----------
    max_bytes : int
        Memory budget of the parsed tables (least recently used evicted first).
    """

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._tables: "OrderedDict[Path, Tuple[Tuple[int, int, int, int], LinkedTable]]" = OrderedDict()
        self._digests: Dict[Path, Tuple[Tuple[int, int, int, int], str]] = {}
        self.parses = 0

    def digest(self, path: PathLike) -> str:
        """SHA-256 of the file (re-hashed only when its signature changes)."""
        path = Path(path).resolve()
        signature = _signature(path)
        known = self._digests.get(path)
        if known and known[0] == signature:
            return known[1]
        _, digest = read_linked_bytes(path)
        self._digests[path] = (signature, digest)
        return digest

    def load(self, path: PathLike) -> LinkedTable:
        """The parsed table at ``path`` (from memory when its content is unchanged)."""
        path = Path(path).resolve()
        signature = _signature(path)
        entry = self._tables.get(path)
        if entry and entry[0] == signature:
            self._tables.move_to_end(path)
            return entry[1]
        raw, digest = read_linked_bytes(path)
        self._digests[path] = (signature, digest)
        if entry and entry[1].digest == digest:
            self._tables[path] = (signature, entry[1])
            self._tables.move_to_end(path)
            return entry[1]
        samples, columns, values = parse_linked_arrays(path, raw)
        table = LinkedTable(path, digest, samples, columns, values)
        self.parses += 1
        self._tables[path] = (signature, table)
        self._evict()
        return table

    def _evict(self) -> None:
        total = sum(table.nbytes for _, table in self._tables.values())
        while len(self._tables) > 1 and total > self.max_bytes:
            _, (_, oldest) = self._tables.popitem(last=False)
            total -= oldest.nbytes
