"""The project's one canonical form of labels and gene symbols (utils.symbols)."""

from __future__ import annotations

import os

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


def _write_map(path, mapping, mtime_ns):
    from utils.io import atomic_write_json

    atomic_write_json(path, mapping)
    os.utime(path, ns=(mtime_ns, mtime_ns))


def test_a_gene_map_replaced_within_one_mtime_tick_is_read_again(tmp_path):
    """The cache was keyed on (path, mtime, size): a map rewritten with the same size
    within a coarse file system's time tick (simulated: the old mtime set back) was served
    stale. An atomic rewrite gives a new inode, and the key now holds it."""
    from utils.symbols import load_gene_map

    path = tmp_path / "gene_synonym.json"
    _write_map(path, {"P53": "TP53"}, 1_700_000_000_000_000_000)
    assert dict(load_gene_map(path)) == {"P53": "TP53"}
    _write_map(path, {"P53": "TP63"}, 1_700_000_000_000_000_000)  # same size, same mtime
    assert dict(load_gene_map(path)) == {"P53": "TP63"}


def test_a_missing_gene_map_is_named(tmp_path):
    import pytest

    from utils.errors import InputFileError
    from utils.symbols import load_gene_map

    with pytest.raises(InputFileError, match="gene map not found"):
        load_gene_map(tmp_path / "absent.json")
