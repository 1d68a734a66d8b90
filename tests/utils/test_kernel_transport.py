"""Kernels listen on Unix sockets in a private folder (utils.kernel_transport): the
demo's notebook runs and the sandbox's kernels."""

from __future__ import annotations

import os
import stat

import pytest

from utils import kernel_transport as transport_module
from utils.kernel_transport import IPC_PATH_MAX, kernel_transport, remove_transport

pytestmark = pytest.mark.skipif(os.name != "posix", reason="Unix sockets")


def test_a_private_folder_holds_the_sockets():
    settings, folder = kernel_transport()
    try:
        assert settings["transport"] == "ipc"
        assert os.path.dirname(settings["ip"]) == folder
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700   # this user's only
        assert len(settings["ip"]) + 2 <= IPC_PATH_MAX            # "-N" per channel
    finally:
        remove_transport(folder)
    assert not os.path.exists(folder)


def test_tcp_on_the_loopback_where_the_socket_path_would_be_too_long(tmp_path, monkeypatch):
    deep = tmp_path / ("d" * 120)
    deep.mkdir()
    monkeypatch.setattr(transport_module.os.path, "isdir", lambda path: False)
    monkeypatch.setattr(transport_module.tempfile, "gettempdir", lambda: str(deep))
    monkeypatch.setattr(transport_module.tempfile, "tempdir", str(deep))
    settings, folder = kernel_transport()
    assert settings == {"transport": "tcp", "ip": "127.0.0.1"} and folder is None
    assert list(deep.iterdir()) == []   # the folder it tried is removed


def test_a_demo_notebook_runs_on_unix_sockets_and_leaves_no_folder(tmp_path, monkeypatch):
    """Before: the kernel got TCP ports found free, closed and bound later by the kernel;
    another process (a second test worker's kernel) could take one in between."""
    from nbformat.v4 import new_code_cell, new_notebook

    from genotex.demo.notebooks import execute_notebook

    created = []
    real = transport_module.kernel_transport

    def recorded():
        settings, folder = real()
        created.append(folder)
        return settings, folder

    monkeypatch.setattr("genotex.demo.notebooks.kernel_transport", recorded)
    cell = new_code_cell("import json\nfrom ipykernel import get_connection_info\n"
                         "print(json.loads(get_connection_info())['transport'])")
    notebook = execute_notebook(new_notebook(cells=[cell]), cwd=tmp_path)
    assert notebook.cells[0].outputs[0]["text"].strip() == "ipc"
    assert len(created) == 1 and created[0] is not None
    assert not os.path.exists(created[0])
