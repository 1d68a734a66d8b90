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


# --------------------------------------------------------------------------- any demo cohort
#: Code a capable model could write for *every* demo cohort: the decisions are taken in
#: the kernel with the library's own rules (clinical rows and converters, expression
#: scale and identifiers), so a whole-demo run tests the agent's machinery, not the
#: scripted model's knowledge of each series.
DEMO_GEO_CODE: Dict[str, str] = {
    "initial_data_loading": """
soft_file, matrix_file = geo_get_relevant_filepaths(in_cohort_dir)
background_info, clinical_data = get_background_and_clinical_data(matrix_file)
print(background_info[:500])
print(get_unique_values_by_row(clinical_data))
""",
    "dataset_analysis": """
from genotex.methods.rules.cohorts import clinical_converters
from tools.preprocess.clinical_rules import (infer_clinical_rows_with_sample_lines,
                                            sample_lines_from_matrix)
rows = infer_clinical_rows_with_sample_lines(sample_lines_from_matrix(matrix_file), trait,
                                             background_info)
trait_row, age_row, gender_row = rows["trait_row"], rows["age_row"], rows["gender_row"]
selected_clinical_data = None
if trait_row is not None:
    _, clinical_data = get_background_and_clinical_data(matrix_file,
                                                        prefixes_b=rows["prefixes_b"])
    converters = clinical_converters(clinical_data, rows, trait, background_info)
    selected_clinical_data = geo_select_clinical_features(
        clinical_data, trait=trait, trait_row=trait_row, convert_trait=converters["trait"],
        age_row=age_row, convert_age=converters["age"], gender_row=gender_row,
        convert_gender=converters["gender"])
    print(preview_df(selected_clinical_data))
print(trait_row, age_row, gender_row)
""",
    "gene_data_extraction": """
from pathlib import Path
from genotex.methods.rules.expression import geo_gene_table
from utils.symbols import load_synonym_map
gene_table = geo_gene_table(Path(in_cohort_dir), Path(soft_file), paths.gene_synonyms,
                            load_synonym_map(paths.gene_synonyms))
gene_data = gene_table.genes
print(gene_table.note())
""",
    "gene_identifier_review": """
requires_gene_mapping = False   # the table above is already mapped to gene symbols
print(requires_gene_mapping)
""",
    "data_normalization_and_linking": """
from genotex.methods.rules.tables import (CohortFiles, link_and_record, record_unavailable,
                                          save_table)
files = CohortFiles(out_dir, cohort)
if gene_data is not None:
    save_table(gene_data, files.gene)
if gene_data is None or trait_row is None:
    record_unavailable(files, gene_data is not None, trait_row is not None, "GenoAgent")
else:
    save_table(selected_clinical_data, files.clinical)
    link_and_record(files, trait, selected_clinical_data, gene_data, "GenoAgent")
print(read_json(json_path)[cohort])
""",
}

DEMO_TCGA_CODE: Dict[str, str] = {
    "initial_data_loading": TCGA_CODE["initial_data_loading"],
    "select_demographic_features": """
age_col = next(iter(tcga_age_candidates(clinical_data)), None)
gender_col = next(iter(tcga_gender_candidates(clinical_data)), None)
selected_clinical_data = tcga_select_clinical_features(clinical_data, trait, age_col=age_col,
                                                       gender_col=gender_col)
print(preview_df(selected_clinical_data))
atomic_to_csv(selected_clinical_data.T, out_clinical_data_file)
""",
    "data_normalization_and_linking": """
from pathlib import Path
from genotex.methods.rules.expression import symbol_table
from genotex.methods.rules.tables import (CohortFiles, link_and_record, record_unavailable,
                                          save_table)
files = CohortFiles(out_dir, cohort)
gene_table = symbol_table(tcga_read_genetic_data(genetic_file), Path(genetic_file).name,
                          paths.gene_synonyms)
if gene_table.genes is None:
    record_unavailable(files, False, True, "GenoAgent")
else:
    save_table(gene_table.genes, files.gene)
    link_and_record(files, trait, selected_clinical_data, gene_table.genes, "GenoAgent")
print(read_json(json_path)[cohort])
""",
}

DEMO_STATISTICS_CODE: Dict[str, str] = {
    "select_cohorts": STATISTICS_CODE["select_cohorts"],
    "regression_analysis": """
from genotex.regress.runner import RunSettings, run_problems
from utils.problems import Problem
done = run_problems([Problem(trait, condition)],
                    RunSettings(data_root, output_root, gene_info_path, force=True),
                    jobs=1, progress=False)
print(done.counts())
""",
}
