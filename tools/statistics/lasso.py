"""Converged Lasso solutions along a penalty grid (SPEC 5.4).

The objective is scikit-learn's ``(1 / (2 n)) ||y - X w - b||^2 + alpha ||w||_1``
on standardized genes. Gene matrices are wide (n ~ 167 samples, p ~ 18,500
genes), and the benchmark's grid reaches ``alpha = 1e-6``, where the solution
almost interpolates the data. Coordinate descent converges very slowly there
(upstream's lists of thousands of genes at small penalties were such
unconverged iterates); the exact solution has at most ``n - 1`` non-zero
coefficients (centred data have rank ``n - 1``).

Solver: *working-set LARS-lasso homotopy with KKT certification*.

* The LARS-lasso homotopy (Efron et al. 2004, with the lasso modification:
  variables leave the active set when their coefficient crosses zero) follows
  the exact piecewise-linear solution path from ``alpha_max`` down through
  every grid penalty.
* It runs on a *working set* W of genes (initially those most correlated with
  y), so each step costs O(n |W|) instead of O(n p).
* Every few events (adaptive stride) and at every grid penalty the current
  point is checked on **all** genes by the Karush-Kuhn-Tucker conditions (one
  product ``X^T r``). Genes that violate them join W and the homotopy resumes
  from the latest recorded knot at which they still satisfied the conditions
  (or the last checked point); after a passed check, the outside genes
  nearest to the boundary join W pre-emptively. A solution certified on all
  genes is the exact Lasso solution (the problem is convex), so the working
  set only changes speed, never the answer.
* The active set's inverse Gram matrix is updated in O(k^2) per event and
  recomputed by Cholesky every ``REFRESH_EVERY`` events; coefficients at a
  checked point are re-solved from the active set and signs (at a grid
  penalty by a fresh Cholesky factorization of the Gram matrix), so round-off
  does not accumulate.
* On a large working set an event's product ``X_W u`` is done in float32;
  the steps are then rigorous lower bounds and the genes that may enter
  first are re-evaluated in float64, so the events are the float64 ones.
* At a grid penalty a working set above ``PRUNE_ABOVE n`` genes is cut, in
  place, to the active genes and the ``n`` others nearest to the boundary.

Measured on n = 167, p = 18,530 (``benchmarks/bench_regress.py``), this is far
faster than warm-started coordinate descent (which does not reach the
``<= n`` sparsity at small penalties) and than scikit-learn's full-width
``lars_path``.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np
from scipy.linalg.lapack import dpotrf, dpotrs, dtrtri
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context
from sklearn.utils._param_validation import Interval, Options, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from tools.statistics.design import Design, as_design
from tools.statistics.kkt_screen import CorrelationScreen, Search, run_alone, run_together
from tools.statistics.rounding import FLOAT32_LIMIT, float32_product_bound

logger = logging.getLogger(__name__)

KKT_TOL = 1e-6            # relative tolerance of the certification
COLLINEAR_TOL = 1e-10     # relative pivot below which an entering gene is collinear
MAX_CHECKS = 10_000       # safety cap on checks per grid penalty
CHECK_STRIDE = 16         # homotopy events between full KKT checks (adaptive)
MIN_STRIDE, MAX_STRIDE = 4, 128
PRUNE_ABOVE = 2           # at a grid penalty, a working set above PRUNE_ABOVE n genes is pruned
REFRESH_EVERY = 64        # events between refreshes of the inverse away from grid penalties
PENDING = 16              # rank-one updates of the inverse Gram matrix kept aside
NEAR_BOUNDARY = 64        # outside genes added pre-emptively after a passed check
NEAR_FRACTION = 0.5       # ... among those with |x^T r| above this fraction of the level
FLOAT32_EVENTS_BYTES = 3 << 19   # float64 working sets from 1.5 MiB step with float32 products
FLOAT64_SLACK = 2.0 ** -50   # rounding of the float64 updates of the correlations, per unit


@dataclass
class LassoPath:
    """Certified Lasso solutions at a grid of penalties.

    Attributes
    ----------
    alphas : numpy.ndarray
        The penalties, in the order given by the caller.
    coefs : numpy.ndarray
        ``(len(alphas), p)`` coefficients on the (standardized) columns.
    kkt_violation : numpy.ndarray
        Largest relative KKT violation at each penalty (``<= KKT_TOL`` when
        certified).
    n_steps : int
        Homotopy steps taken (over all working-set rounds).
    working_set_size : int
        Final size of the working set.
    """

    alphas: np.ndarray
    coefs: np.ndarray
    kkt_violation: np.ndarray
    n_steps: int = 0
    working_set_size: int = 0

    def support(self, index: int) -> np.ndarray:
        """Indices of the non-zero coefficients at ``alphas[index]``."""
        return np.flatnonzero(self.coefs[index])


@dataclass
class _State:
    """A certified point of the path: active genes (global ids), signs, level."""

    active: np.ndarray
    signs: np.ndarray
    level: float
    coef: np.ndarray = field(default_factory=lambda: np.zeros(0))
    just_dropped: int = -1


class _ActiveSet:
    """Rows, Gram matrix and inverse Gram matrix of the active genes.

    Buffers are preallocated for ``n`` members. Adding a gene borders the
    inverse (Schur complement) and dropping one removes it by the inverse's
    block formula; both change the existing block by a rank-one term, which
    is kept aside (``U W^T``, at most ``PENDING`` terms) and folded into the
    stored matrix by one matrix product when the list is full, so an event
    costs O(k) array operations instead of a k x k update. :meth:`refresh`
    recomputes the inverse from the Gram matrix by Cholesky to stop round-off
    from accumulating. Members are unordered: a dropped member is replaced by
    the last one.
    """

    def __init__(self, XW: np.ndarray, y: np.ndarray, members: Sequence[int]) -> None:
        self.XW = XW
        self.y = y
        n = XW.shape[1]
        self.members: List[int] = []
        self._rows = np.empty((n + 1, n))
        self._gram = np.empty((n + 1, n + 1))
        self._inv = np.empty((n + 1, n + 1))      # the inverse is _inv + U W^T
        self._left = np.empty((n + 1, PENDING))    # U
        self._right = np.empty((n + 1, PENDING))   # W
        self._pending = 0
        self.updates = 0                           # events since the last refresh
        self.border: Tuple[np.ndarray, float] = (np.zeros(0), 1.0)  # of the last add
        self.removed_column = np.zeros(0)          # of the inverse, at the last drop
        self._rows_y = np.empty(n + 1)
        for j in members:
            k = len(self.members)
            self.members.append(int(j))
            self._rows[k] = XW[j]
        k = len(self.members)
        if k:
            rows = self._rows[:k]
            self._gram[:k, :k] = rows @ rows.T
            self._rows_y[:k] = rows @ y
            self.refresh()

    def __len__(self) -> int:
        return len(self.members)

    @property
    def rows(self) -> np.ndarray:
        """``(k, n)`` rows of the members."""
        return self._rows[:len(self.members)]

    @property
    def rows_y(self) -> np.ndarray:
        """``X_A y``."""
        return self._rows_y[:len(self.members)]

    def refresh(self) -> None:
        """Recompute the inverse Gram matrix from scratch (Cholesky)."""
        k = len(self.members)
        self._pending = self.updates = 0
        if not k:
            return
        # LAPACK's potrf as scipy.linalg.cholesky(lower=True) calls it, without
        # the wrapper's checks (this runs at every grid penalty and check)
        chol, info = dpotrf(self._gram[:k, :k], lower=1, clean=1)
        if info != 0:
            raise np.linalg.LinAlgError(f"{info}-th leading minor of the Gram matrix is "
                                        "not positive definite")
        inv_chol, info = dtrtri(chol, lower=1)
        if info != 0:
            raise np.linalg.LinAlgError(f"dtrtri failed with info={info}")
        self._inv[:k, :k] = inv_chol.T @ inv_chol

    def solve_factored(self, vector: np.ndarray) -> np.ndarray:
        """``G^{-1} vector`` from a fresh Cholesky factorization of the Gram matrix
        (LAPACK's potrf and potrs); the stored inverse is left as it is."""
        k = len(self.members)
        chol, info = dpotrf(self._gram[:k, :k], lower=1, clean=0)
        if info != 0:
            raise np.linalg.LinAlgError(f"{info}-th leading minor of the Gram matrix is "
                                        "not positive definite")
        solution, info = dpotrs(chol, vector, lower=1)
        if info != 0:
            raise np.linalg.LinAlgError(f"dpotrs failed with info={info}")
        return solution

    def solve(self, vector: np.ndarray) -> np.ndarray:
        """``G^{-1} vector``."""
        k, r = len(self.members), self._pending
        result = self._inv[:k, :k] @ vector
        if r:
            result += self._left[:k, :r] @ (self._right[:k, :r].T @ vector)
        return result

    def _column(self, i: int) -> np.ndarray:
        """Column ``i`` of the inverse Gram matrix (a new array)."""
        k, r = len(self.members), self._pending
        column = self._inv[:k, i].copy()
        if r:
            column += self._left[:k, :r] @ self._right[i, :r]
        return column

    def _slot(self, k: int) -> int:
        """The column of ``U`` and ``W`` for the next rank-one term on the leading
        ``k`` rows (the kept terms are folded into the stored inverse when full)."""
        r = self._pending
        if r == PENDING:
            self._inv[:k, :k] += self._left[:k] @ self._right[:k].T
            r = 0
        self._pending = r + 1
        return r

    def try_add(self, j: int) -> bool:
        """Add gene ``j`` unless it is (numerically) collinear with the set."""
        x = self.XW[j]
        norm2 = float(x @ x)
        k = len(self.members)
        if norm2 <= 0.0 or k >= self._rows.shape[0]:
            return False
        cross = self._rows[:k] @ x
        # G^-1 cross (:meth:`solve`, inline: this runs at every entering gene)
        r = self._pending
        projected = self._inv[:k, :k] @ cross
        if r:
            projected += self._left[:k, :r] @ (self._right[:k, :r].T @ cross)
        pivot2 = norm2 - float(cross @ projected)
        if pivot2 <= COLLINEAR_TOL * norm2:
            return False
        self.border = (projected, pivot2)
        # the new member's row of U and W is zero: its row and column of the
        # inverse are stored in full. The rank-one term is projected times
        # projected / pivot2, written in place.
        left, right, inv = self._left, self._right, self._inv
        left[k] = 0.0
        right[k] = 0.0
        r = self._slot(k)
        left[:k, r] = projected
        scaled = np.divide(projected, pivot2, out=right[:k, r])
        np.negative(scaled, out=inv[k, :k])
        inv[:k, k] = inv[k, :k]
        inv[k, k] = 1.0 / pivot2
        gram = self._gram
        gram[k, :k] = gram[:k, k] = cross
        gram[k, k] = norm2
        self._rows[k] = x
        self._rows_y[k] = float(x @ self.y)
        self.members.append(j)
        self.updates += 1
        return True

    def drop(self, i: int) -> int:
        """Remove the ``i``-th member; the last member moves to slot ``i``.

        Returns
        -------
        int
            The slot the moved member came from (``k - 1``).
        """
        last = len(self.members) - 1
        size = last + 1
        column = self._column(i)
        self.removed_column = column
        # block formula: the inverse without member i (its row and column become
        # 0), the rank-one term column times column / -column[i] written in place
        r = self._slot(size)
        self._left[:size, r] = column
        np.divide(column, -column[i], out=self._right[:size, r])
        if i != last:
            for buffer in (self._gram, self._inv):
                buffer[i, :size] = buffer[last, :size]
                buffer[:size, i] = buffer[:size, last]
            for buffer in (self._left, self._right, self._rows):
                buffer[i] = buffer[last]
            self._rows_y[i] = self._rows_y[last]
            self.members[i] = self.members[last]
        self.members.pop()
        self.updates += 1
        return last


class _Homotopy:
    """LARS-lasso steps restricted to a working set (rows of ``XW``).

    Signs and coefficients of the active genes live in preallocated buffers
    (slots aligned with the active set's members).
    """

    def __init__(self, working: "_WorkingSet", y: np.ndarray, state: "_State") -> None:
        self.XW, self.XW32, self.row_norm = working.rows, working.rows32, working.row_norm
        XW, position = self.XW, working.position
        self.y = y
        self.set = _ActiveSet(XW, y, [int(position[g]) for g in state.active])
        k = len(self.set)
        self._signs = np.zeros(y.size + 1)
        self._coef = np.zeros(y.size + 1)
        self._signs[:k] = state.signs
        self.level = float(state.level)
        self.is_active = np.zeros(XW.shape[0], dtype=bool)
        self.is_active[self.set.members] = True
        self.blocked = np.zeros(XW.shape[0], dtype=bool)
        self.excluded = self.is_active.copy()
        self._floor = np.zeros(0)      # steps' floor of the excluded genes (see descend)
        self.steps = 0
        self.just_dropped = int(position[state.just_dropped]) if state.just_dropped >= 0 else -1
        self.just_added = -1
        self.exact_coef(refresh=False)   # the active set has just inverted its Gram matrix
        self.refresh_correlations()
        self.knots: List[tuple] = []
        self._knot_origin: tuple = ([], np.zeros(0), np.zeros(0))

    @property
    def signs(self) -> np.ndarray:
        """Signs of the active genes (a view)."""
        return self._signs[:len(self.set)]

    @property
    def coef(self) -> np.ndarray:
        """Coefficients of the active genes (a view)."""
        return self._coef[:len(self.set)]

    def extend(self, working: "_WorkingSet") -> None:
        """Use an enlarged working set (new rows appended at the end)."""
        old = self.XW.shape[0]
        self.XW, self.XW32, self.row_norm = working.rows, working.rows32, working.row_norm
        XW = self.XW
        self.set.XW = XW
        extra = XW.shape[0] - old
        if extra > 0:
            self.corr = np.concatenate([self.corr, XW[old:] @ self.residual()])
            self.is_active = np.concatenate([self.is_active, np.zeros(extra, dtype=bool)])
            self.blocked = np.concatenate([self.blocked, np.zeros(extra, dtype=bool)])
            self.excluded = self.is_active | self.blocked

    def _point(self) -> tuple:
        return (list(self.set.members), self.signs.copy(), self.level, self.just_dropped)

    def knot_point(self, index: int) -> tuple:
        """The point of ``knots[index]``: the events since the descent's start replayed
        on its members and signs (a knot records its event, not a copy of the set)."""
        members, signs = self._knot_origin[:2]
        members, signs = list(members), list(signs)
        for _, _, _, event in self.knots[:index + 1]:
            if event is None:          # an entering gene found collinear: blocked
                continue
            if event[0] == "add":
                members.append(event[1])
                signs.append(event[2])
            else:                      # a drop: the last member moves to the slot
                slot = event[1]
                members[slot], signs[slot] = members[-1], signs[-1]
                members.pop()
                signs.pop()
        level, dropped = self.knots[index][:2]
        return members, np.array(signs), level, dropped

    @staticmethod
    def state_of(point: tuple, genes: np.ndarray) -> "_State":
        """A recorded point as a state with global gene ids."""
        members, signs, level, dropped = point
        return _State(genes[members], signs, level, np.zeros(0),
                      int(genes[dropped]) if dropped >= 0 else -1)

    def snapshot(self, genes: np.ndarray) -> "_State":
        """The current point as a state with global gene ids."""
        state = self.state_of(self._point(), genes)
        state.coef = self.coef.copy()
        return state

    @property
    def active(self) -> List[int]:
        """Working-set positions of the active genes."""
        return self.set.members

    def exact_coef(self, refresh: bool = True, factor: bool = False) -> None:
        """Set the coefficients solving the KKT equalities of the current active set.

        ``refresh=False`` when the inverse Gram matrix was just recomputed;
        ``factor=True`` (without ``refresh``): solved by a fresh Cholesky
        factorization, the updated inverse kept (it is refreshed every
        ``REFRESH_EVERY`` events).
        """
        if len(self.set):
            right = self.set.rows_y - self.level * self.signs
            if factor and not refresh:
                self.coef[:] = self.set.solve_factored(right)
                return
            if refresh:
                self.set.refresh()
            self.coef[:] = self.set.solve(right)

    def residual(self) -> np.ndarray:
        """``y - X_A beta_A``."""
        return self.y - self.set.rows.T @ self.coef if len(self.set) else self.y.copy()

    def refresh_correlations(self) -> None:
        """Recompute the working-set correlations exactly."""
        self.corr = self.XW @ self.residual()

    # -- the path ------------------------------------------------------------
    def descend(self, target: float, max_steps: int, genes: np.ndarray) -> None:
        """Follow the path down towards ``target`` for at most ``max_steps`` events.

        Every knot passed is recorded in ``knots`` with the change of the
        residual that led to it (:meth:`knot_residuals` rebuilds the residuals
        in the same order of operations), so a failed certification can resume
        from the latest knot that is still valid for an enlarged working set.
        The loop works on the active set's buffers directly and on
        preallocated scratch arrays (it runs thousands of times per path, each
        step a few small products).

        On a large working set the product ``X_W u`` of each event is done in
        float32 (:meth:`_along`), which halves the bytes read per event, and
        the correlations are then known within ``drift``: the array of steps
        holds rigorous lower bounds, and :meth:`_entering` recomputes in
        float64 every gene that can enter first, so the event taken is the
        exact one.
        """
        m = self.XW.shape[0]
        n = self.y.size
        single = self.XW32 is not None and self.XW.nbytes >= FLOAT32_EVENTS_BYTES
        self.knots = []
        residual = self.residual()
        self._knot_origin = (list(self.set.members), self.signs.copy(), residual.copy())
        members, rows, XW = self.set.members, self.set._rows, self.XW
        all_signs, all_coef = self._signs, self._coef
        knots = self.knots
        # candidate steps: row 0 is c_j reaching +level, row 1 c_j reaching -level;
        # the correlations and the products X_W u are kept with both signs
        # (rows c, -c and a, -a: the same bits as adding instead of
        # subtracting), so that each array operation covers both rows
        steps, denominator = np.empty((2, m)), np.empty((2, m))
        blocked = np.empty((2, m), dtype=bool)
        signed_corr = np.empty((2, m))
        signed_corr[0] = self.corr
        np.negative(self.corr, out=signed_corr[1])
        signed_along = np.zeros((2, m))
        along, along_down = signed_along
        u = np.empty(n)
        scaled_along = np.empty((2, m))
        # the excluded genes' steps are inf: their numerators are raised to
        # inf by this floor (0 elsewhere) before the division
        self._floor = np.where(self.excluded, np.inf, 0.0)
        events = 0
        ratio_buffer, product_buffer = np.empty(n + 1), np.empty(n + 1)
        moving = np.empty(n + 1, dtype=bool)
        drift = 0.0     # bound on |corr - X_W r| (0: exact up to float64 rounding)
        # G^-1 signs, updated with the active set after each event (the first
        # ``len(members)`` entries of the buffer; None until first needed)
        direction, buffer = None, np.empty(n + 1)
        level = self.level
        with np.errstate(divide="ignore", invalid="ignore"):
            for _ in range(max_steps):
                if level <= target:
                    break
                events += 1
                k = len(members)
                np.subtract(level - drift, signed_corr, out=steps)
                np.maximum(steps, self._floor, out=steps)
                error, change = 0.0, None
                if k:
                    signs, coef = all_signs[:k], all_coef[:k]
                    if direction is None:
                        direction = buffer[:k]
                        direction[:] = self.set.solve(signs)
                    np.dot(direction, rows[:k], out=u)
                    if single:
                        error = self._along(u, along, True)
                    else:
                        np.dot(XW, u, out=along)
                    np.negative(along, out=along_down)
                    np.subtract(1.0 + error, signed_along, out=denominator)
                else:
                    denominator.fill(1.0)
                np.less_equal(denominator, 1e-12, out=blocked)
                np.divide(steps, denominator, out=steps)
                np.putmask(steps, blocked, np.inf)   # (faster than copyto with where=)
                if self.just_dropped >= 0:
                    steps[:, self.just_dropped] = np.inf
                step_stop = level - target
                step_out, leave = np.inf, -1
                if k:
                    # A coefficient leaves when it moves towards zero (direction
                    # against its sign) and reaches it, after -coef / direction
                    # (the same bits as (coef s) / (-direction s), s = +-1);
                    # round-off of the wrong sign counts as zero, so the sign
                    # of ``direction`` decides. Kept negated, -max(-ratio, 0)
                    # = min(ratio, -0) (zeros included), so the largest leaves.
                    ratio = np.divide(coef, direction, out=ratio_buffer[:k])
                    np.minimum(ratio, -0.0, out=ratio)
                    towards = np.multiply(direction, signs, out=product_buffer[:k])
                    np.putmask(ratio, np.greater_equal(towards, 0.0, out=moving[:k]), -np.inf)
                    if self.just_added >= 0:   # added by the last event: the last slot
                        ratio[k - 1] = -np.inf
                    leave = int(ratio.argmax())
                    step_out = -float(ratio[leave])
                if drift or error:
                    side, enter, step_in = self._entering(steps, residual, u, level,
                                                          min(step_stop, step_out))
                else:   # the steps are exact
                    side, enter = divmod(int(steps.argmin()), m)
                    step_in = float(steps[side, enter])
                step = min(step_in, step_stop, step_out)
                if k:
                    coef += np.multiply(direction, step, out=product_buffer[:k])
                    change = step * u
                    if single:   # _entering reads the current residual
                        residual -= change
                    signed_corr -= np.multiply(signed_along, step, out=scaled_along)
                    if error:
                        drift += step * error + FLOAT64_SLACK * level
                level = self.level = level - step
                self.just_dropped, self.just_added = -1, -1
                if step == step_stop:
                    level = self.level = target
                    break
                if step == step_out:
                    self._drop(leave)
                    event: Optional[tuple] = ("drop", leave)
                    _after_drop(buffer, k, self.set.removed_column, leave)
                    direction = buffer[:k - 1]
                else:
                    sign = 1.0 if side == 0 else -1.0
                    event = ("add", enter, sign) if self._add(enter, sign) else None
                    if event is not None:
                        _after_add(buffer, k, signs if k else buffer[:0], *self.set.border, sign)
                        direction = buffer[:k + 1]
                knots.append((level, self.just_dropped, change, event))
        self.steps += events
        # a grid penalty's coefficients come from a fresh Cholesky factorization
        # of the Gram matrix; the updated inverse is refreshed every
        # REFRESH_EVERY events (its O(k^3) inversion is not needed for a solve)
        self.exact_coef(refresh=self.set.updates >= REFRESH_EVERY, factor=self.level <= target)
        self.refresh_correlations()

    def knot_residuals(self) -> np.ndarray:
        """``(n, len(knots))`` residuals at the knots of the last descent.

        The residual at the start minus each knot's change, accumulated in
        order: the same operations, so the same bits, as updating the residual
        event by event.
        """
        start = self._knot_origin[2]
        changes = np.empty((len(self.knots) + 1, start.size))
        changes[0] = start
        for row, knot in zip(changes[1:], self.knots):
            if knot[2] is None:
                row.fill(0.0)
            else:
                row[:] = knot[2]
        return np.subtract.accumulate(changes, axis=0)[1:].T

    def _along(self, u: np.ndarray, out: np.ndarray, single: bool) -> float:
        """``X_W u`` into ``out``; returns a bound on its error (0: float64 product).

        In float32 when ``single`` and the products stay far inside float32's
        range (:func:`~tools.statistics.kkt_screen.float32_product_bound`,
        plus the float64 rounding of the correlations' update per unit step).
        """
        if single:
            u_norm = float(np.sqrt(u @ u))
            scale = self.row_norm * u_norm
            # operands and products far inside float32's range (False for NaN)
            if self.row_norm < FLOAT32_LIMIT and u_norm < FLOAT32_LIMIT and scale < FLOAT32_LIMIT:
                np.copyto(out, self.XW32 @ u.astype(np.float32))
                # max |u_i| <= ||u||
                return (float32_product_bound(u.size, self.row_norm, u_norm, u_norm)
                        + FLOAT64_SLACK * scale)
        np.dot(self.XW, u, out=out)
        return 0.0

    def _entering(self, lower: np.ndarray, residual: np.ndarray, u: Optional[np.ndarray],
                  level: float, cap: float) -> Tuple[int, int, float]:
        """The exact first entering event from lower bounds of every gene's step.

        ``lower`` (2 x m, as the steps of :meth:`descend`) bounds each gene's
        exact step from below. The gene of the smallest bound is evaluated in
        float64; every gene whose bound is not above that step (or ``cap``,
        the step at which something else happens first) may enter first and
        is evaluated too. Ties go to the first in ``lower``'s order, as
        ``argmin`` over exact steps would.

        Returns
        -------
        side, position, step : int, int, float
            ``step`` is ``inf`` when no gene enters before ``cap``.
        """
        m = lower.shape[1]
        first = int(lower.argmin())
        if not lower.flat[first] <= cap:
            return 0, 0, np.inf
        side, position = divmod(first, m)
        row = self.XW[position]
        sign = 1.0 if side == 0 else -1.0
        denominator = 1.0 - sign * float(row @ u) if u is not None else 1.0
        best = (max(level - sign * float(row @ residual), 0.0) / denominator
                if denominator > 1e-12 else np.inf)
        candidates = lower <= min(best, cap)
        if np.count_nonzero(candidates) == 1:   # the first gene alone
            return (side, position, best) if best <= cap else (0, 0, np.inf)
        flat = np.flatnonzero(candidates)
        sides, positions = np.divmod(flat, m)
        signs = 1.0 - 2.0 * sides
        rows = self.XW[positions]
        denominators = 1.0 - signs * (rows @ u) if u is not None else np.ones(flat.size)
        steps = np.full(flat.size, np.inf)
        valid = denominators > 1e-12
        steps[valid] = (np.maximum(level - signs[valid] * (rows[valid] @ residual), 0.0)
                        / denominators[valid])
        chosen = int(steps.argmin())
        return int(sides[chosen]), int(positions[chosen]), float(steps[chosen])

    def compact(self, working: "_WorkingSet", keep: np.ndarray) -> None:
        """Follow a working set cut to the positions ``keep`` (increasing; the
        active genes among them), without rebuilding the active set."""
        moved = np.full(self.XW.shape[0], -1, dtype=int)
        moved[keep] = np.arange(keep.size)
        self.XW, self.XW32 = working.rows, working.rows32
        self.set.XW = self.XW
        self.set.members[:] = [int(moved[member]) for member in self.set.members]
        self.corr = self.corr[keep]
        self.is_active, self.blocked = self.is_active[keep], self.blocked[keep]
        self.excluded = self.is_active | self.blocked
        self.just_dropped = int(moved[self.just_dropped]) if self.just_dropped >= 0 else -1
        self.just_added = int(moved[self.just_added]) if self.just_added >= 0 else -1
        self.knots = []

    def _drop(self, slot: int) -> None:
        gene = self.set.members[slot]
        last = self.set.drop(slot)
        self._signs[slot] = self._signs[last]
        self._coef[slot] = self._coef[last]
        self.is_active[gene] = False
        self.blocked[:] = False
        self.excluded = self.is_active.copy()
        self._floor = np.where(self.excluded, np.inf, 0.0)
        self.just_dropped = gene

    def _add(self, position: int, sign: float) -> bool:
        """Add a gene to the active set (False: collinear with it, blocked instead)."""
        k = len(self.set.members)
        self.excluded[position] = True
        self._floor[position] = np.inf
        if self.set.try_add(position):
            self.just_added = position
            self.is_active[position] = True
            self._signs[k] = sign
            self._coef[k] = 0.0
            return True
        self.blocked[position] = True
        return False


def _after_add(buffer: np.ndarray, k: int, signs: np.ndarray, projected: np.ndarray,
               pivot2: float, sign: float) -> None:
    """``G^-1 s`` after a gene of sign ``sign`` joined the ``k`` members, in place.

    ``buffer[:k]`` holds the direction before the add and ``buffer[:k + 1]``
    after it. With ``w = G^-1 b`` (``b``: the new gene's products with the
    members) and the pivot ``p``, the bordered inverse gives ``[d - a w, a]``,
    ``a = (sign - w^T s) / p``: O(k) instead of a k x k product.
    """
    if not k:   # the first member
        buffer[0] = sign / pivot2
        return
    share = (sign - float(projected @ signs)) / pivot2
    direction = buffer[:k]
    np.subtract(direction, share * projected, out=direction)
    buffer[k] = share


def _after_drop(buffer: np.ndarray, k: int, column: np.ndarray, slot: int) -> None:
    """``G^-1 s`` after the member at ``slot`` of ``k`` left (the last member moves
    there), in place: ``buffer[:k]`` before, ``buffer[:k - 1]`` after.

    With ``c`` the inverse's column of the member, ``d - (d_i / c_i) c``
    restricted to the others.
    """
    direction = buffer[:k]
    np.subtract(direction, (direction[slot] / column[slot]) * column, out=direction)
    direction[slot] = direction[k - 1]


class _WorkingSet:
    """Gene ids of the working set in insertion order, with their exact rows.

    The rows live in a buffer that grows by doubling, so adding genes copies
    only the new rows; a float32 copy of them and the largest row norm are
    kept alongside (for :meth:`_Homotopy._along`).
    """

    def __init__(self, design: Design, genes: np.ndarray, screen: CorrelationScreen) -> None:
        self.design = design
        self.screen = screen
        self.genes = np.zeros(0, dtype=int)
        self.position = np.full(design.shape[0], -1, dtype=int)
        size = max(2 * len(genes), 64)
        self._buffer = np.empty((size, design.shape[1]))
        self._buffer32 = np.empty((size, design.shape[1]), dtype=np.float32)
        self.row_norm = 0.0
        self.add(genes)

    @property
    def rows(self) -> np.ndarray:
        """``(size, n)`` exact rows of the working set (a view)."""
        return self._buffer[:self.genes.size]

    def keep(self, positions: np.ndarray) -> None:
        """Keep only the genes at ``positions`` (increasing), in that order."""
        size = positions.size
        dropped = np.ones(self.genes.size, dtype=bool)
        dropped[positions] = False
        self.position[self.genes[dropped]] = -1
        self.genes = self.genes[positions]
        self.position[self.genes] = np.arange(size)
        self._buffer[:size] = self._buffer[positions]
        self._buffer32[:size] = self._buffer32[positions]

    @property
    def rows32(self) -> np.ndarray:
        """``(size, n)`` float32 copy of :attr:`rows` (a view)."""
        return self._buffer32[:self.genes.size]

    def add(self, genes: np.ndarray) -> None:
        """Append genes not yet in the set."""
        genes = np.asarray(genes, dtype=int)
        _, first = np.unique(genes, return_index=True)
        genes = genes[np.sort(first)]
        new = genes[self.position[genes] < 0]
        if new.size:
            size = self.genes.size
            stop = size + new.size
            if stop > self._buffer.shape[0]:
                shape = (2 * stop, self._buffer.shape[1])
                grown, grown32 = np.empty(shape), np.empty(shape, dtype=np.float32)
                grown[:size], grown32[:size] = self.rows, self.rows32
                self._buffer, self._buffer32 = grown, grown32
            rows = self._buffer[size:stop]
            rows[:] = self.design.rows(new)
            self._buffer32[size:stop] = rows
            norms = np.sqrt(np.einsum("ij,ij->i", rows, rows))
            self.row_norm = float(np.max([self.row_norm, 1.001 * np.max(norms)]))  # NaN stays
            self.position[new] = np.arange(size, stop)
            self.genes = np.concatenate([self.genes, new])


@functools.lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    """Controller of the BLAS thread pools (created once per process)."""
    return ThreadpoolController()


def lasso_grid_path(XT: Union[np.ndarray, Design], y: np.ndarray, alphas: Sequence[float], *,
                    initial_size: Optional[int] = None,
                    candidates: Optional[np.ndarray] = None,
                    kkt_tol: float = KKT_TOL) -> LassoPath:
    """Exact Lasso solutions at each penalty of a grid.

    Parameters
    ----------
    XT : numpy.ndarray or design
        ``(p, n)`` **transposed** design: one row per gene, each row centred
        (standardized genes, transposed and C-contiguous for speed), or a
        design of :mod:`tools.statistics.design` (a fold's standardized genes
        built without writing them, :func:`~tools.statistics.design.standardized_design`).
    y : numpy.ndarray
        ``(n,)`` centred response.
    alphas : sequence of float
        Penalties (any order), scikit-learn scale.
    initial_size : int, optional
        Initial working-set size (default ``max(2 n, 100)``).
    candidates : numpy.ndarray, optional
        Extra gene indices to put in the initial working set (e.g. the
        support found on a related fold); they only change speed.
    kkt_tol : float
        Relative KKT tolerance of the certification.

    Returns
    -------
    LassoPath

    Notes
    -----
    The path makes thousands of small matrix-vector products, which
    multi-threaded BLAS slows down (10x measured on a busy 2-core machine), so
    BLAS runs single-threaded inside this function.
    """
    with _blas().limit(limits=1, user_api="blas"):
        return run_alone(_grid_path(XT, y, alphas, initial_size, candidates, kkt_tol))


def lasso_grid_paths(problems: Sequence[Tuple[Union[np.ndarray, Design], np.ndarray]],
                     alphas: Sequence[float], *, kkt_tol: float = KKT_TOL) -> List[LassoPath]:
    """:func:`lasso_grid_path` of several problems, side by side.

    The paths advance in turn, each to its next KKT check, and the checks'
    products ``X^T r`` over all genes are done together: one product of the
    shared float32 copy with every path's residual (the folds of a problem,
    :func:`~tools.statistics.design.problem_designs`), which reads the copy
    once instead of once per path. Each path is the one
    :func:`lasso_grid_path` follows alone (its checks see the same genes).

    Parameters
    ----------
    problems : sequence of (design, y)
        As :func:`lasso_grid_path`'s ``XT`` and ``y``.
    alphas : sequence of float
        The penalties, for every problem.
    kkt_tol : float
        Relative KKT tolerance of the certification.
    """
    with _blas().limit(limits=1, user_api="blas"):
        return run_together([_grid_path(XT, y, alphas, None, None, kkt_tol)
                             for XT, y in problems])


def _grid_path(XT: Union[np.ndarray, Design], y: np.ndarray, alphas: Sequence[float],
               initial_size: Optional[int], candidates: Optional[np.ndarray],
               kkt_tol: float) -> Search:
    """The path as a generator of screen requests (``kkt_screen.run_alone``,
    ``run_together``); its value is the :class:`LassoPath`."""
    design = as_design(XT)
    y = np.asarray(y, dtype=float)
    p, n = design.shape
    alphas = np.asarray(alphas, dtype=float)
    coefs = np.zeros((alphas.size, p))
    violation = np.zeros(alphas.size)
    if p == 0:
        return LassoPath(alphas, coefs, violation)
    size = min(p, initial_size or max(2 * n, 100))
    screen = CorrelationScreen(design)
    # the genes most correlated with y, largest |x_j^T y| first (ties: smaller index)
    start, _, top = yield from screen.search(y, np.zeros(0, dtype=int), 0.0, size)
    if top <= 1e-14 * max(1.0, float(np.abs(y).sum())):
        return LassoPath(alphas, coefs, violation)
    if candidates is not None and len(candidates):
        extra = np.setdiff1d(np.asarray(candidates, dtype=int), start)
        start = np.concatenate([start, extra])
    working = _WorkingSet(design, start, screen)
    state = _State(np.zeros(0, dtype=int), np.zeros(0), top)
    steps, stride, path = 0, CHECK_STRIDE, None
    for index in np.argsort(-alphas, kind="stable"):
        target = n * alphas[index]
        if target < state.level:
            state, taken, violation[index], stride, path = yield from _certified_descent(
                working, y, state, target, kkt_tol, stride, path)
            steps += taken
        coefs[index, state.active] = state.coef
    return LassoPath(alphas, coefs, violation, steps, int(working.genes.size))


def _certify(working: _WorkingSet, path: _Homotopy, kkt_tol: float) -> Search:
    """KKT check of the current point on every gene (a generator of one screen
    request; its value is ``(worst, violators, near)``).

    Returns
    -------
    worst : float
        Largest relative violation ``|x_j^T r| / level - 1`` over inactive genes
        (exact when above ``NEAR_FRACTION - 1``; otherwise an upper bound below 0,
        which is all the callers need).
    violators : numpy.ndarray
        Genes outside the working set that violate, most violating first
        (at most ``max(2 n, 100)``).
    near : numpy.ndarray
        The outside genes closest to entering (added pre-emptively on success).
    """
    level = path.level
    limit = max(2 * path.y.size, 100)
    # the outside genes nearest to the boundary, ranked, with exact values, and
    # every violator (up to ``limit``)
    violation_level = level * (1.0 + kkt_tol)
    ranked, values, top = yield from working.screen.search(path.residual(), working.genes,
                                                           NEAR_FRACTION * level, NEAR_BOUNDARY,
                                                           violation_level, limit)
    inside = np.abs(path.corr)
    inside[path.is_active] = 0.0
    worst = max(top, float(inside.max(initial=0.0))) / level - 1.0
    violators = ranked[values > violation_level]
    return worst, violators[:limit], ranked[:NEAR_BOUNDARY]


def _resume_point(working: _WorkingSet, path: _Homotopy, added: np.ndarray,
                  fallback: _State, kkt_tol: float) -> _State:
    """Latest knot of the last descent at which the newly added genes satisfy KKT."""
    if not path.knots:
        return fallback
    residuals = path.knot_residuals()
    levels = np.array([knot[0] for knot in path.knots])
    corr = np.abs(working.design.products(added, residuals)) / levels
    valid = np.flatnonzero(np.all(corr <= 1.0 + kkt_tol, axis=0))
    if not valid.size:
        return fallback
    return _Homotopy.state_of(path.knot_point(int(valid[-1])), working.genes)


def _certified_descent(working: _WorkingSet, y: np.ndarray, state: _State, target: float,
                       kkt_tol: float, stride: int = 16, path: Optional[_Homotopy] = None
                       ) -> Search:
    """Descend from a certified state to ``target``, checking KKT on every gene (a
    generator of the checks' screen requests).

    The working-set homotopy pauses every ``stride`` events for a full KKT
    check. A failed check sends the violating genes into the working set and
    resumes from the latest knot still valid for the enlarged set (or the last
    certified point). A passed check adds the few outside genes nearest to the
    boundary, which are the likeliest to enter next.

    ``path``: the homotopy that ended at ``state`` (the previous grid
    penalty), continued instead of rebuilt. Returns the new certified state,
    the events taken, the KKT violation, the stride and the homotopy (at the
    returned state).
    """
    steps, worst = 0, 0.0
    if path is None:
        path = _Homotopy(working, y, state)
    for _ in range(MAX_CHECKS):
        path.descend(target, stride, working.genes)
        steps += path.steps
        path.steps = 0
        worst, violators, near = yield from _certify(working, path, kkt_tol)
        if violators.size:
            added = np.union1d(violators, near)
            resume = _resume_point(working, path, added, state, kkt_tol)
            working.add(added)
            path = _Homotopy(working, y, resume)
            stride = max(MIN_STRIDE, stride // 2)
            continue
        if worst > kkt_tol:
            logger.warning("Lasso at alpha=%.3g: KKT violation %.2e above tolerance %.0e",
                           path.level / y.size, worst, kkt_tol)
        state = path.snapshot(working.genes)
        if path.level <= target:
            _prune(working, path, y.size)
            break
        if near.size:
            working.add(near)
            path.extend(working)
        stride = min(MAX_STRIDE, stride * 2)
    else:
        raise RuntimeError(f"Lasso path stopped at alpha={state.level / y.size:.3g} before "
                           f"reaching alpha={target / y.size:.3g} ({MAX_CHECKS} checks)")
    return state, steps, max(worst, 0.0), stride, path


def _prune(working: _WorkingSet, path: _Homotopy, n: int) -> None:
    """Cut a large working set to the active genes and the ``n`` others nearest
    to the boundary (speed only: genes left out return when a check finds them)."""
    m = working.genes.size
    if m <= PRUNE_ABOVE * n:
        return
    closeness = np.abs(path.corr)
    closeness[path.excluded] = np.inf
    if path.just_dropped >= 0:
        closeness[path.just_dropped] = np.inf
    count = min(m, int(np.count_nonzero(path.excluded)) + n + 1)
    keep = np.sort(np.argpartition(-closeness, count - 1)[:count])
    working.keep(keep)
    path.compact(working, keep)


def centre_columns(XT: np.ndarray, y: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Centre the rows of a transposed design and the response (intercept)."""
    mean_x = XT.mean(axis=1)
    mean_y = float(np.mean(y))
    return XT - mean_x[:, None], y - mean_y, mean_x, mean_y


class Lasso(RegressorMixin, BaseEstimator):
    """Lasso regression with converged (KKT-certified) solutions.

    A scikit-learn estimator (``fit(X, y)``, ``predict(X)``, ``coef_``,
    ``intercept_``, ``get_params``/``set_params``; ``NotFittedError`` before
    ``fit``). The objective is ``sklearn.linear_model.Lasso``'s with
    ``fit_intercept=True``; columns are used as given (standardize first, see
    :func:`tools.statistics.standardize.standardize_split`).

    Parameters
    ----------
    alpha : float
        Penalty strength (positive).
    fit_intercept : bool
        Must be True (the only objective the homotopy solves).
    precompute, copy_X, max_iter, tol, warm_start, random_state, selection
        scikit-learn's coordinate-descent settings, accepted so that
        ``Lasso(alpha=..., **sklearn_kwargs)`` call sites keep working, and
        validated with scikit-learn's constraints; the exact homotopy needs
        none of them, so they do not change the solution.
    positive : bool
        Must be False (no sign constraint).

    Attributes
    ----------
    coef_ : numpy.ndarray
        One coefficient per column of ``X``.
    intercept_ : float
    path_ : LassoPath
        The certified path of the fit (one penalty).
    n_iter_ : int
        Homotopy steps of the fit (``max_iter`` does not bound them: the path
        is exact, not iterated to a tolerance).
    n_features_in_ : int
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": [Options(bool, {True})],
        "precompute": ["boolean", "array-like"],
        "copy_X": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        "positive": [Options(bool, {False})],
        "random_state": ["random_state"],
        "selection": [StrOptions({"cyclic", "random"})],
    }

    def __init__(self, alpha: float = 1.0, *, fit_intercept: bool = True,
                 precompute: Any = False, copy_X: bool = True, max_iter: int = 1000,
                 tol: float = 1e-4, warm_start: bool = False, positive: bool = False,
                 random_state: Any = None, selection: str = "cyclic") -> None:
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.precompute = precompute
        self.copy_X = copy_X
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.positive = positive
        self.random_state = random_state
        self.selection = selection

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: np.ndarray, y: np.ndarray) -> "Lasso":
        """Fit on ``X`` (samples x genes) and ``y``.

        Raises
        ------
        sklearn.utils._param_validation.InvalidParameterError
            Naming the parameter when one is out of its range (a ``ValueError``).
        """
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        XT, yc, mean_x, mean_y = centre_columns(np.ascontiguousarray(X.T), y)
        self.path_ = lasso_grid_path(XT, yc, [float(self.alpha)])
        self.coef_ = self.path_.coefs[0]
        self.intercept_ = mean_y - float(mean_x @ self.coef_)
        self.n_iter_ = int(self.path_.n_steps)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predictions for ``X``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_ + self.intercept_
