"""The evaluator end to end (genotex.evaluation.evaluator): perfect self-evaluation,
categories, tolerated variations of a prediction tree.

A tiny reference tree is written by ``genotex/testing/eval_trees.py``; prediction
trees are copies of it.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
import json
import math
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genotex.evaluation.statuses import OK
from tests.conftest import REPO_ROOT
from genotex.testing.eval_trees import SIGNIFICANT, write_hostile_tree, write_tree
from tests.genotex.evaluation.helpers import (PARTS, copy_tree, evaluate, items_by_key, same,
                                              write_json)


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


def test_cohort_ids_in_another_letter_case_are_matched_and_explained(ref_root, tmp_path,
                                                                     baseline):
    """Lower-case ids of GSE100 and GSE400 (cohort_info keys and file names): every score
    is unchanged and each item that used them says why."""
    pred = copy_tree(ref_root, tmp_path)
    for trait, cohort in (("Trait_A", "GSE100"), ("Trait_B", "GSE400")):
        base = pred / "preprocess" / trait
        for folder in (base / "gene_data", base / "clinical_data", base):
            (folder / f"{cohort}.csv").rename(folder / f"{cohort.lower()}.csv")
        info = json.loads((base / "cohort_info.json").read_text())
        info[cohort.lower()] = info.pop(cohort)
        write_json(base / "cohort_info.json", info)
    report = evaluate(pred, ref_root)
    keyed, expected = items_by_key(report), items_by_key(baseline)
    scores = {"filtering": ("predicted_positive", "correct"),
              "dataset_selection": ("predicted", "correct", "accuracy"),
              "preprocessing": ("aj", "sj", "csc", "coverage"), "analysis": ("f1", "auroc")}
    for part, fields in scores.items():
        for key, item in keyed[part].items():
            assert item["status"] == OK, (part, key)
            assert same({f: item[f] for f in fields},
                        {f: expected[part][key][f] for f in fields}), (part, key)
    note = "cohort id 'gse100' read as 'GSE100' (letter case differs from the reference)"
    assert note in keyed["filtering"][("Trait_A", "GSE100")]["message"]
    assert note in keyed["dataset_selection"][("Trait_A", "None")]["message"]
    assert "'gse400' read as 'GSE400'" in keyed["dataset_selection"][("Trait_A", "Trait_B")][
        "message"]
    gene = keyed["preprocessing"][("gene", "Trait_A", "GSE100")]["message"]
    assert "gse100.csv" in gene and "differs in letter case" in gene


def test_case_variant_beside_the_exact_id_is_not_merged(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    path = pred / "preprocess/Trait_A/cohort_info.json"
    info = json.loads(path.read_text())
    info["gse100"] = {**info["GSE100"], "is_usable": False}
    write_json(path, info)
    items = items_by_key(evaluate(pred, ref_root))["filtering"]
    assert items[("Trait_A", "GSE100")]["predicted_positive"] is True
    assert items[("Trait_A", "GSE100")]["message"] == ""


HOSTILE_RUN = """
import json, resource, sys
from genotex.evaluation.evaluator import EvaluationSettings, Evaluator
from genotex.testing.eval_trees import TASK_INFO

def peak_kib():  # VmHWM: this image's peak (ru_maxrss may carry the forking parent's)
    try:
        with open("/proc/self/status") as handle:
            return int([l for l in handle if l.startswith("VmHWM:")][0].split()[1])
    except (OSError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

before = peak_kib()
report = Evaluator(sys.argv[1], sys.argv[2], TASK_INFO, EvaluationSettings(jobs=1)).run()
after = peak_kib()
two_step = [i for i in report["selection"]["dataset_selection"]["problems"]
            if i["category"] == "two-step"][0]
print(json.dumps({"growth_kib": after - before, "two_step": two_step}))
"""


def test_hostile_cohort_info_stays_bounded(ref_root, tmp_path):
    """1,000 usable records in both traits of a two-step problem (10^6 cohort pairs):
    selection reads each missing table once instead of listing every pair (the seed
    took 3.1 GB and 144 s). Peak memory is measured in a fresh process; no time limit
    is asserted (benchmarks/bench_eval.py reports the time)."""
    pred = write_hostile_tree(ref_root, tmp_path / "pred", 1000)
    assert (pred / "preprocess/Trait_A/cohort_info.json").stat().st_size > 250_000
    result = subprocess.run([sys.executable, "-c", HOSTILE_RUN, str(pred), str(ref_root)],
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    outcome = json.loads(result.stdout.splitlines()[-1])
    assert outcome["growth_kib"] < 200 * 1024  # generous: the pairs alone took ~3 GB
    assert outcome["two_step"]["predicted"] is None
    assert outcome["two_step"]["status"] == "missing"
    assert "GSE7000976.csv: file not found" in outcome["two_step"]["message"]
