"""Notebooks written the way the original GenoTEX notebooks are run unchanged (SPEC Appendix A).

The notebook below follows the original per-cohort notebooks' habits (it is written for
this test, not copied): it puts the checkout two levels up on ``sys.path``, star-imports
``tools.preprocess`` first and then uses ``pd``, ``np``, ``gzip``, ``re``, ``json``,
``os`` and ``Optional`` without importing them; it selects clinical rows by the numbers
it read in the printed characteristics; its paths are relative to ``code/<Trait>/``; it
writes tables with plain ``to_csv``; and the bias decision is read from the judges'
printed lines, the way an agent reads them. It runs in a real kernel started in
``code/<Trait>/`` of a temporary checkout whose input is a synthetic cohort.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import pandas as pd
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from genotex.demo.notebooks import execute_notebook
from tests.conftest import REPO_ROOT
from genotex.testing.synthetic_world import PLAN, generate_world, write_metadata
from tests.tree_layout import unexpected_output_files
from utils.paths import ENV_LOCK_DIR

TRAIT = "Rheumatoid_Arthritis"
GENE_SYMBOL_COLUMN = {"affymetrix": "Gene Symbol", "illumina": "Symbol"}
GENOTEX_VARIABLES = ("GENOTEX_ROOT", "GENOTEX_INPUT", "GENOTEX_OUTPUT", "GENOTEX_METADATA",
                     "GENOTEX_GENE_SYNONYMS", "GENOTEX_TASK_INFO")

# The lines of docs/preprocessing_clinical.md ("What the bias judges print"), parsed as an
# agent would.
CHECK = re.compile(r"Bias check of '(?P<feature>[^']+)' \((?P<kind>binary|continuous)\): "
                   r"(?P<n>\d+) values, (?P<missing>\d+) missing")
CLASS = re.compile(r"  class (?P<label>\S+): (?P<count>\d+) \((?P<share>[\d.]+)%\)")
STATISTIC = re.compile(r"  (?P<name>min|lower quartile \(25%\)|median \(50%\)|"
                       r"upper quartile \(75%\)|max): (?P<value>\S+)")
VERDICT = re.compile(r"Verdict for '(?P<feature>[^']+)': (?P<verdict>biased|not biased) "
                     r"\((?P<reason>.*)\)")


def setup_cell(cohort: str) -> str:
    prefix = f"../../output/preprocess/{TRAIT}"
    return "\n".join([
        "import sys",
        "import os",
        "sys.path.append(os.path.abspath(os.path.join(os.getcwd(), '../..')))",
        "",
        "from tools.preprocess import *",
        "",
        f"trait = '{TRAIT}'",
        f"cohort = '{cohort}'",
        f"in_cohort_dir = '../../input/GEO/{TRAIT}/{cohort}'",
        f"out_data_file = '{prefix}/{cohort}.csv'",
        f"out_gene_data_file = '{prefix}/gene_data/{cohort}.csv'",
        f"out_clinical_data_file = '{prefix}/clinical_data/{cohort}.csv'",
        f"json_path = '{prefix}/cohort_info.json'",
    ])


EXPLORE_CELL = """\
soft_file, matrix_file = geo_get_relevant_filepaths(in_cohort_dir)
background_info, clinical_data = get_background_and_clinical_data(matrix_file)
sample_characteristics_dict = get_unique_values_by_row(clinical_data)
print(background_info)
print(sample_characteristics_dict)"""


def clinical_cell(rows: Dict[str, int]) -> str:
    return f"""\
is_gene_available = True
trait_row = {rows['trait']}
age_row = {rows['age']}
gender_row = {rows['gender']}

def convert_trait(value: str) -> Optional[int]:
    text = str(value).split(':', 1)[-1].strip().lower()
    if 'control' in text:
        return 0
    if 'rheumatoid' in text:
        return 1
    return None

def convert_age(value: str) -> Optional[float]:
    match = re.search(r'\\d+(\\.\\d+)?', str(value).split(':', 1)[-1])
    return float(match.group()) if match else None

def convert_gender(value: str) -> Optional[int]:
    text = str(value).split(':', 1)[-1].strip().lower()
    return {{'f': 0, 'female': 0, 'm': 1, 'male': 1}}.get(text)

is_trait_available = trait_row is not None
validate_and_save_cohort_info(is_final=False, cohort=cohort, info_path=json_path,
                              is_gene_available=is_gene_available,
                              is_trait_available=is_trait_available)
selected_clinical_df = geo_select_clinical_features(
    clinical_df=clinical_data, trait=trait, trait_row=trait_row, convert_trait=convert_trait,
    age_row=age_row, convert_age=convert_age, gender_row=gender_row,
    convert_gender=convert_gender)
print(preview_df(selected_clinical_df))
os.makedirs(os.path.dirname(out_clinical_data_file), exist_ok=True)
selected_clinical_df.to_csv(out_clinical_data_file)"""


def genes_cell(gene_column: str) -> str:
    return f"""\
genetic_data = get_genetic_data(matrix_file)
print(genetic_data.index[:20])
platform_columns = []
with gzip.open(soft_file, 'rt') as handle:
    for line in handle:
        if line.startswith('!platform_table_begin'):
            break
        if line.startswith('#'):
            platform_columns.append(line[1:].split('=')[0].strip())
print(platform_columns)
gene_annotation = get_gene_annotation(soft_file)
print(preview_df(gene_annotation))
mapping_df = get_gene_mapping(gene_annotation, prob_col='ID', gene_col='{gene_column}')
gene_data = apply_gene_mapping(genetic_data, mapping_df)
gene_data = normalize_gene_symbols_in_index(gene_data)
print(gene_data.shape, np.nanmean(gene_data.values))
os.makedirs(os.path.dirname(out_gene_data_file), exist_ok=True)
gene_data.to_csv(out_gene_data_file)"""


LINK_CELL = """\
linked_data = geo_link_clinical_genetic_data(selected_clinical_df, gene_data)
linked_data = handle_missing_values(linked_data, trait)
print(pd.isna(linked_data).sum().sum(), 'missing after handling')
is_trait_biased, unbiased_linked_data = judge_and_remove_biased_features(linked_data, trait)"""

SAVE_CELL = """\
is_usable = validate_and_save_cohort_info(True, cohort, json_path, True, True,
                                          is_trait_biased, unbiased_linked_data)
if is_usable:
    unbiased_linked_data.to_csv(out_data_file)
print(json.load(open(json_path))[cohort])"""


def original_style_notebook(cohort: str, rows: Dict[str, int], gene_column: str):
    cells = [setup_cell(cohort), EXPLORE_CELL, clinical_cell(rows), genes_cell(gene_column),
             LINK_CELL, SAVE_CELL]
    return new_notebook(cells=[new_code_cell(source) for source in cells])


def stdout_lines(cell) -> List[str]:
    return "".join(o.get("text", "") for o in cell.outputs
                   if o.get("output_type") == "stream" and o.get("name") == "stdout"
                   ).splitlines()


def read_bias_report(lines: List[str]) -> Dict[str, dict]:
    """Feature -> {kind, n, classes {label: count}, statistics {name: value}, biased}."""
    report: Dict[str, dict] = {}
    current: dict = {}
    for line in lines:
        if match := CHECK.fullmatch(line):
            current = report.setdefault(match["feature"], {
                "kind": match["kind"], "n": int(match["n"]), "classes": {}, "statistics": {}})
        elif match := CLASS.fullmatch(line):
            current["classes"][float(match["label"])] = int(match["count"])
        elif match := STATISTIC.fullmatch(line):
            current["statistics"][match["name"]] = float(match["value"])
        elif match := VERDICT.fullmatch(line):
            report[match["feature"]]["biased"] = match["verdict"] == "biased"
    return report


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Tuple[Path, dict]:
    """A checkout layout (the library linked in, metadata, a synthetic input tree) and the
    generator's truth of its cohorts."""
    root = tmp_path_factory.mktemp("checkout")
    (root / "pyproject.toml").write_bytes((REPO_ROOT / "pyproject.toml").read_bytes())
    for package in ("tools", "utils"):
        (root / package).symlink_to(REPO_ROOT / package, target_is_directory=True)
    write_metadata(root / "metadata")
    cohorts = [c for c in PLAN["cohorts"] if c["id"] in ("GSE9100001", "GSE9100002")]
    truth = generate_world(root / "input", cohorts=cohorts)
    (root / "code" / TRAIT).mkdir(parents=True)
    return root, truth["cohorts"][TRAIT]


@pytest.mark.parametrize("cohort", ["GSE9100001", "GSE9100002"])
def test_original_style_notebook_runs_unchanged(checkout, cohort, tmp_path, monkeypatch):
    root, truths = checkout
    truth = truths[cohort]
    rows = truth["geo"]["characteristics_rows"]  # what an agent reads in the printed dict
    style = truth["geo"]["platforms"][0]["style"]
    for name in GENOTEX_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(ENV_LOCK_DIR, str(tmp_path / "locks"))
    notebook = execute_notebook(
        original_style_notebook(cohort, rows, GENE_SYMBOL_COLUMN[style]),
        cwd=root / "code" / TRAIT)

    # The bias decision, read from the printed lines alone.
    report = read_bias_report(stdout_lines(notebook.cells[4]))
    expected = truth["expected"]
    assert set(report) == {TRAIT, "Age", "Gender"}
    assert report[TRAIT]["biased"] is expected["is_biased"]
    assert report["Gender"]["biased"] is (not expected["has_gender"])
    assert report["Age"]["biased"] is (not expected["has_age"])

    # ... agrees with what the notebook wrote.
    out = root / "output" / "preprocess" / TRAIT
    record = json.loads((out / "cohort_info.json").read_text(encoding="utf-8"))[cohort]
    assert record["is_usable"] is expected["is_usable"]
    assert record["has_gender"] is expected["has_gender"]
    linked = pd.read_csv(out / f"{cohort}.csv", index_col=0)
    assert report[TRAIT]["n"] == record["sample_size"] == len(linked)
    assert report[TRAIT]["classes"] == {
        float(k): int(v) for k, v in linked[TRAIT].value_counts().items()}
    ages = linked["Age"].to_numpy()
    quartiles = np.quantile(ages, [0.25, 0.5, 0.75])
    assert report["Age"]["statistics"] == {
        name: float(f"{value:.6g}") for name, value in zip(
            ("min", "lower quartile (25%)", "median (50%)", "upper quartile (75%)", "max"),
            (ages.min(), *quartiles, ages.max()))}
    assert ("Gender" in linked.columns) is expected["has_gender"]

    # Only SPEC files in the tree; the lock went to the lock folder.
    assert unexpected_output_files(root / "output") == []
    assert (out / "gene_data" / f"{cohort}.csv").is_file()
    assert (out / "clinical_data" / f"{cohort}.csv").is_file()
    assert [p.name.split("-")[0] for p in (tmp_path / "locks").iterdir()] == \
        ["cohort_info.json"]
