"""Exact largest ``|x_j^T r|`` over all genes, screened in single precision.

Certifying a Lasso point (:mod:`tools.statistics.lasso`) needs, over every gene outside
the working set, the largest ``|x_j^T r|`` (the KKT violation), the violators
and the genes nearest to the boundary: a few hundred genes at most, ranked,
out of ~18,500. The product ``X^T r`` over all genes is memory-bound, so it is
first done on a float32 copy of the genes (a third of the time of the float64
product here). Its error is rigorously bounded: with ``u = 2^-24``, each
value is within ``B = 2 (n + 3) u max_j ||x_j|| ||r||`` of the exact one
(rounding of both operands and of an ``n``-term sum, with a factor 2 to
spare), plus ``n 2^-149 (max_j ||x_j|| + max |r| + 2)`` for values in the
subnormal range. Every gene that can be among the ``count`` largest exact
values above the floor (within ``2 B`` of the cut-offs) is then recomputed in
float64, so the returned genes, order and values are those of the float64
product over all genes (up to the last bit of a float64 product, which may
differ between a gathered row and the full matrix). Data whose products
could overflow float32 use float64 throughout.

The genes come as a design (:mod:`tools.statistics.design`): its screening
gives the approximate values and their bound
(:meth:`~tools.statistics.design.Screening.approximate`), and its exact rows
(or their products, :meth:`~tools.statistics.design.StandardizedDesign.products`)
the values of the few candidates, so a fold's float64 standardized matrix is
never written. The designs of a problem screen on one float32 copy of the
centred genes over all samples: a design's value is the copy's product with
the residual (zeros on held-out samples) times the gene's reciprocal scale,
plus the tiny shifts of its training mean and covariates, so the bound is
that of the copy's rows times the largest scaled norm, plus the float64
roundings of the scaling (``2^-50`` of the magnitudes).
"""

from __future__ import annotations

from typing import Any, Generator, List, Optional, Sequence, Tuple, Union

import numpy as np

from tools.statistics.design import Design, Screening, approximate_together, as_design
from tools.statistics.rounding import (  # noqa: F401 (float32_product_bound re-exported)
    float32_above, float32_below, float32_product_bound)


def largest_first(values: np.ndarray, candidates: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` candidates of largest value, largest first (ties: smaller index).

    Same as sorting all candidates (stable, by decreasing value) and keeping
    the first ``count``, but only the candidates at or above the
    ``count``-th largest value are sorted. ``candidates`` must be increasing.
    """
    if candidates.size > count:
        chosen = values[candidates]
        cut = np.partition(chosen, candidates.size - count)[candidates.size - count]
        candidates = candidates[chosen >= cut]
    order = np.argsort(-values[candidates], kind="stable")
    return candidates[order[:count]]


class CorrelationScreen:
    """Screen the genes of a design (its float32 copy; exact rows on demand).

    Parameters
    ----------
    XT : numpy.ndarray or design
        ``(p, n)`` float64 genes, one row each (kept by reference), or a
        design of :mod:`tools.statistics.design`.
    """

    def __init__(self, XT: Union[np.ndarray, Design]) -> None:
        self.design = as_design(XT)
        self.n = self.design.shape[1]

    def largest(self, residual: np.ndarray, exclude: np.ndarray, floor: float, count: int,
                more_above: float = np.inf, max_count: int = 0
                ) -> Tuple[np.ndarray, np.ndarray, float]:
        """The ``count`` genes with the largest ``|x_j^T r|`` above ``floor``
        (:meth:`search`, its product done at once)."""
        return run_alone(self.search(residual, exclude, floor, count, more_above, max_count))

    def search(self, residual: np.ndarray, exclude: np.ndarray, floor: float, count: int,
               more_above: float = np.inf, max_count: int = 0
               ) -> Generator[ScreenRequest, Any, Tuple[np.ndarray, np.ndarray, float]]:
        """The ``count`` genes with the largest ``|x_j^T r|`` above ``floor``.

        A generator: it yields one :data:`ScreenRequest` (the screening and the
        residual) and expects the screening's approximation back (from
        :func:`run_alone`, or from :func:`run_together`, which multiplies the
        requests of several searches by the shared copy at once).

        Parameters
        ----------
        residual : numpy.ndarray
            ``r``, float64.
        exclude : numpy.ndarray
            Gene indices left out (treated as 0).
        floor : float
            Only values strictly above it count (``>= 0``).
        count : int
            How many genes to return at most.
        more_above, max_count : float, int
            Return up to ``max_count`` genes when more than ``count`` may lie
            above ``more_above`` (so every gene above it is returned, up to
            ``max_count``), without asking for ``max_count`` genes every time.

        Returns
        -------
        genes : numpy.ndarray
            Largest value first, ties by smaller index.
        values : numpy.ndarray
            Their exact (float64) ``|x_j^T r|``.
        top : float
            The largest value over all genes not excluded when it is above
            ``floor``; otherwise ``floor`` (an upper bound).
        """
        screened = yield (self.design.screening, residual)
        if screened is None:    # products could overflow float32: float64 throughout
            values = np.abs(self.design.rows(np.arange(self.design.shape[0])) @ residual)
            values[exclude] = 0.0
            if max_count > count:
                count = max(count, min(max_count, int(np.count_nonzero(values > more_above))))
            genes = largest_first(values, np.flatnonzero(values > floor), count)
            return genes, values[genes], float(values[genes[0]]) if genes.size else floor
        approx, bound = screened
        # float32 values are compared with thresholds rounded outwards: the same
        # comparisons as in float64 (the values are float32 numbers)
        below, above = ((float32_below, float32_above) if approx.dtype == np.float32
                        else (float, float))
        approx[exclude] = -np.inf                  # never a candidate, whatever the floor
        if max_count > count:
            many = approx > below(more_above - bound)
            count = max(count, min(max_count, int(np.count_nonzero(many))))
        candidates = np.flatnonzero(approx > below(floor - bound))
        if candidates.size > count:
            chosen = approx[candidates]
            cut = float(np.partition(chosen, candidates.size - count)[candidates.size - count])
            candidates = candidates[chosen >= above(cut - 2.0 * bound)]
        exact = np.abs(self.design.products(candidates, residual))
        local = largest_first(exact, np.flatnonzero(exact > floor), count)
        top = float(exact[local[0]]) if local.size else floor
        return candidates[local], exact[local], top


ScreenRequest = Tuple[Screening, np.ndarray]
Search = Generator[ScreenRequest, Any, Any]


def run_alone(search: Search) -> Any:
    """Run a generator of screen requests (:meth:`CorrelationScreen.search`, a Lasso
    path), approximating each request as it comes; returns its value."""
    try:
        request = next(search)
        while True:
            request = search.send(request[0].approximate(request[1]))
    except StopIteration as stop:
        return stop.value


def run_together(searches: Sequence[Search]) -> List[Any]:
    """Run several generators of screen requests side by side; returns their values.

    Each round, every generator still running has one request pending; the
    requests are approximated together (:func:`~tools.statistics.design.approximate_together`:
    one product of the shared copy with all of their residuals, instead of
    one pass over the copy each).
    """
    results: List[Any] = [None] * len(searches)
    pending: dict = {}
    for index, search in enumerate(searches):
        try:
            pending[index] = next(search)
        except StopIteration as stop:
            results[index] = stop.value
    while pending:
        answers = approximate_together(list(pending.values()))
        running: dict = {}
        for (index, _), answer in zip(pending.items(), answers):
            try:
                running[index] = searches[index].send(answer)
            except StopIteration as stop:
                results[index] = stop.value
        pending = running
    return results
