"""Tests of the evaluator (eval.py, genotex.evaluation.evaluator, genotex.evaluation.tree, genotex.evaluation.report).

A tiny reference tree is written by ``tests/eval_tree_builder.py``; prediction
trees are copies of it, perfect or damaged on purpose.
"""

from __future__ import annotations

import copy
import gzip
import json
import math
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Optional

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genotex.evaluation.evaluator import EvaluationSettings, Evaluator
from genotex.evaluation.report import format_report, json_ready, write_report
from genotex.evaluation.tree import EMPTY, MALFORMED, MISSING, OK, Limits, parse_numeric_csv
from tests.eval_tree_builder import (SIGNIFICANT, TASK_INFO, regress_json, write_task_info,
                                     write_tree)
from utils.metrics import GENE_METRICS

from tests.conftest import REPO_ROOT as _ROOT
REPO_ROOT = _ROOT
PARTS = ("filtering", "dataset_selection", "preprocessing", "analysis")
A_NONE = ("Trait_A", "None")
A_TWO_STEP = ("Trait_A", "Trait_B")
A_PROBLEMS = [("Trait_A", c) for c in ("None", "Age", "Gender", "Trait_B")]
B_PROBLEMS = [("Trait_B", c) for c in ("None", "Age")]
A_USABLE = ("GSE100", "GSE200", "Xena")
B_USABLE = ("GSE400", "GSE500")


# ----------------------------------------------------------------------------- helpers

@pytest.fixture(scope="module")
def ref_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("reference")
    return write_tree(root / "output")


def evaluate(pred: Path, ref: Path, **kwargs) -> Dict[str, Any]:
    options = {"jobs": 1, **kwargs}
    return Evaluator(pred, ref, TASK_INFO, EvaluationSettings(**options)).run()


def items_by_key(report: Dict[str, Any]) -> Dict[str, Dict[tuple, Dict[str, Any]]]:
    """Every scored item of a report, keyed per task part."""
    selection = report["selection"]
    keyed = {
        "filtering": {(i["trait"], i["cohort"]): i for i in selection["filtering"]["cohorts"]},
        "dataset_selection": {(i["trait"], i["condition"]): i
                              for i in selection["dataset_selection"]["problems"]},
        "preprocessing": {(i["subtask"], i["trait"], i["cohort"]): i
                          for s in report["subtasks"]
                          for i in report["preprocessing"][s]["cohorts"]},
        "analysis": {(i["trait"], i["condition"]): i for i in report["analysis"]["problems"]},
    }
    return keyed


def same(first: Any, second: Any) -> bool:
    """Deep equality where NaN equals NaN."""
    return json.dumps(json_ready(first), sort_keys=True) == json.dumps(json_ready(second),
                                                                       sort_keys=True)


def is_zero_score(part: str, item: Dict[str, Any]) -> bool:
    if part == "filtering":
        return item["predicted_usable"] is False
    if part == "dataset_selection":
        return item["accuracy"] == 0.0
    if part == "preprocessing":
        return item["aj"] == item["sj"] == item["csc"] == 0.0
    return all(item[m] == 0.0 for m in GENE_METRICS)


@pytest.fixture(scope="module")
def baseline(ref_root, tmp_path_factory) -> Dict[str, Any]:
    pred = tmp_path_factory.mktemp("baseline") / "pred"
    shutil.copytree(ref_root, pred)
    return evaluate(pred, ref_root)


# ----------------------------------------------------------------------------- perfect

def test_reference_against_itself_is_perfect(ref_root):
    report = evaluate(ref_root, ref_root)
    filtering = report["selection"]["filtering"]["summary"]
    assert (filtering["f1"], filtering["precision"], filtering["recall"],
            filtering["accuracy"]) == (100.0, 100.0, 100.0, 100.0)
    assert filtering["n"] == 6 and filtering["tp"] == 5 and filtering["tn"] == 1
    for block in report["selection"]["dataset_selection"]["summary"].values():
        assert block["mean"] == 100.0
    assert report["selection"]["dataset_selection"]["summary"]["overall"]["n"] == 6
    for subtask in ("gene", "clinical", "linked"):
        summary = report["preprocessing"][subtask]["summary"]
        assert summary["cohorts"] == 5
        assert summary["aj"]["mean"] == summary["sj"]["mean"] == 100.0
        assert summary["csc"]["mean"] == pytest.approx(100.0)
    overall = report["analysis"]["summary"]["overall"]
    assert overall["success_rate"] == 100.0 and overall["problems"] == 6
    for metric in ("precision", "recall", "f1", "jaccard"):
        assert overall[metric] == {"mean": 100.0, "n": 6}
    # Trait_A|Gender has an empty reference: AUROC/ES undefined there (n = 5)
    assert overall["auroc"] == {"mean": 1.0, "n": 5}
    assert overall["gsea_es"]["mean"] == pytest.approx(1.0) and overall["gsea_es"]["n"] == 5
    prediction = report["analysis"]["trait_prediction"]["predicted"]["overall"]
    assert prediction["accuracy"] == {"mean": 80.0, "n": 6}


GENE_LISTS = st.lists(st.sampled_from([f"GENE{i}" for i in range(1, 31)] + ["OTHER1"]),
                      unique=True, max_size=8)


@settings(max_examples=8, deadline=None)
@given(st.fixed_dictionaries({key: GENE_LISTS for key in SIGNIFICANT}))
def test_self_evaluation_is_perfect_property(significant):
    # any reference (random gene lists, some outside the universe, some empty) scores
    # perfectly against itself on every task
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        ref = write_tree(Path(folder) / "ref", significant=significant)
        report = evaluate(ref, ref)
    assert report["selection"]["filtering"]["summary"]["f1"] == 100.0
    assert report["selection"]["dataset_selection"]["summary"]["overall"]["mean"] == 100.0
    for subtask in ("gene", "clinical", "linked"):
        summary = report["preprocessing"][subtask]["summary"]
        assert summary["aj"]["mean"] == summary["sj"]["mean"] == 100.0
        assert summary["csc"]["mean"] == pytest.approx(100.0)
    for item in report["analysis"]["problems"]:
        assert item["status"] == OK
        assert all(item[m] == 100.0 for m in ("precision", "recall", "f1", "jaccard"))
        assert math.isnan(item["auroc"]) or item["auroc"] == 1.0
        assert math.isnan(item["gsea_es"]) or item["gsea_es"] == pytest.approx(1.0)
        assert math.isnan(item["auroc"]) == (item["reference_genes"] == 0)


def test_categories_and_denominators(ref_root):
    summary = evaluate(ref_root, ref_root, tasks=("analysis",))["analysis"]["summary"]
    assert summary["unconditional"]["problems"] == 2
    assert summary["conditional one-step"]["problems"] == 3
    assert summary["two-step"]["problems"] == 1
    assert summary["conditional one-step"]["auroc"]["n"] == 2  # Gender reference is empty


# ----------------------------------------------------------------------------- golden

def write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj))


def copy_tree(ref_root: Path, tmp_path: Path) -> Path:
    pred = tmp_path / "pred"
    shutil.copytree(ref_root, pred)
    return pred


def test_analysis_golden_values(ref_root, tmp_path):
    # Reference Trait_A|None = [GENE7, GENE3, GENE12, GENE1]; universe = the 30 gene
    # columns of the selected reference table GSE100. Prediction [gene7, GENE99, GENE1]:
    # case is ignored; GENE99 is outside U and is added (|U| = 31, Nh = 4, 27 negatives).
    # P = 2/3, R = 2/4, F1 = 2*2/(3+4), J = 2/5.
    # AUROC: GENE7 (score 3) beats GENE99 and the 26 unpredicted negatives = 27;
    # GENE1 (score 1) beats 26; the 2 unpredicted positives tie 26 negatives: 2*13 = 26.
    # (27 + 26 + 26) / (4 * 27) = 79/108.
    # ES: +1/4, -1/27, +1/4 -> max = 1/2 - 1/27.
    pred = copy_tree(ref_root, tmp_path)
    write_json(pred / "regress/Trait_A/significant_genes_condition_None.json",
               regress_json(["gene7", "GENE99", "GENE1"]))
    item = items_by_key(evaluate(pred, ref_root))["analysis"][A_NONE]
    assert item["status"] == OK and item["universe"] == "reference"
    assert item["universe_size"] == 31
    assert item["precision"] == pytest.approx(200 / 3)
    assert item["recall"] == pytest.approx(50.0)
    assert item["f1"] == pytest.approx(400 / 7)
    assert item["jaccard"] == pytest.approx(40.0)
    assert item["auroc"] == pytest.approx(79 / 108)
    assert item["gsea_es"] == pytest.approx(0.5 - 1 / 27)


def test_filtering_golden_values(ref_root, tmp_path):
    # Prediction calls GSE300 usable (reference: not) and GSE500 not usable (reference:
    # usable): tp 4, fp 1, fn 1, tn 0 -> precision 4/5, recall 4/5, F1 4/5, accuracy 4/6.
    pred = copy_tree(ref_root, tmp_path)
    info_a = json.loads((pred / "preprocess/Trait_A/cohort_info.json").read_text())
    info_a["GSE300"]["is_usable"] = True
    write_json(pred / "preprocess/Trait_A/cohort_info.json", info_a)
    info_b = json.loads((pred / "preprocess/Trait_B/cohort_info.json").read_text())
    info_b["GSE500"]["is_usable"] = False
    write_json(pred / "preprocess/Trait_B/cohort_info.json", info_b)
    summary = evaluate(pred, ref_root, tasks=("selection",))["selection"]["filtering"]["summary"]
    assert (summary["tp"], summary["fp"], summary["fn"], summary["tn"]) == (4, 1, 1, 0)
    assert summary["f1"] == pytest.approx(80.0)
    assert summary["accuracy"] == pytest.approx(400 / 6)


def test_dataset_selection_wrong_choice(ref_root, tmp_path):
    # GSE200 claims 20 samples: it now wins Trait_A|None and Trait_A|Age (reference
    # GSE100), but has no Gender, so Trait_A|Gender stays GSE100. Two-step: the pair
    # (GSE200, GSE400) has product 180 > 108 -> wrong too. 3 of 6 correct.
    pred = copy_tree(ref_root, tmp_path)
    info = json.loads((pred / "preprocess/Trait_A/cohort_info.json").read_text())
    info["GSE200"]["sample_size"] = 20
    write_json(pred / "preprocess/Trait_A/cohort_info.json", info)
    ds = evaluate(pred, ref_root, tasks=("selection",))["selection"]["dataset_selection"]
    by_key = {(i["trait"], i["condition"]): i for i in ds["problems"]}
    assert by_key[A_NONE]["predicted"] == "GSE200" and by_key[A_NONE]["reference"] == "GSE100"
    assert by_key[("Trait_A", "Gender")]["correct"] is True
    assert by_key[A_TWO_STEP]["predicted"] == "GSE200+GSE400"
    assert ds["summary"]["overall"] == {"mean": 50.0, "n": 6}
    assert ds["summary"]["two-step"] == {"mean": 0.0, "n": 1}


def test_preprocessing_golden_csc(ref_root, tmp_path):
    # Predicted clinical table of GSE100 keeps the trait row, drops Age, keeps Gender
    # negated (r = -1 against the reference) and drops two samples.
    # AJ = 2/3, SJ = 10/12, mean r = (1 + -1)/2 = 0 -> CSC 0; then with Gender intact
    # mean r = 1 -> CSC = 2/3 * 10/12 * 1.
    pred = copy_tree(ref_root, tmp_path)
    path = pred / "preprocess/Trait_A/clinical_data/GSE100.csv"
    table = pd.read_csv(path, index_col=0)
    reduced = table.drop(index="Age").iloc[:, :10]
    reduced.loc["Gender"] = 1 - reduced.loc["Gender"]
    reduced.to_csv(path)
    report = evaluate(pred, ref_root, tasks=("preprocessing",), subtasks=("clinical",))
    item = items_by_key_pre(report)[("clinical", "Trait_A", "GSE100")]
    assert item["aj"] == pytest.approx(200 / 3) and item["sj"] == pytest.approx(250 / 3)
    assert item["csc"] == pytest.approx(0.0, abs=1e-9)
    reduced.loc["Gender"] = 1 - reduced.loc["Gender"]
    reduced.to_csv(path)
    report = evaluate(pred, ref_root, tasks=("preprocessing",), subtasks=("clinical",))
    item = items_by_key_pre(report)[("clinical", "Trait_A", "GSE100")]
    assert item["csc"] == pytest.approx(100 * 2 / 3 * 10 / 12)


def items_by_key_pre(report: Dict[str, Any]) -> Dict[tuple, Dict[str, Any]]:
    return {(i["subtask"], i["trait"], i["cohort"]): i
            for s in report["subtasks"] for i in report["preprocessing"][s]["cohorts"]}


# ----------------------------------------------------------------------------- tolerated

def test_tcga_alias_and_gzip_are_accepted(ref_root, tmp_path, baseline):
    pred = copy_tree(ref_root, tmp_path)
    base = pred / "preprocess/Trait_A"
    for folder in (base / "gene_data", base / "clinical_data", base):
        (folder / "Xena.csv").rename(folder / "TCGA.csv")
    info = json.loads((base / "cohort_info.json").read_text())
    info["TCGA"] = info.pop("Xena")
    write_json(base / "cohort_info.json", info)
    for path in (base / "gene_data/GSE100.csv",
                 pred / "regress/Trait_A/significant_genes_condition_None.json"):
        path.write_bytes(gzip.compress(path.read_bytes()))
    report = evaluate(pred, ref_root)
    keyed, expected = items_by_key(report), items_by_key(baseline)
    for part in PARTS:
        assert same(keyed[part], expected[part]), part


def test_duplicate_genes_in_result_keep_first_rank(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    genes = ["GENE7", "GENE3", "gene7", "GENE12", "GENE1", "GENE3"]
    write_json(pred / "regress/Trait_A/significant_genes_condition_None.json",
               regress_json(genes))
    item = items_by_key(evaluate(pred, ref_root))["analysis"][A_NONE]
    assert item["status"] == OK and "2 repeated gene(s)" in item["message"]
    assert item["f1"] == 100.0 and item["auroc"] == 1.0


def test_gene_case_and_order_do_not_matter(ref_root, tmp_path, baseline):
    pred = copy_tree(ref_root, tmp_path)
    for path in (pred / "preprocess/Trait_A/gene_data/GSE100.csv",
                 pred / "preprocess/Trait_A/GSE100.csv"):
        table = pd.read_csv(path, index_col=0)
        table = table.iloc[::-1, ::-1]
        table.index = [str(x).lower() for x in table.index]
        table.columns = [str(x).lower() for x in table.columns]
        table.to_csv(path)
    result = pred / "regress/Trait_A/significant_genes_condition_None.json"
    obj = json.loads(result.read_text())
    obj["significant_genes"]["Variable"] = [g.lower() for g in
                                            obj["significant_genes"]["Variable"]]
    result.write_text(json.dumps(obj))
    keyed, expected = items_by_key(evaluate(pred, ref_root)), items_by_key(baseline)
    for key, item in expected["preprocessing"].items():
        got = keyed["preprocessing"][key]
        for metric in ("aj", "sj", "csc"):
            assert got[metric] == pytest.approx(item[metric], abs=1e-9), key
    assert same(keyed["analysis"], expected["analysis"])


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), upper=st.booleans())
def test_table_order_and_case_invariance_property(seed, upper):
    # a randomly permuted / re-cased copy of a reference table scores like the original
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(6, 5)).round(3)
    genes = ["TP53", "BRCA1", "EGFR", "MYC", "KRAS", "C1orf112"]
    samples = [f"GSM{i}" for i in range(5)]
    ref = pd.DataFrame(values, index=genes, columns=samples)
    rows, cols = rng.permutation(6), rng.permutation(5)
    pred = ref.iloc[rows, cols].copy()
    pred.index = [g.upper() if upper else g.lower() for g in pred.index]
    pred = pred * rng.uniform(0.5, 2.0) + rng.normal()
    from genotex.evaluation.tree import LabeledMatrix
    from utils.metrics import table_similarity
    parsed = []
    for frame in (ref, pred):
        data = frame.to_csv().encode()
        r, c, v, _ = parse_numeric_csv(data, Path("x.csv"))
        parsed.append(LabeledMatrix([x.upper() for x in r], c, v, Path("x.csv")))
    scores = table_similarity(parsed[0].features, parsed[0].samples, parsed[0].values,
                              parsed[1].features, parsed[1].samples, parsed[1].values)
    assert scores["aj"] == scores["sj"] == 100.0
    assert scores["csc"] == pytest.approx(100.0)


def test_infinite_values_in_tables_are_missing_with_a_note(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    path = pred / "preprocess/Trait_A/gene_data/GSE100.csv"
    table = pd.read_csv(path, index_col=0)
    table.iloc[0, 0] = np.inf
    table.to_csv(path)
    item = items_by_key_pre(evaluate(pred, ref_root, tasks=("preprocessing",)))[
        ("gene", "Trait_A", "GSE100")]
    assert item["status"] == OK and "1 infinite value(s)" in item["message"]
    assert item["csc"] == pytest.approx(100.0)


def test_synonym_map_applies_to_analysis(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    write_json(pred / "regress/Trait_A/significant_genes_condition_None.json",
               regress_json(["OLDNAME7", "GENE3", "GENE12", "GENE1"]))
    plain = items_by_key(evaluate(pred, ref_root))["analysis"][A_NONE]
    assert plain["recall"] == 75.0
    mapped = items_by_key(evaluate(pred, ref_root, synonyms={"OLDNAME7": "GENE7"}))
    assert mapped["analysis"][A_NONE]["recall"] == 100.0


def test_virtual_universe_when_reference_tables_absent(ref_root, tmp_path):
    ref = copy_tree(ref_root, tmp_path / "r")
    (ref / "preprocess/Trait_A/GSE100.csv").unlink()
    report = evaluate(ref_root, ref, tasks=("analysis",))
    item = items_by_key_analysis(report)[A_NONE]
    assert item["universe"] == "virtual" and item["universe_size"] == 20_000


def items_by_key_analysis(report):
    return {(i["trait"], i["condition"]): i for i in report["analysis"]["problems"]}


def test_missing_reference_results_are_not_scored(ref_root, tmp_path):
    ref = copy_tree(ref_root, tmp_path / "r")
    (ref / "regress/Trait_B/significant_genes_condition_Age.json").unlink()
    report = evaluate(ref_root, ref, tasks=("analysis",))
    item = items_by_key_analysis(report)[("Trait_B", "Age")]
    assert item["status"] == "no-reference"
    assert report["analysis"]["summary"]["overall"]["problems"] == 5


def test_parallel_preprocessing_matches_serial(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    (pred / "preprocess/Trait_B/GSE400.csv").write_text("garbage\n")
    serial = evaluate(pred, ref_root, tasks=("preprocessing",))
    parallel = evaluate(pred, ref_root, tasks=("preprocessing",), jobs=2)
    assert same(serial, parallel)


def test_csv_variants_parse_alike():
    plain = b"Gene,S1,S2\nA,1.5,2\nB,3,4e-1\n"
    variants = [
        b"\xef\xbb\xbfGene,S1,S2\r\nA,1.5,2\r\nB,3,4e-1\r\n",   # BOM + CRLF
        b"\nGene,S1,S2\nA,1.5,2\n\n\nB,3,4e-1",                # blank lines, no final newline
        b"Gene, S1 ,S2\n A ,1.5, 2\nB ,3,4E-1\n",               # padded labels and values
        gzip.decompress(gzip.compress(plain)),
    ]
    expected = parse_numeric_csv(plain, Path("p"))
    assert expected[0] == ["A", "B"] and expected[1] == ["S1", "S2"]
    np.testing.assert_allclose(expected[2], [[1.5, 2.0], [3.0, 0.4]])
    for data in variants:
        rows, columns, values, notes = parse_numeric_csv(data, Path("v"))
        assert [r.strip() for r in rows] == expected[0]  # labels as written
        assert (columns, notes) == (expected[1], [])
        np.testing.assert_array_equal(values, expected[2])


def test_csv_errors_name_the_line():
    from genotex.evaluation.tree import ItemError
    cases = {
        b"Gene,S1,S2\nA,1,2\n\nB,1\n": ("line 4", "2 fields"),  # line count keeps blanks
        b"Gene,S1\nA,1\nB,x1\n": (":3:", "non-numeric value 'x1'"),
        b"Gene,S1\n": ("", "no data row"),
        b"Gene\nA\n": (":1:", "no data column"),
    }
    for data, (where, what) in cases.items():
        with pytest.raises(ItemError) as info:
            parse_numeric_csv(data, Path("t.csv"))
        message = str(info.value).replace("t.csv:4", "t.csv line 4")
        assert what in message and where in message, message


def test_quoted_csv_parses_like_unquoted():
    plain = b"Gene,S1,S2\nA,1.5,NA\nB,,3\n"
    quoted = b'"Gene","S1","S2"\n"A","1.5","NA"\n"B","","3"\n'
    first, second = parse_numeric_csv(plain, Path("a")), parse_numeric_csv(quoted, Path("b"))
    assert first[0] == second[0] == ["A", "B"] and first[1] == second[1] == ["S1", "S2"]
    np.testing.assert_array_equal(first[2], second[2])
    assert math.isnan(first[2][0, 1]) and math.isnan(first[2][1, 0])


# ----------------------------------------------------------------------------- corpus

@dataclass
class Case:
    """A damaged prediction tree: what to break and what must follow.

    ``damaged`` maps a task part to ``{item key: expected status}``; those items must
    score 0 with that status and a message naming ``hint``. ``affected`` lists items
    whose score may legitimately change (e.g. a selection that moves to another
    cohort). Every other item must be scored exactly as on an intact copy.
    """

    name: str
    damage: Callable[[Path, Path], None]
    damaged: Dict[str, Dict[tuple, str]]
    hint: str
    affected: Dict[str, set] = field(default_factory=dict)


RESULT_A = "regress/Trait_A/significant_genes_condition_None.json"
INFO_A = "preprocess/Trait_A/cohort_info.json"
INFO_B = "preprocess/Trait_B/cohort_info.json"
GENE_100 = "preprocess/Trait_A/gene_data/GSE100.csv"
CLIN_100 = "preprocess/Trait_A/clinical_data/GSE100.csv"
LINK_100 = "preprocess/Trait_A/GSE100.csv"


def put(relative: str, content) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        data = content(path) if callable(content) else content
        path.unlink()
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return damage


def edit_json(relative: str, edit: Callable[[Any], Any]) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        obj = edit(json.loads(path.read_text()))
        path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return damage


def edit_genes(key: str, value: Any) -> Callable[[Path, Path], None]:
    def edit(obj):
        obj["significant_genes"][key] = value
        return obj
    return edit_json(RESULT_A, edit)


def edit_record(relative: str, cohort: str, key: str, value: Any):
    def edit(obj):
        obj[cohort][key] = value
        return obj
    return edit_json(relative, edit)


def edit_table(relative: str, change: Callable[[str], str]) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        path.write_text(change(path.read_text()))
    return damage


def transpose_table(relative: str) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        pd.read_csv(path, index_col=0).T.to_csv(path)
    return damage


def remove(relative: str) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    return damage


def symlink_outside(relative: str) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        target = outside / ("stolen" + path.suffix)
        shutil.copyfile(path, target)
        path.unlink()
        path.symlink_to(target)
    return damage


def dangling_symlink(relative: str) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        path.unlink()
        path.symlink_to(path.parent / "nowhere.json")
    return damage


def replace_with_folder(relative: str) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        path.unlink()
        path.mkdir()
    return damage


def make_fifo(relative: str) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        path.unlink()
        os.mkfifo(path)
    return damage


def write_100mb(relative: str, head: bytes, unit: bytes) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        block = unit * (4 * 1024 * 1024 // len(unit))
        with open(pred / relative, "wb") as handle:
            handle.write(head)
            for _ in range(25):
                handle.write(block)
    return damage


def trait_folder_is_file(pred: Path, outside: Path) -> None:
    shutil.rmtree(pred / "preprocess/Trait_B")
    (pred / "preprocess/Trait_B").write_text("not a folder")


def gzip_truncated(pred: Path, outside: Path) -> None:
    path = pred / RESULT_A
    data = gzip.compress(path.read_bytes())
    path.write_bytes(data[: len(data) // 2])


def gzip_bomb(pred: Path, outside: Path) -> None:
    (pred / RESULT_A).write_bytes(gzip.compress(b" " * (80 * 1024 * 1024)))


def analysis_case(name: str, damage, status: str = MALFORMED) -> Case:
    return Case(name, damage, {"analysis": {A_NONE: status}},
                "significant_genes_condition_None.json")


def table_case(name: str, subtask: str, damage, status: str = MALFORMED,
               affected: Optional[Dict[str, set]] = None) -> Case:
    file = {"gene": GENE_100, "clinical": CLIN_100, "linked": LINK_100}[subtask]
    return Case(name, damage, {"preprocessing": {(subtask, "Trait_A", "GSE100"): status}},
                Path(file).name, affected or {})


def info_case(name: str, trait: str, damage, status: str) -> Case:
    cohorts = A_USABLE + ("GSE300",) if trait == "Trait_A" else B_USABLE
    problems = A_PROBLEMS if trait == "Trait_A" else B_PROBLEMS + [A_TWO_STEP]
    return Case(name, damage, {"filtering": {(trait, c): status for c in cohorts},
                               "dataset_selection": {p: status for p in problems}},
                "cohort_info.json")


def _replace_first_value(text: str, row: str) -> str:
    lines = text.split("\n")
    for position, line in enumerate(lines):
        if line.startswith(row + ","):
            cells = line.split(",")
            cells[1] = "forty"
            lines[position] = ",".join(cells)
    return "\n".join(lines)


VALID_RESULT = json.dumps(regress_json(SIGNIFICANT[A_NONE]))

CORPUS = [
    # --- regression JSON of Trait_A|None
    analysis_case("json_truncated", put(RESULT_A, VALID_RESULT[:-15])),
    analysis_case("json_zero_bytes", put(RESULT_A, b""), EMPTY),
    analysis_case("json_whitespace_only", put(RESULT_A, "  \n\t\n"), EMPTY),
    analysis_case("json_binary", put(RESULT_A, bytes(range(256)) * 8)),
    analysis_case("json_top_level_list", put(RESULT_A, "[1, 2, 3]")),
    analysis_case("json_missing_significant_genes",
                  put(RESULT_A, json.dumps({"cv_performance": {}}))),
    analysis_case("json_significant_genes_list", put(RESULT_A, '{"significant_genes": []}')),
    analysis_case("json_missing_variable", edit_json(
        RESULT_A, lambda o: {"significant_genes": {"Coefficient": []}})),
    analysis_case("json_variable_string", edit_genes("Variable", "GENE7")),
    analysis_case("json_variable_number", edit_genes("Variable", ["GENE7", 7, "GENE1", "X"])),
    analysis_case("json_variable_null", edit_genes("Variable", [None, "GENE3", "GENE1", "X"])),
    analysis_case("json_nan_coefficient", edit_genes("Coefficient", [1.0, float("nan"), 1, 1])),
    analysis_case("json_inf_abs_coefficient",
                  edit_genes("Absolute Coefficient", [1.0, float("inf"), 1, 1])),
    analysis_case("json_string_coefficient", edit_genes("Coefficient", ["1", "2", "3", "4"])),
    analysis_case("json_coefficient_length", edit_genes("Coefficient", [1.0])),
    analysis_case("json_non_utf8", put(RESULT_A, VALID_RESULT.encode().replace(
        b"GENE7", b"GEN\xc9\xff7"))),
    analysis_case("json_100mb", write_100mb(RESULT_A, b'{"significant_genes": {"Variable": [',
                                            b'"GENE1", ')),
    analysis_case("json_gzip_bomb", gzip_bomb),
    analysis_case("json_gzip_truncated", gzip_truncated),
    analysis_case("json_duplicate_keys", put(RESULT_A, '{"significant_genes": {"Variable": '
                                             '["GENE7"]}, "significant_genes": {}}')),
    analysis_case("json_deep_nesting", put(RESULT_A, "[" * 200_000)),
    analysis_case("json_is_folder", replace_with_folder(RESULT_A)),
    analysis_case("json_symlink_outside", symlink_outside(RESULT_A)),
    analysis_case("json_fifo", make_fifo(RESULT_A)),
    analysis_case("json_missing", remove(RESULT_A), MISSING),
    analysis_case("json_dangling_symlink", dangling_symlink(RESULT_A), MISSING),
    Case("regress_trait_folder_missing", remove("regress/Trait_A"),
         {"analysis": dict.fromkeys(A_PROBLEMS, MISSING)}, "regress/Trait_A"),
    # --- cohort_info.json
    info_case("info_invalid_json", "Trait_B", put(INFO_B, '{"GSE400": {"is_usable": tr'),
              MALFORMED),
    info_case("info_top_level_list", "Trait_A", put(INFO_A, "[]"), MALFORMED),
    info_case("info_zero_bytes", "Trait_B", put(INFO_B, b""), EMPTY),
    info_case("info_missing", "Trait_A", remove(INFO_A), MISSING),
    info_case("info_duplicate_cohort", "Trait_B", put(
        INFO_B, '{"GSE400": {"is_usable": true, "sample_size": 9}, '
                '"GSE400": {"is_usable": false}}'), MALFORMED),
    info_case("info_non_utf8", "Trait_B", put(INFO_B, b'{"GSE400\xff": {}}'), MALFORMED),
    Case("info_is_usable_wrong_type", edit_record(INFO_A, "GSE100", "is_usable", "yes"),
         {"filtering": {("Trait_A", "GSE100"): MALFORMED},
          "dataset_selection": dict.fromkeys(A_PROBLEMS, MALFORMED)}, "cohort_info.json"),
    Case("info_sample_size_nan", edit_record(INFO_A, "GSE100", "sample_size", float("nan")),
         {"filtering": {("Trait_A", "GSE100"): MALFORMED},
          "dataset_selection": dict.fromkeys(A_PROBLEMS, MALFORMED)}, "cohort_info.json"),
    Case("info_record_missing", edit_json(INFO_B, lambda o: {"GSE500": o["GSE500"]}),
         {"filtering": {("Trait_B", "GSE400"): MISSING}}, "cohort_info.json",
         {"dataset_selection": set(B_PROBLEMS + [A_TWO_STEP])}),
    # --- tables of Trait_A / GSE100
    table_case("gene_missing", "gene", remove(GENE_100), MISSING),
    table_case("gene_zero_bytes", "gene", put(GENE_100, b""), EMPTY),
    table_case("gene_header_only", "gene", edit_table(GENE_100, lambda t: t.split("\n")[0]),
               EMPTY),
    table_case("gene_transposed", "gene", transpose_table(GENE_100)),
    table_case("gene_duplicate_genes", "gene", edit_table(
        GENE_100, lambda t: t.replace("GENE2,", "GENE1,", 1))),
    table_case("gene_duplicate_genes_by_case", "gene", edit_table(
        GENE_100, lambda t: t.replace("GENE2,", "gene1,", 1))),
    table_case("gene_ragged_row", "gene", edit_table(
        GENE_100, lambda t: t.replace("\nGENE3,", "\nGENE3,1.0,", 1))),
    table_case("gene_non_utf8_sample", "gene", put(GENE_100, lambda p: p.read_bytes().replace(
        b"GSM01000", b"GSM\xe9\xff000", 1))),
    table_case("gene_binary", "gene", put(GENE_100, b"\x00\x01\x02\xff" * 1000)),
    table_case("gene_100mb", "gene", write_100mb(GENE_100, b"Gene,S1\n", b"GENE1,1.0\n")),
    table_case("gene_empty_column_name", "gene", edit_table(
        GENE_100, lambda t: t.replace(",GSM01001,", ",,", 1))),
    table_case("gene_empty_row_label", "gene", edit_table(
        GENE_100, lambda t: t.replace("\nGENE5,", "\n,", 1))),
    table_case("clinical_non_numeric", "clinical",
               edit_table(CLIN_100, lambda t: _replace_first_value(t, "Age"))),
    table_case("clinical_unterminated_quote", "clinical",
               edit_table(CLIN_100, lambda t: t + '"Gender,1\n')),
    table_case("clinical_fifo", "clinical", make_fifo(CLIN_100)),
    table_case("linked_duplicate_columns", "linked", edit_table(
        LINK_100, lambda t: t.replace(",GENE2,", ",GENE1,", 1))),
    table_case("linked_transposed", "linked", transpose_table(LINK_100),
               affected={"dataset_selection": {A_TWO_STEP}}),
    Case("linked_symlink_outside", symlink_outside(LINK_100),
         {"preprocessing": {("linked", "Trait_A", "GSE100"): MALFORMED},
          "dataset_selection": {A_TWO_STEP: MALFORMED}}, "GSE100.csv"),
    Case("gene_folder_missing", remove("preprocess/Trait_A/gene_data"),
         {"preprocessing": {("gene", "Trait_A", c): MISSING for c in A_USABLE}}, "gene_data"),
    Case("trait_folder_is_a_file", trait_folder_is_file,
         {"filtering": {("Trait_B", c): MALFORMED for c in B_USABLE},
          "dataset_selection": dict.fromkeys(B_PROBLEMS + [A_TWO_STEP], MALFORMED),
          "preprocessing": {(s, "Trait_B", c): MALFORMED
                            for s in ("gene", "clinical", "linked") for c in B_USABLE}},
         "Trait_B"),
]


def test_corpus_is_large_and_distinct():
    names = [case.name for case in CORPUS]
    assert len(names) == len(set(names)) and len(names) >= 30


@pytest.mark.parametrize("case", CORPUS, ids=lambda case: case.name)
def test_damaged_prediction_tree(case, ref_root, tmp_path, baseline):
    pred = copy_tree(ref_root, tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    case.damage(pred, outside)
    report = evaluate(pred, ref_root)
    keyed, expected = items_by_key(report), items_by_key(baseline)
    for part in PARTS:
        damaged = case.damaged.get(part, {})
        affected = case.affected.get(part, set())
        assert set(keyed[part]) == set(expected[part])
        for key, item in keyed[part].items():
            if key in damaged:
                assert item["status"] == damaged[key], (part, key, item)
                assert case.hint in item["message"], (part, key, item["message"])
                assert is_zero_score(part, item), (part, key, item)
            elif key not in affected:
                assert same(item, expected[part][key]), (part, key, item)
    format_report(report)  # the text table copes with every status


def test_missing_prediction_root(ref_root, tmp_path, baseline):
    report = evaluate(tmp_path / "does_not_exist", ref_root)
    keyed = items_by_key(report)
    for part in PARTS:
        for key, item in keyed[part].items():
            assert item["status"] == MISSING, (part, key)
            assert is_zero_score(part, item)
    assert report["analysis"]["summary"]["overall"]["success_rate"] == 0.0


def test_symlink_inside_tree_is_followed(ref_root, tmp_path, baseline):
    pred = copy_tree(ref_root, tmp_path)
    path = pred / GENE_100
    shutil.move(path, pred / "gene_copy.csv")
    path.symlink_to(pred / "gene_copy.csv")
    item = items_by_key_pre(evaluate(pred, ref_root))[("gene", "Trait_A", "GSE100")]
    assert item["status"] == OK and item["aj"] == 100.0


def test_limits_are_configurable(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    report = evaluate(pred, ref_root, tasks=("analysis",), limits=Limits(max_json_bytes=50))
    statuses = {i["status"] for i in report["analysis"]["problems"]}
    assert statuses == {MALFORMED}


# ----------------------------------------------------------------------------- report / CLI

def test_report_files(ref_root, tmp_path, baseline):
    written = write_report(baseline, tmp_path / "out" / "report.json")
    names = sorted(p.name for p in written)
    assert names == ["report.analysis.csv", "report.dataset_selection.csv",
                     "report.filtering.csv", "report.json", "report.preprocessing.csv"]
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert data["analysis"]["summary"]["overall"]["precision"]["mean"] == 100.0
    table = pd.read_csv(tmp_path / "out" / "report.preprocessing.csv")
    assert len(table) == 15 and set(table["status"]) == {"ok"}
    text = format_report(baseline)
    assert "dataset filtering" in text and "two-step" in text and "GSEA ES" in text


def test_json_ready_replaces_non_finite():
    assert json_ready({"a": [float("nan"), 1.0, float("inf")]}) == {"a": [None, 1.0, None]}
    assert copy.deepcopy(json_ready({"b": (1, 2)})) == {"b": [1, 2]}


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO_ROOT / "eval.py"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_cli_smoke(ref_root, tmp_path):
    task_info = write_task_info(tmp_path / "task_info.json")
    pred = copy_tree(ref_root, tmp_path)
    (pred / RESULT_A).write_text("{broken")
    result = run_cli("-p", str(pred), "-r", str(ref_root), "--task-info", str(task_info),
                     "--report", str(tmp_path / "rep.json"), "-j", "2", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Analysis" in result.stdout and "malformed" in result.stdout
    assert "significant_genes_condition_None.json" in result.stdout
    report = json.loads((tmp_path / "rep.json").read_text())
    assert report["analysis"]["summary"]["overall"]["succeeded"] == 5
    assert (tmp_path / "rep.analysis.csv").is_file()


def test_cli_task_and_subtask_filters_and_default_reference(ref_root, tmp_path):
    env_root = tmp_path
    pred = copy_tree(ref_root, tmp_path)
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "eval.py"), "-p", str(pred), "-t", "preprocessing",
         "-s", "gene", "--report", str(tmp_path / "r.json")],
        cwd=env_root, capture_output=True, text=True, timeout=120,
        env={**os.environ, "GENOTEX_OUTPUT": str(ref_root)})
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["tasks"] == ["preprocessing"] and list(report["preprocessing"]) == [
        "gene", "bytes_read"]
    assert "Selection" not in result.stdout


def test_cli_errors_and_help(tmp_path):
    result = run_cli("-p", str(tmp_path), "-r", str(tmp_path / "nope"), cwd=tmp_path)
    assert result.returncode == 2 and "reference tree" in result.stderr
    (tmp_path / "ref").mkdir()
    result = run_cli("-p", str(tmp_path), "-r", str(tmp_path / "ref"), "--task-info",
                     str(tmp_path / "missing.json"), cwd=tmp_path)
    assert result.returncode == 2 and "task info" in result.stderr
    help_text = run_cli("--help", cwd=tmp_path).stdout
    for flag in ("-p", "-r", "-t", "-s", "-g", "--report", "--task-info", "--jobs"):
        assert flag in help_text
