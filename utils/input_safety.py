"""What a reader checks before trusting an input file: kind, size and text format.

Every input file is untrusted (SPEC 6.4). Before a reader parses a file:

* **Only regular files are opened.** A FIFO, a device or a socket put in place of
  an input file would block the reader forever (or stream without end); it is
  refused with an error naming the file (:func:`require_regular_file`).
* **Sizes are capped** (:class:`ReadLimits`): a single line may hold at most
  :data:`MAX_LINE_BYTES` bytes and a file at most :data:`MAX_TOTAL_BYTES`
  bytes once decompressed, so a gzip bomb or a file without line breaks ends
  with an error naming the file and the offset or line, never with the machine
  out of memory.
* **The format is checked up front** (:func:`check_text_start`): text must be
  UTF-8 (latin-1 bytes are decoded one by one, SPEC 4.1); a UTF-8 byte-order mark
  is skipped; UTF-16 / UTF-32 text (with or without a byte-order mark), binary
  data (NUL bytes) and HTML or XML pages (an error page saved in place of a data
  file) are refused with a message saying what the file is.

Examples
--------
>>> check_text_start(b"\\xef\\xbb\\xbf!Series_title", "a.txt")  # UTF-8 BOM: 3 bytes to skip
3
>>> check_text_start(b"<!DOCTYPE html><html>", "a.txt")
Traceback (most recent call last):
...
utils.errors.InputFileError: a.txt:1: an HTML or XML page, not a data file ...
"""

from __future__ import annotations

import codecs
import os
import stat
from dataclasses import dataclass
from typing import Union

from utils.errors import InputFileError

PathLike = Union[str, os.PathLike]

#: Longest line a reader accepts, in bytes before decoding (64 MiB). The longest
#: lines of real inputs are series-matrix ``!Sample_*`` lines and platform
#: annotation rows of a few hundred kB.
MAX_LINE_BYTES = 64 << 20
#: Most bytes a reader takes from one file after decompression (4 GiB); the
#: largest real inputs (TCGA PANCAN matrices, family SOFT files) hold a few
#: hundred MB of text.
MAX_TOTAL_BYTES = 4 << 30
#: Bytes looked at to recognise the format of a text file.
SNIFF_BYTES = 4096

_HTML_STARTS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<?xml", b"<!--")
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


@dataclass(frozen=True)
class ReadLimits:
    """Size caps of one read (see the module docstring).

    Attributes
    ----------
    max_line_bytes : int
        Longest accepted line, in bytes before decoding.
    max_total_bytes : int
        Most bytes read from the file after decompression.
    """

    max_line_bytes: int = MAX_LINE_BYTES
    max_total_bytes: int = MAX_TOTAL_BYTES


#: The caps every reader applies unless given others.
DEFAULT_LIMITS = ReadLimits()


def file_kind(mode: int) -> str:
    """A readable name of a file type from ``st_mode``.

    Examples
    --------
    >>> file_kind(stat.S_IFIFO)
    'a FIFO (named pipe)'
    """
    if stat.S_ISDIR(mode):
        return "a folder"
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def require_regular_file(path: PathLike, mode: int) -> None:
    """Raise :class:`InputFileError` unless ``mode`` (``st_mode``) is a regular file."""
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise InputFileError(path, "is a folder, expected a file")
    raise InputFileError(path, f"is {file_kind(mode)}, not a regular file: refused "
                         "(reading it could block forever or never end)")


def _looks_like_utf16(head: bytes) -> bool:
    """True when the bytes of one parity are mostly NUL and the others hardly ever
    (UTF-16 of mostly ASCII text, either byte order)."""
    sample = head[:512]
    if len(sample) < 8:
        return False
    shares = sorted((sample[0::2].count(0) / len(sample[0::2]),
                     sample[1::2].count(0) / len(sample[1::2])))
    return shares[1] >= 0.7 and shares[0] <= 0.1


def check_text_start(head: bytes, path: PathLike) -> int:
    """Check the first bytes of a text file; the number of bytes to skip (a UTF-8 BOM).

    Parameters
    ----------
    head : bytes
        The first bytes of the (decompressed) file; :data:`SNIFF_BYTES` is plenty.
    path : path-like
        Named in errors.

    Returns
    -------
    int
        3 when the file starts with a UTF-8 byte-order mark (to be skipped), else 0.

    Raises
    ------
    InputFileError
        UTF-16 or UTF-32 text, binary data (a NUL byte), or an HTML / XML page.
    """
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise InputFileError(path, "UTF-32 text (byte-order mark): save it as UTF-8",
                             line=1)
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise InputFileError(path, "UTF-16 text (byte-order mark): save it as UTF-8",
                             line=1)
    skip = len(codecs.BOM_UTF8) if head.startswith(codecs.BOM_UTF8) else 0
    body = head[skip:]
    nul = body.find(b"\x00")
    if nul >= 0:
        if _looks_like_utf16(body):
            raise InputFileError(path, "UTF-16 text without byte-order mark (every other "
                                 "byte is NUL): save it as UTF-8", line=1)
        raise InputFileError(path, f"binary data, not text (NUL byte at offset {nul + skip})",
                             line=body.count(b"\n", 0, nul) + 1)
    if body.lstrip()[:16].lower().startswith(_HTML_STARTS):
        raise InputFileError(path, "an HTML or XML page, not a data file (an error page "
                             "saved in place of the file?)", line=1)
    return skip
