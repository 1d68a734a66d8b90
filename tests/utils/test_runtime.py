"""utils.runtime: UTF-8 mode for commands whatever the locale's encoding.

The end-to-end check (a command under an ASCII or Latin locale writes the same bytes)
is ``tests/project/test_process_environment.py``; here the decision and the wrapper.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import tomllib

import pytest

from tests.conftest import REPO_ROOT
from utils import runtime

ENTRY_POINTS = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8")
                             )["project"]["scripts"]


def test_no_restart_once_utf8_mode_was_asked_for(monkeypatch):
    monkeypatch.setattr(runtime.sys, "getfilesystemencoding", lambda: "ascii")
    assert runtime.needs_utf8_restart({"PYTHONUTF8": "1"}) is False
    assert runtime.needs_utf8_restart({}) is (runtime.os.name == "posix")


@pytest.mark.parametrize("encoding, expected", [("utf-8", False), ("UTF8", False),
                                                ("iso8859-9", True), ("ascii", True)])
def test_restart_only_when_file_names_are_not_utf8(monkeypatch, encoding, expected):
    if runtime.os.name != "posix":
        pytest.skip("file names are UTF-8 on Windows")
    monkeypatch.setattr(runtime.sys, "getfilesystemencoding", lambda: encoding)
    assert runtime.needs_utf8_restart({}) is expected


def test_the_wrapper_restarts_only_a_command_line_call(monkeypatch):
    restarts = []
    monkeypatch.setattr(runtime, "needs_utf8_restart", lambda: True)
    monkeypatch.setattr(runtime, "restart_in_utf8_mode", restarts.append)

    @runtime.in_utf8_mode
    def main(argv=None):
        return 7

    assert main(["--help"]) == 7 and restarts == []  # a function call: never replaced
    assert main() == 7 and restarts == [sys.orig_argv]


def test_the_restart_keeps_the_command_line_and_sets_the_variable(tmp_path):
    """A process whose file names are ASCII restarts itself once, with PYTHONUTF8=1
    and the same arguments (``-m`` form included), and then writes a UTF-8 name."""
    code = ("import os, sys\n"
            "from utils.runtime import in_utf8_mode\n"
            "@in_utf8_mode\n"
            "def main(argv=None):\n"
            "    open(os.path.join(sys.argv[1], 'Sj\\u00f6grens'), 'w').close()\n"
            "    print(sys.getfilesystemencoding(), os.environ.get('PYTHONUTF8'), sys.argv[1:])\n"
            "    return 0\n"
            "sys.exit(main())\n")
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "PYTHONUTF8": "0",
           "PYTHONCOERCECLOCALE": "0", "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path), "x y"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().split(None, 2) == ["utf-8", "1", f"[{str(tmp_path)!r}, 'x y']"]
    # this process names files in UTF-8: the child wrote the same bytes
    assert [p.name for p in tmp_path.iterdir()] == ["Sj\u00f6grens"]


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_every_command_runs_in_utf8_mode(name):
    module, function = ENTRY_POINTS[name].split(":")
    main = getattr(importlib.import_module(module), function)
    assert getattr(main, "restarts_in_utf8_mode", False), f"{name}: main lacks @in_utf8_mode"
