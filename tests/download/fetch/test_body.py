"""Bodies under a deadline, a minimum speed and a size cap (download/fetch/body.py, resume.py).

Every test runs against the fault-injecting server on 127.0.0.1
(``genotex/testing/fake_download.py``). Deadlines are real seconds (kept at 1 s), the
back-off waits are not (the sleep function is injected).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from genotex.testing.fake_download import FakeHub

from download.fetch import HttpClient, fetch_resumable
from download.fetch.body import ascii_int
from download.transfer import FAILED, DownloadUnit, RemoteFile, download_unit
from utils.io.http import DownloadError, RetryPolicy

TABLE = b"sampleID\tage\n" + b"TCGA-01-0001-01\t50\n" * 2000  # 38,013 bytes


def client(**policy) -> HttpClient:
    settings = dict(max_attempts=2, backoff_base=0.001, backoff_max=0.01, timeout=2.0)
    settings.update(policy)
    return HttpClient(RetryPolicy(**settings), sleep=lambda s: None, rng=random.Random(0))


@pytest.fixture
def hub():
    with FakeHub() as server:
        server.add_file("/table", TABLE)
        yield server


def fetch_unit(hub: FakeHub, tmp_path: Path, http: HttpClient, size=len(TABLE)):
    dest = tmp_path / "tree" / "table"
    unit = DownloadUnit("u", (RemoteFile(hub.base_url + "/table", dest, size=size, text=True),))
    return download_unit(http, unit, tmp_path / "state", progress=False), dest


def test_a_trickling_server_hits_the_request_deadline(hub, tmp_path):
    """One byte every 0.5 s never ends a socket read on its own: the deadline ends it."""
    hub.fail("/table", "trickle", "trickle")
    outcome, dest = fetch_unit(hub, tmp_path, client(request_deadline=1.0))
    assert outcome.status == FAILED
    assert "the request deadline of 1 s passed during the body" in outcome.error
    assert "after 2 attempts" in outcome.error and not dest.exists()


def test_a_trickling_server_is_too_slow(hub, tmp_path):
    hub.fail("/table", "trickle", "trickle")
    outcome, dest = fetch_unit(hub, tmp_path, client(min_speed=1000.0, speed_window=1.0))
    assert outcome.status == FAILED and "too slow" in outcome.error
    assert "less than 1000 bytes/s" in outcome.error and not dest.exists()


def test_the_transfer_deadline_bounds_all_attempts(hub, tmp_path):
    hub.fail("/table", *["trickle"] * 5)
    http = client(max_attempts=5, request_deadline=0.6, transfer_deadline=1.0)
    with pytest.raises(DownloadError, match="the transfer deadline of 1 s passed"):
        fetch_resumable(http, hub.base_url + "/table", tmp_path / "state", "table",
                        progress=False)
    assert len(hub.requests_for("/table")) < 5  # stopped before the attempts ran out


def test_a_body_longer_than_expected_is_cut_at_the_expected_size(hub, tmp_path):
    """The server sends 32 MiB past the file without a length: refused after size + 1 bytes."""
    hub.fail("/table", "oversize", "oversize")
    outcome, dest = fetch_unit(hub, tmp_path, client())
    assert outcome.status == FAILED
    assert f"body longer than {len(TABLE)} bytes" in outcome.error
    assert not dest.exists() and list((tmp_path / "state").iterdir()) == []
    offered = 2 * (len(TABLE) + hub.oversize_extra)
    assert hub.sent["/table"] < offered  # the client hung up; it did not take it all


def test_without_any_size_the_configured_maximum_caps_the_body(hub, tmp_path):
    hub.fail("/table", "oversize", "oversize")
    outcome, dest = fetch_unit(hub, tmp_path, client(max_body_bytes=100_000), size=None)
    assert outcome.status == FAILED and "body longer than 100000 bytes" in outcome.error
    assert not dest.exists()


def test_an_announced_size_over_the_maximum_is_refused_before_writing(hub, tmp_path):
    with pytest.raises(DownloadError, match="more than the size limit of 1000 bytes"):
        fetch_resumable(client(max_body_bytes=1000), hub.base_url + "/table",
                        tmp_path / "state", "t", progress=False)
    assert len(hub.requests_for("/table")) == 1  # permanent: not retried


def test_a_small_response_is_capped_too(hub):
    with pytest.raises(DownloadError, match="more than the limit of 1000 bytes"):
        client(max_response_bytes=1000).get_bytes(hub.base_url + "/table")


def test_sizes_are_read_from_ascii_digits_only():
    assert ascii_int("38013") == 38013
    assert ascii_int("\u0663\u0668") is None and ascii_int("12a") is None
    assert ascii_int("") is None and ascii_int(None) is None
