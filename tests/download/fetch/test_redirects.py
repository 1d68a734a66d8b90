"""Redirects are followed only within the configured hosts (download/fetch/redirects.py)."""

from __future__ import annotations

import random
import urllib.request

import pytest
from genotex.testing.fake_download import FakeHub

from download.fetch import HttpClient
from download.fetch.redirects import HostRedirectHandler, RedirectRefused
from utils.io.http import RedirectRefusedError, RetryPolicy

DATA = b"ID\tx\np1\t1\n"


def client(allowed=()) -> HttpClient:
    policy = RetryPolicy(max_attempts=3, backoff_base=0.001, backoff_max=0.01, timeout=2.0)
    return HttpClient(policy, sleep=lambda s: None, rng=random.Random(0),
                      allowed_hosts=allowed)


@pytest.fixture
def hub():
    with FakeHub() as server:
        server.add_file("/data/file.txt", DATA)
        yield server


def test_a_redirect_within_the_host_is_followed(hub):
    hub.redirects["/old/file.txt"] = "/data/file.txt"
    assert client().get_bytes(hub.base_url + "/old/file.txt") == DATA


def test_a_redirect_to_another_host_is_refused_at_once(hub):
    hub.redirects["/old/file.txt"] = "http://localhost:9/data/file.txt"
    with pytest.raises(RedirectRefusedError, match="host 'localhost' is not one of the "
                                                   "configured hosts") as info:
        client().get_bytes(hub.base_url + "/old/file.txt")
    assert info.value.attempts == 1 and len(hub.requests_for("/old/file.txt")) == 1


def test_a_configured_host_may_be_redirected_to(hub):
    # 127.0.0.1 and localhost are two host names of one server: allow the second by URL
    hub.redirects["/old/file.txt"] = hub.base_url.replace("127.0.0.1", "localhost") \
        + "/data/file.txt"
    allowed = client(allowed=[hub.base_url.replace("127.0.0.1", "localhost") + "/"])
    assert allowed.get_bytes(hub.base_url + "/old/file.txt") == DATA


def test_https_is_never_downgraded():
    handler = HostRedirectHandler(["example.org"])
    request = urllib.request.Request("https://example.org/a")
    with pytest.raises(RedirectRefused, match="from https to another scheme"):
        handler.redirect_request(request, None, 302, "Found", {}, "http://example.org/a")
