"""Property tests are not timed (tests/conftest.py loads the ``untimed`` Hypothesis profile).

An example that takes longer than Hypothesis's default 200 ms deadline -- what any
example does on a loaded machine -- is not a failure.
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
