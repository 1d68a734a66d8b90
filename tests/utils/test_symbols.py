"""The project's one canonical form of labels and gene symbols (utils.symbols)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from utils.symbols import canonical_gene, canonical_genes, canonical_label, canonical_labels


@given(st.lists(st.text(alphabet=st.sampled_from("aB1- \t\u00e9\u00a0ß\n"), max_size=6),
                max_size=6))
def test_batch_canonicalization_equals_one_by_one(labels):
    assert canonical_labels(labels) == [canonical_label(label) for label in labels]


def test_canonical_label_strips_and_upper_cases():
    assert canonical_label(" tp53\t") == "TP53"
    assert canonical_label("\u00a0ß ") == "SS"  # Unicode space stripped, ß upper-cased


def test_synonyms_apply_after_upper_casing():
    assert canonical_genes([" oldname ", "tp53", "X"], {"OLDNAME": "New1", "X": " "}) == [
        "NEW1", "TP53", "X"]  # a blank official symbol is ignored
    assert canonical_gene("oldname", {"OLDNAME": "new1"}) == "NEW1"
