"""Unique canonical labels of a table (genotex.evaluation.labels)."""

from __future__ import annotations

from pathlib import Path

import pytest

from genotex.evaluation.labels import canonical_unique
from genotex.evaluation.statuses import ItemError


def test_duplicates_after_upper_casing_are_malformed():
    assert canonical_unique(["a", "B"], Path("t.csv"), "gene") == ["A", "B"]
    with pytest.raises(ItemError, match=r"duplicate gene 'a' \(positions 1 and 2\)"):
        canonical_unique(["A", "a"], Path("t.csv"), "gene")
    with pytest.raises(ItemError, match="empty gene label at position 2"):
        canonical_unique(["A", " "], Path("t.csv"), "gene")
