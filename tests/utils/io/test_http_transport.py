"""The HTTP floor's reading of a failure (utils.io.http.transport), shared by both clients."""

from __future__ import annotations

import errno
import socket
import urllib.error

import pytest

from genotex.methods.llm.failures import RETRY, STATUS_TABLE, classify_status
from utils.io.http import RETRYABLE_STATUS, is_retryable_status, transport_fault
from utils.io.http.transport import CONNECTION, REFUSED, TIMEOUT, UNREACHABLE, UNRESOLVED_HOST


@pytest.mark.parametrize("status, retried", [
    (400, False), (401, False), (403, False), (404, False), (410, False), (422, False),
    (408, True), (409, True), (425, True), (429, True),
    (500, True), (501, True), (502, True), (503, True), (504, True), (599, True)])
def test_the_one_list_of_retryable_statuses(status, retried):
    assert is_retryable_status(status) is retried


def test_the_model_client_retries_exactly_the_shared_statuses_but_501():
    """A 501 from a chat endpoint means a wrong base URL: the only 5xx it does not retry."""
    for status in RETRYABLE_STATUS:
        assert STATUS_TABLE[status] == RETRY == classify_status(status)
    assert [s for s in range(400, 600) if is_retryable_status(s)
            and classify_status(s) != RETRY] == [501]


@pytest.mark.parametrize("exc, kind, connecting", [
    (urllib.error.URLError(socket.gaierror(socket.EAI_NONAME, "Name or service not known")),
     UNRESOLVED_HOST, True),
    (urllib.error.URLError(ConnectionRefusedError(errno.ECONNREFUSED, "refused")), REFUSED,
     True),
    (urllib.error.URLError(OSError(errno.EHOSTUNREACH, "No route to host")), UNREACHABLE, True),
    (urllib.error.URLError(socket.timeout("timed out")), TIMEOUT, True),
    (TimeoutError("read timed out"), TIMEOUT, False),
    (ConnectionResetError(errno.ECONNRESET, "reset"), CONNECTION, False),
    (urllib.error.URLError("no reason object"), CONNECTION, True),
])
def test_transport_fault_finds_the_root_cause(exc, kind, connecting):
    fault = transport_fault(exc)
    assert (fault.kind, fault.connecting) == (kind, connecting)
    assert not isinstance(fault.cause, urllib.error.URLError) or kind == CONNECTION
