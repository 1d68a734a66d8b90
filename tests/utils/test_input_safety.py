"""Format sniffing and file-kind checks of untrusted inputs (utils/input_safety.py)."""

from __future__ import annotations

import codecs
import os
import re
import stat

import pytest

from utils.errors import InputFileError
from utils.input_safety import (DEFAULT_LIMITS, MAX_LINE_BYTES, MAX_TOTAL_BYTES, ReadLimits,
                                check_text_start, file_kind, require_regular_file)

TEXT = "!Series_title\t\"A study\"\nID_REF\tGSM1\n"


@pytest.mark.parametrize("head", [TEXT.encode(), b"", b"\n\n", "caf\xe9".encode("latin-1"),
                                  "é".encode("utf-8"), b"<not html\n"])
def test_text_starts_are_accepted(head):
    assert check_text_start(head, "f.txt") == 0


def test_a_utf8_byte_order_mark_is_skipped():
    assert check_text_start(codecs.BOM_UTF8 + TEXT.encode(), "f.txt") == 3


@pytest.mark.parametrize("head, problem, line", [
    (TEXT.encode("utf-16"), "UTF-16 text (byte-order mark)", 1),
    (TEXT.encode("utf-16-be"), "UTF-16 text without byte-order mark", 1),
    (TEXT.encode("utf-16-le"), "UTF-16 text without byte-order mark", 1),
    (TEXT.encode("utf-32"), "UTF-32 text", 1),
    (b"ID\tx\n1\t\x00\x01\x02", "binary data, not text (NUL byte at offset 7)", 2),
    (b"\x1f\x8b\x08\x00\x00\x00\x00", "binary data", 1),  # a second gzip layer
    (b"  \n<!DOCTYPE html>\n<html>", "an HTML or XML page", 1),
    (b"<HTML><BODY>404</BODY></HTML>", "an HTML or XML page", 1),
    (b"<?xml version='1.0'?><Error/>", "an HTML or XML page", 1),
    (codecs.BOM_UTF8 + b"<html>", "an HTML or XML page", 1),
])
def test_wrong_formats_are_named(head, problem, line):
    with pytest.raises(InputFileError, match=re.escape(problem)) as info:
        check_text_start(head, "f.txt")
    assert str(info.value).startswith(f"f.txt:{line}: ")


def test_only_regular_files_pass(tmp_path):
    regular = tmp_path / "a.txt"
    regular.write_text("x")
    require_regular_file(regular, os.stat(regular).st_mode)
    with pytest.raises(InputFileError, match="is a folder"):
        require_regular_file(tmp_path, os.stat(tmp_path).st_mode)
    with pytest.raises(InputFileError, match="is a FIFO \\(named pipe\\), not a regular file"):
        require_regular_file("p", stat.S_IFIFO | 0o644)
    assert file_kind(stat.S_IFCHR) == "a character device"
    assert file_kind(stat.S_IFSOCK) == "a socket"


def test_default_limits_are_the_documented_constants():
    assert DEFAULT_LIMITS == ReadLimits(MAX_LINE_BYTES, MAX_TOTAL_BYTES)
    assert MAX_LINE_BYTES == 64 * 1024 ** 2 and MAX_TOTAL_BYTES == 4 * 1024 ** 3
