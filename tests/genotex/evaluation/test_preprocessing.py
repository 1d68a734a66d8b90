"""Table comparison (genotex.evaluation.preprocessing): golden CSC, tolerated variations,
parallel = serial.
"""

from __future__ import annotations

import threading
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genotex.evaluation.numeric_csv import parse_numeric_csv
from genotex.evaluation.statuses import OK, REFERENCE_ERROR
from tests.genotex.evaluation.helpers import copy_tree, evaluate, items_by_key_pre, same


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
    # the missing value costs: it is filled with GENE1's mean over the other 11 samples
    cells = 30 * 12
    assert item["coverage"] == pytest.approx(100.0 * (cells - 1) / cells)
    assert 99.0 < item["csc"] < 100.0


def test_parallel_preprocessing_matches_serial(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    (pred / "preprocess/Trait_B/GSE400.csv").write_text("garbage\n")
    serial = evaluate(pred, ref_root, tasks=("preprocessing",))
    parallel = evaluate(pred, ref_root, tasks=("preprocessing",), jobs=2)
    assert same(serial, parallel)


def test_parallel_workers_are_spawned_and_log_to_stderr(ref_root, tmp_path, capfd):
    """The workers start afresh instead of forking the evaluator, which runs threads
    (here one more of its own): a forked child inherits pytest's in-memory log
    handlers, so a worker's warning would never reach stderr, and Python 3.12 and
    later warn that forking a multi-threaded process may deadlock the child."""
    ref = copy_tree(ref_root, tmp_path / "reference")
    pred = copy_tree(ref_root, tmp_path)
    (ref / "preprocess/Trait_A/gene_data/GSE100.csv").write_text("garbage\n")
    stop = threading.Event()
    waiting = threading.Thread(target=stop.wait, daemon=True)
    waiting.start()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            report = evaluate(pred, ref, tasks=("preprocessing",), jobs=2)
    finally:
        stop.set()
    assert not [w for w in caught if "fork" in str(w.message)], [str(w.message) for w in caught]
    assert items_by_key_pre(report)[("gene", "Trait_A", "GSE100")]["status"] == REFERENCE_ERROR
    err = capfd.readouterr().err
    assert "WARNING genotex.evaluation.preprocessing: reference table unusable: " in err, err
    assert "GSE100.csv" in err


def test_blanking_predicted_values_costs(ref_root, tmp_path):
    """The loophole of pairwise-complete correlation: blanking 90 % of a predicted gene
    table used to keep CSC at 100. Now the blanks are mean-filled, and coverage says how
    much of the reference the prediction holds."""
    pred = copy_tree(ref_root, tmp_path)
    path = pred / "preprocess/Trait_A/gene_data/GSE100.csv"
    table = pd.read_csv(path, index_col=0)
    blank = np.random.default_rng(1).random(table.shape) < 0.9
    table = table.mask(blank)
    table.to_csv(path)
    item = items_by_key_pre(evaluate(pred, ref_root, tasks=("preprocessing",)))[
        ("gene", "Trait_A", "GSE100")]
    assert item["status"] == OK and item["aj"] == item["sj"] == 100.0
    assert item["coverage"] == pytest.approx(100.0 * (~blank).sum() / blank.size)
    assert item["csc"] < 50.0
