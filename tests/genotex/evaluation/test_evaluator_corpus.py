"""A corpus of damaged prediction trees (SPEC 6.4): every defect becomes a status and a
message naming the file, the damaged items score 0 and nothing else changes.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Optional

import pandas as pd
import pytest

from genotex.evaluation.text_summary import format_report
from genotex.evaluation.statuses import EMPTY, MALFORMED, MISSING, OK
from genotex.evaluation.untrusted import Limits
from genotex.testing.eval_trees import SIGNIFICANT, regress_json
from tests.genotex.evaluation.helpers import (A_NONE, A_PROBLEMS, A_TWO_STEP, A_USABLE, B_PROBLEMS,
                                              B_USABLE, PARTS, RESULT_A, copy_tree, evaluate,
                                              is_zero_score, items_by_key, items_by_key_pre, same)


@dataclass
class Case:
    """A damaged prediction tree: what to break and what must follow.

    ``damaged`` maps a task part to ``{item key: expected status}``; those items must
    score 0 with that status and a message naming ``hint``. ``affected`` lists items
    whose score may legitimately change (e.g. a selection that moves to another
    cohort). Every other item must be scored exactly as on an intact copy.
    """

    name: str
    damage: Callable[[Path, Path], None]
    damaged: Dict[str, Dict[tuple, str]]
    hint: str
    affected: Dict[str, set] = field(default_factory=dict)


INFO_A = "preprocess/Trait_A/cohort_info.json"
INFO_B = "preprocess/Trait_B/cohort_info.json"
GENE_100 = "preprocess/Trait_A/gene_data/GSE100.csv"
CLIN_100 = "preprocess/Trait_A/clinical_data/GSE100.csv"
LINK_100 = "preprocess/Trait_A/GSE100.csv"


def put(relative: str, content) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        data = content(path) if callable(content) else content
        path.unlink()
        path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return damage


def edit_json(relative: str, edit: Callable[[Any], Any]) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        obj = edit(json.loads(path.read_text()))
        path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return damage


def edit_genes(key: str, value: Any) -> Callable[[Path, Path], None]:
    def edit(obj):
        obj["significant_genes"][key] = value
        return obj
    return edit_json(RESULT_A, edit)


def edit_record(relative: str, cohort: str, key: str, value: Any):
    def edit(obj):
        obj[cohort][key] = value
        return obj
    return edit_json(relative, edit)


def edit_table(relative: str, change: Callable[[str], str]) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        path.write_text(change(path.read_text()))
    return damage


def transpose_table(relative: str) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        pd.read_csv(path, index_col=0).T.to_csv(path)
    return damage


def remove(relative: str) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    return damage


def symlink_outside(relative: str) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        target = outside / ("stolen" + path.suffix)
        shutil.copyfile(path, target)
        path.unlink()
        path.symlink_to(target)
    return damage


def dangling_symlink(relative: str) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        path.unlink()
        path.symlink_to(path.parent / "nowhere.json")
    return damage


def replace_with_folder(relative: str) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        path.unlink()
        path.mkdir()
    return damage


def make_fifo(relative: str) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        path = pred / relative
        path.unlink()
        os.mkfifo(path)
    return damage


def write_100mb(relative: str, head: bytes, unit: bytes) -> Callable[[Path, Path], None]:
    def damage(pred: Path, outside: Path) -> None:
        block = unit * (4 * 1024 * 1024 // len(unit))
        with open(pred / relative, "wb") as handle:
            handle.write(head)
            for _ in range(25):
                handle.write(block)
    return damage


def long_header(relative: str, head: str, unit: str) -> Callable[[Path, Path], None]:
    """A 20 MiB header line (above the 16 MiB header cap, below the 64 MiB table cap),
    then one data row of the right width."""
    def damage(pred: Path, outside: Path) -> None:
        n_extra = 20 * 1024 * 1024 // (len(unit) + 7)
        names = "".join(f"{unit}{i:07d}" for i in range(n_extra))
        width = head.count(",") + n_extra
        (pred / relative).write_text(f"{head}{names}\nS1{',1' * width}\n")
    return damage


def trait_folder_is_file(pred: Path, outside: Path) -> None:
    shutil.rmtree(pred / "preprocess/Trait_B")
    (pred / "preprocess/Trait_B").write_text("not a folder")


def gzip_truncated(pred: Path, outside: Path) -> None:
    path = pred / RESULT_A
    data = gzip.compress(path.read_bytes())
    path.write_bytes(data[: len(data) // 2])


def gzip_bomb(pred: Path, outside: Path) -> None:
    (pred / RESULT_A).write_bytes(gzip.compress(b" " * (80 * 1024 * 1024)))


def analysis_case(name: str, damage, status: str = MALFORMED) -> Case:
    return Case(name, damage, {"analysis": {A_NONE: status}},
                "significant_genes_condition_None.json")


def table_case(name: str, subtask: str, damage, status: str = MALFORMED,
               affected: Optional[Dict[str, set]] = None) -> Case:
    file = {"gene": GENE_100, "clinical": CLIN_100, "linked": LINK_100}[subtask]
    return Case(name, damage, {"preprocessing": {(subtask, "Trait_A", "GSE100"): status}},
                Path(file).name, affected or {})


def linked_case(name: str, damage, status: str = MALFORMED) -> Case:
    """A damaged linked table of GSE100: the same status (and message) for dataset
    selection, whose two-step pair it was, and for preprocessing."""
    return Case(name, damage, {"preprocessing": {("linked", "Trait_A", "GSE100"): status},
                               "dataset_selection": {A_TWO_STEP: status}}, "GSE100.csv")


def info_case(name: str, trait: str, damage, status: str) -> Case:
    cohorts = A_USABLE + ("GSE300",) if trait == "Trait_A" else B_USABLE
    problems = A_PROBLEMS if trait == "Trait_A" else B_PROBLEMS + [A_TWO_STEP]
    return Case(name, damage, {"filtering": {(trait, c): status for c in cohorts},
                               "dataset_selection": {p: status for p in problems}},
                "cohort_info.json")


def _replace_first_value(text: str, row: str) -> str:
    lines = text.split("\n")
    for position, line in enumerate(lines):
        if line.startswith(row + ","):
            cells = line.split(",")
            cells[1] = "forty"
            lines[position] = ",".join(cells)
    return "\n".join(lines)


VALID_RESULT = json.dumps(regress_json(SIGNIFICANT[A_NONE]))
CORPUS = [
    # --- regression JSON of Trait_A|None
    analysis_case("json_truncated", put(RESULT_A, VALID_RESULT[:-15])),
    analysis_case("json_zero_bytes", put(RESULT_A, b""), EMPTY),
    analysis_case("json_whitespace_only", put(RESULT_A, "  \n\t\n"), EMPTY),
    analysis_case("json_binary", put(RESULT_A, bytes(range(256)) * 8)),
    analysis_case("json_top_level_list", put(RESULT_A, "[1, 2, 3]")),
    analysis_case("json_missing_significant_genes",
                  put(RESULT_A, json.dumps({"cv_performance": {}}))),
    analysis_case("json_significant_genes_list", put(RESULT_A, '{"significant_genes": []}')),
    analysis_case("json_missing_variable", edit_json(
        RESULT_A, lambda o: {"significant_genes": {"Coefficient": []}})),
    analysis_case("json_variable_string", edit_genes("Variable", "GENE7")),
    analysis_case("json_variable_number", edit_genes("Variable", ["GENE7", 7, "GENE1", "X"])),
    analysis_case("json_variable_null", edit_genes("Variable", [None, "GENE3", "GENE1", "X"])),
    analysis_case("json_nan_coefficient", edit_genes("Coefficient", [1.0, float("nan"), 1, 1])),
    analysis_case("json_inf_abs_coefficient",
                  edit_genes("Absolute Coefficient", [1.0, float("inf"), 1, 1])),
    analysis_case("json_string_coefficient", edit_genes("Coefficient", ["1", "2", "3", "4"])),
    analysis_case("json_coefficient_length", edit_genes("Coefficient", [1.0])),
    analysis_case("json_non_utf8", put(RESULT_A, VALID_RESULT.encode().replace(
        b"GENE7", b"GEN\xc9\xff7"))),
    analysis_case("json_100mb", write_100mb(RESULT_A, b'{"significant_genes": {"Variable": [',
                                            b'"GENE1", ')),
    analysis_case("json_gzip_bomb", gzip_bomb),
    analysis_case("json_gzip_truncated", gzip_truncated),
    analysis_case("json_duplicate_keys", put(RESULT_A, '{"significant_genes": {"Variable": '
                                             '["GENE7"]}, "significant_genes": {}}')),
    analysis_case("json_deep_nesting", put(RESULT_A, "[" * 200_000)),
    analysis_case("json_is_folder", replace_with_folder(RESULT_A)),
    analysis_case("json_symlink_outside", symlink_outside(RESULT_A)),
    analysis_case("json_fifo", make_fifo(RESULT_A)),
    analysis_case("json_missing", remove(RESULT_A), MISSING),
    analysis_case("json_dangling_symlink", dangling_symlink(RESULT_A), MISSING),
    Case("regress_trait_folder_missing", remove("regress/Trait_A"),
         {"analysis": dict.fromkeys(A_PROBLEMS, MISSING)}, "regress/Trait_A"),
    # --- cohort_info.json
    info_case("info_invalid_json", "Trait_B", put(INFO_B, '{"GSE400": {"is_usable": tr'),
              MALFORMED),
    info_case("info_top_level_list", "Trait_A", put(INFO_A, "[]"), MALFORMED),
    info_case("info_zero_bytes", "Trait_B", put(INFO_B, b""), EMPTY),
    info_case("info_missing", "Trait_A", remove(INFO_A), MISSING),
    info_case("info_duplicate_cohort", "Trait_B", put(
        INFO_B, '{"GSE400": {"is_usable": true, "sample_size": 9}, '
                '"GSE400": {"is_usable": false}}'), MALFORMED),
    info_case("info_non_utf8", "Trait_B", put(INFO_B, b'{"GSE400\xff": {}}'), MALFORMED),
    Case("info_is_usable_wrong_type", edit_record(INFO_A, "GSE100", "is_usable", "yes"),
         {"filtering": {("Trait_A", "GSE100"): MALFORMED},
          "dataset_selection": dict.fromkeys(A_PROBLEMS, MALFORMED)}, "cohort_info.json"),
    Case("info_sample_size_nan", edit_record(INFO_A, "GSE100", "sample_size", float("nan")),
         {"filtering": {("Trait_A", "GSE100"): MALFORMED},
          "dataset_selection": dict.fromkeys(A_PROBLEMS, MALFORMED)}, "cohort_info.json"),
    Case("info_record_missing", edit_json(INFO_B, lambda o: {"GSE500": o["GSE500"]}),
         {"filtering": {("Trait_B", "GSE400"): MISSING}}, "cohort_info.json",
         {"dataset_selection": set(B_PROBLEMS + [A_TWO_STEP])}),
    # --- tables of Trait_A / GSE100
    table_case("gene_missing", "gene", remove(GENE_100), MISSING),
    table_case("gene_zero_bytes", "gene", put(GENE_100, b""), EMPTY),
    table_case("gene_header_only", "gene", edit_table(GENE_100, lambda t: t.split("\n")[0]),
               EMPTY),
    table_case("gene_transposed", "gene", transpose_table(GENE_100)),
    table_case("gene_duplicate_genes", "gene", edit_table(
        GENE_100, lambda t: t.replace("GENE2,", "GENE1,", 1))),
    table_case("gene_duplicate_genes_by_case", "gene", edit_table(
        GENE_100, lambda t: t.replace("GENE2,", "gene1,", 1))),
    table_case("gene_ragged_row", "gene", edit_table(
        GENE_100, lambda t: t.replace("\nGENE3,", "\nGENE3,1.0,", 1))),
    table_case("gene_non_utf8_sample", "gene", put(GENE_100, lambda p: p.read_bytes().replace(
        b"GSM01000", b"GSM\xe9\xff000", 1))),
    table_case("gene_binary", "gene", put(GENE_100, b"\x00\x01\x02\xff" * 1000)),
    table_case("gene_100mb", "gene", write_100mb(GENE_100, b"Gene,S1\n", b"GENE1,1.0\n")),
    table_case("gene_empty_column_name", "gene", edit_table(
        GENE_100, lambda t: t.replace(",GSM01001,", ",,", 1))),
    table_case("gene_empty_row_label", "gene", edit_table(
        GENE_100, lambda t: t.replace("\nGENE5,", "\n,", 1))),
    table_case("clinical_non_numeric", "clinical",
               edit_table(CLIN_100, lambda t: _replace_first_value(t, "Age"))),
    table_case("clinical_unterminated_quote", "clinical",
               edit_table(CLIN_100, lambda t: t + '"Gender,1\n')),
    table_case("clinical_fifo", "clinical", make_fifo(CLIN_100)),
    linked_case("linked_duplicate_columns", edit_table(
        LINK_100, lambda t: t.replace(",GENE2,", ",GENE1,", 1))),
    linked_case("linked_transposed", transpose_table(LINK_100)),
    linked_case("linked_20mb_header", long_header(LINK_100, ",Trait_A,Age,Gender", ",G")),
    table_case("gene_20mb_header", "gene", long_header(GENE_100, "Gene", ",GSM")),
    Case("linked_symlink_outside", symlink_outside(LINK_100),
         {"preprocessing": {("linked", "Trait_A", "GSE100"): MALFORMED},
          "dataset_selection": {A_TWO_STEP: MALFORMED}}, "GSE100.csv"),
    Case("gene_folder_missing", remove("preprocess/Trait_A/gene_data"),
         {"preprocessing": {("gene", "Trait_A", c): MISSING for c in A_USABLE}}, "gene_data"),
    Case("trait_folder_is_a_file", trait_folder_is_file,
         {"filtering": {("Trait_B", c): MALFORMED for c in B_USABLE},
          "dataset_selection": dict.fromkeys(B_PROBLEMS + [A_TWO_STEP], MALFORMED),
          "preprocessing": {(s, "Trait_B", c): MALFORMED
                            for s in ("gene", "clinical", "linked") for c in B_USABLE}},
         "Trait_B"),
]


def test_corpus_is_large_and_distinct():
    names = [case.name for case in CORPUS]
    assert len(names) == len(set(names)) and len(names) >= 30


@pytest.mark.parametrize("case", CORPUS, ids=lambda case: case.name)
def test_damaged_prediction_tree(case, ref_root, tmp_path, baseline):
    pred = copy_tree(ref_root, tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    case.damage(pred, outside)
    report = evaluate(pred, ref_root)
    keyed, expected = items_by_key(report), items_by_key(baseline)
    for part in PARTS:
        damaged = case.damaged.get(part, {})
        affected = case.affected.get(part, set())
        assert set(keyed[part]) == set(expected[part])
        for key, item in keyed[part].items():
            if key in damaged:
                assert item["status"] == damaged[key], (part, key, item)
                assert case.hint in item["message"], (part, key, item["message"])
                assert is_zero_score(part, item), (part, key, item)
            elif key not in affected:
                assert same(item, expected[part][key]), (part, key, item)
    if ("linked", "Trait_A", "GSE100") in case.damaged.get("preprocessing", {}):
        # one status per file across tasks: the linked table's, with the same reason
        selection = keyed["dataset_selection"][A_TWO_STEP]
        table = keyed["preprocessing"][("linked", "Trait_A", "GSE100")]
        assert (selection["status"], selection["message"]) == (table["status"],
                                                               table["message"])
    format_report(report)  # the text table copes with every status


def test_missing_prediction_root(ref_root, tmp_path, baseline):
    report = evaluate(tmp_path / "does_not_exist", ref_root)
    keyed = items_by_key(report)
    for part in PARTS:
        for key, item in keyed[part].items():
            assert item["status"] == MISSING, (part, key)
            assert is_zero_score(part, item)
    assert report["analysis"]["summary"]["overall"]["success_rate"] == 0.0


def test_symlink_inside_tree_is_followed(ref_root, tmp_path, baseline):
    pred = copy_tree(ref_root, tmp_path)
    path = pred / GENE_100
    shutil.move(path, pred / "gene_copy.csv")
    path.symlink_to(pred / "gene_copy.csv")
    item = items_by_key_pre(evaluate(pred, ref_root))[("gene", "Trait_A", "GSE100")]
    assert item["status"] == OK and item["aj"] == 100.0


def test_limits_are_configurable(ref_root, tmp_path):
    pred = copy_tree(ref_root, tmp_path)
    report = evaluate(pred, ref_root, tasks=("analysis",), limits=Limits(max_json_bytes=50))
    statuses = {i["status"] for i in report["analysis"]["problems"]}
    assert statuses == {MALFORMED}
