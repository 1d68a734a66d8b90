"""The held-out replies (:mod:`genotex.testing.held_out_replies`) through the readers.

The set was written before looking at the readers' own corpus, so it checks the
readers on wordings their authors did not choose. Every reply must be read as
a human reads it; the replies the readers still ask again about (where a human
would have understood) are strict xfails with the reason, and none may be
misread (a wrong meaning, or acting on a reply a human would ask again about).
"""

from __future__ import annotations

from collections import Counter

import pytest

from genotex.testing import reply_audit
from genotex.testing.held_out_replies import (ASK, CODE, GENES, HELD_OUT, KEEP_CODE, PLAN,
                                              READERS, REVIEW, REVISE, ROUND_TWO, SYNONYMS)
from utils.symbols import load_synonym_map

#: Replies the readers ask again about although a human understands them.
STILL_ASKED = {
    "review-looks-good": "'Looks good to me' is not taken as an approval: the review "
                         "readers approve only on approval words, never by default",
    "genes-prose-sentence": "genes named in running prose ('APOE, followed by TREM2 and "
                            "CLU') are not read; the method asks for the JSON array again",
}
BY_NAME = {case.name: case for case in HELD_OUT + ROUND_TWO}


def test_the_set_is_well_formed():
    names = [case.name for case in HELD_OUT + ROUND_TWO]
    assert len(names) == len(set(names))
    assert {case.reader for case in ROUND_TWO} == set(READERS)
    counts = Counter(case.reader for case in HELD_OUT)
    assert set(counts) == set(READERS) and min(counts.values()) >= 15
    assert 100 <= len(HELD_OUT) <= 200
    assert set(STILL_ASKED) <= set(BY_NAME)
    # replies a human would ask again about too (refusals, cut-offs, hedges)
    assert sum(case.expected is ASK for case in HELD_OUT) >= 10


@pytest.mark.parametrize("name", [
    pytest.param(case.name, marks=pytest.mark.xfail(strict=True, reason=STILL_ASKED[case.name]))
    if case.name in STILL_ASKED else case.name for case in HELD_OUT])
def test_each_reply_is_read_as_a_human_reads_it(name):
    case = BY_NAME[name]
    value = reply_audit.read(case)
    assert reply_audit.judge(case, value) == reply_audit.CORRECT, (case.text, value)


@pytest.mark.parametrize("name", [case.name for case in ROUND_TWO])
def test_each_round_two_reply_is_read_as_a_human_reads_it(name):
    case = BY_NAME[name]
    assert reply_audit.judge(case, reply_audit.read(case)) == reply_audit.CORRECT, case.text


def test_no_reply_is_misread():
    results = reply_audit.audit()
    misread = {name: r["value"] for name, r in results.items()
               if r["outcome"] == reply_audit.MISREAD}
    assert misread == {}
    asked = {name for name, r in results.items() if r["outcome"] == reply_audit.ASKED}
    assert asked == set(STILL_ASKED)


def test_the_judge_tells_misreading_from_asking_again():
    review = BY_NAME["review-rejected-numbered"]             # (False, 3)
    assert reply_audit.judge(review, None) == reply_audit.ASKED
    assert reply_audit.judge(review, (True, [])) == reply_audit.MISREAD
    assert reply_audit.judge(review, (False, ["a"])) == reply_audit.MISREAD
    assert reply_audit.judge(review, (False, ["a", "b", "c"])) == reply_audit.CORRECT
    refusal = BY_NAME["code-refusal"]                          # ASK
    assert reply_audit.judge(refusal, None) == reply_audit.CORRECT
    assert reply_audit.judge(refusal, "print(1)\n") == reply_audit.MISREAD
    keep = BY_NAME["revise-keep-word"]
    assert reply_audit.judge(keep, "print(1)\n") == reply_audit.MISREAD
    assert reply_audit.judge(keep, KEEP_CODE) == reply_audit.CORRECT
    code = BY_NAME["code-crlf"]                               # blank lines and CRLF ignored
    assert reply_audit.judge(code, code.expected.replace("\n", "\r\n\n")) == reply_audit.CORRECT
    assert reply_audit.judge(code, code.expected + "print(1)\n") == reply_audit.MISREAD
    plan = BY_NAME["plan-back"]
    assert reply_audit.judge(plan, ("back", "gene_annotation")) == reply_audit.MISREAD
    genes = BY_NAME["genes-json"]
    assert reply_audit.judge(genes, ["IL6", "TNF", "IL1B"]) == reply_audit.MISREAD


def test_every_reader_kind_is_covered_by_the_expected_values():
    kinds = {CODE: str, REVISE: str, REVIEW: tuple, PLAN: tuple, GENES: list}
    for case in HELD_OUT + ROUND_TWO:
        assert case.expected is ASK or isinstance(case.expected, kinds[case.reader]), case.name


def test_the_cli_prints_the_figures(capsys):
    assert reply_audit.main([]) == 0
    out = capsys.readouterr().out
    total = next(line for line in out.splitlines() if line.startswith("all "))
    assert total.split() == ["all", str(len(HELD_OUT)), str(len(HELD_OUT) - len(STILL_ASKED)),
                             "0", str(len(STILL_ASKED))]
    for name in STILL_ASKED:
        assert f"asked    {name}:" in out
    assert reply_audit.main(["--round-two"]) == 0
    total = next(line for line in capsys.readouterr().out.splitlines()
                 if line.startswith("all "))
    assert total.split() == ["all", str(len(ROUND_TWO)), str(len(ROUND_TWO)), "0", "0"]


def test_the_stored_synonyms_are_the_real_maps_entries(real_gene_maps):
    """SYNONYMS holds the real map's entries, and the full map reads the genes the same."""
    real = load_synonym_map(real_gene_maps)
    assert {alias: real.get(alias) for alias in SYNONYMS} == SYNONYMS
    genes = [case for case in HELD_OUT + ROUND_TWO if case.reader == GENES]
    assert {c.name: reply_audit.read(c, real) for c in genes} == \
        {c.name: reply_audit.read(c, SYNONYMS) for c in genes}

