"""Which row holds the trait: a ranking of the candidate rows and "no row".

Each candidate row gets a score, the weighted sum of its named features
(:mod:`.features`); "no trait row" gets one from the series-level features.
The scores become probabilities with a softmax over the series' alternatives
(a conditional logit), and the most probable alternative wins; its
probability is the decision's confidence.

The weights are generic -- they say how much "a value names the trait",
"the key is a response key" or "another row says every sample is a case"
count, for any trait -- and are fitted to curators' decisions by
:func:`fit_row_model` (L2-penalised maximum likelihood, L-BFGS, deterministic;
each series' log-likelihood may carry a weight -- the development harness
gives every trait the same total, :func:`.devset.trait_balanced_weights`).
The shipped weights (``row_model.json``, package data) were fitted on the
development split of real curators' decisions; their accuracy on traits they
were not fitted on is measured by cross-validation by trait
(:mod:`.devset`, ``benchmarks/bench_rules_clinical.py``).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
from scipy.optimize import minimize

from tools.preprocess.clinical_rules.features import (RowProfile, as_vector, feature_names,
                                                      none_features, profile_row,
                                                      row_features)

#: The shipped weights (package data).
MODEL_FILE = "row_model.json"
#: L2 penalty of :func:`fit_row_model` (on the weighted sum of log-likelihoods).
#: The best of (1, 2, 3, 4) in cross-validation by trait on the development
#: split (a development choice; nested cross-validation, which chooses it inside
#: each fold, is ``devset --cv --nested``; docs/preprocessing_clinical.md).
DEFAULT_L2 = 2.0

NO_ROW = None


@dataclass(frozen=True)
class RowModel:
    """Weights of the trait-row ranking.

    Attributes
    ----------
    weights : mapping
        ``{feature name: weight}`` (absent features weigh 0).
    l2 : float
        Penalty the weights were fitted with.
    fitted_on : str
        What the weights were fitted on (provenance).
    """

    weights: Mapping[str, float]
    l2: float = DEFAULT_L2
    fitted_on: str = ""

    def vector(self) -> np.ndarray:
        """The weights in :func:`.features.feature_names` order."""
        return np.array([self.weights.get(name, 0.0) for name in feature_names()])

    def to_json(self) -> str:
        """The model as JSON (weights rounded to 6 decimals, sorted by name)."""
        return json.dumps({"fitted_on": self.fitted_on, "l2": self.l2,
                           "features": list(feature_names()),
                           "weights": {k: round(float(self.weights.get(k, 0.0)), 6)
                                       for k in feature_names()}},
                          indent=1, ensure_ascii=False) + "\n"


@functools.lru_cache(maxsize=1)
def load_row_model() -> RowModel:
    """The shipped :class:`RowModel` (read once per process)."""
    text = resources.files("tools.preprocess.clinical_rules").joinpath(MODEL_FILE) \
        .read_text(encoding="utf-8")
    data = json.loads(text)
    unknown = set(data.get("weights", {})) - set(feature_names())
    if unknown:
        raise ValueError(f"{MODEL_FILE}: unknown features {sorted(unknown)}")
    return RowModel(weights=data["weights"], l2=data.get("l2", DEFAULT_L2),
                    fitted_on=data.get("fitted_on", ""))


@dataclass(frozen=True)
class Alternative:
    """One alternative of the trait-row decision.

    Attributes
    ----------
    row : object or None
        The row label, or None for "no trait row".
    features : dict
        Its named features.
    score : float
        Weighted sum of the features.
    probability : float
        Softmax of the scores over the series' alternatives.
    profile : RowProfile or None
        The row's profile (None for "no trait row").
    """

    row: Any
    features: Dict[str, float]
    score: float = 0.0
    probability: float = 0.0
    profile: Optional[RowProfile] = field(default=None, compare=False)


def alternatives(characteristics: Mapping[Any, Sequence[Any]], trait: str, background: str,
                 exclude: Sequence[Any] = (), background_level: int = 0
                 ) -> List[Alternative]:
    """The alternatives of a series (candidate rows in order, then "no trait row").

    Rows in ``exclude`` (the age and sex rows) and rows without any present
    value are not candidates.
    """
    profiles = [profile_row(row, values, trait, background)
                for row, values in characteristics.items() if row not in exclude]
    profiles = [p for p in profiles if p.cells]
    result = []
    for i, profile in enumerate(profiles):
        others = profiles[:i] + profiles[i + 1:]
        result.append(Alternative(profile.row, row_features(profile, others, i == 0,
                                                             background_level, trait),
                                  profile=profile))
    result.append(Alternative(NO_ROW, none_features(profiles, background_level)))
    return result


def score_alternatives(options: Sequence[Alternative], model: RowModel) -> List[Alternative]:
    """The alternatives with scores and probabilities, in the same order."""
    weights = model.vector()
    scores = [float(np.dot(weights, as_vector(a.features))) for a in options]
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return [Alternative(a.row, a.features, s, e / total, a.profile)
            for a, s, e in zip(options, scores, exps)]


def best_alternative(scored: Sequence[Alternative]) -> Alternative:
    """The most probable alternative; ties go to the earlier one (rows before "no row")."""
    best = scored[0]
    for option in scored[1:]:
        if option.score > best.score + 1e-12:
            best = option
    return best


def _negative_log_likelihood(weights: np.ndarray, matrix: np.ndarray, starts: np.ndarray,
                             group: np.ndarray, gold: np.ndarray, example_weights: np.ndarray,
                             l2: float) -> Tuple[float, np.ndarray]:
    """Penalised negative log-likelihood of the conditional logit and its gradient.

    ``matrix`` stacks every series' alternatives; ``starts`` is where each
    series begins, ``group`` the series of each alternative, ``gold`` the row
    of each series' chosen alternative, ``example_weights`` each series' weight.
    """
    scores = matrix @ weights
    top = np.maximum.reduceat(scores, starts)
    exps = np.exp(scores - top[group])
    totals = np.add.reduceat(exps, starts)
    probs = exps / totals[group]
    log_likelihood = scores[gold] - top - np.log(totals)
    value = 0.5 * l2 * float(weights @ weights) - float(example_weights @ log_likelihood)
    grad = l2 * weights - (example_weights @ matrix[gold]
                           - (probs * example_weights[group]) @ matrix)
    return value, grad


def fit_row_model(examples: Sequence[Tuple[Sequence[Alternative], int]],
                  l2: float = DEFAULT_L2, fitted_on: str = "",
                  example_weights: Optional[Sequence[float]] = None) -> RowModel:
    """Fit the weights to decisions (L2-penalised conditional logit).

    Parameters
    ----------
    examples : sequence of (alternatives, gold index)
        Each series' alternatives (:func:`alternatives`) and the index of the
        curator's choice among them.
    l2 : float
        Penalty on the squared weights.
    fitted_on : str
        Provenance to record in the model.
    example_weights : sequence of float, optional
        Weight of each example's log-likelihood (default: 1 each). An example
        of weight 2 counts as the same example given twice.

    Returns
    -------
    RowModel
    """
    names = feature_names()
    if not examples:
        raise ValueError("fit_row_model needs at least one example")
    weights = (np.ones(len(examples)) if example_weights is None
               else np.asarray(example_weights, dtype=float))
    if weights.shape != (len(examples),) or not np.all(weights >= 0):
        raise ValueError("example_weights must hold one non-negative weight per example")
    matrices = [np.array([as_vector(a.features) for a in options]) for options, _ in examples]
    sizes = np.array([len(m) for m in matrices])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    gold = starts + np.array([g for _, g in examples])
    group = np.repeat(np.arange(len(examples)), sizes)
    start = np.zeros(len(names))
    result = minimize(_negative_log_likelihood, start,
                      args=(np.vstack(matrices), starts, group, gold, weights, l2), jac=True,
                      method="L-BFGS-B", options={"maxiter": 2000, "gtol": 1e-8})
    return RowModel(weights=dict(zip(names, (float(w) for w in result.x))), l2=l2,
                    fitted_on=fitted_on)
