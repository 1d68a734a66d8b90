"""GenoAgent's action units: the steps a programming agent takes for one task.

Each unit is one notebook step (SPEC 7 for cohorts, SPEC 5 for problems) with
an instruction. ``expert`` units hold the inference-heavy decisions (which
row holds the trait, how values encode cases and controls, whether ids need
mapping): the Domain Expert writes them unless that role is switched off.
``required`` units cannot be skipped. The variables named in the instructions
are defined by the setup cell (:func:`setup_code`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Tuple

from genotex.methods.base import CohortTask
from utils.problems import Problem


@dataclass(frozen=True)
class ActionUnit:
    """One step of a task."""

    name: str
    instruction: str
    expert: bool = False
    required: bool = False


GEO_UNITS: Tuple[ActionUnit, ...] = (
    ActionUnit("initial_data_loading", required=True, instruction=(
        "Find the series files with `soft_file, matrix_file = "
        "geo_get_relevant_filepaths(in_cohort_dir)` and print "
        "`find_geo_files(in_cohort_dir)` (matrices, platforms, count tables). Read "
        "`background_info, clinical_data = get_background_and_clinical_data(matrix_file)`, "
        "print the background and `get_unique_values_by_row(clinical_data)` (row number -> "
        "distinct values). Also print the other per-sample lines: "
        "`get_unique_values_by_row(get_sample_rows(matrix_file), max_len=4)` with each row's "
        "tag (titles and source names sometimes hold the groups).")),
    ActionUnit("dataset_analysis", expert=True, required=True, instruction=(
        "Decide from the printed background and characteristics: `is_gene_available` (the "
        "series has expression data: a matrix table or an RNA-seq count table; not "
        "methylation or miRNA only); `trait_row`, `age_row`, `gender_row` (row numbers of "
        "`clinical_data`, or None when not recorded; a row that is constant for every sample "
        "is useless for the trait); and converters `convert_trait`, `convert_age`, "
        "`convert_gender` (raw cell 'key: value' -> float or None; trait 1 case / 0 control "
        "for a binary trait or the number for a continuous one; age in years; gender 0 female "
        "/ 1 male). When the groups are only in titles or source names, re-read "
        "`clinical_data` with `get_background_and_clinical_data(matrix_file, prefixes_b=["
        "'!Sample_geo_accession', '<that tag>', '!Sample_characteristics_ch1'])` and count "
        "rows in that table. Set `is_trait_available = trait_row is not None` and call "
        "`validate_and_save_cohort_info(False, cohort, json_path, is_gene_available, "
        "is_trait_available)`. If the trait is available: `selected_clinical_data = "
        "geo_select_clinical_features(clinical_data, trait, trait_row, convert_trait, age_row, "
        "convert_age, gender_row, convert_gender)`, print `preview_df(selected_clinical_data)` "
        "and save it with `atomic_to_csv(selected_clinical_data, out_clinical_data_file)`.")),
    ActionUnit("gene_data_extraction", instruction=(
        "Read the expression data: `genetic_data = get_genetic_data(matrix_file)`; for an "
        "RNA-seq series (`NoExpressionTableError`) read "
        "`read_gene_count_table(find_geo_files(in_cohort_dir).count_tables[0])` and convert "
        "counts to log2 counts per million. Print the shape, the first 10 row ids and the "
        "value quantiles; log2-transform linear intensities (values up to thousands): "
        "`np.log2(genetic_data.clip(lower=1))`.")),
    ActionUnit("gene_identifier_review", expert=True, instruction=(
        "Look at the printed row ids: set `requires_gene_mapping = True` when they are probe "
        "ids that need the platform annotation, False when they already are gene symbols or "
        "NCBI / Ensembl gene ids (normalization maps those), and print the decision.")),
    ActionUnit("gene_annotation", instruction=(
        "Read the platform annotation: `gene_annotation = get_gene_annotation(soft_file)` "
        "(for a multi-platform series take `read_platform_annotations(soft_file)[platform]`), "
        "print its columns and `suggest_mapping_columns(gene_annotation, genetic_data.index)`.")),
    ActionUnit("gene_identifier_mapping", instruction=(
        "Map probes to genes: `mapping_data = get_gene_mapping(gene_annotation, prob_col, "
        "gene_col)` with the probe-id and gene-symbol columns, then `gene_data = "
        "apply_gene_mapping(genetic_data, mapping_data)`; print the shape.")),
    ActionUnit("data_normalization_and_linking", required=True, instruction=(
        "`gene_data = normalize_gene_symbols_in_index(gene_data)` (use `genetic_data` when "
        "no mapping was needed) and save it: `atomic_to_csv(gene_data, out_gene_data_file)`. "
        "If the trait is available: `linked_data = geo_link_clinical_genetic_data("
        "selected_clinical_data, gene_data)`, `linked_data = handle_missing_values("
        "linked_data, trait)`, `is_trait_biased, linked_data = "
        "judge_and_remove_biased_features(linked_data, trait)`, `is_usable = "
        "validate_and_save_cohort_info(True, cohort, json_path, True, True, is_trait_biased, "
        "linked_data, note=...)`, and save `linked_data` to `out_data_file` only when "
        "usable. Print the record.")),
)

TCGA_UNITS: Tuple[ActionUnit, ...] = (
    ActionUnit("initial_data_loading", required=True, instruction=(
        "`clinical_file, genetic_file = tcga_get_relevant_filepaths(in_cohort_dir)`; "
        "`clinical_data = tcga_read_clinical_data(clinical_file)`; print its shape and "
        "`tcga_age_candidates(clinical_data)`, `tcga_gender_candidates(clinical_data)`.")),
    ActionUnit("select_demographic_features", expert=True, required=True, instruction=(
        "Choose `age_col` and `gender_col` (column names, or None) from the printed "
        "candidates; `selected_clinical_data = tcga_select_clinical_features(clinical_data, "
        "trait, age_col=age_col, gender_col=gender_col)` (the trait comes from the sample "
        "barcodes); print `preview_df(selected_clinical_data)` and save the transpose: "
        "`atomic_to_csv(selected_clinical_data.T, out_clinical_data_file)`.")),
    ActionUnit("data_normalization_and_linking", required=True, instruction=(
        "`gene_data = normalize_gene_symbols_in_index(tcga_read_genetic_data(genetic_file))`, "
        "save it to `out_gene_data_file`; link (`geo_link_clinical_genetic_data("
        "selected_clinical_data, gene_data)`), `handle_missing_values`, "
        "`judge_and_remove_biased_features`, `validate_and_save_cohort_info(True, cohort, "
        "json_path, True, True, is_trait_biased, linked_data, note=...)` and save the linked "
        "table to `out_data_file` when usable. Print the record.")),
)

STATISTICS_UNITS: Tuple[ActionUnit, ...] = (
    ActionUnit("select_cohorts", required=True, instruction=(
        "`trait_df, condition_df, regressors = select_and_load_cohort(data_root, trait, "
        "condition, is_two_step, gene_info_path)` (condition_df and regressors are None for "
        "one-step problems); print the shapes and, for two-step problems, the regressors.")),
    ActionUnit("regression_analysis", required=True, instruction=(
        "Analyse the problem (SPEC 5): for a two-step problem first predict the condition "
        "for `trait_df`'s samples from the regressor genes fitted on `condition_df`, and drop "
        "the regressors from the genes; covariates Z are Age / Gender / the predicted "
        "condition. Use `detect_batch_effect(X)` to choose `LMM` (batch effect) or `Lasso`; "
        "`tune_hyperparameters(model_constructor, param_values, X, Y, var_names, trait, "
        "gene_info_path, condition, Z)`, fit `ResidualizationRegressor(model_constructor, "
        "best_config)` on all samples, `significant_genes = interpret_result(model, "
        "var_names, trait, condition)` and `save_result(significant_genes, best_performance, "
        "output_root, trait, condition)`.")),
)


def units_for(kind: str) -> Tuple[ActionUnit, ...]:
    """The units of a task kind: ``GEO``, ``TCGA`` or ``problem``."""
    return {"GEO": GEO_UNITS, "TCGA": TCGA_UNITS, "problem": STATISTICS_UNITS}[kind]


def _literal(value: Optional[str]) -> str:
    return "None" if value is None else repr(value)


#: The imports of every task's first cell (also a pooled kernel's warm-up).
IMPORT_LINES = ("from tools.preprocess import *", "from tools.statistics import *",
                "from utils.io import atomic_to_csv, read_json",
                "from utils.paths import resolve_paths", "import numpy as np")


def warmup_code() -> str:
    """What a kernel runs before its first task: the set-up cell's imports, and the
    library's lazy initialisation (the model registry is filled on first use), so that
    a task's first use of it is not taken for a change of the library's state."""
    return "\n".join(IMPORT_LINES + (
        "import tools.statistics.models.registry as _registry",
        "_registry.model_names()")) + "\n"


def setup_code(task: Optional[CohortTask] = None, problem: Optional[Problem] = None) -> str:
    """The first cell: imports and the task's variables (written by the Project Manager)."""
    lines = list(IMPORT_LINES) + ["", "paths = resolve_paths()  # GENOTEX_OUTPUT is the "
                                      "prediction tree"]
    if task is not None:
        lines += [f"trait = {task.trait!r}", f"cohort = {task.cohort!r}",
                  f"in_cohort_dir = {str(task.input_dir)!r}",
                  "out_dir = paths.preprocess / trait",
                  'out_gene_data_file = out_dir / "gene_data" / f"{cohort}.csv"',
                  'out_clinical_data_file = out_dir / "clinical_data" / f"{cohort}.csv"',
                  'out_data_file = out_dir / f"{cohort}.csv"',
                  'json_path = out_dir / "cohort_info.json"']
    if problem is not None:
        lines += [f"trait = {problem.trait!r}", f"condition = {_literal(problem.condition)}",
                  f"is_two_step = {problem.is_two_step}",
                  "data_root = paths.preprocess", "output_root = paths.regress",
                  "gene_info_path = paths.task_info"]
    lines.append('print("task variables are set")')
    return "\n".join(lines) + "\n"


def task_description(task: Optional[CohortTask] = None,
                     problem: Optional[Problem] = None) -> str:
    """One sentence saying what the task is."""
    if task is not None:
        source = "GEO series" if task.source == "GEO" else "TCGA (UCSC Xena) cohort"
        return (f"Preprocess the {source} {task.cohort} (input folder "
                f"{Path(task.input_dir).name}) for the trait {task.trait}: gene, clinical and "
                "linked tables and the cohort's cohort_info.json record.")
    assert problem is not None
    condition = "no condition" if problem.condition is None else \
        f"the condition {problem.condition}"
    return (f"Find the genes significantly associated with the trait {problem.trait} "
            f"accounting for {condition} ({problem.category} problem), and save the result.")
