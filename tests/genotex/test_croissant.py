"""Croissant metadata.json of a tiny generated tree, validated with mlcroissant."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from genotex.testing.synthetic_world import generate_world
from genotex.testing.synthetic_world import write_metadata as write_world_metadata
from genotex import croissant
from genotex.cli import croissant as croissant_cli
from utils.paths import resolve_paths

mlcroissant = pytest.importorskip("mlcroissant")

COHORTS = [
    {"id": "GSE9100002", "trait": "Rheumatoid_Arthritis", "platform": "GPL91002",
     "n_samples": 16},
    {"id": "Xena", "trait": "Prostate_Cancer", "source": "tcga", "code": "PRAD",
     "n_samples": 20},
]
RECORD = {"is_usable": True, "is_gene_available": True, "is_trait_available": True,
          "is_available": True, "is_biased": False, "has_age": True, "has_gender": True,
          "sample_size": 16, "note": ""}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """repo-like root: metadata/, input/ (generated), output/ (hand-made results)."""
    root = tmp_path_factory.mktemp("tree")
    write_world_metadata(root / "metadata")
    generate_world(root / "input", root / "output" / "synthetic_truth.json", cohorts=COHORTS)
    pre = root / "output" / "preprocess" / "Rheumatoid_Arthritis"
    (pre / "gene_data").mkdir(parents=True)
    (pre / "clinical_data").mkdir()
    (pre / "gene_data" / "GSE9100002.csv").write_text("Gene,GSM1\nTNF,1.5\n")
    (pre / "clinical_data" / "GSE9100002.csv").write_text(",GSM1\nRheumatoid_Arthritis,1\n")
    (pre / "GSE9100002.csv").write_text(",Rheumatoid_Arthritis,TNF\nGSM1,1,1.5\n")
    (pre / "cohort_info.json").write_text(json.dumps(
        {"GSE9100002": RECORD, "GSE9100003": {**RECORD, "is_usable": False,
                                              "is_trait_available": False,
                                              "sample_size": None}}))
    reg = root / "output" / "regress" / "Rheumatoid_Arthritis"
    reg.mkdir(parents=True)
    for condition, genes in (("None", ["TNF", "IL6"]), ("Age", ["TNF"])):
        (reg / f"significant_genes_condition_{condition}.json").write_text(json.dumps(
            {"significant_genes": {"Variable": genes, "Coefficient": [0.5] * len(genes),
                                   "Absolute Coefficient": [0.5] * len(genes)},
             "cv_performance": {"prediction": {}, "selection": {}}}))
    return root


def write(tree: Path, **kwargs) -> Path:
    return croissant.write_metadata(resolve_paths(root=tree, environ={}), **kwargs)


def test_document_validates_with_mlcroissant(tree):
    path = write(tree, date_published="2025-01-02")
    dataset = mlcroissant.Dataset(jsonld=str(path))  # raises ValidationError on problems
    assert dataset.metadata.name == "GenoTEX-demo"


def test_file_objects_carry_sha256_of_metadata_files(tree):
    document = json.loads(write(tree).read_text())
    objects = {d["@id"]: d for d in document["distribution"] if d["@type"] == "cr:FileObject"}
    assert set(objects) == {"task-info", "gene-synonyms", "gene-entrez", "synthetic-truth"}
    for node in objects.values():
        data = (tree / node["contentUrl"]).read_bytes()
        assert node["sha256"] == hashlib.sha256(data).hexdigest()
        assert node["contentSize"] == f"{len(data)} B"


def test_file_sets_only_for_present_families(tree):
    document = json.loads(write(tree).read_text())
    sets = {d["@id"]: d for d in document["distribution"] if d["@type"] == "cr:FileSet"}
    assert set(sets) == {"geo-series-matrix", "geo-family-soft", "xena-clinical",
                         "xena-expression", "preprocess-gene", "preprocess-clinical",
                         "preprocess-linked", "cohort-info", "regression-results"}
    assert sets["geo-series-matrix"]["includes"] == "input/GEO/*/*/*_series_matrix.txt.gz"
    for node in sets.values():
        assert list(tree.glob(node["includes"])), node["includes"]


def test_record_sets_load(tree):
    dataset = mlcroissant.Dataset(jsonld=str(write(tree)))
    cohorts = list(dataset.records("cohort_info"))
    assert len(cohorts) == 2
    assert {r["cohort_info/is_usable"] for r in cohorts} == {True, False}
    assert {r["cohort_info/trait"] for r in cohorts} == {b"Rheumatoid_Arthritis"}
    results = {r["regression/condition"]: r["regression/genes"]
               for r in dataset.records("regression")}
    assert results == {b"None": [b"TNF", b"IL6"], b"Age": [b"TNF"]}
    traits = list(dataset.records("task_info"))
    assert len(traits) == 3


def test_output_is_reproducible_and_relative_to_its_folder(tree, tmp_path):
    first = write(tree).read_bytes()
    assert write(tree).read_bytes() == first
    elsewhere = write(tree, out=tmp_path / "sub" / "metadata.json")
    document = json.loads(elsewhere.read_text())
    urls = [d.get("contentUrl") or d.get("includes") for d in document["distribution"]]
    assert all(u.startswith("../") for u in urls)


def test_full_benchmark_description_without_truth(tree):
    document = croissant.build_metadata(resolve_paths(root=tree, environ={}), synthetic=False)
    assert document["name"] == "GenoTEX" and "synthetic" not in document["keywords"]


def test_cli_writes_and_validates(tree, capsys):
    out = tree / "cli_metadata.json"
    assert croissant_cli.main(["--root", str(tree), "--out", str(out), "--validate"]) == 0
    assert json.loads(out.read_text())["conformsTo"] == croissant.CONFORMS_TO
    assert all(action.help for action in croissant_cli.build_parser()._actions)
