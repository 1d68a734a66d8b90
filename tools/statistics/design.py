"""The genes of one Lasso fit, in the layout the certified path reads (SPEC 5.4).

The certified path (:mod:`tools.statistics.lasso`) reads the genes x samples
matrix in two ways only: a few hundred exact float64 rows (the working set,
the genes a prediction needs) and, once per check, the product ``X^T r`` over
all genes, screened on a float32 copy (:mod:`tools.statistics.kkt_screen`)
whose error is bounded rigorously, the few genes that matter being
recomputed to float64 accuracy. A *design* gives exactly these:

* :class:`DenseDesign` wraps a matrix already in its final form (rows handed
  out as they are, the float32 copy made by a cast).
* :class:`StandardizedDesign` holds the **raw** genes and the training
  statistics of some samples (a cross-validation fold, or all samples); an
  exact row is standardized (and covariate-adjusted) when it is asked for,
  always from the stored statistics, so every row the path reads is
  consistent with every other. The float64 standardized matrix is never
  written.

A problem's designs come from one blocked pass over its genes
(:func:`problem_designs`), in blocks of 512 genes that stay in the CPU cache:

* the **final fit's** statistics (all samples) with the arithmetic of
  :func:`tools.statistics.standardize.standardize_transposed` and
  :func:`tools.statistics.adjust.adjust_transposed` (NumPy's vectorized sums
  group terms by memory alignment, so a mean may differ from the whole
  matrix's in the last bit);
* one float32 copy of the genes centred on their all-sample means
  (:class:`ScreeningCopy`), which every design of the problem screens on: a
  design's ``x_j^T r`` is ``f_j (c_j^T r) + g_j(r)``, ``c_j`` the centred gene
  over all samples, ``r`` the residual spread over the samples with zeros on
  the held-out ones, ``f_j`` the reciprocal of the gene's training scale(s)
  and ``g_j`` the (tiny) terms of the training mean's and the covariates'
  shifts (:class:`Screening`);
* the sums of each fold's **held-out** samples (``sum (x - m)``,
  ``sum (x - m)^2``, ``sum z (x - m)``), one small product per block, from
  which each fold's training statistics follow by subtraction
  (:func:`fold_design`): mean, deviation, the covariate regression
  ``gamma = pinv(Z_c) x_std`` and the residual deviation. Genes whose
  training variance (or residual variance) is below a ten-thousandth of
  what is subtracted from are recomputed from their gathered training
  columns, so cancellation never costs more than about ``1e-12`` relative.

A fold's statistics may differ from those of its gathered columns in the
last bits; they are the training statistics all the same (SPEC 5.5), and
every row the fold's path reads comes from them. :func:`standardized_design`
builds one design from its own samples' gathered columns (the reference the
tests compare with).
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

from tools.statistics.adjust import GeneAdjustment
from tools.statistics.residualize import as_matrix
from tools.statistics.rounding import (FLOAT32_LIMIT, SMALLEST_32, UNIT_ROUNDOFF_32,
                                       float32_product_bound)
from tools.statistics.standardize import safe_scale

BLOCK_GENES = 512          # genes per block: 512 x 167 float64 rows (~0.7 MB) stay in cache
CANCELLATION_GUARD = 1e-4  # fold statistics: genes keeping less than this share are recomputed
PINV_RCOND = 1e-15         # numpy.linalg.pinv's default relative cut-off


def _usable(row_norm: float) -> bool:
    """Whether products with rows of this norm stay safely inside float32's range."""
    return bool(np.isfinite(row_norm) and 0.0 < row_norm < FLOAT32_LIMIT)


class ScreeningCopy:
    """A float32 copy of genes (one row each) and bounds on its rows' norms.

    Parameters
    ----------
    single : numpy.ndarray
        ``(p, N)`` float32 rows.
    norms : numpy.ndarray
        ``(p,)`` upper bounds on the norms of the rows of ``single``.
    """

    def __init__(self, single: np.ndarray, norms: np.ndarray) -> None:
        self.single = single
        self.norms = norms
        self.norm_max = float(np.max(norms)) if norms.size else 0.0


class Screening:
    """How a design's screen gets ``x_j^T r`` for every gene from a :class:`ScreeningCopy`.

    ``x_j^T r = factor_j (c_j^T r_spread) + mean_shift_j sum(r)
    - (Z_c^T r) . gamma_shift_j`` with ``c_j`` the copy's row, ``r_spread``
    the residual placed at ``columns`` (zeros elsewhere). Without factor the
    copy's rows are the design's rows. The residuals screened are orthogonal
    to the training samples' ones and centred covariates, so the two shift
    terms are round-off: they are bounded (``max |mean_shift| |sum(r)|``,
    ``max ||gamma_shift_j|| ||Z_c^T r||``) rather than computed.

    Parameters
    ----------
    copy : ScreeningCopy
    columns : numpy.ndarray, optional
        The design's samples among the copy's columns (None: all, in order).
    factor : numpy.ndarray, optional
        ``(p,)`` scale of each row (None: 1, and no shifts).
    mean_shift : numpy.ndarray, optional
        ``(p,)`` coefficient of ``sum(r)``.
    gamma_shift : numpy.ndarray, optional
        ``(k, p)`` coefficients of ``Z_c^T r``.
    centred_z : numpy.ndarray, optional
        ``(n, k)`` the design's centred covariates ``Z_c``.
    """

    def __init__(self, copy: ScreeningCopy, columns: Optional[np.ndarray] = None,
                 factor: Optional[np.ndarray] = None, mean_shift: Optional[np.ndarray] = None,
                 gamma_shift: Optional[np.ndarray] = None,
                 centred_z: Optional[np.ndarray] = None) -> None:
        self.copy = copy
        self.columns = columns
        self.factor = factor
        self.mean_shift = mean_shift
        self.gamma_shift = gamma_shift
        self.centred_z = centred_z
        self.factor32 = None if factor is None else factor.astype(np.float32)
        self.mean_shift_max = (float(np.max(np.abs(mean_shift), initial=0.0))
                               if mean_shift is not None else 0.0)
        self.gamma_shift_max = (float(np.sqrt(np.max(np.einsum("kp,kp->p", gamma_shift,
                                                                 gamma_shift), initial=0.0)))
                                if gamma_shift is not None else 0.0)
        if factor is None:
            self.row_norm, self.factor_max = copy.norm_max, 1.0
        else:
            # the float32 factor rounds up by at most 2^-24: within the 1.001 of the norms
            self.row_norm = float(np.max(copy.norms * factor)) if factor.size else 0.0
            self.factor_max = float(np.max(factor)) if factor.size else 0.0

    def usable(self) -> bool:
        """Whether the copy's products stay inside float32's range at all."""
        return self.copy.single is not None and _usable(self.copy.norm_max)

    def approximate(self, residual: np.ndarray) -> Optional[Tuple[np.ndarray, float]]:
        """``|x_j^T r|`` for every gene and a bound on their error (None: use float64).

        Returns
        -------
        values : numpy.ndarray
            float32.
        bound : float
            Every value is within ``bound`` of the exact ``|x_j^T r|``.
        """
        return approximate_together([(self, residual)])[0]

    def prepare(self, residual: np.ndarray) -> Optional[Tuple[np.ndarray, float, float]]:
        """The float32 vector the copy is multiplied by, ``||r||`` and ``max |r|``
        (None: the products could leave float32's range, use float64)."""
        if not self.usable():
            return None
        r_norm = float(np.sqrt(residual @ residual))
        r_max = float(np.max(np.abs(residual), initial=0.0))
        if (not np.isfinite(r_norm) or r_max >= FLOAT32_LIMIT
                or max(self.copy.norm_max, self.row_norm) * r_norm >= FLOAT32_LIMIT):
            return None
        if self.columns is None:
            return residual.astype(np.float32), r_norm, r_max
        vector = np.zeros(self.copy.single.shape[1], dtype=np.float32)
        vector[self.columns] = residual
        return vector, r_norm, r_max

    def finish(self, values: np.ndarray, residual: np.ndarray, r_norm: float, r_max: float
               ) -> Tuple[np.ndarray, float]:
        """:meth:`approximate` from the copy's product ``values`` (float32, changed in
        place) and :meth:`prepare`'s norms of the residual."""
        n = self.copy.single.shape[1]
        bound = float32_product_bound(n, self.row_norm, r_norm, r_max)
        if self.factor is None:
            return np.abs(values, out=values), bound
        # scaled in float32 too: the multiplication by the rounded factor costs
        # at most 2 u of the magnitude (3 u below, with the subnormal range)
        values *= self.factor32
        np.abs(values, out=values)
        # The shifts are left out and bounded instead: the residual is
        # orthogonal to the training samples' ones and centred covariates, so
        # sum(r) and Z_c^T r are round-off
        shift = 0.0
        if self.mean_shift is not None:
            shift += self.mean_shift_max * abs(float(residual.sum()))
        if self.gamma_shift is not None:
            projected = self.centred_z.T @ residual
            shift += self.gamma_shift_max * float(np.sqrt(projected @ projected))
        # (a factor in float32's subnormal range is off by up to 2^-149 absolutely)
        bound += (2.0 * n * SMALLEST_32 * self.factor_max * (r_max + 2.0)
                  + 3.0 * UNIT_ROUNDOFF_32 * (1.1 * self.row_norm * r_norm + bound)
                  + SMALLEST_32 * (self.copy.norm_max * r_norm + 4.0) + 1.01 * shift)
        return values, bound


def approximate_together(requests: Sequence[Tuple[Screening, np.ndarray]]
                         ) -> List[Optional[Tuple[np.ndarray, float]]]:
    """:meth:`Screening.approximate` of several (screening, residual) pairs at once.

    The requests on the same copy are multiplied in one matrix product (the
    copy is read once for all of them: the folds of a problem screen on one
    copy, :func:`problem_designs`); the bound of each value holds whatever
    the order of the float32 sums.
    """
    results: List[Optional[Tuple[np.ndarray, float]]] = [None] * len(requests)
    groups: dict = {}
    for index, (screening, residual) in enumerate(requests):
        prepared = screening.prepare(residual)
        if prepared is not None:
            groups.setdefault(id(screening.copy), []).append((index, prepared))
    for members in groups.values():
        single = requests[members[0][0]][0].copy.single
        if len(members) == 1:
            products = (single @ members[0][1][0])[None, :]
        else:   # (f, N) @ (N, p): the copy read once
            products = np.stack([prepared[0] for _, prepared in members]) @ single.T
        for (index, (_, r_norm, r_max)), values in zip(members, products):
            screening, residual = requests[index]
            results[index] = screening.finish(values, residual, r_norm, r_max)
    return results


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
    screening : Screening

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
        self.screening = Screening(ScreeningCopy(self.single, np.array([self.row_norm])))

    def rows(self, genes: np.ndarray) -> np.ndarray:
        """``(len(genes), n)`` float64 rows."""
        return self.XT[np.asarray(genes, dtype=np.intp)]

    def products(self, genes: np.ndarray, residuals: np.ndarray) -> np.ndarray:
        """``rows(genes) @ residuals`` (``residuals``: ``(n,)`` or ``(n, m)``)."""
        return self.rows(genes) @ residuals


class StandardizedDesign:
    """Genes standardized with the statistics of some samples, rows made on demand.

    Build with :func:`problem_designs` (a problem's final fit and folds) or
    :func:`standardized_design` (one set of samples). With covariates, the
    standardized genes are also residualized on ``[1, Z]`` and
    re-standardized (the Frisch-Waugh-Lovell adjustment of
    :mod:`tools.statistics.adjust`).

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
    screening : Screening
        What the screen multiplies (:class:`Screening`).
    single : numpy.ndarray or None
        ``(p, n)`` float32 training rows when the design has a copy of its own
        (:func:`standardized_design`); None when it screens on a shared copy.
    row_norm : float
        Upper bound on the norms of the rows the screen multiplies.
    """

    def __init__(self, raw: np.ndarray, columns: Optional[np.ndarray], mean: np.ndarray,
                 scale: np.ndarray, adjustment: Optional[GeneAdjustment],
                 Z: Optional[np.ndarray], screening: Screening) -> None:
        self.raw = raw
        self.columns = columns
        self.mean = mean
        self.scale = scale
        self.adjustment = adjustment
        self._Z = Z
        self.screening = screening
        self.single = screening.copy.single if screening.factor is None else None
        self.row_norm = screening.row_norm
        self.shape: Tuple[int, int] = (raw.shape[0], raw.shape[1] if columns is None
                                       else columns.size)

    def rows(self, genes: np.ndarray) -> np.ndarray:
        """Exact float64 training rows of ``genes``."""
        return self.other_rows(genes, self.columns, self._Z)

    def products(self, genes: np.ndarray, residuals: np.ndarray) -> np.ndarray:
        """``rows(genes) @ residuals`` to float64 accuracy, from whole raw rows.

        For the screens' decisions (which genes violate, which are nearest to
        the boundary), not for the path's arithmetic: the raw rows of ``genes``
        are read contiguously and centred over every sample (no gather of the
        training columns), multiplied by the residuals spread over the samples
        (zeros on the others), then scaled and adjusted:
        ``(x_std . r - gamma (Z - z_mean)^T r) / s_adj``. The value may differ
        from ``rows(genes) @ residuals`` in the last bits.

        Parameters
        ----------
        genes : numpy.ndarray
            Gene indices.
        residuals : numpy.ndarray
            ``(n,)`` or ``(n, m)`` vectors over the training samples.
        """
        genes = np.asarray(genes, dtype=np.intp)
        if self.columns is None:
            spread = residuals
        else:
            spread = np.zeros((self.raw.shape[1],) + residuals.shape[1:])
            spread[self.columns] = residuals
        block = self.raw[genes]
        block -= self.mean[genes, None]
        scale = self.scale[genes]
        if residuals.ndim == 2:
            scale = scale[:, None]
        values = (block @ spread) / scale
        if self.adjustment is None:
            return values
        centred_z = self._Z - self.adjustment.z_mean        # (n, k)
        shift = self.adjustment.gamma[:, genes].T @ (centred_z.T @ residuals)
        adjusted_scale = self.adjustment.scale[genes]
        if residuals.ndim == 2:
            adjusted_scale = adjusted_scale[:, None]
        return (values - shift) / adjusted_scale

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


def _covariate_projection(Z: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``z_mean``, ``pinv(Z - z_mean)^T`` (n, k) and ``(Z - z_mean)^T`` (k, n), as
    :func:`~tools.statistics.adjust.adjust_transposed` computes them."""
    z_mean = Z.mean(axis=0)
    return z_mean, np.linalg.pinv(Z - z_mean).T, (Z - z_mean).T


def _finish(raw: np.ndarray, columns: Optional[np.ndarray], Z: Optional[np.ndarray],
            mean: np.ndarray, deviation: np.ndarray, gamma: Optional[np.ndarray],
            residual_deviation: Optional[np.ndarray], z_mean: Optional[np.ndarray],
            screening: Optional[Screening] = None
            ) -> Tuple[StandardizedDesign, np.ndarray]:
    """A design from its raw statistics: the variance floor of
    :func:`~tools.statistics.standardize.safe_scale` (which sees every gene's
    deviation); constant genes keep no covariate share.

    Returns
    -------
    design : StandardizedDesign
        With ``screening`` (or a placeholder to replace).
    redo : numpy.ndarray of bool
        Genes whose scale is not their provisional one (constant genes).
    """
    scale = safe_scale(deviation, mean)
    redo = scale != _provisional(deviation)
    adjustment = None
    if gamma is not None:
        changed = np.flatnonzero(redo)
        if changed.size:   # constant genes: standardized to 0, nothing to adjust
            gamma[:, changed] = 0.0
            residual_deviation[changed] = 0.0
        final = safe_scale(residual_deviation)
        redo |= final != _provisional(residual_deviation)
        adjustment = GeneAdjustment(z_mean, gamma, final)
    placeholder = Screening(ScreeningCopy(None, np.zeros(0)))
    design = StandardizedDesign(raw, columns, mean, scale, adjustment, Z,
                                screening or placeholder)
    return design, redo


def standardized_design(raw: np.ndarray, columns: Optional[np.ndarray] = None,
                        Z: Optional[np.ndarray] = None, block: int = BLOCK_GENES
                        ) -> StandardizedDesign:
    """Standardize the genes (rows of ``raw``) over the samples ``columns``.

    Same numbers as :func:`~tools.statistics.standardize.standardize_transposed`
    on those samples, followed with covariates by
    :func:`~tools.statistics.adjust.adjust_transposed`, without writing the
    float64 result: one blocked pass over the gathered samples, which writes
    only a float32 copy of the standardized rows for the screen.

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
    adjusting = Z is not None
    gamma = residual_deviation = z_mean = None
    if adjusting:
        Z = as_matrix(Z, n)
        z_mean, projection, centred_z = _covariate_projection(Z)
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
            provisional = _adjust_block(chunk, provisional, projection, centred_z,
                                        gamma[:, start:stop], residual_deviation[start:stop])
        chunk *= 1.0 / provisional   # the float32 copy only: within the screen's bound
        np.copyto(single[start:stop], chunk, casting="same_kind")
    design, redo = _finish(raw, columns, Z, mean, deviation, gamma, residual_deviation,
                           z_mean)
    redo = np.flatnonzero(redo)
    if redo.size:
        single[redo] = design.rows(redo)
    # a row's norm is sqrt(n) deviation / scale (float32 rounding and the
    # reciprocal stay far inside the factor 1.001)
    ratio = ((residual_deviation / design.adjustment.scale) if adjusting
             else (deviation / design.scale))
    row_norm = 1.001 * np.sqrt(n) * float(np.max(ratio)) if p else 0.0
    design.screening = Screening(ScreeningCopy(single if _usable(row_norm) else None,
                                               np.array([row_norm])))
    design.single, design.row_norm = design.screening.copy.single, row_norm
    return design


def _adjust_block(chunk: np.ndarray, provisional: np.ndarray, projection: np.ndarray,
                  centred_z: np.ndarray, gamma: np.ndarray, residual_deviation: np.ndarray
                  ) -> np.ndarray:
    """The covariate adjustment of a centred block, in place (the arithmetic of
    :func:`~tools.statistics.adjust.adjust_transposed`): standardized, its
    ``Z`` share removed; ``gamma`` and ``residual_deviation`` are written.

    Returns the block's provisional residual scale.
    """
    chunk /= provisional                         # the exact standardized genes
    shares = chunk @ projection                  # (genes, k)
    gamma[:] = shares.T
    chunk -= shares @ centred_z
    residual_deviation[:] = np.sqrt(np.einsum("ij,ij->i", chunk, chunk) / chunk.shape[1])
    return _provisional(residual_deviation)[:, None]


class FoldSums:
    """Per-gene sums over each fold's held-out samples, and over all samples.

    Written by :func:`problem_designs` (one product per block of genes);
    centred on the all-sample means ``centre``.

    Attributes
    ----------
    centre : (p,) the all-sample means (the final fit's).
    total, squares : (p,) ``sum (x - centre)`` and ``sum (x - centre)^2`` over all samples.
    held : (p, F) ``sum (x - centre)`` over each fold's held-out samples.
    held_squares : (p, F) ``sum (x - centre)^2`` over them.
    held_z : (k, p, F) ``sum z (x - centre)`` over them (None without covariates).
    total_z : (k, p) ``sum z (x - centre)`` over all samples.
    """

    def __init__(self, p: int, folds: int, k: int) -> None:
        self.centre = np.empty(p)
        self.squares = np.empty(p)
        self.held = np.empty((p, folds))
        self.held_squares = np.empty((p, folds))
        self.held_z = np.empty((k, p, folds)) if k else None
        self.total = np.empty(p)
        self.total_z = np.empty((k, p)) if k else None

    @staticmethod
    def weights(membership: np.ndarray, Z: Optional[np.ndarray]) -> np.ndarray:
        """The columns a centred block is multiplied by: each fold's indicator, ones,
        and with covariates each covariate times each indicator, then each covariate."""
        columns = [membership, np.ones((membership.shape[0], 1))]
        if Z is not None:
            columns += [membership * Z[:, [c]] for c in range(Z.shape[1])] + [Z]
        return np.hstack(columns)

    def write(self, rows: slice, centred: np.ndarray, weights: np.ndarray,
              membership: np.ndarray) -> None:
        """The sums of one centred block of genes (``rows`` of the gene axis)."""
        folds = self.held.shape[1]
        products = centred @ weights
        self.held[rows] = products[:, :folds]
        self.total[rows] = products[:, folds]
        if self.held_z is not None:
            k = self.held_z.shape[0]
            self.held_z[:, rows] = (products[:, folds + 1:folds + 1 + k * folds]
                                    .reshape(-1, k, folds).transpose(1, 0, 2))
            self.total_z[:, rows] = products[:, folds + 1 + k * folds:].T
        self.held_squares[rows] = (centred * centred) @ membership


def problem_designs(raw: np.ndarray, Z: Optional[np.ndarray] = None,
                    folds: Sequence[np.ndarray] = (), block: int = BLOCK_GENES
                    ) -> Tuple[StandardizedDesign, List[StandardizedDesign]]:
    """The designs of a problem's final fit and of its cross-validation folds.

    One blocked pass over the genes (see the module docstring): the final
    fit's statistics with the arithmetic of :func:`standardized_design` on all
    samples (the same bits), one float32 copy of the centred genes shared by
    every design's screen, and the held-out sums from which each fold's
    training statistics follow (:func:`fold_design`).

    Parameters
    ----------
    raw : numpy.ndarray
        ``(p, N)`` C-contiguous float64 raw genes, one row per gene.
    Z : numpy.ndarray, optional
        Covariates of all samples (``(N,)`` or ``(N, k)``).
    folds : sequence of numpy.ndarray
        Held-out samples of each fold (a fold trains on all the others).
    block : int
        Genes per block (as :func:`standardized_design`).

    Returns
    -------
    final : StandardizedDesign
    fold_designs : list of StandardizedDesign
        One per fold, over its training samples.
    """
    p, N = raw.shape
    folds = [np.asarray(test, dtype=np.intp) for test in folds]
    membership = np.zeros((N, len(folds)))
    for index, test in enumerate(folds):
        membership[test, index] = 1.0
    adjusting = Z is not None
    gamma = residual_deviation = z_mean = None
    k = 0
    if adjusting:
        Z = as_matrix(Z, N)
        k = Z.shape[1]
        z_mean, projection, centred_z = _covariate_projection(Z)
        gamma, residual_deviation = np.empty((k, p)), np.empty(p)
    weights = FoldSums.weights(membership, Z)
    sums = FoldSums(p, len(folds), k)
    mean, deviation = sums.centre, np.empty(p)
    single = np.empty((p, N), dtype=np.float32)
    buffer = np.empty((min(block, p), N))
    for start in range(0, p, block):
        stop = min(p, start + block)
        chunk = buffer[:stop - start]
        np.copyto(chunk, raw[start:stop])
        mean[start:stop] = chunk.mean(axis=1)
        chunk -= mean[start:stop, None]
        squares = np.einsum("ij,ij->i", chunk, chunk)
        sums.squares[start:stop] = squares
        deviation[start:stop] = np.sqrt(squares / N)
        np.copyto(single[start:stop], chunk, casting="same_kind")
        if folds:
            sums.write(slice(start, stop), chunk, weights, membership)
        provisional = _provisional(deviation[start:stop])[:, None]
        if adjusting:
            _adjust_block(chunk, provisional, projection, centred_z, gamma[:, start:stop],
                          residual_deviation[start:stop])
    # float32 rounding of each entry: relative 2^-24, far inside the factor 1.001
    copy = ScreeningCopy(single, 1.001 * np.sqrt(sums.squares))
    final, _ = _finish(raw, None, Z, mean, deviation, gamma, residual_deviation, z_mean)
    final.screening = _screening(copy, final, None, None, Z)
    final.row_norm = final.screening.row_norm
    designs = [fold_design(raw, sums, index, test, copy, Z) for index, test in enumerate(folds)]
    return final, designs


def _screening(copy: ScreeningCopy, design: StandardizedDesign, columns: Optional[np.ndarray],
               mean_shift: Optional[np.ndarray], Z: Optional[np.ndarray]) -> Screening:
    """The screening of ``design`` on the centred copy (see :class:`Screening`)."""
    factor = 1.0 / design.scale
    adjustment = design.adjustment
    gamma_shift = centred_z = None
    if adjustment is not None:
        factor = factor / adjustment.scale
        gamma_shift = adjustment.gamma / adjustment.scale
        centred_z = Z - adjustment.z_mean
        if mean_shift is not None:
            mean_shift = mean_shift / adjustment.scale
    return Screening(copy, columns, factor, mean_shift, gamma_shift, centred_z)


def fold_design(raw: np.ndarray, sums: FoldSums, index: int, test: np.ndarray,
                copy: ScreeningCopy, Z: Optional[np.ndarray] = None) -> StandardizedDesign:
    """The design of the training samples of fold ``index`` from the held-out sums.

    With ``n`` training samples, ``d = mean_train - centre`` and ``x~ = x -
    centre``: ``d = (sum x~ - held x~) / n``, the training sum of squares
    ``sum x~^2 - held x~^2 - n d^2``, and with covariates ``b = Z_c^T x~`` over
    the training samples ``= total_z - held_z - n d z_mean``, ``gamma =
    G^+ b / s`` (``G^+`` the pseudo-inverse of ``Z_c^T Z_c`` with
    :func:`numpy.linalg.pinv`'s cut-off on ``Z_c``'s singular values) and the
    residual variance ``(ss - b^T G^+ b) / (n s^2)``. Genes left with less than
    ``CANCELLATION_GUARD`` of what was subtracted are recomputed from their
    gathered training columns (as :func:`standardized_design`).

    Parameters
    ----------
    raw : numpy.ndarray
        ``(p, N)`` raw genes.
    sums : FoldSums
    index : int
        The fold.
    test : numpy.ndarray
        Its held-out samples.
    copy : ScreeningCopy
        The problem's centred float32 copy.
    Z : numpy.ndarray, optional
        ``(N, k)`` covariates of all samples.
    """
    N = raw.shape[1]
    keep = np.ones(N, dtype=bool)
    keep[test] = False
    columns = np.flatnonzero(keep)
    n = columns.size
    shift = (sums.total - sums.held[:, index]) / n
    mean = sums.centre + shift
    ss = (sums.squares - sums.held_squares[:, index]) - n * shift * shift
    exact = ss < CANCELLATION_GUARD * sums.squares
    deviation = np.sqrt(np.maximum(ss, 0.0) / n)
    gamma = residual_deviation = z_mean = Z_train = None
    if Z is not None:
        Z_train = Z[columns]
        z_mean = Z_train.mean(axis=0)
        centred = Z_train - z_mean
        inverse = _gram_pinv(centred)
        b = ((sums.total_z - sums.held_z[:, :, index])
             - n * z_mean[:, None] * shift[None, :])                   # (k, p)
        explained = np.einsum("kp,kl,lp->p", b, inverse, b)
        exact |= explained > (1.0 - CANCELLATION_GUARD) * ss
        with np.errstate(divide="ignore", invalid="ignore"):
            gamma = (inverse @ b) / np.where(deviation > 0.0, deviation, np.inf)
            variance = (ss - explained) / (n * deviation * deviation)
        residual_deviation = np.sqrt(np.where(deviation > 0.0, np.maximum(variance, 0.0), 0.0))
    redo = np.flatnonzero(exact & (sums.squares > 0.0))
    if redo.size:
        _exact_statistics(raw, redo, columns, Z_train, mean, deviation, gamma,
                          residual_deviation)
    design, _ = _finish(raw, columns, Z_train, mean, deviation, gamma, residual_deviation,
                        z_mean)
    design.screening = _screening(copy, design, columns, -shift / design.scale, Z_train)
    design.row_norm = design.screening.row_norm
    return design


def _gram_pinv(centred: np.ndarray) -> np.ndarray:
    """``V diag(1 / s^2) V^T`` over the singular values ``s`` of ``centred`` that
    :func:`numpy.linalg.pinv` keeps: ``pinv(Z_c) = G^+ Z_c^T`` with this ``G^+``."""
    _, values, right = np.linalg.svd(centred, full_matrices=False)
    cutoff = PINV_RCOND * (float(values.max()) if values.size else 0.0)
    inverse = np.where(values > cutoff, 1.0 / np.where(values > cutoff, values, 1.0), 0.0)
    return (right.T * inverse ** 2) @ right


def _exact_statistics(raw: np.ndarray, genes: np.ndarray, columns: np.ndarray,
                      Z: Optional[np.ndarray], mean: np.ndarray, deviation: np.ndarray,
                      gamma: Optional[np.ndarray], residual_deviation: Optional[np.ndarray]
                      ) -> None:
    """Statistics of ``genes`` from their gathered training columns, in place (the
    arithmetic of :func:`standardized_design`)."""
    chunk = raw[np.ix_(genes, columns)]
    n = columns.size
    mean[genes] = chunk.mean(axis=1)
    chunk -= mean[genes, None]
    deviation[genes] = np.sqrt(np.einsum("ij,ij->i", chunk, chunk) / n)
    if Z is not None:
        _, projection, centred_z = _covariate_projection(Z)
        part_gamma, part_residual = np.empty((Z.shape[1], genes.size)), np.empty(genes.size)
        _adjust_block(chunk, _provisional(deviation[genes])[:, None], projection, centred_z,
                      part_gamma, part_residual)
        gamma[:, genes] = part_gamma
        residual_deviation[genes] = part_residual
