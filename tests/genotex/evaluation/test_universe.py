"""Gene universes over a shared vocabulary (genotex.evaluation.universe)."""

from __future__ import annotations

from genotex.evaluation.universe import GeneUniverse, GeneVocabulary


def test_union_of_tables_and_membership():
    vocabulary = GeneVocabulary()
    first, second = vocabulary.encode_many([["A", "B", "C"], ["C", "D"]])
    later, = vocabulary.encode_many([["E"]])  # encoded after the others: ids grow
    union = GeneUniverse(vocabulary, [first, second])
    assert len(union) == 4
    assert "D" in union and "E" not in union and "Z" not in union
    assert union.intersection(["A", "E", "Z", "C"]) == {"A", "C"}
    assert len(GeneUniverse(vocabulary, [later])) == 1
