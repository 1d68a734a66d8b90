"""The pipeline benchmark runs end to end on a tiny subset of the full-size preset."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

SCRIPT = REPO_ROOT / "benchmarks" / "bench_pipeline.py"


def load_script():
    spec = importlib.util.spec_from_file_location("bench_pipeline", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def full_maps(folder: Path) -> Path:
    """A synonym map of 45,000 official symbols (the preset's universe needs 40,000)."""
    folder.mkdir()
    official = [f"G{k:06d}" for k in range(45_000)]
    (folder / "gene_synonym.json").write_text(json.dumps({g: g for g in official}))
    (folder / "gene_entrez.json").write_text(
        json.dumps({str(100_000 + k): g for k, g in enumerate(official)}))
    return folder / "gene_synonym.json"


@pytest.mark.slow
def test_pipeline_on_two_cohorts(tmp_path, capsys):
    bench = load_script()
    synonyms = full_maps(tmp_path / "maps")
    work = tmp_path / "work"
    assert bench.main(["--workdir", str(work), "--cohorts", "2", "--jobs", "2",
                       "--gene-synonyms", str(synonyms)]) == 0
    printed = capsys.readouterr().out
    for phrase in ("generate 2 cohorts", "reference statistics", "rules, 2 processes",
                   "eval.py -t preprocessing", "extrapolated to the whole preset (911 cohorts",
                   "MB/s"):
        assert phrase in printed, phrase
    timings = json.loads((work / "run_pool" / "timings.json").read_text())
    assert len(timings["cohorts"]) == 2 and all(c["status"] == "done" for c in timings["cohorts"])
    report = json.loads((work / "eval_report.json").read_text())
    assert "preprocessing" in json.dumps(report)
    # a second run reuses the generated folder
    assert bench.main(["--workdir", str(work), "--cohorts", "2", "--jobs", "1",
                       "--gene-synonyms", str(synonyms)]) == 0
    assert "reusing" in capsys.readouterr().out


def test_tree_comparison_names_the_different_files(tmp_path, capsys):
    bench = load_script()
    for name, info, table in (("a", {"GSE1": {"x": 1}, "GSE2": {"y": 2}}, "1,2\n"),
                              ("b", {"GSE2": {"y": 2}, "GSE1": {"x": 1}}, "1,3\n")):
        (tmp_path / name / "T").mkdir(parents=True)
        (tmp_path / name / "T" / "cohort_info.json").write_text(json.dumps(info))
        (tmp_path / name / "T" / "GSE1.csv").write_text(table)
    bench.compare_trees(tmp_path / "a", tmp_path / "b")
    printed = capsys.readouterr().out
    assert "1 of 2 files identical" in printed and "GSE1.csv" in printed


def test_workdir_inside_the_checkout_is_refused():
    bench = load_script()
    with pytest.raises(SystemExit):
        bench.main(["--workdir", str(REPO_ROOT / "pipeline_tmp"), "--cohorts", "1"])
