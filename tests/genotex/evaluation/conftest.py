"""Fixtures of the evaluator tests: the reference tree and its self-evaluation."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Dict

import pytest

from genotex.testing.eval_trees import write_tree
from tests.genotex.evaluation.helpers import evaluate


@pytest.fixture(scope="module")
def ref_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("reference")
    return write_tree(root / "output")


@pytest.fixture(scope="module")
def baseline(ref_root, tmp_path_factory) -> Dict[str, Any]:
    pred = tmp_path_factory.mktemp("baseline") / "pred"
    shutil.copytree(ref_root, pred)
    return evaluate(pred, ref_root)
