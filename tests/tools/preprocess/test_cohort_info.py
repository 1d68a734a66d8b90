"""cohort_info.json records and safe concurrent writes (SPEC 4.8)."""

from __future__ import annotations

import json
import multiprocessing

import numpy as np
import pandas as pd
import pytest

from tools.preprocess.cohort_info import RECORD_KEYS, validate_and_save_cohort_info
from utils.errors import InputFileError

KEYS = ["is_usable", "is_gene_available", "is_trait_available", "is_available",
        "is_biased", "has_age", "has_gender", "sample_size", "note"]


def info_path(tmp_path, trait="Asthma"):
    return tmp_path / "preprocess" / trait / "cohort_info.json"


def read(path):
    return json.loads(path.read_text(encoding="utf-8"))


def linked(n=4, trait="Asthma", age=True, gender=True, genes=("TP53", "EGFR")):
    data = {trait: [0.0, 1.0] * (n // 2)}
    if age:
        data["Age"] = [40.0 + i for i in range(n)]
    if gender:
        data["Gender"] = [0.0, 1.0] * (n // 2)
    for gene in genes:
        data[gene] = np.linspace(0, 1, n)
    return pd.DataFrame(data, index=[f"GSM{i}" for i in range(n)])


def test_key_order_constant():
    assert list(RECORD_KEYS) == KEYS


def test_early_call_with_both_flags_writes_nothing(tmp_path):
    path = info_path(tmp_path)
    assert validate_and_save_cohort_info(False, "GSE1", path, True, True) is False
    assert not path.exists()


@pytest.mark.parametrize("gene, trait", [(False, True), (True, False), (False, False)])
def test_early_failure_record(tmp_path, gene, trait):
    path = info_path(tmp_path)
    result = validate_and_save_cohort_info(False, "GSE1", path, gene, trait,
                                           note="circRNA platform")
    assert result is False
    record = read(path)["GSE1"]
    assert list(record) == KEYS
    assert record == {"is_usable": False, "is_gene_available": gene,
                      "is_trait_available": trait, "is_available": False,
                      "is_biased": None, "has_age": None, "has_gender": None,
                      "sample_size": None, "note": "circRNA platform"}


def test_final_usable_record(tmp_path):
    path = info_path(tmp_path)
    assert validate_and_save_cohort_info(True, "GSE2", path, True, True, False,
                                         linked(6), note="ok") is True
    record = read(path)["GSE2"]
    assert list(record) == KEYS
    assert record == {"is_usable": True, "is_gene_available": True,
                      "is_trait_available": True, "is_available": True,
                      "is_biased": False, "has_age": True, "has_gender": True,
                      "sample_size": 6, "note": "ok"}


def test_final_biased_and_numpy_flags(tmp_path):
    path = info_path(tmp_path)
    result = validate_and_save_cohort_info(True, "GSE3", path, np.True_, np.True_,
                                           np.True_, linked(4, gender=False))
    assert result is False
    record = read(path)["GSE3"]
    assert record["is_usable"] is False and record["is_biased"] is True
    assert record["is_available"] is True
    assert record["has_gender"] is False and record["has_age"] is True


def test_final_table_without_rows_or_genes_is_not_gene_available(tmp_path):
    path = info_path(tmp_path)
    no_rows = linked(0)
    assert validate_and_save_cohort_info(True, "GSE4", path, True, True, False,
                                         no_rows) is False
    no_genes = linked(4, genes=())
    assert validate_and_save_cohort_info(True, "GSE5", path, True, True, False,
                                         no_genes, note="mapped") is False
    records = read(path)
    assert records["GSE4"]["is_gene_available"] is False
    assert records["GSE4"]["sample_size"] == 0
    assert "no rows" in records["GSE4"]["note"]
    assert records["GSE5"]["is_gene_available"] is False
    assert records["GSE5"]["is_available"] is False
    assert records["GSE5"]["note"] == "mapped; final linked table has no gene columns"


def test_trait_column_found_by_folder_name(tmp_path):
    """A trait column not in first place is still not counted as a gene."""
    path = info_path(tmp_path, trait="Crohns_Disease")
    table = linked(4, trait="Crohns_Disease", genes=())[["Age", "Crohns_Disease"]]
    validate_and_save_cohort_info(True, "GSE6", path, True, True, False, table)
    assert read(path)["GSE6"]["is_gene_available"] is False


def test_final_call_needs_table_and_bias(tmp_path):
    with pytest.raises(ValueError, match="needs df"):
        validate_and_save_cohort_info(True, "GSE7", info_path(tmp_path), True, True)
    with pytest.raises(ValueError, match="needs df"):
        validate_and_save_cohort_info(True, "GSE7", info_path(tmp_path), True, True,
                                      df=linked())


def test_records_replaced_and_sorted(tmp_path):
    path = info_path(tmp_path)
    validate_and_save_cohort_info(False, "GSE9", path, False, True)
    validate_and_save_cohort_info(False, "GSE10", path, True, False)
    validate_and_save_cohort_info(True, "GSE9", path, True, True, False, linked())
    records = read(path)
    assert list(records) == ["GSE10", "GSE9"]
    assert records["GSE9"]["is_usable"] is True
    assert not list(path.parent.glob("*.tmp"))


@pytest.mark.parametrize("content", ["{\"GSE1\": {\"is_usable\": tru", "[1, 2]", "",
                                     "\x00\x01garbage"])
def test_damaged_file_is_never_overwritten(tmp_path, content):
    path = info_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(content)
    with pytest.raises(InputFileError) as info:
        validate_and_save_cohort_info(False, "GSE1", path, False, False)
    assert str(info.value).startswith(str(path))
    assert path.read_text() == content


def test_file_with_an_invalid_record_is_never_overwritten(tmp_path):
    path = info_path(tmp_path)
    path.parent.mkdir(parents=True)
    content = json.dumps({"GSE0": {"is_usable": "yes"}})
    path.write_text(content)
    with pytest.raises(InputFileError) as info:
        validate_and_save_cohort_info(False, "GSE1", path, False, False)
    assert str(info.value).startswith(f"{path}: record of 'GSE0': ")
    assert path.read_text() == content


def _writer(path: str, worker: int, n_cohorts: int) -> None:
    table = linked(4)
    for i in range(n_cohorts):
        cohort = f"GSE{worker:02d}{i:03d}"
        if i % 2:
            validate_and_save_cohort_info(False, cohort, path, False, True, note=cohort)
        else:
            validate_and_save_cohort_info(True, cohort, path, True, True, False, table,
                                          note=cohort)


def test_concurrent_writers_lose_no_record(tmp_path):
    path = info_path(tmp_path)
    n_workers, n_cohorts = 8, 20
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_writer, args=(str(path), w, n_cohorts))
               for w in range(n_workers)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [w.exitcode for w in workers] == [0] * n_workers
    records = read(path)
    expected = sorted(f"GSE{w:02d}{i:03d}" for w in range(n_workers)
                      for i in range(n_cohorts))
    assert list(records) == expected
    assert all(records[c]["note"] == c for c in expected)
    assert sum(r["is_usable"] for r in records.values()) == n_workers * n_cohorts // 2
    assert not list(path.parent.glob("*.tmp"))
