"""Cohort selection (SPEC 5.2) on hand-made cohort_info records and trees."""

from __future__ import annotations

import gzip
import json

import pytest

from hypothesis import given
from hypothesis import strategies as st

from utils.errors import InputFileError
from utils.problems import Problem
from utils.columns import gene_columns
from utils.selection import (LinkedTableIndex, read_csv_header, select_cohorts, select_in_tree,
                             usable_cohorts)


def record(size, usable=True, age=False, gender=False):
    return {"is_usable": usable, "is_gene_available": True, "is_trait_available": True,
            "is_available": True, "is_biased": not usable, "has_age": age,
            "has_gender": gender, "sample_size": size, "note": ""}


def test_one_step_picks_largest_then_smallest_id():
    info = {"GSE2": record(50), "GSE1": record(50), "GSE3": record(40, age=True),
            "GSE4": record(90, usable=False)}
    assert select_cohorts(Problem("T"), info).cohorts == ("GSE1",)  # tie 50/50 -> id
    assert select_cohorts(Problem("T", "Age"), info).cohorts == ("GSE3",)
    none = select_cohorts(Problem("T", "Gender"), info)
    assert not none.ok and "Gender" in none.reason


def test_damaged_records_are_not_usable():
    info = {"a": record(True), "b": record("10"), "c": "junk", "d": record(-3),
            "e": {**record(10), "is_usable": "true"}, "f": record(7)}
    assert list(usable_cohorts(info)) == ["f"]


def test_two_step_takes_first_pair_with_shared_regressors():
    trait = {"T1": record(100), "T2": record(50)}
    cond = {"C1": record(80), "C2": record(60)}
    columns = {("T", "T1"): ["G1", "G2"], ("T", "T2"): ["G3", "G9"],
               ("C", "C1"): ["G3", "G4"], ("C", "C2"): ["G2", "G3", "G1"]}
    # products: T1C1 8000, T1C2 6000, T2C1 4000, T2C2 3000.
    # T1C1 shares no gene of C's list; T1C2 shares G2 and G1 -> chosen.
    sel = select_cohorts(Problem("T", "C"), trait, cond, ["G2", "G3", "G1", "G2"],
                         lambda t, c: columns[(t, c)])
    assert sel.cohorts == ("T1", "C2")
    assert sel.regressors == ["G2", "G1"]  # task order, de-duplicated


def test_two_step_without_any_pair_is_skipped_with_reason():
    sel = select_cohorts(Problem("T", "C"), {"T1": record(10)}, {"C1": record(10)},
                         ["X"], lambda t, c: ["G1"])
    assert not sel.ok and "shares a known gene" in sel.reason
    sel = select_cohorts(Problem("T", "C"), {"T1": record(10)}, {}, ["X"], None)
    assert not sel.ok and "no usable cohort for C" in sel.reason


def test_select_in_tree_reads_headers_once(tmp_path):
    root = tmp_path / "preprocess"
    for trait, cohort, genes in [("T", "GSE1", ["A", "B"]), ("C", "Xena", ["B", "Z"])]:
        (root / trait).mkdir(parents=True)
        (root / trait / "cohort_info.json").write_text(json.dumps({cohort: record(20)}))
        header = ",".join(["", trait, "Age"] + genes)
        (root / trait / f"{cohort}.csv").write_text(header + "\ns1,1,30" + ",1" * len(genes))
    task = {"T": {"related_genes": [], "conditions": ["C"]},
            "C": {"related_genes": ["Z", "B"], "conditions": []}}
    index = LinkedTableIndex(root)
    sel = select_in_tree(Problem("T", "C"), root, task, index)
    assert sel.cohorts == ("GSE1", "Xena") and sel.regressors == ["B"]
    assert index.gene_columns("T", "GSE1") == ["A", "B"]
    (root / "T" / "GSE1.csv").unlink()  # served from the header cache from now on
    assert index.gene_columns("T", "GSE1") == ["A", "B"]
    # A broken cohort_info counts as "no usable cohort", not a crash.
    (root / "T" / "cohort_info.json").write_text("{broken")
    assert not select_in_tree(Problem("T"), root, task, cohort_info_cache={}).ok


def test_two_step_requires_column_reader():
    with pytest.raises(ValueError):
        select_cohorts(Problem("T", "C"), {"a": record(1)}, {"b": record(1)}, ["G"])


@given(st.lists(st.sampled_from(["T", "Age", "Gender", "G1", "G2", "G3"]), max_size=8))
def test_gene_columns_drops_trait_age_and_gender_anywhere(columns):
    assert gene_columns(columns, "T") == [c for c in columns if c not in ("T", "Age", "Gender")]


def test_invalid_record_is_ignored_when_evaluating_and_fails_regress(tmp_path):
    root = tmp_path / "preprocess"
    (root / "T").mkdir(parents=True)
    info = root / "T" / "cohort_info.json"
    info.write_text(json.dumps({"GSE1": record(20), "GSE2": {**record(90), "has_age": "yes"}}))
    assert select_in_tree(Problem("T"), root, {}).cohorts == ("GSE1",)
    with pytest.raises(InputFileError, match="record of 'GSE2': 'has_age' must be true, false"):
        select_in_tree(Problem("T"), root, {}, strict=True)


# --------------------------------------------------------------------------- lazy pair search

def brute_force_pair(trait, condition, columns, genes, trait_genes=()):
    """SPEC 5.2 by the book: list every pair, sort, take the first with regressors
    (the condition's genes that are not the trait's, in both tables)."""
    pairs = sorted(((t, c) for t in trait for c in condition),
                   key=lambda tc: (-trait[tc[0]]["sample_size"] * condition[tc[1]]["sample_size"],
                                   tc[0], tc[1]))
    for t, c in pairs:
        if columns.get(("T", t)) is None or columns.get(("C", c)) is None:
            continue  # unreadable table
        shared = [g for g in dict.fromkeys(genes) if g not in trait_genes
                  and g in columns[("T", t)] and g in columns[("C", c)]]
        if shared:
            return (t, c), shared
    return (), []


def reader_of(columns, calls=None):
    def gene_columns(trait, cohort):
        if calls is not None:
            calls.append((trait, cohort))
        found = columns.get((trait, cohort))
        if found is None:
            raise InputFileError(f"{cohort}.csv", "file not found")
        return found
    return gene_columns


@given(st.data())
def test_lazy_search_equals_listing_every_pair(data):
    sizes = st.integers(1, 6)  # few distinct sizes: many ties of the product
    n_trait, n_cond = data.draw(st.integers(1, 7)), data.draw(st.integers(1, 7))
    trait = {f"T{i}": record(data.draw(sizes)) for i in range(n_trait)}
    condition = {f"C{i}": record(data.draw(sizes)) for i in range(n_cond)}
    pool = ["G1", "G2", "G3", "G4", "G5"]
    table = st.one_of(st.none(), st.sets(st.sampled_from(pool), max_size=3))
    columns = {("T", t): data.draw(table) for t in trait}
    columns.update({("C", c): data.draw(table) for c in condition})
    genes = data.draw(st.lists(st.sampled_from(pool), max_size=4))
    own = data.draw(st.lists(st.sampled_from(pool), max_size=2))
    sel = select_cohorts(Problem("T", "C"), trait, condition, genes, reader_of(columns),
                         trait_genes=own)
    assert (sel.cohorts, sel.regressors) == brute_force_pair(trait, condition, columns, genes,
                                                             own)
    if sel.ok:
        sizes = (trait[sel.cohorts[0]]["sample_size"], condition[sel.cohorts[1]]["sample_size"])
        assert sel.sample_sizes == sizes


def test_lazy_search_reads_each_table_once_when_every_pair_fails():
    """1,000 x 1,000 cohorts whose tables never share a regressor gene: 10^6 pairs, but
    each table is read once and the search ends after O(N) steps."""
    n = 1000
    trait = {f"T{i:04d}": record(1 + i % 97) for i in range(n)}
    condition = {f"C{i:04d}": record(1 + i % 89) for i in range(n)}
    columns = {("T", t): {"G1", "X"} for t in trait}
    columns.update({("C", c): {"G2", "Y"} for c in condition})
    calls = []
    sel = select_cohorts(Problem("T", "C"), trait, condition, ["G1", "G2"],
                         reader_of(columns, calls))
    assert not sel.ok and "shares a known gene" in sel.reason
    assert len(calls) == len(set(calls)) == 2 * n  # every table read exactly once


def test_lazy_search_on_missing_tables_reads_each_once():
    n = 1000
    trait = {f"T{i:04d}": record(10 + i) for i in range(n)}
    condition = {f"C{i:04d}": record(10 + i) for i in range(n)}
    calls = []
    sel = select_cohorts(Problem("T", "C"), trait, condition, ["G1"], reader_of({}, calls))
    assert not sel.ok
    assert len(calls) <= 2 * n


def test_lazy_search_finds_the_only_working_pair_deep_in_the_order():
    n = 300
    trait = {f"T{i:03d}": record(1000 - i) for i in range(n)}
    condition = {f"C{i:03d}": record(1000 - i) for i in range(n)}
    columns = {("T", t): {"A"} for t in trait}
    columns.update({("C", c): {"B"} for c in condition})
    columns[("T", "T250")] = {"A", "G"}
    columns[("C", "C280")] = {"G"}
    sel = select_cohorts(Problem("T", "C"), trait, condition, ["A", "B", "G"],
                         reader_of(columns))
    # A and B never meet; G is in T250 and C280 only, and A x B pairs share nothing.
    assert sel.cohorts == ("T250", "C280") and sel.regressors == ["G"]


def test_regressor_rule_is_a_parameter():
    """SPEC 5.2's instrument exclusion slots in as a rule on each table's genes."""
    trait = {"T1": record(100), "T2": record(10)}
    condition = {"C1": record(100)}
    columns = {("T", "T1"): {"G1"}, ("T", "T2"): {"G1", "G2"}, ("C", "C1"): {"G1", "G2"}}
    default = select_cohorts(Problem("T", "C"), trait, condition, ["G1", "G2"],
                             reader_of(columns))
    assert default.cohorts == ("T1", "C1") and default.regressors == ["G1"]
    trait_own = {"G1"}  # e.g. the trait's own related genes

    def excluding(table_columns):
        return [g for g in ("G1", "G2") if g in table_columns and g not in trait_own]

    excluded = select_cohorts(Problem("T", "C"), trait, condition, ["G1", "G2"],
                              reader_of(columns), regressor_genes=excluding)
    assert excluded.cohorts == ("T2", "C1") and excluded.regressors == ["G2"]


def test_the_traits_own_known_genes_are_never_regressors(tmp_path):
    """SPEC 5.2's instrument exclusion is the default rule of select_cohorts and
    select_in_tree, so regress.py and eval.py's dataset selection both use it."""
    trait = {"T1": record(100), "T2": record(10)}
    condition = {"C1": record(100)}
    columns = {("T", "T1"): {"G1"}, ("T", "T2"): {"G1", "G2"}, ("C", "C1"): {"G1", "G2"}}
    sel = select_cohorts(Problem("T", "C"), trait, condition, ["G1", "G2"],
                         reader_of(columns), trait_genes=["G1", "X"])
    assert sel.cohorts == ("T2", "C1") and sel.regressors == ["G2"]
    assert sel.sample_sizes == (10, 100)
    none = select_cohorts(Problem("T", "C"), trait, condition, ["G1"], reader_of(columns),
                          trait_genes=["G1"])
    assert not none.ok and "not a known gene of T" in none.reason
    root = tmp_path / "preprocess"
    for name, cohort, genes in [("T", "GSE1", ["A", "B", "Z"]), ("C", "Xena", ["B", "Z"])]:
        (root / name).mkdir(parents=True)
        (root / name / "cohort_info.json").write_text(json.dumps({cohort: record(20)}))
        header = ",".join(["", name] + genes)
        (root / name / f"{cohort}.csv").write_text(header + "\ns1,1" + ",1" * len(genes))
    task = {"T": {"related_genes": ["Z"], "conditions": ["C"]},
            "C": {"related_genes": ["Z", "B"], "conditions": []}}
    assert select_in_tree(Problem("T", "C"), root, task).regressors == ["B"]


def test_strict_search_raises_the_first_unreadable_table_in_order():
    trait = {"T1": record(100), "T2": record(50)}
    condition = {"C1": record(100), "C2": record(90)}
    columns = {("T", "T1"): {"A"}, ("C", "C1"): {"B"}, ("T", "T2"): {"G"}}  # C2 unreadable
    with pytest.raises(InputFileError, match="C2.csv"):
        select_cohorts(Problem("T", "C"), trait, condition, ["A", "G"], reader_of(columns),
                       strict=True)
    lenient = select_cohorts(Problem("T", "C"), trait, condition, ["A", "G"],
                             reader_of(columns))
    assert not lenient.ok


def test_a_csv_header_of_a_gzip_table_cut_short_is_refused(tmp_path):
    """The header alone is read, yet the whole gzip stream is checked (issue 26)."""
    path = tmp_path / "GSE1.csv"
    packed = gzip.compress(b",Asthma,G1\n" + b"S1,1,2\n" * 50_000)
    path.write_bytes(packed)
    assert read_csv_header(path) == ["", "Asthma", "G1"]
    path.write_bytes(packed[:-4])
    with pytest.raises(InputFileError, match="GSE1.csv: truncated gzip file"):
        read_csv_header(path)
