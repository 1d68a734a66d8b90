"""Canned model replies for the GenoAgent scenarios: code a capable model could write.

GEO replies are written once for any demo series (they use the task's
variables); the clinical step differs per series (its rows and words).
"""

from __future__ import annotations

from typing import Dict


def block(code: str) -> str:
    """A reply holding ``code`` in a python block, with a sentence around it."""
    return f"Here is the code for this step.\n```python\n{code.strip()}\n```\nIt prints the result."


#: The last lines of every cohort: link, missing values, bias, record, linked table.
LINK_AND_RECORD = """
linked_data = geo_link_clinical_genetic_data(selected_clinical_data, gene_data)
linked_data = handle_missing_values(linked_data, trait)
is_trait_biased, linked_data = judge_and_remove_biased_features(linked_data, trait)
is_usable = validate_and_save_cohort_info(True, cohort, json_path, True, True, is_trait_biased,
                                          linked_data, note="GenoAgent")
if is_usable:
    atomic_to_csv(linked_data, out_data_file)
print(read_json(json_path)[cohort])
"""

GEO_CODE: Dict[str, str] = {
    "initial_data_loading": """
soft_file, matrix_file = geo_get_relevant_filepaths(in_cohort_dir)
files = find_geo_files(in_cohort_dir)
print([m.platform_id for m in files.matrices], [p.name for p in files.count_tables])
background_info, clinical_data = get_background_and_clinical_data(matrix_file)
print(background_info)
print(get_unique_values_by_row(clinical_data))
""",
    "gene_data_extraction": """
try:
    genetic_data = get_genetic_data(matrix_file)
    if np.nanpercentile(genetic_data.to_numpy(), 99) > 100:
        genetic_data = np.log2(genetic_data.clip(lower=1))
except NoExpressionTableError:
    counts = read_gene_count_table(find_geo_files(in_cohort_dir).count_tables[0])
    genetic_data = np.log2(counts / counts.sum(axis=0) * 1e6 + 1)
print(genetic_data.shape, list(genetic_data.index[:5]))
""",
    "gene_annotation": """
gene_annotation = get_gene_annotation(soft_file)
suggestion = suggest_mapping_columns(gene_annotation, genetic_data.index)
print(suggestion)
""",
    "gene_identifier_mapping": """
mapping_data = get_gene_mapping(gene_annotation, suggestion.probe_col, suggestion.gene_col)
gene_data = apply_gene_mapping(genetic_data, mapping_data)
print(gene_data.shape)
""",
    "data_normalization_and_linking": """
gene_data = normalize_gene_symbols_in_index(gene_data if requires_gene_mapping else genetic_data)
atomic_to_csv(gene_data, out_gene_data_file)
""" + LINK_AND_RECORD,
}

CLINICAL_CODE = """
is_gene_available = True
trait_row, age_row, gender_row = {trait_row}, {age_row}, {gender_row}
convert_trait = binary_trait_converter({cases!r}, {controls!r})
is_trait_available = trait_row is not None
validate_and_save_cohort_info(False, cohort, json_path, is_gene_available, is_trait_available)
selected_clinical_data = geo_select_clinical_features(
    clinical_data, trait, trait_row, convert_trait, age_row, convert_age, gender_row,
    convert_gender)
print(preview_df(selected_clinical_data))
atomic_to_csv(selected_clinical_data, out_clinical_data_file)
"""

#: The clinical step of two demo series (rows as the curator's records say).
HYPERTENSION_CLINICAL = {
    "Hypertension/GSE9100601": CLINICAL_CODE.format(
        trait_row=2, age_row=3, gender_row=1, cases=["essential hypertension"],
        controls=["normotensive control"]),
    "Hypertension/GSE9100602": CLINICAL_CODE.format(
        trait_row=2, age_row=1, gender_row=3, cases=["essential hypertension"],
        controls=["control"]),
}
NEEDS_MAPPING = {"Hypertension/GSE9100601": True, "Hypertension/GSE9100602": False}

TCGA_CODE: Dict[str, str] = {
    "initial_data_loading": """
clinical_file, genetic_file = tcga_get_relevant_filepaths(in_cohort_dir)
clinical_data = tcga_read_clinical_data(clinical_file)
print(clinical_data.shape)
print(tcga_age_candidates(clinical_data), tcga_gender_candidates(clinical_data))
""",
    "select_demographic_features": """
age_col, gender_col = "age_at_initial_pathologic_diagnosis", "gender"
selected_clinical_data = tcga_select_clinical_features(clinical_data, trait, age_col=age_col,
                                                       gender_col=gender_col)
print(preview_df(selected_clinical_data))
atomic_to_csv(selected_clinical_data.T, out_clinical_data_file)
""",
    "data_normalization_and_linking": """
gene_data = normalize_gene_symbols_in_index(tcga_read_genetic_data(genetic_file))
atomic_to_csv(gene_data, out_gene_data_file)
""" + LINK_AND_RECORD,
}

STATISTICS_CODE: Dict[str, str] = {
    "select_cohorts": """
trait_df, condition_df, regressors = select_and_load_cohort(data_root, trait, condition,
                                                            is_two_step, gene_info_path)
print(trait_df.shape)
""",
    "regression_analysis": """
genes = [c for c in trait_df.columns if c not in (trait, "Age", "Gender")]
X, _ = normalize_data(trait_df[genes])
Y = trait_df[trait].to_numpy()
Z = trait_df[[condition]].to_numpy() if condition in ("Age", "Gender") else None
model_constructor = LMM if detect_batch_effect(X.to_numpy()) else Lasso
best_config, best_performance = tune_hyperparameters(
    model_constructor, [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1], X, Y, genes, trait,
    gene_info_path, condition, Z)
model = ResidualizationRegressor(model_constructor, best_config)
model.fit(X, Y, Z)
significant_genes = interpret_result(model, genes, trait, condition)
print(save_result(significant_genes, best_performance, output_root, trait, condition))
""",
}
