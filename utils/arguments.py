"""Value types of command-line flags that every command checks the same way.

``argparse`` converts the text of a flag with these functions; a value out of
range ends the command with ``<prog>: error: argument -j/--jobs: ...`` and exit
code 2, like any argparse error, before any work starts (standard library only,
so ``--help`` stays fast).
"""

from __future__ import annotations

import argparse
import math


def _number(text: str, kind: type) -> float:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
    if kind is float and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def positive_int(text: str) -> int:
    """An integer of at least 1 (a count of workers, attempts, genes...)."""
    value = _number(text, int)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def positive_float(text: str) -> float:
    """A finite number above 0 (a size in MB, a timeout in seconds)."""
    value = _number(text, float)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} must be above 0")
    return value


def non_negative_float(text: str) -> float:
    """A finite number of at least 0 (0 usually meaning "no limit")."""
    value = _number(text, float)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} must not be negative")
    return value


def fraction(text: str) -> float:
    """A number from 0 to 1 inclusive (a threshold on a Jaccard index, a share)."""
    value = _number(text, float)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text} must be between 0 and 1")
    return value


def http_url(text: str) -> str:
    """An ``http://`` or ``https://`` URL with a host (a server's base URL)."""
    from urllib.parse import urlsplit

    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise argparse.ArgumentTypeError(f"{text!r} is not an http:// or https:// URL "
                                         "with a host")
    return text
