"""cohort_info.json records and safe concurrent writes (SPEC 4.8)."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tools.preprocess.cohort_info import RECORD_KEYS, validate_and_save_cohort_info
from utils.errors import InputFileError
from utils.paths import ENV_LOCK_DIR

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


def save_final(path, cohort, table, is_biased=False, note=""):
    """The final call with both flags true: (its result, the record written, keys checked)."""
    result = validate_and_save_cohort_info(True, cohort, path, True, True, is_biased, table,
                                           note=note)
    record = read(path)[cohort]
    assert list(record) == KEYS
    return result, record


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
    result, record = save_final(info_path(tmp_path), "GSE2", linked(6), note="ok")
    assert result is True
    assert record == dict(zip(KEYS, (True, True, True, True, False, True, True, 6, "ok")))


def test_final_biased_and_numpy_flags(tmp_path):
    path = info_path(tmp_path)
    result = validate_and_save_cohort_info(True, "GSE3", path, np.True_, np.True_,
                                           np.True_, linked(4, gender=False))
    assert result is False
    record = read(path)["GSE3"]
    assert record["is_usable"] is False and record["is_biased"] is True
    assert record["is_available"] is True
    assert record["has_gender"] is False and record["has_age"] is True


def test_final_table_without_rows_is_not_available_rather_than_biased(tmp_path):
    """SPEC 4.8: no rows forces is_gene_available false. The bias judges call an empty
    table biased (no class present); the record must not: nothing could be judged."""
    for cohort, is_biased in (("GSE4", True), ("GSE8", False)):
        result, record = save_final(info_path(tmp_path), cohort, linked(0), is_biased,
                                    note="linked")
        assert result is False
        # usable, gene, trait, available | biased, age, gender: null | 0 rows
        assert record == dict(zip(KEYS, (False, False, True, False, None, None, None, 0,
                                         "linked; final linked table has no rows")))


def test_final_table_without_genes_is_not_gene_available(tmp_path):
    path = info_path(tmp_path)
    no_genes = linked(4, genes=())
    assert validate_and_save_cohort_info(True, "GSE5", path, True, True, False,
                                         no_genes, note="mapped") is False
    records = read(path)
    assert records["GSE5"]["is_gene_available"] is False
    assert records["GSE5"]["is_available"] is False
    assert records["GSE5"]["note"] == "mapped; final linked table has no gene columns"


def test_final_table_without_trait_values_is_not_trait_available(tmp_path):
    """A trait column that holds nothing (say, a notebook that kept the samples
    of a failed conversion) must not make the cohort usable: selection would
    pick a cohort no analysis can use."""
    path = info_path(tmp_path)
    table = linked(4)
    trait = table.columns[0]
    table[trait] = float("nan")
    assert validate_and_save_cohort_info(True, "GSE7", path, True, True, False,
                                         table, note="linked") is False
    record = read(path)["GSE7"]
    assert (record["is_trait_available"], record["is_available"], record["is_usable"]) == (
        False, False, False)
    assert record["note"] == f"linked; final linked table has no {trait} value"


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
                                     "\x00\x01garbage",
                                     # a record written twice: which one is right?
                                     "{\"GSE0\": {}, \"GSE0\": {}}"])
def test_damaged_file_is_never_overwritten(tmp_path, content):
    path = info_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(content)
    with pytest.raises(InputFileError) as info:
        validate_and_save_cohort_info(False, "GSE1", path, False, False)
    assert str(info.value).startswith(str(path))
    assert path.read_text() == content


def test_a_file_in_place_of_the_trait_folder_is_named(tmp_path):
    from utils.errors import OutputFileError
    (tmp_path / "preprocess").mkdir()
    (tmp_path / "preprocess" / "Asthma").write_text("a file")
    with pytest.raises(OutputFileError, match="is a file, not a folder") as info:
        validate_and_save_cohort_info(False, "GSE1", info_path(tmp_path), False, False)
    assert str(info.value).startswith(str(tmp_path / "preprocess" / "Asthma"))


def test_file_with_an_invalid_record_is_never_overwritten(tmp_path):
    path = info_path(tmp_path)
    path.parent.mkdir(parents=True)
    content = json.dumps({"GSE0": {"is_usable": "yes"}})
    path.write_text(content)
    with pytest.raises(InputFileError) as info:
        validate_and_save_cohort_info(False, "GSE1", path, False, False)
    assert str(info.value).startswith(f"{path}: record of 'GSE0': ")
    assert path.read_text() == content


# These writers are forked on purpose: they must be writing within milliseconds of their
# start (the kill test below kills them 0.05-0.4 s in, before a spawned child would have
# imported pandas) and all eight must overlap. The pytest process runs threads, which
# Python >= 3.12 warns about at each fork (a forked child may deadlock on a lock another
# thread held); a deadlocked writer would fail these tests, not hang them: every join has
# a timeout and its exit code is checked, and the killed ones are killed regardless.
DELIBERATE_FORK = pytest.mark.filterwarnings(
    r"ignore:This process \(pid=\d+\) is multi-threaded, use of fork\(\):DeprecationWarning")


def _writer(path: str, worker: int, n_cohorts: int) -> None:
    table = linked(4)
    for i in range(n_cohorts):
        cohort = f"GSE{worker:02d}{i:03d}"
        if i % 2:
            validate_and_save_cohort_info(False, cohort, path, False, True, note=cohort)
        else:
            validate_and_save_cohort_info(True, cohort, path, True, True, False, table,
                                          note=cohort)


@DELIBERATE_FORK
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


def _acknowledging_writer(path: str, worker: int, acks: str) -> None:
    """Write records one after another; append each id to ``acks`` once its write returned."""
    table = linked(4)
    with open(acks, "a", encoding="utf-8") as ack:
        for i in range(10_000):
            cohort = f"GSE{worker:02d}{i:05d}"
            validate_and_save_cohort_info(True, cohort, path, True, True, False, table,
                                          note=cohort)
            ack.write(cohort + "\n")
            ack.flush()


def _wait_for_an_acknowledgement(acks: Path) -> None:
    """Until a writer has acknowledged a write (before: on a loaded machine twelve rounds
    of kills could all land before any write returned, and the test failed as proving
    nothing); a hang guard of minutes."""
    deadline = time.monotonic() + 300
    while not any(f.stat().st_size for f in acks.iterdir()):
        assert time.monotonic() < deadline, "no writer completed a write in 5 minutes"
        time.sleep(0.01)


@DELIBERATE_FORK
def test_writers_killed_mid_write_lose_nothing_and_leave_nothing(tmp_path, monkeypatch):
    """kill -9 lands anywhere in a write (the file is large, so often mid-write); after the
    next completed write the folder holds only cohort_info.json, every acknowledged record
    is there and complete, and the file was valid JSON after every round."""
    monkeypatch.setenv(ENV_LOCK_DIR, str(tmp_path / "locks"))
    path = info_path(tmp_path)
    table = linked(4)
    validate_and_save_cohort_info(False, "GSE_OLD0000", path, False, True, note="x" * 200)
    record = read(path)["GSE_OLD0000"]
    # 1,500 records (about 0.5 MB) make each write take a while, so kills land mid-write.
    path.write_text(json.dumps({f"GSE_OLD{i:04d}": record for i in range(1500)}, indent=4))
    acks = tmp_path / "acks"
    acks.mkdir()
    draw = random.Random(7)  # kill times vary the point of the kill, not the assertions
    context = multiprocessing.get_context("fork")
    for round_number in range(12):
        workers = [context.Process(target=_acknowledging_writer,
                                   args=(str(path), 10 * round_number + w,
                                         str(acks / f"{round_number}-{w}.txt")))
                   for w in range(3)]
        for worker in workers:
            worker.start()
        time.sleep(draw.uniform(0.05, 0.4))
        if round_number == 0:  # one acknowledged write at least, however slow the machine
            _wait_for_an_acknowledgement(acks)
        for worker in workers:
            os.kill(worker.pid, signal.SIGKILL)
        for worker in workers:
            worker.join(60)
        assert [w.exitcode for w in workers] == [-signal.SIGKILL] * 3
        assert isinstance(read(path), dict)  # never half-written
    validate_and_save_cohort_info(True, "GSE_NEXT", path, True, True, False, table)
    assert os.listdir(path.parent) == ["cohort_info.json"]
    records = read(path)
    acknowledged = [line for f in acks.iterdir() for line in f.read_text().split()]
    assert acknowledged, "no writer completed a write: the test proves nothing"
    for cohort in acknowledged:
        assert list(records[cohort]) == KEYS and records[cohort]["note"] == cohort
    assert len([c for c in records if c.startswith("GSE_OLD")]) == 1500


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_a_record_holding_nan_is_a_named_error(tmp_path, value):
    """JSON readers accept NaN; the record check refuses it, naming file, cohort and key."""
    path = info_path(tmp_path)
    path.parent.mkdir(parents=True)
    content = ('{"GSE0": {"is_usable": true, "is_gene_available": true, "is_trait_available": '
               'true, "is_available": true, "is_biased": false, "has_age": true, '
               f'"has_gender": true, "sample_size": {value}, "note": ""}}}}')
    path.write_text(content)
    with pytest.raises(InputFileError) as info:
        validate_and_save_cohort_info(False, "GSE1", path, False, False)
    assert str(info.value).startswith(f"{path}: record of 'GSE0': 'sample_size' must be a "
                                      "non-negative integer or null")
    assert path.read_text() == content
