"""Batch-effect detection (tools.statistics.batch, SPEC 5.3): the rule and its reach."""

from __future__ import annotations

import numpy as np
import pytest

from tools.statistics.batch import detect_batch_effect, leading_eigenvalue_ratios


def test_batch_effect_rule():
    rng = np.random.default_rng(3)
    noise = rng.normal(size=(300, 200))
    assert not detect_batch_effect(noise)
    shifted = noise.copy()
    shifted[:150] += 3.0  # two batches: one dominant eigenvalue
    ratios = leading_eigenvalue_ratios(shifted)
    assert ratios[0] == 1.0 and ratios[1] < 0.2
    assert detect_batch_effect(shifted)                      # gap > 200 / 300
    assert not detect_batch_effect(shifted[:150 + 40])       # n < 200: threshold > 1
    assert detect_batch_effect(shifted[:190], gap_numerator=100)


@pytest.mark.parametrize("n", [60, 150, 199])
def test_the_rule_cannot_fire_below_200_samples(n):
    # the threshold 200 / n exceeds 1 and normalized gaps lie in [0, 1]: even a batch
    # that is all there is in the data goes to the Lasso path
    rng = np.random.default_rng(n)
    X = 0.01 * rng.normal(size=(n, 300))
    X[: n // 2] += 10.0
    assert leading_eigenvalue_ratios(X)[1] < 1e-3      # one overwhelming component
    assert not detect_batch_effect(X)


def test_from_500_samples_any_dominant_component_fires():
    # at n >= 500 the threshold is <= 0.4: a continuous biological factor (no batch)
    # that dominates the spectrum sends the problem to the LMM path just as a batch does
    rng = np.random.default_rng(7)
    n, p = 500, 400
    factor = rng.normal(size=n)                        # e.g. a cell-type proportion
    X = rng.normal(size=(n, p)) + np.outer(factor, rng.normal(0.0, 1.0, p) * (rng.random(p) < 0.3))
    ratios = leading_eigenvalue_ratios(X)
    assert ratios[0] - ratios[1] > 200 / n
    assert detect_batch_effect(X)
    # the same factor at n = 199 is never detected
    assert not detect_batch_effect(X[:199])


@pytest.mark.parametrize("seed", range(4))
def test_float32_decision_is_the_float64_decision_or_none(seed):
    # The float32 Gram's rigorous error bound settles the rule away from the
    # threshold and defers to float64 near it: never a different answer.
    from tools.statistics.batch import single_precision_decision

    rng = np.random.default_rng(seed)
    n, p = 210, 1500
    X = rng.normal(size=(n, 8)) @ rng.normal(size=(8, p)) * rng.uniform(0.2, 1.5)
    X += rng.normal(size=(n, p)) + rng.uniform(-50, 50, size=p)   # offsets: centring matters
    if seed % 2:
        X[: n // 2] += 1.5                                          # two batches
    gaps = -np.diff(leading_eigenvalue_ratios(X))
    largest = float(gaps.max())
    settled = 0
    for threshold in np.concatenate([np.linspace(0.0, 1.0, 11), [largest * (1 - 1e-9)]]):
        decision = single_precision_decision(X, threshold)
        if decision is not None:
            settled += 1
            assert decision == (largest > threshold), threshold
            assert single_precision_decision(X, threshold, workers=3) in (None, decision)
    assert settled >= 8                       # the bound is tight enough to matter
    assert single_precision_decision(X, largest * (1 - 1e-9)) is None   # too close to tell
    assert detect_batch_effect(X, 0.0) is True
