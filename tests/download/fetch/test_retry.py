"""Tests for download.fetch.retry: the retry loop on its own (no server)."""

from __future__ import annotations

import random

import pytest

from download.fetch.errors import DownloadError, RemoteNotFoundError, TransientFailure
from download.fetch.retry import RetryPolicy, retry_call

POLICY = RetryPolicy(max_attempts=3, backoff_base=1.0, backoff_max=60.0, max_retry_after=5.0)


def run(outcomes, classify=None):
    """``retry_call`` over a scripted list of outcomes; returns (result or error, waits)."""
    script = iter(outcomes)
    waits = []

    def attempt():
        outcome = next(script)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    try:
        result = retry_call(attempt, "item", "https://example.org/f", POLICY,
                            classify or (lambda exc, n: TransientFailure(str(exc))),
                            waits.append, random.Random(0))
    except DownloadError as exc:
        result = exc
    return result, waits


def test_transient_failures_are_retried_with_growing_back_off():
    result, waits = run([TransientFailure("HTTP 503"), OSError("reset"), "done"])
    assert result == "done"
    # equal jitter: attempt k waits between 1/2 and 1 x 2**(k-1) seconds
    assert len(waits) == 2 and 0.5 <= waits[0] <= 1.0 and 1.0 <= waits[1] <= 2.0


def test_retry_after_is_honoured_up_to_its_cap():
    result, waits = run([TransientFailure("HTTP 429", retry_after=3.0),
                         TransientFailure("HTTP 429", retry_after=900.0), "done"])
    assert result == "done" and waits[0] == 3.0 and waits[1] == 5.0


def test_attempts_run_out_with_the_last_reason():
    result, waits = run([TransientFailure("HTTP 500")] * 2 + [TransientFailure("timed out")])
    assert isinstance(result, DownloadError) and len(waits) == 2
    assert str(result) == ("item: could not fetch https://example.org/f after 3 attempts: "
                           "timed out")


def test_permanent_failures_stop_at_once():
    gone = RemoteNotFoundError("item", "https://example.org/f", "HTTP 404 Not Found")
    result, waits = run([gone, "never"])
    assert result is gone and waits == []

    def classify(exc, attempt):
        raise RemoteNotFoundError("item", "u", f"permanent after {attempt}") from exc

    result, waits = run([ValueError("bad")], classify)
    assert isinstance(result, RemoteNotFoundError) and "permanent after 1" in str(result)
    assert waits == []


@pytest.mark.parametrize("attempt, ceiling", [(1, 1.0), (2, 2.0), (7, 60.0)])
def test_back_off_ceiling(attempt, ceiling):
    delays = [POLICY.backoff(attempt, random.Random(seed)) for seed in range(50)]
    assert all(ceiling / 2 <= d <= ceiling for d in delays)
