"""TCGA cohorts from a local fake Xena hub (download/tcga.py, download/download_tcga.py)."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

import pytest
from genotex.testing.fake_download import FakeHub

from download import download_tcga
from download.tcga import select_cohorts
from utils.tcga_cohorts import read_cohort_table

from tests.conftest import REPO_ROOT as _ROOT
REPO = _ROOT

CLINICAL = (b"sampleID\tage_at_initial_pathologic_diagnosis\tgender\n"
            b"TCGA-05-4244-01\t70\tMALE\nTCGA-05-4249-11\t67\tFEMALE\n")


def gene_matrix(size: int, seed: int) -> bytes:
    return gzip.compress(random.Random(seed).randbytes(size), mtime=0)


def serve_cohort(hub: FakeHub, code: str, hiseq: bool = True, pancan: bool = True,
                 size: int = 30_000) -> dict:
    base = f"/download/TCGA.{code}.sampleMap/"
    files = {f"TCGA.{code}.sampleMap_{code}_clinicalMatrix": CLINICAL}
    hub.add_file(base + f"{code}_clinicalMatrix", CLINICAL)
    if hiseq:
        files[f"TCGA.{code}.sampleMap_HiSeqV2.gz"] = gene_matrix(size, 1)
        hub.add_file(base + "HiSeqV2.gz", files[f"TCGA.{code}.sampleMap_HiSeqV2.gz"])
    if pancan:
        files[f"TCGA.{code}.sampleMap_HiSeqV2_PANCAN.gz"] = gene_matrix(size, 2)
        hub.add_file(base + "HiSeqV2_PANCAN.gz",
                     files[f"TCGA.{code}.sampleMap_HiSeqV2_PANCAN.gz"])
    return files


def args(hub: FakeHub, tmp_path: Path, *extra: str) -> list[str]:
    return ["--input-dir", str(tmp_path / "input"), "--state-dir", str(tmp_path / "state"),
            "--xena-url", hub.base_url + "/download/", "--backoff", "0.001",
            "--timeout", "1.0", "--seed", "3", "--no-progress", *extra]


def tree(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in folder.iterdir()} if folder.is_dir() else {}


def test_selection_by_code_and_by_trait():
    cohorts = read_cohort_table()
    assert [c.code for c in select_cohorts(cohorts, ["luad"])] == ["LUAD"]
    assert [c.code for c in select_cohorts(cohorts, traits=["Breast_Cancer", "Asthma"])] \
        == ["BRCA"]
    with pytest.raises(ValueError, match="unknown Xena cohort code"):
        select_cohorts(cohorts, ["NOPE"])


def test_cli_downloads_cohort_despite_faults(tmp_path, capsys):
    with FakeHub() as hub:
        expected = serve_cohort(hub, "LUAD")
        hub.stall = 1.5  # longer than the client's 1 s timeout
        # the first request of each path is the HEAD of the planning step
        hub.fail("/download/TCGA.LUAD.sampleMap/LUAD_clinicalMatrix", "429", "timeout")
        hub.fail("/download/TCGA.LUAD.sampleMap/HiSeqV2_PANCAN.gz", "500")
        code = download_tcga.main(args(hub, tmp_path, "--cohorts", "LUAD"))
        out = capsys.readouterr().out
    assert code == 0, out
    folder = tmp_path / "input" / "TCGA" / "TCGA_Lung_Adenocarcinoma_(LUAD)"
    assert tree(folder) == expected
    assert "1 downloaded" in out


def test_transfer_faults_resume_and_verify(tmp_path, capsys):
    with FakeHub() as hub:
        expected = serve_cohort(hub, "BRCA")
        base = "/download/TCGA.BRCA.sampleMap/"
        original_next = hub.next_fault

        def get_only(path):  # inject faults into GET transfers only (HEAD passes)
            if hub.log and hub.log[-1][0] == "HEAD":
                return None
            return original_next(path)

        hub.next_fault = get_only
        hub.fail(base + "HiSeqV2.gz", "truncate", "reset")
        hub.fail(base + "HiSeqV2_PANCAN.gz", "corrupt")
        code = download_tcga.main(args(hub, tmp_path, "--cohorts", "BRCA"))
        ranges = [r for m, _, r in hub.requests_for(base + "HiSeqV2.gz") if m == "GET"]
    assert code == 0, capsys.readouterr().out
    assert tree(tmp_path / "input" / "TCGA" / "TCGA_Breast_Cancer_(BRCA)") == expected
    assert ranges[0] is None and ranges[1].startswith("bytes=") and len(ranges) == 3
    assert list((tmp_path / "state").iterdir()) == []


def test_missing_hiseqv2_is_fine_but_no_gene_matrix_fails(tmp_path, capsys):
    with FakeHub() as hub:
        serve_cohort(hub, "KICH", hiseq=False)
        serve_cohort(hub, "ACC", hiseq=False, pancan=False)
        code = download_tcga.main(args(hub, tmp_path, "--cohorts", "KICH", "ACC"))
    out = capsys.readouterr().out
    assert code == 1
    assert sorted(tree(tmp_path / "input" / "TCGA" / "TCGA_Kidney_Chromophobe_(KICH)")) == [
        "TCGA.KICH.sampleMap_HiSeqV2_PANCAN.gz", "TCGA.KICH.sampleMap_KICH_clinicalMatrix"]
    assert "FAILED TCGA ACC: could not fetch" in out and "no gene matrix" in out
    assert not (tmp_path / "input" / "TCGA" / "TCGA_Adrenocortical_Cancer_(ACC)").exists()


def test_default_cohorts_follow_task_info(tmp_path, capsys):
    task_info = tmp_path / "task_info.json"
    task_info.write_text(json.dumps({"Thymoma": {"related_genes": [], "conditions": []},
                                     "Asthma": {"related_genes": [], "conditions": []}}))
    with FakeHub() as hub:
        serve_cohort(hub, "THYM")
        code = download_tcga.main(args(hub, tmp_path, "--task-info", str(task_info)))
    assert code == 0
    assert [p.name for p in (tmp_path / "input" / "TCGA").iterdir()] == ["TCGA_Thymoma_(THYM)"]


def _part_larger_than(state: Path, size: int) -> Optional[str]:
    """Name of a partial download in ``state`` larger than ``size`` bytes, if any. A part
    can be finished and renamed between listing and ``stat`` (the small clinical file
    is); before, that raised ``FileNotFoundError``."""
    for part in state.glob("*.part"):
        with contextlib.suppress(FileNotFoundError):
            if part.stat().st_size > size:
                return part.name
    return None


def test_killed_run_resumes_and_finishes(tmp_path):
    """SIGKILL the CLI mid-transfer; the next run resumes with a Range request."""
    with FakeHub() as hub:
        expected = serve_cohort(hub, "LUAD", size=600_000)
        hub.chunk_size = 8192
        hub.chunk_delay = 0.02  # ~1.5 s per gene matrix: time to kill mid-way
        command = [sys.executable, str(REPO / "download" / "download_tcga.py"),
                   *args(hub, tmp_path, "--cohorts", "LUAD")]
        process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 300  # a hang guard: the start takes seconds
            while (killed_part := _part_larger_than(tmp_path / "state", 100_000)) is None:
                if time.monotonic() > deadline or process.poll() is not None:
                    pytest.fail("the download ended or never started: no partial file "
                                "grew past 100 kB")
                time.sleep(0.02)
            os.kill(process.pid, signal.SIGKILL)
        finally:
            process.kill()  # no-op once killed; stops it if the wait above failed
            process.wait(timeout=30)
        assert process.returncode == -signal.SIGKILL
        folder = tmp_path / "input" / "TCGA" / "TCGA_Lung_Adenocarcinoma_(LUAD)"
        assert not folder.exists()  # nothing half-done in the tree
        hub.chunk_delay = 0.0
        before = len(hub.log)
        assert download_tcga.main(args(hub, tmp_path, "--cohorts", "LUAD")) == 0
        resumed = [r for m, p, r in hub.log[before:] if m == "GET" and r]
    assert tree(folder) == expected
    assert resumed and int(resumed[0][6:-1]) > 100_000, (killed_part, resumed)
    assert list((tmp_path / "state").iterdir()) == []


def test_an_html_page_for_the_clinical_matrix_is_a_failure(tmp_path, capsys):
    """Served with status 200 (and no Content-Type) by the hub: never installed, exit 1."""
    page = b"<!DOCTYPE html>\n<html><head><title>Error</title></head></html>\n"
    with FakeHub() as hub:
        serve_cohort(hub, "LUAD")
        hub.add_file("/download/TCGA.LUAD.sampleMap/LUAD_clinicalMatrix", page)
        code = download_tcga.main(args(hub, tmp_path, "--cohorts", "LUAD", "--retries", "2"))
    out = capsys.readouterr().out
    assert code == 1
    assert "0 downloaded" in out and "1 failed" in out
    assert "verification failed: an HTML or XML page" in out
    assert not (tmp_path / "input" / "TCGA").exists()


def test_deadline_flags_reach_the_policy(tmp_path):
    from download.cli import retry_policy_from_args
    parsed = download_tcga.build_parser().parse_args(
        ["--request-deadline", "5", "--transfer-deadline", "0", "--min-speed", "10",
         "--max-file-mb", "2"])
    policy = retry_policy_from_args(parsed)
    assert policy.request_deadline == 5.0 and policy.transfer_deadline is None
    assert policy.min_speed == 10.0 and policy.max_body_bytes == 2 * 1024 * 1024
