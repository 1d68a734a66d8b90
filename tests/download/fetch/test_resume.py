"""What a transfer refuses before installing a file (download/fetch/resume.py, files.py,
transfer.py): HTML pages, wrong announced sizes, text cut short; and the run deadline."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest
from genotex.testing.fake_download import FakeHub

from download.fetch import HttpClient, verify_text
from download.transfer import DOWNLOADED, FAILED, DownloadUnit, RemoteFile, download_unit, \
    download_units
from utils.io.http import Deadline, RetryPolicy, RunDeadlineExceeded

CLINICAL = b"sampleID\tgender\n" + b"TCGA-01-0001-01\tMALE\nTCGA-01-0001-11\tFEMALE\n" * 50
# 2,216 bytes: its first half (1,108 bytes) ends in the middle of a row
MATRIX = gzip.compress(b"sample\tTCGA-01-0001-01\nTP53\t1.5\n" * 200, mtime=0)


def client(**extra) -> HttpClient:
    policy = RetryPolicy(max_attempts=3, backoff_base=0.001, backoff_max=0.01, timeout=2.0)
    return HttpClient(policy, sleep=lambda s: None, rng=random.Random(0), **extra)


@pytest.fixture
def hub():
    with FakeHub() as server:
        server.add_file("/c/clinicalMatrix", CLINICAL)
        server.add_file("/c/HiSeqV2.gz", MATRIX)
        yield server


def unit_of(hub: FakeHub, tmp_path: Path, name: str, size=None, text=True) -> DownloadUnit:
    return DownloadUnit("TCGA X", (RemoteFile(f"{hub.base_url}/c/{name}",
                                              tmp_path / "tree" / name, size=size, text=text),))


@pytest.mark.parametrize("name", ["clinicalMatrix", "HiSeqV2.gz"])
def test_an_html_page_served_with_200_is_never_installed(hub, tmp_path, name):
    hub.fail(f"/c/{name}", *["html"] * 3)
    outcome = download_unit(client(), unit_of(hub, tmp_path, name), tmp_path / "state",
                            progress=False)
    assert outcome.status == FAILED
    assert "HTML page (Content-Type text/html) instead of the file" in outcome.error
    assert not (tmp_path / "tree").exists()


def test_an_html_page_without_content_type_fails_the_text_check(tmp_path):
    page = b"<!DOCTYPE html>\n<html><body>502 Bad Gateway</body></html>\n"
    with FakeHub() as server:
        server.add_file("/c/clinicalMatrix", page)  # served as a file: no Content-Type
        outcome = download_unit(client(), unit_of(server, tmp_path, "clinicalMatrix"),
                                tmp_path / "state", progress=False)
    assert outcome.status == FAILED and "an HTML or XML page" in outcome.error
    assert not (tmp_path / "tree").exists()


def test_a_short_announced_size_is_refused_against_the_expected_size(hub, tmp_path):
    """HEAD while planning said N bytes; the transfer announces N / 2: refused at once."""
    hub.fail("/c/clinicalMatrix", *["short"] * 3)
    outcome = download_unit(client(), unit_of(hub, tmp_path, "clinicalMatrix",
                                              size=len(CLINICAL)), tmp_path / "state",
                            progress=False)
    assert outcome.status == FAILED
    assert f"announces {len(CLINICAL) // 2} bytes, expected {len(CLINICAL)}" in outcome.error
    assert not (tmp_path / "tree").exists()


def test_a_consistently_short_file_is_caught_by_the_content_checks(hub, tmp_path):
    """HEAD and GET agree on the short length: gzip and text verification catch the cut."""
    hub.fail("/c/clinicalMatrix", *["short"] * 3)
    hub.fail("/c/HiSeqV2.gz", *["short"] * 3)
    for name, problem in (("clinicalMatrix", "does not end with a line ending"),
                          ("HiSeqV2.gz", "verification failed: truncated gzip file")):
        outcome = download_unit(client(), unit_of(hub, tmp_path, name), tmp_path / "state",
                                progress=False)
        assert outcome.status == FAILED and problem in outcome.error, outcome.error
    assert not (tmp_path / "tree").exists()


def test_a_plain_binary_file_is_not_checked_as_text(tmp_path):
    blob = bytes(range(256)) * 10
    with FakeHub() as server:
        server.add_file("/c/blob.bin", blob)
        outcome = download_unit(client(), unit_of(server, tmp_path, "blob.bin", text=False),
                                tmp_path / "state", progress=False)
    assert outcome.status == DOWNLOADED
    assert (tmp_path / "tree" / "blob.bin").read_bytes() == blob


@pytest.mark.parametrize("content, problem", [
    (b"\xff\xfes\x00a\x00\n\x00", "UTF-16 text"),
    (b"sampleID\tx\nTCGA-01\t1", "does not end with a line ending"),
    (b"\x00\x01\x02binary\n", "binary data"),
])
def test_verify_text(tmp_path, content, problem):
    path = tmp_path / "f"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=problem):
        verify_text(path)


def test_the_run_deadline_stops_the_run_and_says_what_was_left(hub, tmp_path):
    now = [0.0]
    expired = Deadline.after(10.0, "run", clock=lambda: now[0])
    now[0] = 11.0
    units = [unit_of(hub, tmp_path, "clinicalMatrix"), unit_of(hub, tmp_path, "HiSeqV2.gz")]
    report = download_units(client(run_deadline=expired), units, tmp_path / "state",
                            progress=False)
    assert report.exit_code == 1 and len(report.outcomes) == 1
    assert "the run deadline of 10 s passed" in report.failures[0].error
    assert "1 unit(s) not started" in report.summary("TCGA")
    assert hub.requests_for("/c/clinicalMatrix") == []  # no request after the deadline
    with pytest.raises(RunDeadlineExceeded):
        client(run_deadline=expired).head(hub.base_url + "/c/clinicalMatrix")
