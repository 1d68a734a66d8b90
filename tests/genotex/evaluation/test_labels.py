"""Canonical labels and gene symbols (genotex.evaluation.labels)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from genotex.evaluation.labels import (canonical_genes, canonical_label, canonical_labels,
                                       canonical_unique)
from genotex.evaluation.statuses import ItemError


@given(st.lists(st.text(alphabet=st.sampled_from("aB1- \t\u00e9\u00a0ß\n"), max_size=6),
                max_size=6))
def test_batch_canonicalization_equals_one_by_one(labels):
    assert canonical_labels(labels) == [canonical_label(label) for label in labels]


def test_synonyms_apply_after_upper_casing():
    assert canonical_genes([" oldname ", "tp53", "X"], {"OLDNAME": "New1", "X": " "}) == [
        "NEW1", "TP53", "X"]  # a blank official symbol is ignored


def test_duplicates_after_upper_casing_are_malformed():
    assert canonical_unique(["a", "B"], Path("t.csv"), "gene") == ["A", "B"]
    with pytest.raises(ItemError, match=r"duplicate gene 'a' \(positions 1 and 2\)"):
        canonical_unique(["A", "a"], Path("t.csv"), "gene")
    with pytest.raises(ItemError, match="empty gene label at position 2"):
        canonical_unique(["A", " "], Path("t.csv"), "gene")
