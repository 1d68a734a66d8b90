"""Synthetic cohort generator: determinism, format fidelity, planted structure."""

from __future__ import annotations

import gzip
import io
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from genotex.cli import synthetic as generate_synthetic
from genotex.demo.plan import demo_plan
from genotex.synthetic import PlanError, demo_task_info, generate, load_plan, plan_from_mapping
from genotex.synthetic.genes import build_catalog, usable_aliases
from genotex.synthetic.model import calibrate_batch
from genotex.testing.synthetic_world import (ALIASES, BACKGROUND, RELATED, generate_world, plan_mapping,
                                   sources, write_metadata)

from tests.conftest import REPO_ROOT as _ROOT
REPO = _ROOT
BARCODE = re.compile(r"^TCGA-[A-Z0-9]{2}-[A-Z0-9]{4}-(\d{2})$")


# --------------------------------------------------------------------------- helpers

def eigen_gap(x: np.ndarray) -> float:
    """SPEC 5.3, implemented independently: centre columns, eigenvalues of X X^T,
    10 largest divided by the largest, largest consecutive gap."""
    centred = x - x.mean(axis=0)
    values = np.sort(np.linalg.eigvalsh(centred @ centred.T))[::-1][:10]
    values = values / values[0]
    return float(np.max(values[:-1] - values[1:]))


def spec_batch_effect(x: np.ndarray, constant: float = 200.0) -> bool:
    """A gap larger than constant / n_samples means a batch effect (SPEC 5.3)."""
    return eigen_gap(x) > constant / x.shape[0]


def read_matrix(path: Path):
    """(header lines, expression table) of a series matrix, with gzip + pandas only."""
    text = gzip.open(path, "rt", encoding="utf-8").read()
    head, _, rest = text.partition("!series_matrix_table_begin\n")
    table = rest.split("!series_matrix_table_end")[0]
    frame = pd.read_csv(io.StringIO(table), sep="\t", index_col=0, na_values=["null"])
    return head.splitlines(), frame


def sample_rows(head, key: str):
    """Unquoted cells of every header line with this key."""
    return [[c.strip('"') for c in line.split("\t")[1:]] for line in head
            if line.split("\t")[0] == key]


def platform_table(soft_text: str, platform: str) -> pd.DataFrame:
    block = soft_text.split(f"^PLATFORM = {platform}\n")[1]
    table = block.split("!platform_table_begin\n")[1].split("!platform_table_end")[0]
    return pd.read_csv(io.StringIO(table), sep="\t", dtype=str, keep_default_na=False)


def gene_matrix(folder: Path, gse: str, platform: str, synonyms) -> pd.DataFrame:
    """Samples x genes: probes mapped through the SOFT annotation and synonyms, averaged."""
    _, table = read_matrix(folder / f"{gse}_series_matrix.txt.gz")
    soft = gzip.open(folder / f"{gse}_family.soft.gz", "rt", encoding="utf-8").read()
    annotation = platform_table(soft, platform)
    column = next(c for c in ("Gene Symbol", "Symbol", "GENE_SYMBOL") if c in annotation)
    pairs = [(probe, synonyms[token.upper()])
             for probe, cell in zip(annotation["ID"], annotation[column])
             for token in cell.split(" /// ") if token.upper() in synonyms]
    mapping = pd.DataFrame(pairs, columns=["ID", "Gene"])
    merged = mapping.merge(table, left_on="ID", right_index=True).drop(columns="ID")
    return merged.groupby("Gene").mean().T


def labels(record) -> pd.Series:
    s = record["samples"]
    series = pd.Series(s["trait"], index=s["id"], dtype=float)
    return series[[ok for ok in s["trait_recorded"]]].dropna()


# --------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("world")
    truth = generate_world(root / "input", root / "truth.json")
    return root / "input", truth


def all_files(root: Path):
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- determinism

def test_same_seed_gives_identical_bytes(world, tmp_path):
    first_root, _ = world
    generate_world(tmp_path / "again", tmp_path / "truth.json")
    first, second = all_files(first_root), all_files(tmp_path / "again")
    assert first.keys() == second.keys()
    assert [k for k in first if first[k] != second[k]] == []
    assert (first_root.parent / "truth.json").read_bytes() == (tmp_path / "truth.json").read_bytes()


def test_other_seed_changes_values_not_layout(world, tmp_path):
    first_root, _ = world
    generate_world(tmp_path / "other", seed=12)
    first, other = all_files(first_root), all_files(tmp_path / "other")
    assert first.keys() == other.keys()
    assert all(first[k] != other[k] for k in first if k.endswith("series_matrix.txt.gz"))


def test_gzip_headers_are_reproducible(world):
    root, _ = world
    for path in root.rglob("*.gz"):
        head = path.read_bytes()[:10]
        assert head[:2] == b"\x1f\x8b"
        assert not head[3] & 0x08, f"{path}: gzip header stores a file name"
        assert head[4:8] == b"\0\0\0\0", f"{path}: gzip header stores an mtime"


def test_adding_a_cohort_leaves_the_others_unchanged(world, tmp_path):
    first_root, _ = world
    data = plan_mapping()
    data["cohorts"] = data["cohorts"] + [
        {"id": "GSE9100099", "trait": "Heart_rate", "platform": "GPL91002", "n_samples": 20}]
    generate(plan_from_mapping(data), sources(), tmp_path / "more")
    before, after = all_files(first_root), all_files(tmp_path / "more")
    assert all(after[k] == v for k, v in before.items() if "GSE9100002" in k or "TCGA" in k)


# --------------------------------------------------------------------------- GEO format

def test_series_matrix_layout(world):
    root, truth = world
    folder = root / "GEO" / "Rheumatoid_Arthritis" / "GSE9100002"
    head, table = read_matrix(folder / "GSE9100002_series_matrix.txt.gz")
    keys = [line.split("\t")[0] for line in head if line]
    for key in ("!Series_title", "!Series_summary", "!Series_overall_design",
                "!Series_platform_id", "!Sample_title", "!Sample_geo_accession",
                "!Sample_source_name_ch1", "!Sample_characteristics_ch1"):
        assert key in keys
    assert keys.count("!Sample_characteristics_ch1") >= 3
    raw = gzip.open(folder / "GSE9100002_series_matrix.txt.gz", "rt").read()
    assert '\n"ID_REF"\t"GSM' in raw and raw.endswith("!series_matrix_table_end\n")
    assert '!Sample_geo_accession\t"GSM' in raw  # values quoted as GEO does
    record = truth["cohorts"]["Rheumatoid_Arthritis"]["GSE9100002"]
    assert list(table.columns) == record["samples"]["id"]
    assert "\tnull" in raw  # missing cells written as null
    assert table.isna().to_numpy().mean() > 0.01
    assert set(record["missing"]["genes"]) and len(record["missing"]["samples"]) == 2


def test_characteristics_spellings_vary(world):
    root, truth = world
    keys, no_space = set(), 0
    for folder in (root / "GEO").glob("*/*"):
        for matrix in folder.glob("*series_matrix.txt.gz"):
            head, _ = read_matrix(matrix)
            for row in sample_rows(head, "!Sample_characteristics_ch1"):
                for cell in row:
                    if ":" in cell:
                        key, _, value = cell.partition(":")
                        keys.add(key)
                        no_space += not value.startswith(" ")
    assert {"gender", "Sex", "Gender", "sex"} & keys and len(
        {k for k in keys if k.lower() in ("gender", "sex")}) >= 3
    assert len({k for k in keys if k.lower().startswith("age")}) >= 3
    assert no_space > 0  # e.g. "Gender:M" next to "Gender: F"
    head, _ = read_matrix(root / "GEO/Rheumatoid_Arthritis/GSE9100001/"
                          "GSE9100001_series_matrix.txt.gz")
    rows = sample_rows(head, "!Sample_characteristics_ch1")
    assert any(all(c == "" for c in row) for row in rows)  # an empty characteristics line
    layout = truth["cohorts"]["Rheumatoid_Arthritis"]["GSE9100001"]["geo"]
    trait_row = rows[layout["characteristics_rows"]["trait"]]
    texts = {c.partition(":")[2].strip().lower() for c in trait_row}
    assert texts == {k.partition(":")[2].strip().lower() for k in layout["trait_values"]}
    assert "rheumatoid arthritis" in texts and len(texts) == 2


def test_trait_in_source_name_and_biased_cohort(world):
    root, truth = world
    record = truth["cohorts"]["Rheumatoid_Arthritis"]["GSE9100004"]
    head, _ = read_matrix(root / "GEO/Rheumatoid_Arthritis/GSE9100004/"
                          "GSE9100004_series_matrix.txt.gz")
    sources_row = sample_rows(head, "!Sample_source_name_ch1")[0]
    values = [1 if "rheumatoid arthritis" in s else 0 for s in sources_row]
    assert values == record["samples"]["trait"]
    assert sum(values) == 37 and record["expected"]["is_biased"] is True
    assert record["expected"]["is_usable"] is False


def test_cohort_without_trait_data(world):
    root, truth = world
    record = truth["cohorts"]["Rheumatoid_Arthritis"]["GSE9100003"]
    assert record["expected"]["is_trait_available"] is False
    assert record["planted_genes"] == {} and set(record["samples"]["trait"]) == {None}
    head, _ = read_matrix(root / "GEO/Rheumatoid_Arthritis/GSE9100003/"
                          "GSE9100003-GPL91001_series_matrix.txt.gz")
    cells = [c for key in ("!Sample_characteristics_ch1", "!Sample_title",
                           "!Sample_source_name_ch1") for row in sample_rows(head, key)
             for c in row]
    assert not [c for c in cells if "arthritis" in c.lower() or "control" in c.lower()]
    keys = {c.partition(":")[0].lower() for c in cells if ":" in c}
    assert keys <= {"tissue", "time point", "treatment", "gender", "sex", "age",
                    "age (yrs)", "age at sampling (years)"}


def test_soft_sample_tables_are_separate_from_annotation(world):
    root, truth = world
    record = truth["cohorts"]["Rheumatoid_Arthritis"]["GSE9100001"]
    soft = gzip.open(root / "GEO/Rheumatoid_Arthritis/GSE9100001/GSE9100001_family.soft.gz",
                     "rt").read()
    assert soft.startswith("^DATABASE = GeoMiame\n") and "\n^SERIES = GSE9100001\n" in soft
    assert soft.count("\n^PLATFORM = ") == 1
    assert soft.count("!platform_table_begin") == 1 == soft.count("!platform_table_end")
    assert soft.count("\n^SAMPLE = ") == record["n_samples"]
    assert soft.count("!sample_table_begin\nID_REF\tVALUE\n") == record["n_samples"]
    annotation = platform_table(soft, "GPL91001")
    assert annotation.columns[0] == "ID" and "Gene Symbol" in annotation.columns
    platform = record["geo"]["platforms"][0]
    assert len(annotation) == platform["n_probes"]
    symbols = annotation["Gene Symbol"]
    assert symbols.str.contains(" /// ").sum() == platform["multi_gene_probes"] > 0
    assert (symbols == "").sum() > 0  # control probes without a symbol
    assert symbols.str.startswith("LOC").sum() > 0  # accession-like, dropped by mapping
    used_aliases = set(platform["aliases"])
    assert used_aliases and used_aliases <= set(ALIASES)
    tokens = {t for cell in symbols for t in cell.split(" /// ")}
    assert used_aliases <= tokens
    assert "LOC12345" not in used_aliases  # accession-like aliases are never written


def test_multi_platform_series(world):
    root, truth = world
    folder = root / "GEO/Rheumatoid_Arthritis/GSE9100003"
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["GSE9100003-GPL91001_series_matrix.txt.gz",
                     "GSE9100003-GPL91009_series_matrix.txt.gz", "GSE9100003_family.soft.gz"]
    head, table = read_matrix(folder / "GSE9100003-GPL91009_series_matrix.txt.gz")
    assert set(sample_rows(head, "!Sample_organism_ch1")[0]) == {"Mus musculus"}
    assert table.shape[1] == 6
    soft = gzip.open(folder / "GSE9100003_family.soft.gz", "rt").read()
    mouse = platform_table(soft, "GPL91009")
    assert soft.count("\n^PLATFORM = ") == 2
    assert all(s == "" or s.startswith("LOC") or s[1:] == s[1:].lower()
               for s in mouse["Gene Symbol"])  # mouse-style symbols (Tnf)
    human_head, human = read_matrix(folder / "GSE9100003-GPL91001_series_matrix.txt.gz")
    assert human.shape[1] == 30
    assert not set(human.columns) & set(table.columns)


def test_rnaseq_series_has_empty_matrix_and_count_table(world):
    root, truth = world
    folder = root / "GEO/Heart_rate/GSE9100005"
    _, table = read_matrix(folder / "GSE9100005_series_matrix.txt.gz")
    assert table.shape[0] == 0 and table.shape[1] == 30
    counts = pd.read_csv(folder / "GSE9100005_raw_counts_GRCh38.p13_NCBI.tsv.gz", sep="\t",
                         index_col=0)
    assert counts.index.name == "GeneID" and counts.dtypes.eq("int64").all()
    assert (counts.to_numpy() >= 0).all() and counts.to_numpy().mean() > 50
    soft = gzip.open(folder / "GSE9100005_family.soft.gz", "rt").read()
    assert "!platform_table_begin" not in soft and "!sample_table_begin" not in soft


# --------------------------------------------------------------------------- planted model

def test_planted_genes_correlate_with_trait(world):
    root, truth = world
    synonyms = sources().synonyms
    record = truth["cohorts"]["Rheumatoid_Arthritis"]["GSE9100002"]
    genes = gene_matrix(root / "GEO/Rheumatoid_Arthritis/GSE9100002", "GSE9100002",
                        "GPL91002", synonyms)
    y = labels(record)
    x = genes.loc[y.index]
    corr = x.apply(lambda c: abs(c.corr(y)))
    planted = corr.index.isin(list(record["planted_genes"]))
    assert planted.sum() == len(record["planted_genes"]) == 6
    # Planted genes carry the signal; the rest only noise (|r| ~ 1/sqrt(n)).
    assert corr[planted].mean() > 2.5 * corr[~planted].mean()
    assert set(record["planted_genes"]) >= set(truth["traits"]["Rheumatoid_Arthritis"]["known"])
    assert set(truth["traits"]["Rheumatoid_Arthritis"]["known"]) <= set(
        RELATED["Rheumatoid_Arthritis"])
    assert set(truth["traits"]["Rheumatoid_Arthritis"]["novel"]) <= set(BACKGROUND)


def test_covariates_shift_their_genes(world):
    root, truth = world
    record = truth["cohorts"]["Rheumatoid_Arthritis"]["GSE9100002"]
    genes = gene_matrix(root / "GEO/Rheumatoid_Arthritis/GSE9100002", "GSE9100002",
                        "GPL91002", sources().synonyms)
    s = record["samples"]
    male = pd.Series(s["gender"], index=s["id"], dtype=float)
    age = pd.Series(s["age"], index=s["id"], dtype=float)
    xist = genes["XIST"]
    assert xist[male == 0].mean() - xist[male == 1].mean() > 4
    for gene in record["covariates"]["age_genes"]:
        assert abs(genes[gene].corr(age)) > 0.25


def test_batch_structure_is_detectable_by_the_spec_rule(world):
    root, truth = world
    batch = truth["cohorts"]["Rheumatoid_Arthritis"]["GSE9100001"]
    assert batch["batch"]["present"] and batch["n_samples"] > 200
    x = gene_matrix(root / "GEO/Rheumatoid_Arthritis/GSE9100001", "GSE9100001", "GPL91001",
                    sources().synonyms)
    assert spec_batch_effect(x.to_numpy())
    # A large cohort without a batch effect. Both are single-sex: with both sexes,
    # the sex-chromosome genes alone form a dominant component that the rule
    # also flags (see docs/synthetic.md).
    xena = pd.read_csv(root / "TCGA/TCGA_Prostate_Cancer_(PRAD)/TCGA.PRAD.sampleMap_HiSeqV2.gz",
                       sep="\t", index_col=0)
    assert xena.shape[1] > 200 and not spec_batch_effect(xena.T.to_numpy())


def test_continuous_trait_written_with_unit(world):
    root, truth = world
    record = truth["cohorts"]["Heart_rate"]["GSE9100006"]
    head, _ = read_matrix(root / "GEO/Heart_rate/GSE9100006/GSE9100006_series_matrix.txt.gz")
    row = sample_rows(head, "!Sample_characteristics_ch1")[
        record["geo"]["characteristics_rows"]["trait"]]
    numbers = [float(re.search(r":\s*(\d+)", c).group(1)) for c in row]
    assert numbers == record["samples"]["trait"]
    assert all("bpm" in c for c in row)
    assert 60 < np.mean(numbers) < 80 and np.std(numbers) > 4


# --------------------------------------------------------------------------- Xena

def test_xena_barcodes_and_files(world):
    root, truth = world
    record = truth["cohorts"]["Prostate_Cancer"]["Xena"]
    folder = root / "TCGA" / "TCGA_Prostate_Cancer_(PRAD)"
    clinical = pd.read_csv(folder / "TCGA.PRAD.sampleMap_PRAD_clinicalMatrix", sep="\t")
    assert clinical.columns[0] == "sampleID"
    for column in ("age_at_initial_pathologic_diagnosis", "days_to_birth", "gender",
                   "sample_type", "_primary_disease", "bcr_sample_barcode"):
        assert column in clinical.columns
    codes = [BARCODE.match(b).group(1) for b in clinical["sampleID"]]
    kinds = {("tumour" if c < "10" else "normal" if c < "20" else "other") for c in codes}
    assert kinds == {"tumour", "normal", "other"}
    assert {"20", "50"} & set(codes)
    assert all(v[:-1] == s and v[-1].isalpha()
               for s, v in zip(clinical["sampleID"], clinical["bcr_sample_barcode"]))
    assert set(clinical["gender"].dropna()) == {"MALE"}
    assert (clinical["days_to_birth"].dropna() < 0).all()
    hiseq = pd.read_csv(folder / "TCGA.PRAD.sampleMap_HiSeqV2.gz", sep="\t", index_col=0)
    pancan = pd.read_csv(folder / "TCGA.PRAD.sampleMap_HiSeqV2_PANCAN.gz", sep="\t",
                         index_col=0)
    assert hiseq.index.name == "sample" and hiseq.shape == pancan.shape
    assert set(hiseq.columns) < set(clinical["sampleID"])  # clinical-only samples exist
    assert len(set(clinical["sampleID"]) - set(hiseq.columns)) == 3
    assert (hiseq.to_numpy() >= 0).all() and abs(pancan.mean(axis=1)).max() < 1.5
    truth_labels = dict(zip(record["samples"]["id"], record["samples"]["trait"]))
    for barcode, label in truth_labels.items():
        code = barcode[13:15]
        assert label == (1 if code < "10" else 0 if code < "20" else None)


# --------------------------------------------------------------------------- plan & CLI

def test_plan_errors_name_the_problem():
    bad = plan_mapping()
    bad["cohorts"][0]["n_sampels"] = 5
    with pytest.raises(PlanError, match=r"cohorts\[0\].*n_sampels"):
        plan_from_mapping(bad, "plan.json")
    bad = plan_mapping()
    bad["cohorts"][0]["platform"] = "GPL1"
    with pytest.raises(PlanError, match="not a plan platform"):
        plan_from_mapping(bad)
    clash = plan_mapping()
    clash["cohorts"][1]["id"] = "GSE9110001"  # same last four digits as GSE9100001
    with pytest.raises(PlanError, match="GSM"):
        generate(plan_from_mapping(clash), sources(), Path("/nonexistent/never/written"))
    unknown = plan_mapping()
    unknown["genes"]["background"] = BACKGROUND + ["NOTAGENE1"]
    with pytest.raises(PlanError, match="NOTAGENE1"):
        build_catalog(plan_from_mapping(unknown), sources().synonyms, sources().task_info)


def test_aliases_must_map_back_and_look_like_symbols():
    synonyms = {"TNF": "TNF", "TNFA": "TNF", "LOC99": "TNF", "tnf-x": "TNF", "ACTB": "ACTB"}
    assert usable_aliases(synonyms, ["TNF", "ACTB"]) == {"TNF": ("TNFA",), "ACTB": ()}


def test_task_info_for_the_plan():
    plan = plan_from_mapping(plan_mapping())
    catalog = build_catalog(plan, sources().synonyms, sources().task_info)
    info = demo_task_info(plan, sources().task_info, catalog)
    assert info["Rheumatoid_Arthritis"]["conditions"] == ["Gender", "Age", "Heart_rate"]
    assert "NOT_A_GENE" not in info["Prostate_Cancer"]["related_genes"]


def test_cli_single_cohort_and_help(tmp_path, capsys):
    meta = write_metadata(tmp_path / "metadata")
    code = generate_synthetic.main([
        "--trait", "Heart rate", "--kind", "continuous", "--n-samples", "24",
        "--platform-style", "illumina", "--background", "20", "--seed", "3",
        "--gene-synonyms", str(meta["gene_synonyms"]), "--task-info", str(meta["task_info"]),
        "--out", str(tmp_path / "input"), "--truth", str(tmp_path / "truth.json")])
    assert code == 0
    truth = json.loads((tmp_path / "truth.json").read_text())
    assert truth["cohorts"]["Heart_rate"]["GSE9100001"]["n_samples"] == 24
    assert (tmp_path / "input/GEO/Heart_rate/GSE9100001/GSE9100001_family.soft.gz").is_file()
    parser = generate_synthetic.build_parser()
    assert all(action.help for action in parser._actions)


def test_cli_reports_bad_plan(tmp_path, capsys):
    meta = write_metadata(tmp_path / "metadata")
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"cohorts": [], "colour": 1}))
    code = generate_synthetic.main(["--plan", str(plan), "--gene-synonyms",
                                    str(meta["gene_synonyms"]), "--task-info",
                                    str(meta["task_info"]), "--out", str(tmp_path / "in")])
    assert code == 2 and "colour" in capsys.readouterr().err


def test_demo_plan_meets_the_demo_requirements():
    plan = demo_plan()
    cohorts = plan.cohorts
    assert len(plan.traits) >= 8 and len(cohorts) >= 12
    assert sum(c.source == "tcga" for c in cohorts) >= 2
    assert any(not c.has_trait for c in cohorts)
    assert any(c.n_cases is not None and min(c.n_cases, c.n_samples - c.n_cases) < 5
               for c in cohorts)
    assert any(c.extra_platforms for c in cohorts)
    assert any(c.batch and c.n_samples > 200 for c in cohorts)
    assert any(t.kind == "continuous" for t in plan.traits.values())
    # Only the batch cohort is large enough for the SPEC 5.3 rule to fire at all.
    assert [c.key for c in cohorts if c.n_samples > 200] == [
        c.key for c in cohorts if c.batch]


def test_batch_calibration_scales_weak_shifts_until_detectable():
    rng = np.random.default_rng(0)
    n, p = 300, 100
    base = rng.normal(7.0, 0.5, (p, n))
    batch = rng.permutation(np.arange(n) % 2)
    cells = (rng.normal(0.0, 0.1, p) * (rng.random(p) < 0.7))[:, None] * batch[None, :]
    assert not spec_batch_effect((base + cells).T)
    factor = calibrate_batch(base, cells)
    target = 200 / n + 0.02  # the generator keeps a 0.02 margin above the threshold
    assert factor > 1.0 and eigen_gap((base + factor * cells).T) > target
    assert eigen_gap((base + factor / 1.5 * cells).T) <= target  # the smallest step
    small = base[:, :150]
    assert calibrate_batch(small, cells[:, :150]) == 1.0  # 200/150 > 1: can never fire


@pytest.mark.slow
def test_demo_plan_generates_with_the_project_gene_maps(tmp_path):
    """The committed demo plan with maps built by download/ from the real gene_info."""
    from tests.conftest import shared_file
    gene_info = shared_file("genes/Homo_sapiens.gene_info.gz")
    task_info = json.loads(shared_file("opentargets/genomas_task_info.json").read_text())
    gene_synonyms = pytest.importorskip("utils.gene_maps")
    table = gene_synonyms.read_gene_info(gene_info)
    full = gene_synonyms.build_gene_maps(table)
    plan = demo_plan()
    universe = build_catalog(plan, full.synonyms, task_info, full.entrez).universe
    demo = gene_synonyms.build_gene_maps(table, restrict_to=universe)
    from genotex.synthetic import Sources
    catalog = build_catalog(plan, demo.synonyms, task_info, demo.entrez)
    assert catalog.universe == universe  # the restricted map keeps the same universe
    truth = generate(plan, Sources(demo.synonyms, task_info, demo.entrez), tmp_path / "input")
    size = sum(p.stat().st_size for p in (tmp_path / "input").rglob("*") if p.is_file())
    assert size < 4_000_000  # inputs of the <= 20 MB demo budget (docs/demo_plan.md)
    records = [r for cohorts in truth["cohorts"].values() for r in cohorts.values()]
    assert sum(not r["expected"]["is_trait_available"] for r in records) == 1
    assert sum(r["expected"]["is_biased"] is True for r in records) == 1
    usable = {r["trait"] for r in records if r["expected"]["is_usable"]}
    assert usable == set(plan.traits)
    prad = tmp_path / "input/TCGA/TCGA_Prostate_Cancer_(PRAD)/TCGA.PRAD.sampleMap_HiSeqV2.gz"
    assert spec_batch_effect(pd.read_csv(prad, sep="\t", index_col=0).T.to_numpy())
    info = demo_task_info(plan, task_info, catalog)
    for trait, entry in info.items():
        assert {"Age"} <= set(entry["conditions"]) and entry["related_genes"]
        for condition in entry["conditions"]:
            if condition not in ("Age", "Gender"):
                assert set(info[condition]["related_genes"]) <= set(universe)


def test_toml_plan_reads_like_json(tmp_path):
    toml = tmp_path / "plan.toml"
    toml.write_text('''seed = 5
[genes]
background = ["ACTB", "GAPDH"]
[traits.Heart_rate]
kind = "continuous"
n_known = 2
n_novel = 1
[platforms.GPL91002]
style = "illumina"
[[cohorts]]
id = "GSE9100006"
trait = "Heart rate"
platform = "GPL91002"
n_samples = 12
''', encoding="utf-8")
    as_json = {"seed": 5, "genes": {"background": ["ACTB", "GAPDH"]},
               "traits": {"Heart_rate": {"kind": "continuous", "n_known": 2, "n_novel": 1}},
               "platforms": {"GPL91002": {"style": "illumina"}},
               "cohorts": [{"id": "GSE9100006", "trait": "Heart rate",
                            "platform": "GPL91002", "n_samples": 12}]}
    assert load_plan(toml) == plan_from_mapping(as_json)
