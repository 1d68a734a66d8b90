"""Command-line error and interrupt lines (utils.errors)."""

from __future__ import annotations

import sys

from utils.errors import INTERRUPTED_EXIT, command_error, exits_quietly_on_interrupt
from utils.paths import exits_when_root_is_missing


def _interrupted(argv=None) -> int:
    raise KeyboardInterrupt


def test_interrupt_is_one_line_and_exit_code_130(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["regress.py"])
    assert exits_quietly_on_interrupt(_interrupted)() == INTERRUPTED_EXIT == 130
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line]
    assert len(lines) == 1 and lines[0].startswith("regress.py: interrupted")
    assert "resume" in lines[0]


def test_every_command_main_stops_quietly_on_interrupt(capsys):
    """exits_when_root_is_missing (on every command's main) includes it."""
    assert exits_when_root_is_missing(_interrupted)([]) == 130
    assert "interrupted" in capsys.readouterr().err


def test_other_results_and_errors_pass_through():
    assert exits_quietly_on_interrupt(lambda: 3)() == 3
    try:
        exits_quietly_on_interrupt(lambda: 1 / 0)()
    except ZeroDivisionError:
        pass
    else:  # pragma: no cover
        raise AssertionError("a programming error must not be swallowed")


def test_command_error_names_the_command(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["/x/eval.py"])
    assert command_error("bad") == "eval.py: error: bad"
