"""Numeric tables written as CSV in bulk, with the bytes of ``DataFrame.to_csv``.

``DataFrame.to_csv(float_format="%.6g")`` formats every cell with one Python
``%`` call (about 0.15-0.3 µs a cell: a 20,000 x 250 gene table takes seconds).
This module builds the same bytes with NumPy, a block of cells at a time:

1. each finite non-zero value ``v`` is scaled to ``y = |v| 10^(P-1-e)`` with
   ``e = floor(log10 |v|)`` and rounded half-even to the ``P``-digit integer
   ``m`` that ``%.Pg`` prints (the scale is a correctly rounded power of ten,
   so ``y`` is within ``3e-16 y`` of the exact product);
2. the ``%g`` layout (fixed or scientific notation, trailing zeros stripped,
   ``-`` sign, ``0.00`` prefix, ``e+XX`` exponent) is looked up from small
   tables by the exponent and the number of significant digits kept;
3. the characters of each cell go into one to three 8-byte words (prefix,
   digits with the decimal point, exponent and separator), zero bytes standing
   for "nothing here"; rows get their label in front; dropping the zero bytes
   of the block gives the CSV text.

Where ``y`` lies within ``10^(P-14)`` of a half-way point (far above the
product's error; common in data averaged from few decimals, e.g. ``12.12345``
at ``P = 6``), the exact product decides: its rounding error is computed
exactly (Dekker's two-product), and exact ties (``0.001953125`` at ``P = 6``)
go to the even digit as ``printf`` does. The few cells left (a scale that is
not an exact power of ten, an exponent estimate off by one, subnormal values
or beyond ``1e±290``) are formatted by Python's ``%`` itself, so every cell is
the string ``float_format % value`` or ``na_rep`` for NaN, as in pandas.

:func:`csv_chunks` applies only where that is all pandas does: float columns,
``float_format`` of the form ``%.Pg`` (``1 <= P <= 6``), a flat index of
strings or integers, default header, quoting and encoding. Anything else
returns ``None`` and the caller writes with pandas (``utils.io.atomic_to_csv``
does both).
"""

from __future__ import annotations

import csv
import io
import os
import re
from typing import Any, Iterator, List, Mapping, Optional, Sequence

import numpy as np
import pandas as pd

#: ``%.Pg`` float formats the bulk path reproduces (P = 1..6).
GENERAL_FORMAT = re.compile(r"%\.([1-6])g\Z")
#: Keyword arguments of ``DataFrame.to_csv`` the bulk path understands.
SUPPORTED_KWARGS = frozenset({"float_format", "sep", "na_rep", "lineterminator",
                              "index", "header", "encoding"})
#: Cells per block: the block's arrays stay in the CPU's second-level cache.
BLOCK_CELLS = 1 << 14
#: Characters that may not be a separator or terminator (they occur in numbers).
_NUMERIC_CHARS = frozenset("0123456789.-+eEinfaINFA")
#: Decimal exponents handled in bulk; beyond them (and subnormals) Python formats.
_MAX_EXPONENT = 290
_TEN = np.array([float(f"1e{k}") for k in range(-2 * _MAX_EXPONENT, 2 * _MAX_EXPONENT + 1)])
#: Offset of 10**0 in :data:`_TEN`.
_TEN_ZERO = 2 * _MAX_EXPONENT


def _pack(text: bytes) -> int:
    """Little-endian word of up to 8 bytes (first character in the lowest byte)."""
    return int.from_bytes(text.ljust(8, b"\0"), "little")


def _three_digit_tables() -> tuple:
    digits = np.array([_pack(f"{g:03d}".encode()) for g in range(1000)], dtype=np.uint64)
    trailing = np.array([3 if g == 0 else len(f"{g:03d}") - len(f"{g:03d}".rstrip("0"))
                         for g in range(1000)], dtype=np.int64)
    return digits, trailing


_DIGITS3, _TRAILING3 = _three_digit_tables()


class _Layouts:
    """Lookup tables of the ``%.Pg`` layouts (one row per layout ``L``).

    Ordinary cells have layout ``L = 7 * c + k``: ``c`` the notation class
    (0-3 fixed with exponent -4..-1, 4..4+P-1 fixed with exponent 0..P-1,
    ``P + 4`` scientific) and ``k`` (1-6) the significant digits kept; then
    come zero, infinity and NaN. For each layout: the bits of the 6-digit word
    kept below the decimal point, those moved one byte up to make room for it,
    the constant bytes OR-ed in (decimal point, ``0``, ``inf``, ``na_rep``)
    and, per sign, the prefix word (``-``, ``0.``, ``0.000``).
    """

    def __init__(self, precision: int, na_rep: bytes) -> None:
        self.precision = precision
        n_classes = precision + 5
        self.science = precision + 4
        self.zero, self.inf, self.nan = 7 * n_classes, 7 * n_classes + 1, 7 * n_classes + 2
        size = self.nan + 1
        self.low = np.zeros(size, dtype=np.uint64)
        self.high = np.zeros(size, dtype=np.uint64)
        self.const = np.zeros(size, dtype=np.uint64)
        self.prefix = np.zeros(2 * size, dtype=np.uint64)
        ones = (1 << 64) - 1
        for c in range(n_classes):
            exponent = c - 4 if c < self.science else None
            for keep in range(1, 7):
                layout = 7 * c + keep
                shown = keep if exponent is None or exponent < 0 else max(keep, exponent + 1)
                kept = (1 << (8 * shown)) - 1
                dot = (1 if exponent is None else exponent + 1) if (
                    exponent is None or exponent >= 0) else None
                if dot is not None and shown > dot:
                    below = (1 << (8 * dot)) - 1
                    self.low[layout] = kept & below
                    self.high[layout] = kept & (ones ^ below)
                    self.const[layout] = ord(".") << (8 * dot)
                else:
                    self.low[layout] = kept
                head = b"0." + b"0" * (-exponent - 1) if exponent is not None and exponent < 0 \
                    else b""
                self.prefix[2 * layout] = _pack(head)
                self.prefix[2 * layout + 1] = _pack(b"-" + head)
        for layout, text in ((self.zero, b"0"), (self.inf, b"inf"), (self.nan, na_rep)):
            self.const[layout] = _pack(text)
            self.prefix[2 * layout + 1] = _pack(b"" if layout == self.nan else b"-")
        exponents = range(-2 * _MAX_EXPONENT, 2 * _MAX_EXPONENT + 1)
        self.exponent = np.array([_pack(f"e{x:+03d}".encode()) for x in exponents],
                                 dtype=np.uint64)


class _Workspace:
    """Scratch arrays for blocks of up to ``size`` cells (allocated once per table).

    Reusing them keeps every step of a block in the CPU cache and out of the
    memory allocator, whose fresh pages would cost more than the arithmetic.
    """

    def __init__(self, size: int, row_bytes: int = 0, rows: int = 0) -> None:
        self.size = size
        self.block = np.empty(row_bytes * rows, dtype=np.uint8)
        self.floats = [np.empty(size) for _ in range(4)]
        self.ints = [np.empty(size, dtype=np.intp) for _ in range(4)]
        self.words = [np.empty(size, dtype=np.uint64) for _ in range(4)]
        self.flags = [np.empty(size, dtype=bool) for _ in range(4)]


class _Encoded:
    """The words of a block of cells: which are present, and the Python-formatted cells.

    Attributes
    ----------
    prefix, digits, exponent : ndarray or None
        uint64 words (``None``: no cell of the block needs that word).
    fallback : ndarray
        Flat positions of the cells Python formats.
    """

    def __init__(self, prefix: Optional[np.ndarray], digits: np.ndarray,
                 exponent: Optional[np.ndarray], fallback: np.ndarray) -> None:
        self.prefix, self.digits, self.exponent, self.fallback = prefix, digits, exponent, fallback


def _encode_block(x: np.ndarray, layouts: _Layouts, work: _Workspace) -> _Encoded:
    """The words of the cells ``x`` (float64, 1-D, at most ``work.size``)."""
    n = x.size
    p = layouts.precision
    f0, f1, f2, f3 = (a[:n] for a in work.floats)
    exponent, hi, lo, layout = (a[:n] for a in work.ints)
    w0, w1, w2, w3 = (a[:n] for a in work.words)
    normal, b1, fixed, b3 = (a[:n] for a in work.flags)
    np.abs(x, out=f0)
    np.greater_equal(f0, 1e-290, out=normal)
    np.less_equal(f0, 1e290, out=b1)
    normal &= b1
    special = np.flatnonzero(~normal)  # zero, inf, NaN, subnormal, beyond 1e+-290
    if special.size:
        f0[special] = 1.0
    np.log10(f0, out=f1)
    np.floor(f1, out=f1)
    np.copyto(exponent, f1, casting="unsafe")
    np.subtract(_TEN_ZERO + p - 1, exponent, out=hi)
    np.take(_TEN, hi, out=f1, mode="clip")
    np.multiply(f0, f1, out=f1)  # the scaled value y
    np.rint(f1, out=f2)  # the P-digit integer
    np.subtract(f1, f2, out=f3)
    np.abs(f3, out=f3)
    np.subtract(f3, 0.5, out=f3)
    np.abs(f3, out=f3)
    unsure = b3
    np.less(f3, 10.0 ** (p - 14), out=unsure)  # within reach of a half-way point
    if unsure.any():
        _settle_halfway(unsure, f0, f1, f2, exponent, p)
    np.less(f1, 10.0 ** (p - 1), out=b1)  # exponent estimate one too high
    unsure |= b1
    np.greater_equal(f1, 10.0 ** p, out=b1)  # one too low
    unsure |= b1
    if special.size:
        odd = x[special]
        unsure[special] = np.isfinite(odd) & (odd != 0)  # subnormal or beyond 1e+-290
    fallback = np.flatnonzero(unsure)
    np.greater_equal(f2, 10.0 ** p, out=b1)  # 999999.7 -> 1e+06: carry into the exponent
    if b1.any():
        f2[b1] = 10.0 ** (p - 1)
        exponent += b1
    if p < 6:
        f2 *= 10.0 ** (6 - p)  # six digits, the last ones zero
    np.divide(f2, 1000.0, out=f3)
    np.floor(f3, out=f3)
    np.copyto(hi, f3, casting="unsafe")
    np.multiply(f3, 1000.0, out=f3)
    np.subtract(f2, f3, out=f3)
    np.copyto(lo, f3, casting="unsafe")
    np.take(_DIGITS3, hi, out=w0, mode="clip")
    np.take(_DIGITS3, lo, out=w1, mode="clip")
    w1 <<= np.uint64(24)
    w0 |= w1  # the six digits, first in the lowest byte
    np.take(_KEEP3, lo, out=layout, mode="clip")  # significant digits kept
    np.equal(lo, 0, out=b1)
    round_thousands = np.flatnonzero(b1)  # the low group is 000: the high one decides
    if round_thousands.size:
        layout[round_thousands] = _KEEP3_HIGH[np.clip(hi[round_thousands], 0, 999)]
    np.greater_equal(exponent, -4, out=fixed)
    np.less(exponent, p, out=b1)
    fixed &= b1
    np.add(exponent, 4, out=hi)
    np.logical_not(fixed, out=b1)
    np.copyto(hi, layouts.science, where=b1)
    hi *= 7
    layout += hi
    if special.size:
        layout[special] = np.where(odd == 0, layouts.zero,
                                   np.where(np.isinf(odd), layouts.inf, layouts.nan))
    layout[fallback] = layouts.nan
    np.take(layouts.low, layout, out=w1, mode="clip")
    w1 &= w0
    np.take(layouts.high, layout, out=w2, mode="clip")
    w2 &= w0
    w2 <<= np.uint64(8)
    w1 |= w2
    np.take(layouts.const, layout, out=w2, mode="clip")
    w1 |= w2  # digits with the decimal point, or 0 / inf / na_rep
    np.signbit(x, out=b1)
    np.less(exponent, 0, out=b3)
    b3 &= fixed
    b3 &= normal
    prefix = None
    if fallback.size or b1.any() or b3.any():
        layout *= 2
        layout += b1
        np.take(layouts.prefix, layout, out=w2, mode="clip")
        prefix = w2
    np.logical_not(fixed, out=b3)
    b3 &= normal
    science = None
    if fallback.size or b3.any():
        np.add(exponent, 2 * _MAX_EXPONENT, out=hi)
        np.take(layouts.exponent, hi, out=w3, mode="clip")
        w3[~b3] = 0
        science = w3
    return _Encoded(prefix, w1, science, fallback)


_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitting constant for float64


def _split(values: np.ndarray) -> tuple:
    """Veltkamp split: ``values = high + low``, each with at most 26 significant bits."""
    scaled = _SPLIT * values
    high = scaled - (scaled - values)
    return high, values - high


def _settle_halfway(near: np.ndarray, magnitude: np.ndarray, scaled: np.ndarray,
                    rounded: np.ndarray, exponent: np.ndarray, p: int) -> None:
    """Round exactly the cells whose scaled value lies next to a half-way point.

    ``scaled = fl(|v| 10^k)`` with ``10^k`` exact (``0 <= k <= 22``); Dekker's
    two-product gives the product's rounding error ``err`` exactly, so the sign
    of ``(scaled - (n + 1/2)) + err`` says on which side of the half-way point
    ``n + 1/2`` the exact product lies (zero: an exact tie, rounded to even, as
    C's ``printf`` does). Cells settled this way are cleared from ``near``;
    those with other ``k`` stay for Python.
    """
    cells = np.flatnonzero(near)
    power = (p - 1) - exponent[cells]
    cells = cells[(power >= 0) & (power <= 22)]
    if not cells.size:
        return
    a = magnitude[cells]
    y = scaled[cells]
    t = _TEN[_TEN_ZERO + (p - 1) - exponent[cells]]
    a_high, a_low = _split(a)
    t_high, t_low = _split(t)
    error = ((a_high * t_high - y) + a_high * t_low + a_low * t_high) + a_low * t_low
    below = np.rint(y - 0.5)
    side = (y - (below + 0.5)) + error
    rounded[cells] = below + ((side > 0) | ((side == 0) & (np.fmod(below, 2.0) != 0)))
    near[cells] = False


def _trailing_keep_tables() -> tuple:
    """Digits kept of a 6-digit number by its low / high 3-digit group."""
    return (6 - _TRAILING3, 6 - (3 + _TRAILING3))


_KEEP3, _KEEP3_HIGH = _trailing_keep_tables()


def format_general(values: np.ndarray, float_format: str, na_rep: str = "") -> List[str]:
    """``float_format % v`` of every value (``na_rep`` for NaN), computed in bulk.

    The reference for tests and a convenience; :func:`csv_chunks` writes
    without building Python strings.
    """
    flat = np.ascontiguousarray(values, dtype=np.float64).ravel()
    if not flat.size:
        return []
    match = GENERAL_FORMAT.match(float_format)
    if match is None:
        raise ValueError(f"unsupported float format {float_format!r}")
    layouts = _Layouts(int(match.group(1)), na_rep.encode())
    encoded = _encode_block(flat, layouts, _Workspace(flat.size))
    zeros = np.zeros(flat.size, dtype=np.uint64)
    words = np.stack([zeros if w is None else w for w in
                      (encoded.prefix, encoded.digits, encoded.exponent)], axis=1).astype("<u8")
    fallback = encoded.fallback
    raw = words.view(np.uint8).reshape(flat.size, 24)
    cells = [bytes(row).replace(b"\0", b"").decode() for row in raw]
    for k in fallback:
        cells[k] = float_format % flat[k]
    return cells


class _Plan:
    """What :func:`csv_chunks` writes: validated options and the row labels."""

    def __init__(self, float_format: str, sep: str, na_rep: str, terminator: str) -> None:
        self.float_format = float_format
        self.sep = sep
        self.na_rep = na_rep
        self.terminator = terminator
        self.layouts = _Layouts(int(GENERAL_FORMAT.match(float_format).group(1)),
                                na_rep.encode())


def _plain_char(char: Any, extra: str = "") -> bool:
    """A one-character ASCII separator that no number or quoting uses."""
    return isinstance(char, str) and len(char) == 1 and char.isascii() \
        and (char in extra or (char not in _NUMERIC_CHARS and char not in '"\0\r\n'))


def _plan(frame: Any, kwargs: Mapping[str, Any]) -> Optional[_Plan]:
    """The options when the bulk path reproduces ``frame.to_csv(**kwargs)``, else None."""
    if not isinstance(frame, pd.DataFrame) or not set(kwargs) <= SUPPORTED_KWARGS:
        return None
    float_format = kwargs.get("float_format")
    sep = kwargs.get("sep", ",")
    na_rep = kwargs.get("na_rep", "")
    terminator = kwargs.get("lineterminator") or os.linesep
    if not (isinstance(float_format, str) and GENERAL_FORMAT.match(float_format)
            and _plain_char(sep) and _plain_char(terminator, "\n") and terminator != sep
            and isinstance(na_rep, str) and na_rep.isascii() and len(na_rep) <= 7
            and not set(na_rep) & set(sep + terminator + '"\r\n\0')
            and kwargs.get("index", True) is True and kwargs.get("header", True) is True
            and str(kwargs.get("encoding") or "utf-8").lower().replace("-", "") == "utf8"):
        return None
    if frame.shape[0] == 0 or frame.shape[1] == 0 \
            or isinstance(frame.columns, pd.MultiIndex) or isinstance(frame.index, pd.MultiIndex):
        return None
    if not all(isinstance(dtype, np.dtype) and dtype.kind == "f" for dtype in frame.dtypes):
        return None
    return _Plan(float_format, sep, na_rep, terminator)


def _label_cells(index: pd.Index, plan: _Plan) -> Optional[List[bytes]]:
    """The first cell of every row as written (csv quoting applied), or None."""
    if index.dtype.kind in "iu":
        return [str(label).encode() for label in index.tolist()]
    labels = index.tolist()
    if not all(type(label) is str for label in labels):  # NaN, numbers, bytes: pandas
        return None
    special = re.compile("[" + re.escape(plan.sep + plan.terminator + '"\r\n') + "]")
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=plan.sep, lineterminator=plan.terminator)
    cells = []
    for label in labels:
        if label and not special.search(label):
            cells.append(label.encode())
            continue
        start = buffer.tell()
        writer.writerow([label, ""])
        written = buffer.getvalue()[start:]
        cells.append(written[:-len(plan.sep + plan.terminator)].encode())
    return cells


#: Longest row label (bytes) the bulk path pads; longer ones go to pandas.
MAX_LABEL_BYTES = 256


def _label_matrix(cells: Sequence[bytes], sep: bytes) -> Optional[np.ndarray]:
    """Row labels and their separator, zero-padded to a multiple of 8 bytes."""
    longest = max(len(cell) for cell in cells)
    if longest > MAX_LABEL_BYTES or any(b"\0" in cell for cell in cells):
        return None
    width = (longest + 1 + 7) // 8 * 8
    joined = b"".join((cell + sep).ljust(width, b"\0") for cell in cells)
    return np.frombuffer(joined, dtype=np.uint8).reshape(len(cells), width)


def _header(frame: pd.DataFrame, plan: _Plan) -> bytes:
    """The header line, written by pandas itself (column labels, index name)."""
    return frame.iloc[:0].to_csv(sep=plan.sep, na_rep=plan.na_rep,
                                 float_format=plan.float_format,
                                 lineterminator=plan.terminator).encode()


def _body_block(values: np.ndarray, labels: np.ndarray, plan: _Plan, ends: np.ndarray,
                work: _Workspace) -> bytes:
    """CSV bytes of a block of rows (``values`` 2-D, ``labels`` their padded labels)."""
    rows, columns = values.shape
    flat = values.reshape(-1)
    encoded = _encode_block(flat, plan.layouts, work)
    words = [w for w in (encoded.prefix, encoded.digits, encoded.exponent) if w is not None]
    n_words = len(words)
    width = labels.shape[1]
    block = work.block[:rows * (width + 8 * n_words * columns)].reshape(rows, -1)
    block[:, :width] = labels
    slots = block[:, width:].view("<u8").reshape(rows, columns, n_words)
    for k, word in enumerate(words[:-1]):
        slots[:, :, k] = word.reshape(rows, columns)
    np.bitwise_or(words[-1].reshape(rows, columns), ends, out=slots[:, :, -1])
    slot = 8 * n_words
    for k in encoded.fallback.tolist():
        text = (plan.float_format % flat[k]).encode()
        row, start = divmod(k, columns)
        start = width + slot * start
        block[row, start:start + slot - 1] = 0
        block[row, start:start + len(text)] = np.frombuffer(text, dtype=np.uint8)
    return block.tobytes().translate(None, b"\0")


def csv_chunks(frame: Any, **to_csv_kwargs: Any) -> Optional[Iterator[bytes]]:
    """The bytes of ``frame.to_csv(**to_csv_kwargs)`` in blocks, or None.

    Parameters
    ----------
    frame : DataFrame
    **to_csv_kwargs
        ``float_format`` (``"%.Pg"``, required), ``sep``, ``na_rep``,
        ``lineterminator``, ``index=True``, ``header=True``, ``encoding``
        (UTF-8).

    Returns
    -------
    iterator of bytes or None
        UTF-8 bytes, header first, a block of rows at a time; None when the
        table or the options are outside what this module reproduces (write
        with pandas then).
    """
    plan = _plan(frame, to_csv_kwargs)
    if plan is None:
        return None
    cells = _label_cells(frame.index, plan)
    labels = None if cells is None else _label_matrix(cells, plan.sep.encode())
    if labels is None:
        return None
    return _blocks(frame, plan, labels)


def _blocks(frame: pd.DataFrame, plan: _Plan, labels: np.ndarray) -> Iterator[bytes]:
    yield _header(frame, plan)
    values = frame.to_numpy(dtype=np.float64, copy=False)
    rows, columns = values.shape
    ends = np.full(columns, ord(plan.sep), dtype=np.uint64) << np.uint64(56)
    ends[-1] = np.uint64(ord(plan.terminator)) << np.uint64(56)
    step = max(1, BLOCK_CELLS // columns)
    work = _Workspace(step * columns, labels.shape[1] + 24 * columns, step)
    for start in range(0, rows, step):
        stop = min(rows, start + step)
        yield _body_block(np.ascontiguousarray(values[start:stop]), labels[start:stop],
                          plan, ends, work)


def write_csv(frame: Any, handle: Any, **to_csv_kwargs: Any) -> bool:
    """Write ``frame`` as :func:`csv_chunks` to a binary handle; False if it does not apply."""
    chunks = csv_chunks(frame, **to_csv_kwargs)
    if chunks is None:
        return False
    for chunk in chunks:
        handle.write(chunk)
    return True
