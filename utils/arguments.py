"""Value types of command-line flags that every command checks the same way.

``argparse`` converts the text of a flag with these functions; a value out of
range ends the command with ``<prog>: error: argument -j/--jobs: ...`` and exit
code 2, like any argparse error, before any work starts (standard library only,
so ``--help`` stays fast).
"""

from __future__ import annotations

import argparse
import math
from typing import Any, Callable, Mapping, Optional


def _number(text: str, kind: type, accept: Callable[[float], bool], rule: str) -> Any:
    """``text`` read as ``kind`` (int or a finite float), refused unless ``accept``."""
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
    if kind is float and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    if not accept(value):
        raise argparse.ArgumentTypeError(f"{text} {rule}")
    return value


def positive_int(text: str) -> int:
    """An integer of at least 1 (a count of workers, attempts, genes...)."""
    return _number(text, int, lambda v: v >= 1, "must be at least 1")


def positive_float(text: str) -> float:
    """A finite number above 0 (a size in MB, a timeout in seconds)."""
    return _number(text, float, lambda v: v > 0, "must be above 0")


def non_negative_float(text: str) -> float:
    """A finite number of at least 0 (0 usually meaning "no limit")."""
    return _number(text, float, lambda v: v >= 0, "must not be negative")


def fraction(text: str) -> float:
    """A number from 0 to 1 inclusive (a threshold on a Jaccard index, a score)."""
    return _number(text, float, lambda v: 0 <= v <= 1, "must be between 0 and 1")


def http_url(text: str) -> str:
    """An ``http://`` or ``https://`` URL with a host (a server's base URL)."""
    problem = http_url_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text


def http_url_problem(text: str) -> str:
    """What is wrong with ``text`` as a server's base URL ("" when nothing is)."""
    from urllib.parse import urlsplit

    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return f"{text!r} is not an http:// or https:// URL with a host"
    return ""


def base_url_setting(flag_value: Optional[str], environ: Mapping[str, str], variable: str,
                     default: str) -> str:
    """A server's base URL from its flag, else its environment variable, else the default.

    The result ends with ``/``. A flag's value was checked by :func:`http_url`
    when it was parsed; the variable's value is checked here.

    Raises
    ------
    ValueError
        When the variable holds no http(s) URL with a host (the message names it).
    """
    url = flag_value or environ.get(variable) or default
    if not flag_value and environ.get(variable):
        problem = http_url_problem(url)
        if problem:
            raise ValueError(f"${variable}: {problem}")
    return url if url.endswith("/") else url + "/"
