"""Reliable transfers (download/fetch.py, download/transfer.py) against a local server."""

from __future__ import annotations

import gzip
import hashlib
import os
import random
from pathlib import Path

import pytest
from genotex.testing.fake_download import FakeHub

from download.fetch import HttpClient, default_state_dir, fetch_resumable
from download.transfer import (DOWNLOADED, FAILED, RESUMED, UP_TO_DATE, DownloadUnit, RemoteFile,
                               download_unit, download_units)
from utils.io import file_sha256
from utils.io.http import (DownloadError, RateLimiter, RemoteNotFoundError, RetryPolicy,
                           parse_retry_after)

PAYLOAD = os.urandom(50_000)
GZ_PAYLOAD = gzip.compress(b"ID_REF\tGSM1\n" + b"probe\t1.0\n" * 5000)


class SleepRecorder:
    """Records requested waits instead of sleeping."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def make_client(sleep=None, attempts: int = 4, timeout: float = 1.0) -> HttpClient:
    policy = RetryPolicy(max_attempts=attempts, backoff_base=0.001, backoff_max=0.01,
                         max_retry_after=5.0, timeout=timeout)
    return HttpClient(policy, sleep=sleep or SleepRecorder(), rng=random.Random(0))


@pytest.fixture
def hub():
    with FakeHub() as server:
        server.stall = 1.5
        server.add_file("/data/file.bin", PAYLOAD)
        server.add_file("/data/table.txt.gz", GZ_PAYLOAD)
        yield server


def assert_no_partials(*folders: Path) -> None:
    for folder in folders:
        if folder.exists():
            leftovers = [p for p in folder.rglob("*") if p.suffix in (".part", ".tmp")]
            assert leftovers == [], leftovers


def test_plain_download_installs_verified_file(hub, tmp_path):
    unit = DownloadUnit("demo", (RemoteFile(hub.base_url + "/data/file.bin",
                                            tmp_path / "tree" / "file.bin",
                                            size=len(PAYLOAD)),))
    outcome = download_unit(make_client(), unit, tmp_path / "state", progress=False)
    assert outcome.status == DOWNLOADED
    assert (tmp_path / "tree" / "file.bin").read_bytes() == PAYLOAD
    assert list((tmp_path / "state").iterdir()) == []  # nothing left behind


@pytest.mark.parametrize("fault", ["timeout", "429", "500", "truncate", "reset", "corrupt"])
def test_transient_faults_are_retried(hub, tmp_path, fault):
    hub.fail("/data/file.bin", fault)
    digest = hashlib.sha256(PAYLOAD).hexdigest()
    unit = DownloadUnit("demo", (RemoteFile(hub.base_url + "/data/file.bin",
                                            tmp_path / "tree" / "file.bin",
                                            size=len(PAYLOAD), sha256=digest),))
    sleeper = SleepRecorder()
    outcome = download_unit(make_client(sleeper), unit, tmp_path / "state", progress=False)
    assert outcome.status in (DOWNLOADED, RESUMED), outcome.error
    assert file_sha256(tmp_path / "tree" / "file.bin") == digest
    assert len(sleeper.calls) == 1  # exactly one back-off before the successful attempt
    assert_no_partials(tmp_path / "tree", tmp_path / "state")


def test_truncated_body_resumes_with_range(hub, tmp_path):
    hub.fail("/data/file.bin", "truncate")
    client = make_client()
    result = fetch_resumable(client, hub.base_url + "/data/file.bin", tmp_path, "file.bin",
                             expected_size=len(PAYLOAD), progress=False)
    ranges = [r for _, _, r in hub.requests_for("/data/file.bin")]
    # first request whole, second resumes at half the file (the fault sent 25,000 bytes)
    assert ranges == [None, f"bytes={len(PAYLOAD) // 2}-"]
    assert result.resumed and result.path.read_bytes() == PAYLOAD


def test_server_ignoring_range_restarts_cleanly(hub, tmp_path):
    hub.fail("/data/file.bin", "truncate", "norange")
    result = fetch_resumable(make_client(), hub.base_url + "/data/file.bin", tmp_path,
                             "file.bin", progress=False)
    assert result.path.read_bytes() == PAYLOAD


def test_retry_after_is_honoured(hub, tmp_path):
    hub.retry_after = "3"
    hub.fail("/data/file.bin", "429")
    sleeper = SleepRecorder()
    fetch_resumable(make_client(sleeper), hub.base_url + "/data/file.bin", tmp_path, "f",
                    progress=False)
    assert sleeper.calls == [3.0]  # the server's delay wins over the tiny back-off


def test_retry_after_parsing():
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    from datetime import datetime, timezone
    now = datetime(2024, 1, 1, 0, 0, 0, tzinfo=timezone.utc)
    assert parse_retry_after("Mon, 01 Jan 2024 00:00:10 GMT", now=now) == 10.0


def test_backoff_is_exponential_with_bounded_jitter():
    policy = RetryPolicy(backoff_base=1.0, backoff_max=8.0)
    rng = random.Random(1)
    for attempt, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (6, 8.0)]:
        delay = policy.backoff(attempt, rng)
        assert ceiling / 2 <= delay <= ceiling


def test_persistent_failure_names_the_item(hub, tmp_path):
    hub.fail("/data/file.bin", *["500"] * 10)
    unit = DownloadUnit("GSE999 (Asthma)", (RemoteFile(hub.base_url + "/data/file.bin",
                                                       tmp_path / "tree" / "x.bin"),))
    report = download_units(make_client(attempts=3), [unit], tmp_path / "state",
                            progress=False)
    assert report.exit_code == 1
    error = report.failures[0].error
    assert error.startswith("GSE999 (Asthma): x.bin: could not fetch")
    assert "after 3 attempts" in error and "HTTP 500" in error
    assert not (tmp_path / "tree").exists()
    assert "FAILED GSE999 (Asthma)" in report.summary("GEO")


def test_404_is_permanent_and_not_retried(hub, tmp_path):
    sleeper = SleepRecorder()
    with pytest.raises(RemoteNotFoundError, match="HTTP 404"):
        fetch_resumable(make_client(sleeper), hub.base_url + "/data/missing.bin", tmp_path,
                        "m", progress=False)
    assert sleeper.calls == []


def test_wrong_checksum_every_time_fails_without_installing(hub, tmp_path):
    unit = DownloadUnit("demo", (RemoteFile(hub.base_url + "/data/file.bin",
                                            tmp_path / "tree" / "file.bin",
                                            sha256="0" * 64),))
    outcome = download_unit(make_client(attempts=2), unit, tmp_path / "state",
                            progress=False)
    assert outcome.status == FAILED and "checksum mismatch" in outcome.error
    assert not (tmp_path / "tree").exists()
    assert_no_partials(tmp_path / "state")


def test_corrupt_gzip_is_detected_by_decompression(tmp_path):
    with FakeHub() as server:
        server.add_file("/x.gz", GZ_PAYLOAD[:-20])  # truncated at the source, no length hint
        unit = DownloadUnit("demo", (RemoteFile(server.base_url + "/x.gz",
                                                tmp_path / "tree" / "x.gz"),))
        outcome = download_unit(make_client(attempts=2), unit, tmp_path / "state",
                                progress=False)
    assert outcome.status == FAILED and "verification failed: truncated gzip file" in outcome.error


def test_an_html_page_served_as_gzip_is_refused(tmp_path):
    with FakeHub() as server:
        server.add_file("/x.gz", b"<html><body>Service unavailable</body></html>\n")
        unit = DownloadUnit("demo", (RemoteFile(server.base_url + "/x.gz",
                                                tmp_path / "tree" / "x.gz"),))
        outcome = download_unit(make_client(attempts=2), unit, tmp_path / "state",
                                progress=False)
    assert outcome.status == FAILED and "not a gzip file" in outcome.error
    assert not (tmp_path / "tree").exists()


def test_unit_is_all_or_nothing_and_rerun_completes(hub, tmp_path):
    files = (RemoteFile(hub.base_url + "/data/file.bin", tmp_path / "tree" / "a.bin"),
             RemoteFile(hub.base_url + "/data/table.txt.gz", tmp_path / "tree" / "b.txt.gz"))
    unit = DownloadUnit("pair", files)
    hub.fail("/data/table.txt.gz", *["500"] * 2)
    first = download_unit(make_client(attempts=2), unit, tmp_path / "state", progress=False)
    assert first.status == FAILED and not (tmp_path / "tree").exists()
    second = download_unit(make_client(), unit, tmp_path / "state", progress=False)
    assert second.status == RESUMED  # a.bin was already finished in the state folder
    assert (tmp_path / "tree" / "a.bin").read_bytes() == PAYLOAD
    third = download_unit(make_client(), unit, tmp_path / "state", progress=False)
    assert third.status == UP_TO_DATE


def test_optional_missing_file_is_noted(hub, tmp_path):
    files = (RemoteFile(hub.base_url + "/data/file.bin", tmp_path / "t" / "a.bin"),
             RemoteFile(hub.base_url + "/data/none.gz", tmp_path / "t" / "n.gz",
                        required=False))
    report = download_units(make_client(), [DownloadUnit("u", files)], tmp_path / "s",
                            progress=False)
    assert report.exit_code == 0
    assert "optional file not on the server: n.gz" in report.summary("X")


def test_rate_limiter_spaces_requests():
    now = [0.0]
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        now[0] += seconds

    limiter = RateLimiter(3.0, clock=lambda: now[0], sleep=sleep)
    for _ in range(4):
        limiter.wait()
    assert waits == pytest.approx([1 / 3, 1 / 3, 1 / 3])


def test_default_state_dir_is_outside_the_tree(tmp_path):
    state = default_state_dir(tmp_path / "input", environ={})
    assert state == (tmp_path / ".input_download_state").resolve()
    assert default_state_dir(tmp_path / "input",
                             environ={"GENOTEX_DOWNLOAD_STATE": str(tmp_path / "s")}) \
        == (tmp_path / "s").resolve()


def test_download_error_message():
    error = DownloadError("GSE1 (Asthma)", "http://x/y", "HTTP 500", attempts=4)
    assert str(error) == "GSE1 (Asthma): could not fetch http://x/y after 4 attempts: HTTP 500"
