"""Evaluation metrics of the benchmark (SPEC 6), as pure vectorized functions.

Nothing here reads files; :mod:`genotex.evaluation.evaluator` feeds these functions with
data loaded by :mod:`genotex.evaluation.tree`.

Scales
------
Overlap and classification scores (precision, recall, F1, Jaccard, accuracy,
AJ, SJ, CSC) are percentages (0-100; CSC can reach -100 because it contains a
Pearson correlation). AUROC and the GSEA enrichment score are on their natural
0-1 scale.

Empty-set rules (SPEC 6.3)
--------------------------
Precision, recall, F1 and Jaccard of an empty prediction against an empty
reference are 100; an empty set on one side only gives 0 for all four.
"""

from __future__ import annotations

from typing import Collection, Dict, Iterable, List, Optional, Sequence, Set, Tuple

import numpy as np
import pandas as pd

PERCENT = 100.0
VIRTUAL_UNIVERSE_SIZE = 20_000
OVERLAP_METRICS = ("precision", "recall", "f1", "jaccard")
RANKING_METRICS = ("auroc", "gsea_es")
GENE_METRICS = OVERLAP_METRICS + RANKING_METRICS


# --------------------------------------------------------------------------- overlap

def overlap_from_counts(n_common: int, n_predicted: int, n_reference: int,
                        both_empty: float = PERCENT) -> Dict[str, float]:
    """Precision, recall, F1 and Jaccard (percent) from set sizes.

    Parameters
    ----------
    n_common : int
        Size of the intersection of the predicted and reference sets.
    n_predicted, n_reference : int
        Sizes of the two sets.
    both_empty : float
        The four scores when both sets are empty (SPEC 6.3: 100; the original
        evaluator's filtering scored 0).

    Returns
    -------
    dict
        ``precision``, ``recall``, ``f1``, ``jaccard`` in percent, with the
        empty-set rules of SPEC 6.3.
    """
    if n_predicted == 0 and n_reference == 0:
        return dict.fromkeys(OVERLAP_METRICS, both_empty)
    if n_predicted == 0 or n_reference == 0:
        return dict.fromkeys(OVERLAP_METRICS, 0.0)
    n_union = n_predicted + n_reference - n_common
    return {
        "precision": PERCENT * n_common / n_predicted,
        "recall": PERCENT * n_common / n_reference,
        "f1": PERCENT * 2.0 * n_common / (n_predicted + n_reference),
        "jaccard": PERCENT * n_common / n_union,
    }


def overlap_metrics(predicted: Collection[str], reference: Collection[str]) -> Dict[str, float]:
    """Precision, recall, F1 and Jaccard (percent) of two sets of labels.

    Duplicates are ignored (the inputs are treated as sets).
    """
    predicted_set, reference_set = set(predicted), set(reference)
    return overlap_from_counts(len(predicted_set & reference_set), len(predicted_set),
                               len(reference_set))


def jaccard_index(first: Collection[str], second: Collection[str]) -> float:
    """Jaccard index (fraction, 0-1) of two label sets; 1 when both are empty."""
    first_set, second_set = set(first), set(second)
    union = len(first_set | second_set)
    return 1.0 if union == 0 else len(first_set & second_set) / union


def classification_metrics(predicted: Sequence[bool], reference: Sequence[bool],
                           both_empty: float = PERCENT) -> Dict[str, float]:
    """Binary classification scores (percent) with "positive" = True.

    Used for dataset filtering: is each reference cohort usable?

    Parameters
    ----------
    predicted, reference : sequence of bool
        Aligned predicted and reference labels.
    both_empty : float
        F1, precision and recall when there is no positive on either side
        (:func:`overlap_from_counts`).

    Returns
    -------
    dict
        ``f1``, ``precision``, ``recall`` (empty-set rules of
        :func:`overlap_from_counts`), ``accuracy`` (NaN when there are no
        items) and the counts ``tp``, ``fp``, ``fn``, ``tn``, ``n``.
    """
    pred = np.asarray(predicted, dtype=bool)
    ref = np.asarray(reference, dtype=bool)
    if pred.shape != ref.shape:
        raise ValueError("predicted and reference labels must have the same length")
    tp = int(np.sum(pred & ref))
    fp = int(np.sum(pred & ~ref))
    fn = int(np.sum(~pred & ref))
    tn = int(np.sum(~pred & ~ref))
    scores = overlap_from_counts(tp, tp + fp, tp + fn, both_empty)
    n_items = int(pred.size)
    accuracy = PERCENT * (tp + tn) / n_items if n_items else float("nan")
    return {"f1": scores["f1"], "precision": scores["precision"],
            "recall": scores["recall"], "accuracy": accuracy,
            "tp": tp, "fp": fp, "fn": fn, "tn": tn, "n": n_items}


# --------------------------------------------------------------------------- ranking

def unique_in_order(items: Iterable[str]) -> List[str]:
    """Items without repeats, keeping each at its first position."""
    return list(dict.fromkeys(items))


def ranking_scores(predicted: Sequence[str], universe: Sequence[str]) -> np.ndarray:
    """Score of every universe gene under a predicted ranking (SPEC 6.3).

    The i-th predicted gene (0-based) scores ``len(predicted) - i``; every
    other gene scores 0.

    Parameters
    ----------
    predicted : sequence of str
        Distinct genes, best first.
    universe : sequence of str
        Distinct genes; must contain ``predicted``.

    Returns
    -------
    numpy.ndarray
        Float scores aligned with ``universe``.
    """
    position = {gene: i for i, gene in enumerate(universe)}
    scores = np.zeros(len(universe), dtype=float)
    n_predicted = len(predicted)
    for rank, gene in enumerate(predicted):
        scores[position[gene]] = n_predicted - rank
    return scores


def _scored_labels(scores: Sequence[float], labels: Sequence[bool]
                   ) -> Tuple[np.ndarray, np.ndarray, int]:
    """Scores and labels as arrays, and the number of positives."""
    label_array = np.asarray(labels, dtype=bool)
    return np.asarray(scores, dtype=float), label_array, int(label_array.sum())


def auroc_from_scores(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """Area under the ROC curve by the Mann-Whitney statistic (ties count 1/2).

    Parameters
    ----------
    scores : sequence of float
        Higher means "more likely positive".
    labels : sequence of bool
        True for positives.

    Returns
    -------
    float
        AUROC in [0, 1]; NaN when there is no positive or no negative.
    """
    score_array, label_array, n_pos = _scored_labels(scores, labels)
    n_neg = int(label_array.size - n_pos)
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    # scipy.stats is imported here, not with the module: it costs about as much as
    # numpy and pandas together (0.5-1 s), which every evaluation, whatever its
    # tasks, and every evaluator worker used to pay.
    from scipy.stats import rankdata
    ranks = rankdata(score_array, method="average")
    u_statistic = ranks[label_array].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u_statistic / (n_pos * n_neg))


def gsea_es_from_scores(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """Unweighted GSEA enrichment score over a scored universe (SPEC 6.3).

    Genes are ranked by descending score, ties with the reference genes
    (positives) last; the running sum steps ``+1/Nh`` per positive and
    ``-1/(N - Nh)`` per negative; the score is its maximum value.

    Returns
    -------
    float
        ES in [0, 1]; NaN when there is no positive or no negative.
    """
    score_array, label_array, n_hits = _scored_labels(scores, labels)
    n_total = label_array.size
    if n_hits == 0 or n_hits == n_total:
        return float("nan")
    # lexsort: last key is primary -> descending score, then negatives first.
    order = np.lexsort((label_array, -score_array))
    ordered = label_array[order]
    steps = np.where(ordered, 1.0 / n_hits, -1.0 / (n_total - n_hits))
    return float(min(1.0, max(0.0, np.cumsum(steps).max())))


def auroc_from_hits(hits: Sequence[bool], n_positive: int, n_universe: int) -> float:
    """AUROC of a ranking given only which predicted genes are hits.

    Equivalent to :func:`auroc_from_scores` with the scores of
    :func:`ranking_scores`, in O(len(hits)): predicted genes carry distinct
    decreasing scores, every unpredicted gene scores 0 (tied), and reference
    genes that were never predicted are positives with score 0.

    Parameters
    ----------
    hits : sequence of bool
        For each predicted gene (best first, distinct, all in the universe):
        is it a reference gene?
    n_positive : int
        Number of reference genes in the universe.
    n_universe : int
        Size of the universe.
    """
    hit_array = np.asarray(hits, dtype=bool)
    n_negative = n_universe - n_positive
    if n_positive <= 0 or n_negative <= 0:
        return float("nan")
    misses = ~hit_array
    n_hit, n_miss = int(hit_array.sum()), int(misses.sum())
    if n_hit > n_positive or n_miss > n_negative:
        raise ValueError("more predicted hits/misses than positives/negatives in the universe")
    unpredicted_neg = n_negative - n_miss
    unpredicted_pos = n_positive - n_hit
    misses_below = n_miss - np.cumsum(misses)  # predicted negatives ranked lower
    wins = np.sum((misses_below + unpredicted_neg)[hit_array], dtype=float)
    wins += 0.5 * unpredicted_pos * unpredicted_neg
    return float(wins / (n_positive * n_negative))


def gsea_es_from_hits(hits: Sequence[bool], n_positive: int, n_universe: int) -> float:
    """GSEA ES of a ranking given only which predicted genes are hits.

    Equivalent to :func:`gsea_es_from_scores` with the scores of
    :func:`ranking_scores`: after the predicted genes, the tied zero-score
    block (negatives first) only walks down and back up to the final value 0,
    so the maximum is reached among the predicted prefix or is 0.
    """
    hit_array = np.asarray(hits, dtype=bool)
    if n_positive <= 0 or n_positive >= n_universe:
        return float("nan")
    steps = np.where(hit_array, 1.0 / n_positive, -1.0 / (n_universe - n_positive))
    peak = float(np.cumsum(steps).max()) if steps.size else 0.0
    return min(1.0, max(0.0, peak))  # clip float round-off of the running sum


def universe_members(universe: Collection[str], genes: Set[str]) -> Set[str]:
    """The ``genes`` that belong to ``universe``.

    Uses ``universe.intersection`` when the universe has one (sets and
    :class:`genotex.evaluation.evaluator.GeneUniverse`), so the work happens in C.
    """
    if isinstance(universe, (list, tuple)):
        universe = set(universe)
    intersection = getattr(universe, "intersection", None)
    if intersection is not None:
        return set(intersection(genes))
    return {gene for gene in genes if gene in universe}


def gene_list_metrics(predicted: Sequence[str], reference: Sequence[str],
                      universe: Optional[Collection[str]] = None,
                      virtual_size: int = VIRTUAL_UNIVERSE_SIZE) -> Dict[str, float]:
    """Every analysis metric of one problem (SPEC 6.3).

    Parameters
    ----------
    predicted : sequence of str
        Predicted significant genes, best first; already canonical (compare
        as given). Repeats are dropped keeping the first rank.
    reference : sequence of str
        Reference significant genes (canonical).
    universe : collection of str, optional
        Genes the problem was analysed on (a set, a sequence, or any object
        with ``len`` and ``in``/``intersection``). Predicted genes outside it are
        added to it. ``None`` means a virtual universe of ``virtual_size``
        genes containing prediction and reference.
    virtual_size : int
        Size of the virtual universe.

    Returns
    -------
    dict
        ``precision``, ``recall``, ``f1``, ``jaccard`` (percent), ``auroc``,
        ``gsea_es`` (0-1, NaN when undefined) and ``universe_size``.
    """
    ranked = unique_in_order(predicted)
    reference_set = set(reference)
    scores: Dict[str, float] = dict(overlap_metrics(ranked, reference_set))
    if universe is None:
        union = reference_set.union(ranked)
        n_universe = max(virtual_size, len(union))
        n_positive = len(reference_set)
    else:
        ranked_set = set(ranked)
        members = universe_members(universe, ranked_set | reference_set)
        outside = ranked_set - members  # predicted genes added to the universe
        n_universe = len(universe) + len(outside)
        n_positive = len(reference_set & (members | outside))
    hits = np.fromiter((gene in reference_set for gene in ranked), dtype=bool,
                       count=len(ranked))
    scores["auroc"] = auroc_from_hits(hits, n_positive, n_universe)
    scores["gsea_es"] = gsea_es_from_hits(hits, n_positive, n_universe)
    scores["universe_size"] = n_universe
    return scores


def failed_gene_metrics() -> Dict[str, float]:
    """Scores of a missing or malformed prediction: 0 on every metric."""
    return dict.fromkeys(GENE_METRICS, 0.0)


# --------------------------------------------------------------------------- tables

def pearson_by_row(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Pearson correlation of each row pair, over the columns finite in both.

    Parameters
    ----------
    first, second : numpy.ndarray
        Same shape ``(features, samples)``.

    Returns
    -------
    numpy.ndarray
        One correlation per row, clipped to [-1, 1]; NaN where a row has fewer
        than two jointly finite values or is constant in either array over
        those values.
    """
    a = np.asarray(first, dtype=float)
    b = np.asarray(second, dtype=float)
    if a.shape != b.shape:
        raise ValueError("arrays must have the same shape")
    if a.ndim != 2:
        raise ValueError("arrays must be two-dimensional")
    if a.shape[0] == 0:
        return np.empty(0)
    with np.errstate(over="ignore", invalid="ignore"):
        all_finite = bool(np.isfinite(a.sum()) and np.isfinite(b.sum()))  # one pass each
    if all_finite:  # common case: no mask needed
        mask = None
        count = np.full(a.shape[0], a.shape[1])
        mean_a, mean_b = a.mean(axis=1), b.mean(axis=1)
        dev_a, dev_b = a - mean_a[:, None], b - mean_b[:, None]
    else:
        mask = np.isfinite(a) & np.isfinite(b)
        count = mask.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_a = np.where(mask, a, 0.0).sum(axis=1) / count
            mean_b = np.where(mask, b, 0.0).sum(axis=1) / count
        dev_a = np.where(mask, a - mean_a[:, None], 0.0)
        dev_b = np.where(mask, b - mean_b[:, None], 0.0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        var_a = np.einsum("ij,ij->i", dev_a, dev_a)
        var_b = np.einsum("ij,ij->i", dev_b, dev_b)
        corr = np.einsum("ij,ij->i", dev_a, dev_b) / np.sqrt(var_a * var_b)
        constant = (_is_constant(a, mask, var_a, count * mean_a ** 2)
                    | _is_constant(b, mask, var_b, count * mean_b ** 2))
    corr[(count < 2) | constant | ~np.isfinite(corr)] = np.nan
    return np.clip(corr, -1.0, 1.0)


def _is_constant(values: np.ndarray, mask: Optional[np.ndarray], variance: np.ndarray,
                 level: np.ndarray) -> np.ndarray:
    """Rows whose (masked) values are all equal (exactly).

    Only rows whose centred sum of squares ``variance`` is negligible next to
    ``level`` (= n * mean**2) can be constant (rounding of the mean leaves far
    less), so the exact max == min test runs on those rows alone.
    """
    candidates = np.flatnonzero(~(variance > 1e-20 * level))
    constant = np.zeros(values.shape[0], dtype=bool)
    if candidates.size:
        rows = values[candidates]
        if mask is None:
            constant[candidates] = ~(rows.max(axis=1) > rows.min(axis=1))
        else:
            keep = mask[candidates]
            high = np.where(keep, rows, -np.inf).max(axis=1)
            low = np.where(keep, rows, np.inf).min(axis=1)
            constant[candidates] = ~(high > low)
    return constant


def align_labels(first: Sequence[str], second: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
    """Positions of the labels common to both sequences, in ``first``'s order.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Integer positions in ``first`` and in ``second`` of each common label.
    """
    first, second = list(first), list(second)
    if first == second:
        both = np.arange(len(first), dtype=np.intp)
        return both, both
    if not first or not second:
        return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp)
    where = pd.Index(second, dtype=object).get_indexer(pd.Index(first, dtype=object))
    left = np.flatnonzero(where >= 0)
    return left.astype(np.intp), where[left].astype(np.intp)


def _take(values: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``values[rows][:, columns]``, as a view when both are contiguous ranges."""
    def as_slice(index: np.ndarray):
        if index.size and index[-1] - index[0] + 1 == index.size and (
                index.size < 2 or bool(np.all(np.diff(index) == 1))):
            return slice(int(index[0]), int(index[-1]) + 1)
        return index
    row_key, col_key = as_slice(rows), as_slice(columns)
    if isinstance(row_key, slice) and isinstance(col_key, slice):
        return values[row_key, col_key]
    if isinstance(row_key, slice):
        return values[row_key][:, col_key]
    if isinstance(col_key, slice):
        return values[:, col_key][row_key]
    return values[np.ix_(row_key, col_key)]


def fill_with_row_means(values: np.ndarray) -> np.ndarray:
    """Missing (non-finite) cells replaced by the mean of their row's finite cells.

    A row without any finite cell stays missing. Returns ``values`` itself when
    every cell is finite.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(values.sum()):
            return values
    finite = np.isfinite(values)
    count = finite.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(finite, values, 0.0).sum(axis=1) / count
    return np.where(finite, values, means[:, None])


def _varies(values: np.ndarray) -> np.ndarray:
    """Rows with at least two distinct finite values."""
    finite = np.isfinite(values)
    high = np.where(finite, values, -np.inf).max(axis=1, initial=-np.inf)
    low = np.where(finite, values, np.inf).min(axis=1, initial=np.inf)
    return high > low


def coverage_aware_correlation(reference: np.ndarray, predicted: np.ndarray,
                               legacy: bool = False) -> np.ndarray:
    """Per-feature Pearson correlation where missing predicted values cost (SPEC 6.2).

    Parameters
    ----------
    reference, predicted : numpy.ndarray
        Aligned ``(features, samples)`` blocks (common labels only).
    legacy : bool
        The original evaluator's convention: reference values are mean-filled too,
        and a row that is constant after filling is left out whatever the reason.

    Returns
    -------
    numpy.ndarray
        One correlation per feature (NaN = left out of the mean). A predicted
        missing value is filled with the feature's mean over the predicted values
        of the common samples; the correlation then runs over the samples where
        the reference is finite. A feature constant in the reference, or
        predicted constant from at least two given values, is left out (NaN);
        a feature the reference varies on whose prediction gives fewer than two
        values there correlates 0 (blanking a feature must not remove it from the
        mean).
    """
    ref = np.asarray(reference, dtype=float)
    pred = np.asarray(predicted, dtype=float)
    if legacy:
        return pearson_by_row(fill_with_row_means(ref), fill_with_row_means(pred))
    corr = pearson_by_row(ref, fill_with_row_means(pred))
    undefined = np.isnan(corr)
    if undefined.any():
        rows = np.flatnonzero(undefined)
        given = (np.isfinite(pred[rows]) & np.isfinite(ref[rows])).sum(axis=1)
        blank = rows[(given < 2) & _varies(ref[rows])]
        corr[blank] = 0.0
    return corr


def table_similarity(ref_features: Sequence[str], ref_samples: Sequence[str],
                     ref_values: np.ndarray,
                     pred_features: Sequence[str], pred_samples: Sequence[str],
                     pred_values: np.ndarray, legacy: bool = False) -> Dict[str, float]:
    """AJ, SJ, CSC and coverage of a predicted table against a reference (SPEC 6.2).

    Both tables are given as features (rows) x samples (columns) with unique
    labels; callers transpose linked tables first.

    Parameters
    ----------
    legacy : bool
        The original evaluator's correlation convention
        (:func:`coverage_aware_correlation`).

    Returns
    -------
    dict
        ``aj``, ``sj``, ``csc`` in percent; ``correlation`` (mean Pearson
        correlation over comparable features, 0 when none); ``coverage`` (percent
        of the reference's finite cells that have a finite predicted value at the
        same feature and sample; NaN when the reference has no finite cell);
        counts ``common_features``, ``common_samples``, ``correlated_features``.
    """
    aj = jaccard_index(ref_features, pred_features)
    sj = jaccard_index(ref_samples, pred_samples)
    ref_f, pred_f = align_labels(ref_features, pred_features)
    ref_s, pred_s = align_labels(ref_samples, pred_samples)
    ref_array = np.asarray(ref_values, dtype=float)
    covered = 0
    if ref_f.size and ref_s.size:
        ref_block = _take(ref_array, ref_f, ref_s)
        pred_block = _take(np.asarray(pred_values, dtype=float), pred_f, pred_s)
        corr = coverage_aware_correlation(ref_block, pred_block, legacy)
        covered = int(np.count_nonzero(np.isfinite(ref_block) & np.isfinite(pred_block)))
    else:
        corr = np.empty(0)
    reference_cells = int(np.count_nonzero(np.isfinite(ref_array)))
    comparable = corr[np.isfinite(corr)]
    mean_corr = float(comparable.mean()) if comparable.size else 0.0
    coverage = PERCENT * covered / reference_cells if reference_cells else float("nan")
    return {"aj": PERCENT * aj, "sj": PERCENT * sj, "csc": PERCENT * aj * sj * mean_corr,
            "correlation": mean_corr, "coverage": coverage,
            "common_features": int(ref_f.size), "common_samples": int(ref_s.size),
            "correlated_features": int(comparable.size)}


def failed_table_metrics() -> Dict[str, float]:
    """Scores of a missing or unreadable predicted table: 0 for AJ, SJ, CSC and coverage."""
    return {"aj": 0.0, "sj": 0.0, "csc": 0.0, "coverage": 0.0}


# --------------------------------------------------------------------------- averages

def nan_mean(values: Iterable[float]) -> Tuple[float, int]:
    """Mean over the finite values and how many there were.

    Returns
    -------
    (float, int)
        ``(mean, n)``; the mean is NaN when ``n == 0``.
    """
    array = np.fromiter((np.nan if v is None else v for v in values), dtype=float)
    finite = array[np.isfinite(array)]
    return (float(finite.mean()) if finite.size else float("nan")), int(finite.size)
