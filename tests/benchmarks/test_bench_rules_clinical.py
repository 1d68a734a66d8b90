"""The clinical benchmark prints every section on the development split."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.conftest import REPO_ROOT, shared_file

SCRIPT = REPO_ROOT / "benchmarks" / "bench_rules_clinical.py"


def load_script():
    spec = importlib.util.spec_from_file_location("bench_rules_clinical", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_benchmark_reports_the_split_by_category_and_usability(capsys):
    dev = shared_file("clinical_dev/cohorts.jsonl").parent
    assert load_script().main(["--dev", str(dev)]) == 0
    printed = capsys.readouterr().out
    assert "| trait row |  73.1 |  32.4 |  75.3 |" in printed
    assert "| cancer | 83 |" in printed
    assert "| usable | 105 |  75.2 /  31.4 |" in printed
    assert "Decisions the split itself contradicts (8; devset --label-audit)" in printed
    assert "Whole split (233 series" in printed


def test_the_benchmark_says_when_the_split_is_absent(tmp_path, capsys):
    assert load_script().main(["--dev", str(tmp_path)]) == 2
    assert "development split not found" in capsys.readouterr().out
