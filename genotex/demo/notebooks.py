"""Write and execute the demo's preprocessing notebooks.

:func:`geo_notebook` and :func:`xena_notebook` turn a cohort's decisions
(:mod:`genotex.demo.cohorts`) into a notebook that reads like a hand-written
analysis (SPEC 7): markdown explaining each decision, short code cells using
the Appendix-A names of ``tools.preprocess``, every path from
``utils.paths.resolve_paths`` (so ``GENOTEX_INPUT`` / ``GENOTEX_OUTPUT`` /
``GENOTEX_METADATA`` redirect it and it runs from any working directory).

:func:`execute_notebook` runs a notebook with nbclient and :func:`tidy_notebook`
strips what changes from run to run (timings, kernel versions), so a stored
notebook is byte-stable: cell ids are derived from the cohort and position.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Iterable, List, Mapping, Optional

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from genotex.demo.cohorts import GeoDecisions, XenaDecisions, literal
from utils.io import PathLike, atomic_write_text
from utils.kernel_transport import kernel_transport, remove_transport

logger = logging.getLogger(__name__)

KERNEL_NAME = "python3"
KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": KERNEL_NAME}
CELL_TIMEOUT_SECONDS = 600

_PATHS_COMMENT = ("# Every path comes from the project's resolver: GENOTEX_INPUT, GENOTEX_OUTPUT "
                  "and\n# GENOTEX_METADATA redirect them, so this notebook runs from any "
                  "working directory.")
_FLOAT_FORMAT = ('FLOAT_FORMAT = "%.6g"  # 6 significant digits in the CSVs: far below the '
                 'noise, stable bytes')


def notebook_path(code_root: PathLike, trait: str, cohort: str) -> Path:
    """``<code_root>/<Trait>/<cohort>.ipynb``."""
    return Path(code_root) / trait / f"{cohort}.ipynb"


# The library is imported from this notebook's own checkout: GENOTEX_ROOT, else two levels
# up from code/<Trait>/ (where Jupyter and nbconvert start the kernel), as the original
# GenoTEX notebooks do; never from another clone installed in the environment.
_IMPORT_PATH = (
    "import os\n"
    "import sys\n"
    "\n"
    "# The library of this notebook's checkout (GENOTEX_ROOT, else two levels up from\n"
    "# code/<Trait>/, where Jupyter starts the kernel), ahead of any installed copy.\n"
    'sys.path.insert(0, os.environ.get("GENOTEX_ROOT")\n'
    '                or os.path.abspath(os.path.join(os.getcwd(), "..", "..")))\n')


def _setup_cell(trait: str, cohort: str, imports: Iterable[str], input_expr: str) -> str:
    lines = [_IMPORT_PATH] + list(imports) + [
        "",
        f"trait = {literal(trait)}",
        f"cohort = {literal(cohort)}",
        "",
        _PATHS_COMMENT,
        "paths = resolve_paths()",
        f"in_cohort_dir = {input_expr}",
        "out_dir = paths.preprocess / trait",
        'out_clinical_data_file = out_dir / "clinical_data" / f"{cohort}.csv"',
        'out_gene_data_file = out_dir / "gene_data" / f"{cohort}.csv"',
        'out_data_file = out_dir / f"{cohort}.csv"',
        'json_path = out_dir / "cohort_info.json"',
        _FLOAT_FORMAT,
    ]
    return "\n".join(lines)


def _quantiles(frame: str) -> str:
    return (f'print("value quantiles (0/25/50/75/100%):",\n'
            f"      np.nanpercentile({frame}, [0, 25, 50, 75, 100]).round(2).tolist())")


def _link_cells(note: str, outcome_text: str) -> list:
    cells = [new_markdown_cell(
        "## 4. Linking, missing values and bias\n\n"
        "Samples present in both tables are joined; then the missing-value rules (drop "
        "samples without a trait, genes or samples missing in more than 20%, fill the rest) "
        "and the bias rules (SPEC 4.6-4.7). The linked table is saved only if the cohort "
        "is usable." + (f"\n\n{outcome_text}" if outcome_text else ""))]
    cells.append(new_code_cell(
        f"note = {literal(note)}\n"
        "linked_data = geo_link_clinical_genetic_data(selected_clinical_data, gene_data)\n"
        'print("linked:", linked_data.shape, "(samples x features)")\n'
        "linked_data = handle_missing_values(linked_data, trait)\n"
        'print("after missing-value handling:", linked_data.shape)\n'
        "is_trait_biased, linked_data = judge_and_remove_biased_features(linked_data, trait)\n"
        'print("trait biased:", is_trait_biased,\n'
        '      "| covariates kept:", [c for c in ("Age", "Gender") if c in linked_data.columns])\n'
        "\n"
        "is_usable = validate_and_save_cohort_info(True, cohort, json_path, is_gene_available,\n"
        "                                          is_trait_available, is_trait_biased,\n"
        "                                          linked_data, note=note)\n"
        "if is_usable:\n"
        "    atomic_to_csv(linked_data, out_data_file, float_format=FLOAT_FORMAT)\n"
        "print(read_json(json_path)[cohort])"))
    return cells


def _clinical_summary_cell(table_expr: str, binary: bool) -> str:
    lines = [f"clinical_summary = {table_expr}",
             "print(preview_df(clinical_summary))",
             "print(clinical_summary.describe().round(2))"]
    if binary:
        lines.append('print("trait values:", clinical_summary[trait].value_counts(dropna=False)'
                     ".to_dict())")
    return "\n".join(lines)


def geo_notebook(decisions: GeoDecisions) -> nbformat.NotebookNode:
    """The notebook of one GEO series (see module docstring)."""
    d = decisions
    is_counts = d.scale == "counts"
    is_continuous = "def convert_trait" in d.trait_converter
    imports = ["import re"] if is_continuous else []
    imports += ["from pathlib import Path", "", "import numpy as np", "",
                "from tools.preprocess import *"]
    extra = ["find_geo_files", "get_sample_rows"]
    extra += (["NoExpressionTableError", "read_gene_count_table"] if is_counts else
              ["read_platform_annotations", "suggest_mapping_columns"] if d.platform else
              ["suggest_mapping_columns"])
    imports.append(f"from tools.preprocess import {', '.join(sorted(extra))}")
    imports += ["from utils.io import atomic_to_csv, read_json",
                "from utils.paths import resolve_paths"]

    cells = [new_markdown_cell(
        f"# {d.title}\n\n"
        f"Preprocessing of GEO series **{d.cohort}** for the trait **{d.trait}** (SPEC 4 and "
        "7): clinical table, gene table, linked table and the cohort's record in "
        "`cohort_info.json`. The demo's cohorts are synthetic (see `datasheet.md`).\n\n"
        f"{d.intro}"),
        new_code_cell(_setup_cell(d.trait, d.cohort, imports,
                                  "paths.geo_input / trait / cohort")),
        new_markdown_cell("## 1. What the series holds\n\n"
                          "Files of the series, the background text and the sample "
                          "characteristics (one row per `!Sample_characteristics_ch1` line, "
                          "numbered as the rows are referred to below), then the other "
                          "per-sample lines, where the trait sometimes hides."),
        new_code_cell(
            "files = find_geo_files(in_cohort_dir)\n"
            "for matrix in files.matrices:\n"
            '    organism = "human" if matrix.is_human else "non-human"\n'
            '    print(matrix.path.name, matrix.platform_id, organism, matrix.n_samples, '
            '"samples")\n'
            'print("count tables:", [table.name for table in files.count_tables])\n'
            "soft_file, matrix_file = geo_get_relevant_filepaths(in_cohort_dir)\n"
            'print("using:", Path(matrix_file).name, "and", Path(soft_file).name)\n'
            "\n"
            "background_info, clinical_data = get_background_and_clinical_data(matrix_file)\n"
            "print(background_info)\n"
            "sample_characteristics = get_unique_values_by_row(clinical_data)\n"
            'print("\\nSample characteristics:")\n'
            "for row, values in sample_characteristics.items():\n"
            '    print(f"  {row}: {values}")\n'
            "\n"
            "other_lines = get_sample_rows(matrix_file)\n"
            'print("\\nOther per-sample lines (first values):")\n'
            "for row, values in get_unique_values_by_row(other_lines, max_len=4).items():\n"
            '    print(f"  {other_lines.iloc[row, 0]}: {values}")'),
        new_markdown_cell("## 2. Trait, Age and Gender\n\n" + d.availability),
    ]
    if d.extra_rows:
        prefixes = ["!Sample_geo_accession", *d.extra_rows, "!Sample_characteristics_ch1"]
        cells.append(new_code_cell(
            "background_info, clinical_data = get_background_and_clinical_data(\n"
            f"    matrix_file, prefixes_b={literal(prefixes)})\n"
            "for row, values in get_unique_values_by_row(clinical_data).items():\n"
            '    print(f"  {row}: {values}")'))
    availability = ["is_gene_available = True  # " + (
        "a count table is present (see the file list)" if is_counts
        else "the series matrix holds an expression table")]
    if d.is_trait_available:
        availability += [f"trait_row = {d.trait_row}", f"age_row = {d.age_row}",
                         f"gender_row = {d.gender_row}", "", d.trait_converter, "",
                         "# Age and Gender: the ready converters convert_age / convert_gender "
                         "of tools.preprocess.clinical."]
    else:
        availability += ["trait_row = None  # no per-sample trait value"]
    availability += ["is_trait_available = trait_row is not None", "",
                     "# Records the cohort right away when it cannot be used (no gene data "
                     "or no trait);",
                     "# with both available it writes nothing yet.",
                     "validate_and_save_cohort_info(False, cohort, json_path, "
                     "is_gene_available, is_trait_available"
                     + (");" if d.is_trait_available
                        else f",\n                              note={literal(d.note)})")]
    if not d.is_trait_available:
        availability.append("print(read_json(json_path)[cohort])")
    cells.append(new_code_cell("\n".join(availability)))

    if d.is_trait_available:
        cells.append(new_markdown_cell(
            "### Clinical table\n\nRows `" + d.trait + "`, `Age`, `Gender` (those recorded) x "
            "samples, saved as the cohort's clinical table."
            + (f" {d.clinical_text}" if d.clinical_text else "")))
        cells.append(new_code_cell(
            "selected_clinical_data = geo_select_clinical_features(\n"
            "    clinical_data, trait=trait, trait_row=trait_row, convert_trait=convert_trait,\n"
            "    age_row=age_row, convert_age=convert_age,\n"
            "    gender_row=gender_row, convert_gender=convert_gender)\n"
            + _clinical_summary_cell("selected_clinical_data.T", not is_continuous) + "\n"
            "atomic_to_csv(selected_clinical_data, out_clinical_data_file, "
            "float_format=FLOAT_FORMAT)"))

    cells.append(new_markdown_cell("## 3. Gene expression"))
    if is_counts:
        cells.append(new_code_cell(
            "try:\n"
            "    get_genetic_data(matrix_file)\n"
            "except NoExpressionTableError as error:\n"
            '    print("series matrix:", error.problem)\n'
            "count_file = files.count_tables[0]\n"
            "genetic_data = read_gene_count_table(count_file)\n"
            'print(count_file.name, genetic_data.shape, "(genes x samples)")\n'
            'print("first row ids:", list(genetic_data.index[:8]))\n'
            + _quantiles("genetic_data")))
    else:
        cells.append(new_code_cell(
            "genetic_data = get_genetic_data(matrix_file)\n"
            'print(genetic_data.shape, "(probes x samples)")\n'
            'print("first probe ids:", list(genetic_data.index[:8]))\n'
            + _quantiles("genetic_data") + "\n"
            'print("missing cells:", int(genetic_data.isna().sum().sum()))'))
    cells.append(new_markdown_cell(d.scale_text))
    if d.scale == "linear":
        cells.append(new_code_cell("genetic_data = np.log2(genetic_data.clip(lower=1.0))\n"
                                   + _quantiles("genetic_data")))
    elif is_counts:
        cells.append(new_code_cell(
            "library_size = genetic_data.sum(axis=0)\n"
            "genetic_data = np.log2(genetic_data / library_size * 1e6 + 1)\n"
            + _quantiles("genetic_data")))

    if is_counts:
        cells.append(new_markdown_cell(
            "The rows are NCBI GeneIDs: normalization maps them to official symbols through "
            "`metadata/gene_entrez.json` (beside the synonym map) and drops ids it does not "
            "know."))
        cells.append(new_code_cell(
            "gene_data = normalize_gene_symbols_in_index(genetic_data)\n"
            'print(f"{len(genetic_data)} GeneIDs -> {len(gene_data)} official symbols")\n'
            'print("first symbols:", list(gene_data.index[:6]))\n'
            "atomic_to_csv(gene_data, out_gene_data_file, float_format=FLOAT_FORMAT)"))
    else:
        if d.platform:
            annotation = (f"gene_annotation = read_platform_annotations(soft_file)"
                          f"[{literal(d.platform)}]")
        else:
            annotation = "gene_annotation = get_gene_annotation(soft_file)"
        cells.append(new_markdown_cell(
            "### Probe -> gene mapping\n\nThe platform annotation from the family SOFT file, "
            "and the columns the helper suggests for probe ids and gene symbols."))
        cells.append(new_code_cell(
            annotation + "\n"
            'print(gene_annotation.shape, "columns:", list(gene_annotation.columns))\n'
            "suggestion = suggest_mapping_columns(gene_annotation, genetic_data.index)\n"
            "print(suggestion)\n"
            "print(preview_df(gene_annotation[[suggestion.probe_col, suggestion.gene_col]], "
            "n=6))"))
        cells.append(new_markdown_cell(d.mapping_text))
        cells.append(new_code_cell(
            f"mapping_data = get_gene_mapping(gene_annotation, prob_col={literal(d.probe_col)}, "
            f"gene_col={literal(d.gene_col)})\n"
            "gene_data = apply_gene_mapping(genetic_data, mapping_data)\n"
            'print(f"{len(genetic_data)} probes -> {len(gene_data)} gene symbols")'))
        cells.append(new_markdown_cell(_symbols_text("probes are annotated")))
        cells.append(new_code_cell(
            "gene_data = normalize_gene_symbols_in_index(gene_data)\n"
            'print(f"{len(gene_data)} official symbols, e.g. {list(gene_data.index[:6])}")\n'
            "atomic_to_csv(gene_data, out_gene_data_file, float_format=FLOAT_FORMAT)"))

    if d.is_trait_available:
        cells += _link_cells(d.note, d.outcome_text)
    else:
        cells.append(new_markdown_cell(
            "## 4. Outcome\n\nNo trait, so there is nothing to link: the record written in "
            "step 2 stands (not usable) and no clinical or linked table is saved."))
    return _finish(cells, d.cohort, d.trait)


def _symbols_text(subject: str) -> str:
    return (f"Some {subject} with an older alias rather than the official "
            "symbol; normalization maps every label through `metadata/gene_synonym.json` "
            "(upper-cased), drops labels it does not know and averages rows that land on the "
            "same symbol.")


def xena_notebook(decisions: XenaDecisions) -> nbformat.NotebookNode:
    """The notebook of one Xena TCGA cohort (see module docstring)."""
    d = decisions
    imports = ["from collections import Counter", "from pathlib import Path", "",
               "import numpy as np", "", "from tools.preprocess import *",
               "from tools.preprocess import tcga_sample_type_code",
               "from utils.io import atomic_to_csv, read_json",
               "from utils.paths import resolve_paths"]
    cells = [
        new_markdown_cell(
            f"# {d.title}\n\n"
            f"Preprocessing of the TCGA cohort for the trait **{d.trait}** (cohort id "
            "`Xena`; SPEC 4.5): clinical table, gene table, linked table and the cohort's "
            "record in `cohort_info.json`. The demo's cohorts are synthetic (see "
            f"`datasheet.md`).\n\n{d.intro}"),
        new_code_cell(_setup_cell(d.trait, d.cohort, imports,
                                  f"paths.tcga_input / {literal(d.folder)}")),
        new_markdown_cell("## 1. What the cohort holds\n\nThe files, the clinical columns, "
                          "the candidate Age / Gender columns and the barcode type codes."),
        new_code_cell(
            "clinical_file, genetic_file = tcga_get_relevant_filepaths(in_cohort_dir)\n"
            'print("using:", Path(clinical_file).name, "and", Path(genetic_file).name)\n'
            "clinical_data = tcga_read_clinical_data(clinical_file)\n"
            'print(clinical_data.shape, "(samples x clinical columns)")\n'
            "print(list(clinical_data.columns))\n"
            'print("age candidates:", tcga_age_candidates(clinical_data))\n'
            'print("gender candidates:", tcga_gender_candidates(clinical_data))\n'
            "type_codes = Counter(tcga_sample_type_code(s) for s in clinical_data.index)\n"
            'print("sample type codes:", dict(sorted(type_codes.items())))'),
        new_markdown_cell("## 2. Trait, Age and Gender\n\n" + d.clinical_text),
        new_code_cell(
            "is_gene_available = True\n"
            "is_trait_available = True  # from the barcodes\n"
            f"age_col = {literal(d.age_col)}\n"
            f"gender_col = {literal(d.gender_col)}\n"
            "\n"
            "selected_clinical_data = tcga_select_clinical_features(\n"
            "    clinical_data, trait, age_col=age_col, gender_col=gender_col)\n"
            + _clinical_summary_cell("selected_clinical_data", True) + "\n"
            "# saved as features x samples, like every clinical table\n"
            "atomic_to_csv(selected_clinical_data.T, out_clinical_data_file, "
            "float_format=FLOAT_FORMAT)"),
        new_markdown_cell("## 3. Gene expression\n\nXena's `HiSeqV2` holds log2(normalized "
                          "count + 1) per gene symbol; no transform is needed."),
        new_code_cell(
            "genetic_data = tcga_read_genetic_data(genetic_file)\n"
            'print(genetic_data.shape, "(genes x samples)")\n'
            + _quantiles("genetic_data")),
        new_markdown_cell(_symbols_text("genes are labelled")),
        new_code_cell(
            "gene_data = normalize_gene_symbols_in_index(genetic_data)\n"
            'print(f"{len(genetic_data)} labels -> {len(gene_data)} official symbols")\n'
            "atomic_to_csv(gene_data, out_gene_data_file, float_format=FLOAT_FORMAT)"),
    ]
    cells += _link_cells(d.note, d.outcome_text)
    return _finish(cells, d.cohort, d.trait)


def _finish(cells: List, cohort: str, trait: str) -> nbformat.NotebookNode:
    notebook = new_notebook(cells=cells)
    return tidy_notebook(notebook, f"{trait}-{cohort}")


def tidy_notebook(notebook: nbformat.NotebookNode, id_prefix: str) -> nbformat.NotebookNode:
    """Strip run-dependent metadata and give cells stable ids (in place; returned).

    Keeps outputs and execution counts; sets a fixed kernelspec, drops the
    language version and any per-cell metadata (timings, collapsed state);
    merges consecutive stream outputs of the same name.
    """
    notebook.metadata = nbformat.from_dict({"kernelspec": dict(KERNELSPEC),
                                            "language_info": {"name": "python"}})
    safe_prefix = "".join(ch if ch.isascii() and ch.isalnum() else "-"
                          for ch in id_prefix.lower())
    for number, cell in enumerate(notebook.cells):
        cell.metadata = nbformat.from_dict({})
        cell.id = f"{safe_prefix[:50]}-{number:02d}"
        if cell.cell_type == "code":
            cell.outputs = _merged_streams(cell.get("outputs", []))
    return notebook


def _merged_streams(outputs: List) -> List:
    merged: List = []
    for output in outputs:
        if (output.get("output_type") == "stream" and merged
                and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == output.get("name")):
            merged[-1]["text"] = merged[-1]["text"] + output["text"]
        else:
            merged.append(output)
    return merged


def execute_notebook(notebook: nbformat.NotebookNode, cwd: Optional[PathLike] = None,
                     timeout: int = CELL_TIMEOUT_SECONDS,
                     env: Optional[Mapping[str, str]] = None) -> nbformat.NotebookNode:
    """Execute ``notebook`` top to bottom in a fresh kernel; returns it with outputs.

    The kernel gets ``env`` as its environment (default: this process's), so
    ``GENOTEX_*`` variables there redirect its paths, and starts in ``cwd``
    (default: the current folder); it listens on Unix sockets in a private
    folder (:mod:`utils.kernel_transport`), so no other process can take its
    ports while it starts. Raises ``nbclient.exceptions.CellExecutionError``
    when a cell fails.
    """
    from nbclient import NotebookClient
    from traitlets.config import Config

    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    transport, folder = kernel_transport()
    config = Config({"KernelManager": transport})
    try:
        client = NotebookClient(notebook, timeout=timeout, kernel_name=KERNEL_NAME,
                                resources={"metadata": {"path": str(cwd or os.getcwd())}},
                                record_timing=False, config=config)
        client.execute(**({} if env is None else {"env": dict(env)}))
    finally:
        remove_transport(folder)
    return notebook


def read_notebook(path: PathLike) -> nbformat.NotebookNode:
    """Read a stored notebook (nbformat 4)."""
    return nbformat.read(os.fspath(path), as_version=4)


def write_notebook(notebook: nbformat.NotebookNode, path: PathLike) -> None:
    """Validate and write ``notebook`` atomically (newline-terminated JSON)."""
    nbformat.validate(notebook)
    text = nbformat.writes(notebook)
    atomic_write_text(path, text if text.endswith("\n") else text + "\n")
