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
  centred and measured (mean and population standard deviation, the
  arithmetic of :func:`tools.statistics.standardize.standardize_transposed`;
  NumPy's vectorized sums group terms by memory alignment, so a mean may
  differ from the whole matrix's in the last bit), scaled and cast to
  float32. The scale is the deviation; the few genes
  :func:`~tools.statistics.standardize.safe_scale` (which sees every gene's
  deviation) scales otherwise are redone at the end. The float64
  standardized matrix is never written: an exact row is standardized when
  it is asked for, always from the stored mean and scale, so every row the
  path reads is consistent with every other.

A fold thus costs one blocked pass over its genes instead of writing and
re-reading a 20 MB float64 copy several times (gather, centre, measure,
scale, cast), and held-out samples are standardized only for the genes a
prediction uses.
"""

from __future__ import annotations

from typing import Optional, Tuple, Union

import numpy as np

from tools.statistics.adjust import GeneAdjustment
from tools.statistics.residualize import as_matrix
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

    Build with :func:`standardized_design`. With covariates, the standardized
    genes are also residualized on ``[1, Z]`` and re-standardized (the
    Frisch-Waugh-Lovell adjustment of :mod:`tools.statistics.adjust`).

    Attributes
    ----------
    raw : numpy.ndarray
        ``(p, N)`` raw genes of every sample (by reference, never modified).
    columns : numpy.ndarray or None
        The training samples (columns of ``raw``); None: all of them.
    mean, scale : numpy.ndarray
        Training statistics of each gene (as
        :func:`~tools.statistics.standardize.standardize_transposed` returns them).
    adjustment : GeneAdjustment or None
        The covariate adjustment (as
        :func:`~tools.statistics.adjust.adjust_transposed` returns it).
    single : numpy.ndarray or None
        ``(p, n)`` float32 training rows (None: products could overflow float32).
    row_norm : float
        Upper bound on the norms of the float32 rows.
    """

    def __init__(self, raw: np.ndarray, columns: Optional[np.ndarray], mean: np.ndarray,
                 scale: np.ndarray, adjustment: Optional[GeneAdjustment],
                 Z: Optional[np.ndarray], single: Optional[np.ndarray], row_norm: float
                 ) -> None:
        self.raw = raw
        self.columns = columns
        self.mean = mean
        self.scale = scale
        self.adjustment = adjustment
        self._Z = Z
        self.single = single if _usable(row_norm) else None
        self.row_norm = row_norm
        self.shape: Tuple[int, int] = (raw.shape[0], raw.shape[1] if columns is None
                                       else columns.size)

    def rows(self, genes: np.ndarray) -> np.ndarray:
        """Exact float64 training rows of ``genes``."""
        return self.other_rows(genes, self.columns, self._Z)

    def other_rows(self, genes: np.ndarray, columns: Optional[np.ndarray],
                   Z: Optional[np.ndarray] = None) -> np.ndarray:
        """Rows of ``genes`` over the samples ``columns`` (e.g. held-out ones, with
        their covariates ``Z``), transformed with the training statistics."""
        genes = np.asarray(genes, dtype=np.intp)
        block = _standardized_rows(self.raw, genes, columns, self.mean, self.scale)
        if self.adjustment is None:
            return block
        part = GeneAdjustment(self.adjustment.z_mean, self.adjustment.gamma[:, genes],
                              self.adjustment.scale[genes])
        return part.transposed(block, Z)


def _standardized_rows(raw: np.ndarray, genes: np.ndarray, columns: Optional[np.ndarray],
                       mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``(raw[genes][:, columns] - mean) / scale``, row by row as
    :func:`~tools.statistics.standardize.standardize_transposed` computes it."""
    genes = np.asarray(genes, dtype=np.intp)
    block = raw[genes] if columns is None else raw[np.ix_(genes, columns)]  # one gather
    block -= mean[genes, None]
    block /= scale[genes, None]
    return block


Design = Union[DenseDesign, StandardizedDesign]


def as_design(XT: Union[np.ndarray, Design]) -> Design:
    """``XT`` itself when it is a design, else a :class:`DenseDesign` of it."""
    return XT if isinstance(XT, (DenseDesign, StandardizedDesign)) else DenseDesign(XT)


def _provisional(deviation: np.ndarray) -> np.ndarray:
    """The scale used inside a block: the deviation (``inf`` when exactly 0)."""
    return np.where(deviation > 0.0, deviation, np.inf)


def float32_scratch(raw: np.ndarray) -> np.ndarray:
    """A buffer for the float32 copies of designs cut from ``raw`` (any samples).

    The folds of a cross-validation and the final fit are built one after the
    other, and each design's float32 copy is needed only while its path runs:
    writing them all into one buffer spares a fresh 10 MB allocation per fold
    (and the page faults of its first write, about 2 ms each here).
    """
    return np.empty(raw.shape[0] * raw.shape[1], dtype=np.float32)


def standardized_design(raw: np.ndarray, columns: Optional[np.ndarray] = None,
                        Z: Optional[np.ndarray] = None, block: int = BLOCK_GENES,
                        scratch: Optional[np.ndarray] = None) -> StandardizedDesign:
    """Standardize the genes (rows of ``raw``) over the samples ``columns``.

    Same numbers as :func:`~tools.statistics.standardize.standardize_transposed`
    on those samples, followed with covariates by
    :func:`~tools.statistics.adjust.adjust_transposed`, without writing the
    float64 result.

    Parameters
    ----------
    raw : numpy.ndarray
        ``(p, N)`` C-contiguous float64 raw genes, one row per gene.
    columns : numpy.ndarray, optional
        Indices of the training samples (default: all).
    Z : numpy.ndarray, optional
        Covariates of the training samples (``(n,)`` or ``(n, k)``).
    block : int
        Genes per block (a multiple of 16 keeps BLAS's grouping of rows, and
        so the bits of the per-gene products, those of the whole matrix).
    scratch : numpy.ndarray, optional
        A :func:`float32_scratch` buffer to hold the float32 copy (it is
        overwritten: a design built earlier in it is no longer usable for
        screening).

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
    single = (np.empty((p, n), dtype=np.float32) if scratch is None
              else scratch[:p * n].reshape(p, n))
    buffer = np.empty((min(block, p), n))
    adjusting = Z is not None
    if adjusting:
        Z = as_matrix(Z, n)
        z_mean = Z.mean(axis=0)
        projection = np.linalg.pinv(Z - z_mean).T      # (n, k), as adjust_transposed
        centred_z = (Z - z_mean).T                      # (k, n)
        gamma, residual_deviation = np.empty((Z.shape[1], p)), np.empty(p)
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
        provisional = _provisional(deviation[start:stop])[:, None]
        if adjusting:
            chunk /= provisional                         # the exact standardized genes
            shares = chunk @ projection                  # (genes, k)
            gamma[:, start:stop] = shares.T
            chunk -= shares @ centred_z
            residual_deviation[start:stop] = np.sqrt(np.einsum("ij,ij->i", chunk, chunk) / n)
            provisional = _provisional(residual_deviation[start:stop])[:, None]
        chunk *= 1.0 / provisional   # the float32 copy only: within the screen's bound
        np.copyto(single[start:stop], chunk, casting="same_kind")
    # safe_scale sees every gene's deviation: the genes it scales otherwise
    # (constant ones) are redone exactly
    scale = safe_scale(deviation, mean)
    redo = scale != _provisional(deviation)
    adjustment = None
    if adjusting:
        changed = np.flatnonzero(redo)
        if changed.size:   # constant genes: standardized to 0, nothing to adjust
            gamma[:, changed] = 0.0
            residual_deviation[changed] = 0.0
        final = safe_scale(residual_deviation)
        redo |= final != _provisional(residual_deviation)
        adjustment = GeneAdjustment(z_mean, gamma, final)
    design = StandardizedDesign(raw, columns, mean, scale, adjustment, Z, single, 0.0)
    redo = np.flatnonzero(redo)
    if redo.size:
        single[redo] = design.rows(redo)
    # a row's norm is sqrt(n) deviation / scale (float32 rounding and the
    # reciprocal stay far inside the factor 1.001)
    ratio = (residual_deviation / adjustment.scale) if adjusting else (deviation / scale)
    design.row_norm = 1.001 * np.sqrt(n) * float(np.max(ratio)) if p else 0.0
    design.single = single if _usable(design.row_norm) else None
    return design
