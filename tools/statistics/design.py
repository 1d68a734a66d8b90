"""The genes of one Lasso fit, in the layout the certified path reads (SPEC 5.4).

The certified path (:mod:`tools.statistics.lasso`) reads the genes x samples
matrix in two ways only: a few hundred exact float64 rows (the working set,
the genes its KKT check recomputes, the genes a prediction needs) and, once
per check, the product ``X^T r`` over all genes, screened on a float32 copy
(:mod:`tools.statistics.kkt_screen`). A *design* gives exactly these:

* :class:`DenseDesign` wraps a matrix already in its final form (rows handed
  out as they are, the float32 copy made by a cast).
* :class:`StandardizedDesign` holds the **raw** genes and the training
  statistics of some samples (a cross-validation fold, or all samples). It is
  built by :func:`standardized_design` in one pass over blocks of genes that
  stay in the CPU cache: per block, the training samples are gathered,
  centred and measured (mean and population standard deviation, the same
  arithmetic as :func:`tools.statistics.standardize.standardize_transposed`,
  so the same bits), scaled and cast to float32. The scale is the deviation;
  the few genes :func:`~tools.statistics.standardize.safe_scale` (which sees
  every gene's deviation) scales otherwise are redone at the end. The
  float64 standardized matrix is never written: an exact row is standardized
  when it is asked for, with the stored mean and scale (bit for bit the row
  the whole-matrix standardization gives).

A fold thus costs one blocked pass over its genes instead of writing and
re-reading a 20 MB float64 copy several times (gather, centre, measure,
scale, cast), and held-out samples are standardized only for the genes a
prediction uses.
"""

from __future__ import annotations

from typing import Optional, Tuple, Union

import numpy as np

from tools.statistics.standardize import safe_scale

BLOCK_GENES = 512          # genes per block: 512 x 167 float64 rows (~0.7 MB) stay in cache
FLOAT32_LIMIT = 1e30       # operands and products stay far below float32's max


def _usable(row_norm: float) -> bool:
    """Whether products with rows of this norm stay safely inside float32's range."""
    return bool(np.isfinite(row_norm) and 0.0 < row_norm < FLOAT32_LIMIT)


class DenseDesign:
    """A ``(p, n)`` float64 matrix used as given (one row per gene).

    Parameters
    ----------
    XT : numpy.ndarray
        The rows (kept by reference; made C-contiguous float64 if needed).

    Attributes
    ----------
    single : numpy.ndarray or None
        The float32 copy for screening (None when products could overflow
        float32: the screen then works in float64).
    row_norm : float
        Upper bound on the rows' norms (from the float32 copy).

    Examples
    --------
    >>> design = DenseDesign(np.arange(6.0).reshape(3, 2))
    >>> design.rows(np.array([2, 0])).tolist()
    [[4.0, 5.0], [0.0, 1.0]]
    """

    def __init__(self, XT: np.ndarray) -> None:
        self.XT = np.ascontiguousarray(XT, dtype=np.float64)
        self.shape: Tuple[int, int] = self.XT.shape
        single = self.XT.astype(np.float32) if self.shape[0] else None
        # from float32 sums: within ~1e-5 of the exact norm, hence the 1.001
        self.row_norm = (1.001 * float(np.sqrt(np.max(np.einsum("ij,ij->i", single, single))))
                         if single is not None else 0.0)
        self.single = single if _usable(self.row_norm) else None

    def rows(self, genes: np.ndarray) -> np.ndarray:
        """``(len(genes), n)`` float64 rows."""
        return self.XT[np.asarray(genes, dtype=np.intp)]


class StandardizedDesign:
    """Genes standardized with the statistics of some samples, rows made on demand.

    Build with :func:`standardized_design`.

    Attributes
    ----------
    raw : numpy.ndarray
        ``(p, N)`` raw genes of every sample (by reference, never modified).
    columns : numpy.ndarray or None
        The training samples (columns of ``raw``); None: all of them.
    mean, scale : numpy.ndarray
        Training statistics of each gene (as
        :func:`~tools.statistics.standardize.standardize_transposed` returns them).
    single : numpy.ndarray or None
        ``(p, n)`` float32 standardized training rows (None: products could
        overflow float32).
    row_norm : float
        Upper bound on the norms of the float32 rows.
    """

    def __init__(self, raw: np.ndarray, columns: Optional[np.ndarray], mean: np.ndarray,
                 scale: np.ndarray, single: Optional[np.ndarray], row_norm: float) -> None:
        self.raw = raw
        self.columns = columns
        self.mean = mean
        self.scale = scale
        self.single = single if _usable(row_norm) else None
        self.row_norm = row_norm
        self.shape: Tuple[int, int] = (raw.shape[0], raw.shape[1] if columns is None
                                       else columns.size)

    def rows(self, genes: np.ndarray) -> np.ndarray:
        """Exact float64 standardized training rows of ``genes``."""
        return self.other_rows(genes, self.columns)

    def other_rows(self, genes: np.ndarray, columns: Optional[np.ndarray]) -> np.ndarray:
        """Rows of ``genes`` over the samples ``columns`` (e.g. held-out ones),
        standardized with the training statistics."""
        return _standardized_rows(self.raw, genes, columns, self.mean, self.scale)


def _standardized_rows(raw: np.ndarray, genes: np.ndarray, columns: Optional[np.ndarray],
                       mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``(raw[genes][:, columns] - mean) / scale``, row by row as
    :func:`~tools.statistics.standardize.standardize_transposed` computes it."""
    genes = np.asarray(genes, dtype=np.intp)
    block = raw[genes]
    if columns is not None:
        block = np.take(block, columns, axis=1)
    block -= mean[genes, None]
    block /= scale[genes, None]
    return block


Design = Union[DenseDesign, StandardizedDesign]


def as_design(XT: Union[np.ndarray, Design]) -> Design:
    """``XT`` itself when it is a design, else a :class:`DenseDesign` of it."""
    return XT if isinstance(XT, (DenseDesign, StandardizedDesign)) else DenseDesign(XT)


def standardized_design(raw: np.ndarray, columns: Optional[np.ndarray] = None,
                        block: int = BLOCK_GENES) -> StandardizedDesign:
    """Standardize the genes (rows of ``raw``) over the samples ``columns``.

    Parameters
    ----------
    raw : numpy.ndarray
        ``(p, N)`` C-contiguous float64 raw genes, one row per gene.
    columns : numpy.ndarray, optional
        Indices of the training samples (default: all).
    block : int
        Genes per block.

    Returns
    -------
    StandardizedDesign

    Examples
    --------
    >>> raw = np.array([[1.0, 2.0, 3.0, 10.0], [5.0, 5.0, 5.0, 0.0]])
    >>> design = standardized_design(raw, np.array([0, 1, 2]))
    >>> design.rows(np.array([0, 1])).round(4).tolist()
    [[-1.2247, 0.0, 1.2247], [0.0, 0.0, 0.0]]
    >>> design.other_rows(np.array([0]), np.array([3])).round(4).tolist()
    [[9.798]]
    """
    p = raw.shape[0]
    n = raw.shape[1] if columns is None else columns.size
    mean, deviation = np.empty(p), np.empty(p)
    single = np.empty((p, n), dtype=np.float32)
    buffer = np.empty((min(block, p), n))
    for start in range(0, p, block):
        stop = min(p, start + block)
        chunk = buffer[:stop - start]
        if columns is None:
            np.copyto(chunk, raw[start:stop])
        else:  # mode "clip": no buffering of ``out`` (the indices are valid)
            np.take(raw[start:stop], columns, axis=1, out=chunk, mode="clip")
        mean[start:stop] = chunk.mean(axis=1)
        chunk -= mean[start:stop, None]
        deviation[start:stop] = np.sqrt(np.einsum("ij,ij->i", chunk, chunk) / n)
        provisional = deviation[start:stop]
        chunk *= 1.0 / np.where(provisional > 0.0, provisional, 1.0)[:, None]
        np.copyto(single[start:stop], chunk, casting="same_kind")
    scale = safe_scale(deviation, mean)
    # genes safe_scale treats as constant (it sees every gene): their rows again
    redo = np.flatnonzero(scale != np.where(deviation > 0.0, deviation, 1.0))
    if redo.size:
        single[redo] = _standardized_rows(raw, redo, columns, mean, scale)
    # a standardized row's norm is sqrt(n) deviation / scale (float32 rounding
    # and the reciprocal stay far inside the factor 1.001)
    row_norm = 1.001 * np.sqrt(n) * float(np.max(deviation / scale)) if p else 0.0
    return StandardizedDesign(raw, columns, mean, scale, single, row_norm)
