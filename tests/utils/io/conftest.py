"""Fixtures of the utils.io tests."""

from __future__ import annotations

import zlib

import pytest

from utils.io import gzip_stream


@pytest.fixture(params=["isal", "zlib"])
def inflater(request, monkeypatch):
    """Run a gzip test with ISA-L's inflater and with zlib's (the fallback)."""
    if request.param == "zlib":
        monkeypatch.setattr(gzip_stream, "inflate_module", zlib)
        monkeypatch.setattr(gzip_stream, "INFLATE_ERRORS", (zlib.error,))
    else:
        pytest.importorskip("isal", reason="isal (requirements.txt) is not installed")
    return request.param
