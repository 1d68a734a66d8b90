"""Presets: the full-size plan has the real benchmark's statistics; subsets, workers, reference."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from genotex.cli import synthetic as generate_synthetic
from genotex.synthetic import generate, plan_from_mapping
from genotex.synthetic.cohorts import xena_genes
from genotex.synthetic.generate import check_sample_ids, design_platforms, protected_genes
from genotex.synthetic.genes import build_catalog
from genotex.synthetic.model import build_biology
from genotex.synthetic.presets import (FULL_SIZE, generated_task_info, lognormal_sizes,
                                       plan_statistics, preset_plan, subset_plan)
from tests.conftest import REPO_ROOT
from genotex.testing.synthetic_world import plan_mapping, sources

REAL_TASK_INFO = REPO_ROOT.parent / "shared" / "data" / "opentargets" / "genomas_task_info.json"


@pytest.fixture(scope="module")
def big_map():
    """45,000 official symbols (the preset's universe needs 40,000) and GeneIDs."""
    official = [f"G{k:06d}" for k in range(45_000)]
    synonyms = {g: g for g in official}
    synonyms.update({f"ALT{k}X": official[k] for k in range(0, 45_000, 7)})
    entrez = {str(100_000 + k): g for k, g in enumerate(official)}
    return synonyms, entrez


@pytest.fixture(scope="module")
def full_plan(big_map):
    synonyms, _ = big_map
    task_info = generated_task_info(FULL_SIZE, synonyms, 0)
    return task_info, preset_plan(FULL_SIZE, synonyms, task_info, 0, generated=True)


def test_generated_traits_have_the_real_problem_count(full_plan):
    task_info, _ = full_plan
    assert len(task_info) == 132
    assert len(task_info) + sum(len(e["conditions"]) for e in task_info.values()) == 1384
    for trait, entry in task_info.items():
        assert entry["conditions"][:2] == ["Age", "Gender"]
        assert trait not in entry["conditions"]
        assert set(entry["conditions"][2:]) <= set(task_info)


def test_full_size_plan_statistics(full_plan):
    _, plan = full_plan
    stats = plan_statistics(plan)
    assert (stats["cohorts"], stats["traits"], stats["tcga"], stats["geo"]) == (911, 132, 40, 871)
    assert stats["samples"] == 911 * 167  # the real mean, exactly
    sizes_tcga = [c.n_samples for c in plan.cohorts if c.source == "tcga"]
    sizes_geo = [c.n_samples for c in plan.cohorts if c.source == "geo"]
    assert 100 <= min(sizes_tcga) and max(sizes_tcga) <= 1200
    assert 6 <= min(sizes_geo) and max(sizes_geo) <= 1500
    assert np.median(sizes_geo) < np.mean(sizes_geo)  # many small series, a few large ones
    shares = {p.id: p.share for p in FULL_SIZE.platforms}
    for platform, count in stats["geo_by_platform"].items():
        assert abs(count - shares[platform] * 871) <= 1
    assert {c.platform for c in plan.cohorts if c.scale == "counts"} == {"GPL9518573"}
    check_sample_ids(plan)  # unique GSM accessions across 871 series


def test_subsets_are_prefixes_with_the_whole_universe(full_plan):
    _, plan = full_plan
    subset = subset_plan(plan, 25)
    assert subset.cohorts == plan.cohorts[:25]
    assert subset.traits == plan.traits and subset.platforms == plan.platforms
    assert subset_plan(plan, None) is plan and subset_plan(plan, 5000) is plan
    with pytest.raises(ValueError):
        subset_plan(plan, 0)


@pytest.mark.slow
def test_platforms_and_tcga_matrices_have_the_real_sizes(big_map, full_plan):
    synonyms, entrez = big_map
    task_info, plan = full_plan
    catalog = build_catalog(plan, synonyms, task_info, entrez)
    assert abs(len(catalog.universe) - 40_000) <= 50
    biology = build_biology(plan, catalog)
    designs = design_platforms(plan, catalog, biology)
    for platform in FULL_SIZE.platforms:
        design = designs[platform.id]
        rows = len(design.probe_ids) if platform.probes else len(design.genes)
        target = platform.probes or platform.genes
        assert abs(rows - target) <= 0.02 * target, (platform.id, rows)
    protected = protected_genes(biology, catalog)
    tcga = [c for c in plan.cohorts if c.source == "tcga"][:5]
    for cohort in tcga:
        assert abs(len(xena_genes(cohort, catalog, protected, plan.seed)) - 20_530) <= 300


@pytest.mark.skipif(not REAL_TASK_INFO.is_file(), reason="../shared/data task info absent")
def test_real_traits_when_given(big_map):
    synonyms, _ = big_map
    task_info = json.loads(REAL_TASK_INFO.read_text())
    plan = preset_plan(FULL_SIZE, synonyms, task_info, 0, generated=False)
    assert set(plan.traits) == set(task_info)
    assert plan_statistics(plan)["samples"] == 911 * 167


def test_lognormal_sizes_hit_the_total():
    sizes = lognormal_sizes(100, 15_000, (6, 1500), 1.0)
    assert sum(sizes) == 15_000 and min(sizes) >= 6 and max(sizes) <= 1500
    with pytest.raises(ValueError):
        lognormal_sizes(10, 10, (6, 1500), 1.0)


@pytest.mark.slow
def test_preset_command_writes_a_benchmark_folder(tmp_path, big_map, full_plan):
    synonyms, entrez = big_map
    maps = tmp_path / "maps"
    maps.mkdir()
    (maps / "gene_synonym.json").write_text(json.dumps(synonyms))
    (maps / "gene_entrez.json").write_text(json.dumps(entrez))
    out = tmp_path / "bench"
    code = generate_synthetic.main(["--preset", "full-size", "--cohorts", "2", "-j", "2",
                                    "--gene-synonyms", str(maps / "gene_synonym.json"),
                                    "--out", str(out)])
    assert code == 0
    _, plan = full_plan
    first = plan.cohorts[:2]
    truth = json.loads((out / "synthetic_truth.json").read_text())
    assert sorted((t, c) for t in truth["cohorts"] for c in truth["cohorts"][t]) == \
        sorted((c.trait, c.id) for c in first)
    task_info = json.loads((out / "metadata" / "task_info.json").read_text())
    assert set(task_info) == {c.trait for c in first}
    assert (out / "metadata" / "gene_synonym.json").read_bytes() == \
        (maps / "gene_synonym.json").read_bytes()
    for cohort in first:
        where = out / "input" / ("GEO" if cohort.source == "geo" else "TCGA")
        assert any(where.rglob("*")), cohort
        info = json.loads((out / "reference" / "preprocess" / cohort.trait /
                           "cohort_info.json").read_text())
        assert cohort.id in info
        gene = out / "reference" / "preprocess" / cohort.trait / "gene_data" / f"{cohort.id}.csv"
        assert gene.is_file()


def test_workers_write_the_same_files_and_truth(tmp_path):
    plan = plan_from_mapping(plan_mapping())
    one = generate(plan, sources(), tmp_path / "one", tmp_path / "one.json")
    two = generate(plan, sources(), tmp_path / "two", tmp_path / "two.json", jobs=2)
    assert one == two
    files = sorted(p.relative_to(tmp_path / "one") for p in (tmp_path / "one").rglob("*")
                   if p.is_file())
    assert files and all((tmp_path / "one" / f).read_bytes() == (tmp_path / "two" / f).read_bytes()
                         for f in files)


def test_reference_tree_holds_the_recorded_truth(tmp_path):
    plan = plan_from_mapping(plan_mapping())
    truth = generate(plan, sources(), tmp_path / "input", reference_dir=tmp_path / "ref")
    checked = 0
    for trait, cohorts in truth["cohorts"].items():
        info = json.loads((tmp_path / "ref" / trait / "cohort_info.json").read_text())
        for cohort, record in cohorts.items():
            assert info[cohort]["is_gene_available"] is True
            clinical = tmp_path / "ref" / trait / "clinical_data" / f"{cohort}.csv"
            if not record["expected"]["is_trait_available"]:
                assert info[cohort]["is_trait_available"] is False and not clinical.exists()
                continue
            table = pd.read_csv(clinical, index_col=0)
            samples = record["samples"]
            recorded = [v if seen else None for v, seen in zip(samples["trait"],
                                                               samples["trait_recorded"])]
            written = table.loc[trait, samples["id"]].tolist()
            assert [None if np.isnan(v) else v for v in written] == recorded
            gene = pd.read_csv(tmp_path / "ref" / trait / "gene_data" / f"{cohort}.csv",
                               index_col=0)
            assert gene.shape == (record["n_genes"], record["n_samples"])
            assert set(record["planted_genes"]) <= set(gene.index)
            checked += 1
    assert checked >= 3
