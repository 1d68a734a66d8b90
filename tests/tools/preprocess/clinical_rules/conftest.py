"""Fixtures of the clinical-rules tests: the scored demo cohorts and real series."""

import pytest

from tests.conftest import REPO_ROOT, SHARED_DATA, shared_file
from tests.tools.preprocess.clinical_rules import scoring


@pytest.fixture(scope="module")
def demo_cohorts():
    """The 13 demo GEO cohorts with their truth (:func:`scoring.demo_cohorts`)."""
    return scoring.demo_cohorts(REPO_ROOT)


@pytest.fixture(scope="module")
def real_cohorts():
    """The real series of ../shared/data with the hand-made truth (skips when absent)."""
    shared_file("geo")
    return scoring.real_cohorts(SHARED_DATA)
