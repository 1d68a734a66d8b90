"""Tests for utils.io.http.retry: the retry loop on its own (no server)."""

from __future__ import annotations

import random

import pytest

from utils.io.http.errors import (DeadlineExceeded, DownloadError, RemoteNotFoundError,
                                   RunDeadlineExceeded, TransientFailure)
from utils.io.http.retry import Deadline, RetryPolicy, retry_call

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


def test_no_attempt_starts_after_the_deadline():
    now = [0.0]
    deadline = Deadline.after(5.0, "transfer", clock=lambda: now[0])
    calls = []

    def attempt():
        calls.append(now[0])
        now[0] += 3.0  # each attempt takes 3 s
        raise TransientFailure("timed out")

    policy = RetryPolicy(max_attempts=6, backoff_base=0.001, backoff_max=0.001)
    with pytest.raises(DeadlineExceeded, match="timed out; stopped: the transfer deadline "
                                               "of 5 s passed") as info:
        retry_call(attempt, "item", "https://example.org/f", policy, None, lambda s: None,
                   random.Random(0), deadline=deadline)
    assert calls == [0.0, 3.0] and info.value.attempts == 2
    assert not isinstance(info.value, RunDeadlineExceeded)


def test_a_back_off_that_would_end_after_the_deadline_is_not_waited():
    deadline = Deadline.after(10.0, "run", clock=lambda: 0.0)
    waits = []
    with pytest.raises(RunDeadlineExceeded, match="the run deadline of 10 s passed"):
        retry_call(lambda: (_ for _ in ()).throw(TransientFailure("HTTP 503", 60.0)), "item",
                   "https://example.org/f", RetryPolicy(), None, waits.append,
                   random.Random(0), deadline=deadline)
    assert waits == []  # Retry-After 60 s > 10 s left: give up instead of sleeping
