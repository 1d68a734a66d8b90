"""Compatibility surface of the original ``tools.preprocess`` (SPEC Appendix A).

``from tools.preprocess import *`` gives every name existing notebooks and agent
prompts use, with the original positional order and keyword names; the
behaviour is this project's (SPEC), including its fixes of upstream defects.
The implementations live in small modules of this package:

==================  =============================================================
module              names
==================  =============================================================
``geo``             ``geo_get_relevant_filepaths``, ``get_background_and_clinical_data``,
                    ``get_unique_values_by_row``, ``get_genetic_data``,
                    ``find_geo_files``, ``get_sample_rows``, ``read_gene_count_table``
                    (a subpackage: ``header``, ``characteristics``, ``expression``,
                    ``counts``, ``numeric``, ``cohort_files``)
``soft``            ``get_gene_annotation``, ``get_gene_mapping``,
                    ``read_platform_annotations``, ``suggest_mapping_columns``
``gene_mapping``    ``extract_human_gene_symbols``, ``apply_gene_mapping``,
                    ``normalize_gene_symbols_in_index``
``clinical``        ``get_feature_data``, ``geo_select_clinical_features`` and the
                    ready converters
``tcga``            ``tcga_get_relevant_filepaths``, ``tcga_convert_*``,
                    ``tcga_select_clinical_features``, readers, candidates
``linking``         ``geo_link_clinical_genetic_data``, ``handle_missing_values``
``bias``            ``judge_*`` functions
``cohort_info``     ``validate_and_save_cohort_info``
``display``         ``preview_df``
==================  =============================================================

It also re-exports the module and typing names the original star-import leaked
and existing notebooks use without importing them (``pd``, ``np``, ``gzip``,
``re``, ... see :mod:`utils.notebook_namespace`).

May import: ``utils`` and this package; never ``tools.statistics``, ``download``
or ``genotex``.
"""

from utils.errors import NoExpressionTableError
from utils.notebook_namespace import *  # noqa: F401,F403 - the names the original leaked
from utils.notebook_namespace import NOTEBOOK_NAMES
from tools.preprocess.bias import (judge_and_remove_biased_features, judge_binary_variable_biased,
                                   judge_continuous_variable_biased)
from tools.preprocess.clinical import (binary_trait_converter, convert_age, convert_gender,
                                       geo_select_clinical_features, get_feature_data,
                                       value_after_colon)
from tools.preprocess.cohort_info import validate_and_save_cohort_info
from tools.preprocess.display import preview_df
from tools.preprocess.gene_mapping import (apply_gene_mapping, extract_human_gene_symbols,
                                           normalize_gene_symbols_in_index)
from tools.preprocess.geo import (find_geo_files, geo_get_relevant_filepaths,
                                  get_background_and_clinical_data, get_genetic_data,
                                  get_sample_rows, get_unique_values_by_row,
                                  read_gene_count_table)
from tools.preprocess.linking import geo_link_clinical_genetic_data, handle_missing_values
from tools.preprocess.soft import (get_gene_annotation, get_gene_mapping,
                                   read_platform_annotations, suggest_mapping_columns)
from tools.preprocess.tcga import (tcga_age_candidates, tcga_convert_age, tcga_convert_gender,
                                   tcga_convert_trait, tcga_gender_candidates,
                                   tcga_get_relevant_filepaths, tcga_read_clinical_data,
                                   tcga_read_genetic_data, tcga_sample_type_code,
                                   tcga_select_clinical_features)

__all__ = [
    # Appendix A, in its order
    "geo_get_relevant_filepaths",
    "tcga_get_relevant_filepaths",
    "get_background_and_clinical_data",
    "get_unique_values_by_row",
    "get_gene_annotation",
    "get_gene_mapping",
    "get_genetic_data",
    "extract_human_gene_symbols",
    "apply_gene_mapping",
    "normalize_gene_symbols_in_index",
    "get_feature_data",
    "geo_select_clinical_features",
    "geo_link_clinical_genetic_data",
    "tcga_convert_trait",
    "tcga_convert_gender",
    "tcga_convert_age",
    "tcga_select_clinical_features",
    "handle_missing_values",
    "judge_binary_variable_biased",
    "judge_continuous_variable_biased",
    "judge_and_remove_biased_features",
    "validate_and_save_cohort_info",
    "preview_df",
    # additions of this project
    "convert_age",
    "convert_gender",
    "binary_trait_converter",
    "value_after_colon",
    "tcga_read_clinical_data",
    "tcga_read_genetic_data",
    "tcga_age_candidates",
    "tcga_gender_candidates",
    "tcga_sample_type_code",
    "find_geo_files",
    "get_sample_rows",
    "read_gene_count_table",
    "read_platform_annotations",
    "suggest_mapping_columns",
    "NoExpressionTableError",
    # modules and typing names the original star-import leaked (SPEC Appendix A)
    *NOTEBOOK_NAMES,
]
