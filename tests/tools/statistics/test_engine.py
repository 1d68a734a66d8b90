"""One problem end to end (tools.statistics.engine): edge cases and the result document."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tools.statistics.cohort_cache import LinkedTable
from tools.statistics.engine import AnalysisConfig, ProblemData, analyze, problem_data
from utils.errors import InputFileError
from utils.precision import round_floats
from utils.problems import Problem
from utils.selection import Selection


def _table(columns, values, name="GSE1.csv"):
    values = np.asarray(values, dtype=float)
    return LinkedTable(Path(name), "d",
                       tuple(f"S{i}" for i in range(values.shape[0])), tuple(columns), values)


def test_missing_trait_and_gene_values():
    rng = np.random.default_rng(0)
    n = 30
    genes = rng.normal(size=(n, 4))
    genes[3, 1] = np.nan
    genes[:, 3] = np.nan  # a gene with no value at all: zeros, never selected
    trait = (genes[:, 0] > 0).astype(float)
    trait[5] = np.nan
    table = _table(["T", "Age", "A", "B", "C", "D"],
                   np.column_stack([trait, rng.uniform(20, 60, n), genes]))
    data = problem_data(Problem("T", "Age"), Selection(Problem("T", "Age"), ("GSE1",)),
                        [table], {"T": {"related_genes": ["A", "Z"], "conditions": []}})
    assert data.X.shape == (29, 4) and data.Z.shape == (29, 1)
    assert data.gene_names == ["A", "B", "C", "D"] and data.reference == ["A"]
    assert not np.isnan(data.X).any()
    assert data.X[:, 3].tolist() == [0.0] * 29
    document = analyze(data)
    assert "D" not in document["significant_genes"]["Variable"]


def test_errors_name_the_table():
    table = _table(["Other", "A"], np.ones((20, 2)), "/x/GSE9.csv")
    with pytest.raises(InputFileError, match="GSE9.csv: no column 'T'"):
        problem_data(Problem("T"), Selection(Problem("T"), ("GSE9",)), [table], {})
    few = _table(["T", "A"], np.column_stack([np.r_[np.ones(4), np.zeros(4)], np.arange(8)]))
    with pytest.raises(InputFileError, match="too few to analyse"):
        problem_data(Problem("T"), Selection(Problem("T"), ("GSE1",)), [few], {})


def test_small_unbalanced_and_constant_folds():
    # 12 samples with 3 cases: not stratifiable into 5 folds, plain folds are used;
    # some training folds may hold a single class. Nothing may crash or produce NaN.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 15))
    y = np.zeros(12)
    y[:3] = 1.0
    data = ProblemData(Problem("T"), X, y, None, [f"G{i}" for i in range(15)], [], ["G0"],
                       ("GSE1",))
    for config in (AnalysisConfig(), AnalysisConfig(batch_gap_numerator=0.0)):
        document = analyze(data, config)
        assert set(document["cv_performance"]) == {"prediction", "selection"}


def test_round_floats_is_stable_and_refuses_nan():
    assert round_floats({"a": [1 / 3, np.float64(2.0)], "b": np.int64(3)}) == {
        "a": [0.333333, 2.0], "b": 3}
    with pytest.raises(ValueError):
        round_floats(float("nan"))


def test_lmm_threads_give_the_same_document():
    # regress.py -j 1 gives each problem cores // jobs threads for its LMM
    # fits (BLAS single-threaded): the bytes must not change.
    from threadpoolctl import threadpool_limits

    from genotex.regress.runner import threads_per_problem

    rng = np.random.default_rng(2)
    n, p = 60, 300
    X = rng.normal(size=(n, p)) + np.repeat([[0.0], [3.0]], n // 2, axis=0)
    y = X[:, :3] @ np.ones(3) + rng.normal(size=n)
    data = ProblemData(Problem("T", "Age"), X, y, rng.uniform(20, 60, (n, 1)),
                       [f"G{i}" for i in range(p)], ["Age"], ["G0", "G1"], ("GSE1",))
    config = AnalysisConfig(batch_gap_numerator=0.0)
    with threadpool_limits(1):
        serial = analyze(data, config)
        threaded = analyze(data, config, workers=3)
    assert serial["analysis"]["model"] == "LMM"
    assert json.dumps(serial) == json.dumps(threaded)
    assert threads_per_problem(1, cores=2) == 2
    assert threads_per_problem(2, cores=2) == threads_per_problem(4, cores=2) == 1
