"""Property tests are not timed and not random (tests/conftest.py loads the ``untimed``
Hypothesis profile).

An example that takes longer than Hypothesis's default 200 ms deadline -- what any
example does on a loaded machine -- is not a failure; every run draws the same examples
and keeps no database in the checkout.
"""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=3)  # inherits the profile's deadline (a setting of its own only)
@given(st.integers(0, 3))
def test_a_slow_example_is_not_a_failure(number):
    time.sleep(0.25)  # stands for a descheduled process: longer than the default deadline
    assert 0 <= number <= 3


def _examples_drawn():
    drawn = []

    @settings(max_examples=20)
    @given(st.lists(st.integers(), max_size=5))
    def record(values):
        drawn.append(values)

    record()
    return drawn


def test_every_run_draws_the_same_examples():
    """Before: examples were random per run, so a rare failing example could fail one CI
    run and not the next."""
    assert _examples_drawn() == _examples_drawn()
    assert settings().database is None
