"""The write guard's decisions, called directly with audit events (no hook installed)."""

from __future__ import annotations

import os
import socket

import pytest

from genotex.methods.sandbox.guard import SandboxError, WriteGuard


@pytest.fixture
def guard(tmp_path):
    (tmp_path / "tree").mkdir()
    return WriteGuard([tmp_path / "tree"])


def test_writes_inside_allowed_outside_refused(guard, tmp_path):
    inside, outside = str(tmp_path / "tree" / "a.csv"), str(tmp_path / "elsewhere.csv")
    guard("open", (inside, "w", os.O_WRONLY))
    guard("open", (outside, "r", os.O_RDONLY))                   # reading is free
    for args in ((outside, "w", 0), (outside, "a", 0), (outside, "r+", 0),
                 (outside, None, os.O_WRONLY | os.O_CREAT)):
        with pytest.raises(SandboxError, match="outside the prediction tree"):
            guard("open", args)


def test_file_system_changes_outside_refused(guard, tmp_path):
    inside = str(tmp_path / "tree" / "x")
    outside = str(tmp_path / "x")
    guard("os.rename", (inside, inside + "2", -1, -1))
    for event, args in (("os.rename", (inside, outside, -1, -1)),
                        ("os.remove", (outside, -1)), ("os.rmdir", (outside, -1)),
                        ("os.mkdir", (outside, 0o777, -1)), ("shutil.rmtree", (outside, None)),
                        ("os.symlink", (inside, outside, -1)), ("os.truncate", (outside, 0)),
                        ("os.chmod", (outside, 0o777, -1))):
        with pytest.raises(SandboxError):
            guard(event, args)


def test_a_symlink_out_of_the_tree_is_followed(guard, tmp_path):
    (tmp_path / "tree" / "link").symlink_to(tmp_path)
    with pytest.raises(SandboxError):
        guard("open", (str(tmp_path / "tree" / "link" / "escape.txt"), "w", 0))


def test_relative_paths_resolve_against_dir_fd(guard, tmp_path):
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        with pytest.raises(SandboxError):
            guard("os.remove", ("victim", fd))
    finally:
        os.close(fd)


def test_processes_signals_and_network_refused(guard):
    for event, args in (("subprocess.Popen", ("ls", ["ls"], None, None)),
                        ("os.system", ("ls",)), ("os.fork", ()),
                        ("os.kill", (os.getppid(), 9))):
        with pytest.raises(SandboxError):
            guard(event, args)
    guard("os.kill", (os.getpid(), 0))
    with socket.socket(socket.AF_INET) as inet, pytest.raises(SandboxError,
                                                             match="network"):
        guard("socket.connect", (inet, ("93.184.216.34", 80)))
    with socket.socket(socket.AF_UNIX) as unix:
        guard("socket.connect", (unix, "/tmp/x.sock"))


def test_permissions_can_be_granted(tmp_path):
    guard = WriteGuard([tmp_path], allow_processes=True, allow_network=True)
    guard("subprocess.Popen", ("ls", ["ls"], None, None))
    with socket.socket(socket.AF_INET) as inet:
        guard("socket.connect", (inet, ("127.0.0.1", 80)))
