"""The tables shipped inside the ``download`` package (``trait_diseases.tsv``).

They are package data, found with :mod:`importlib.resources`, so they are there
in an installed copy too; a user's own table is read from a path. Both are read
by :func:`utils.io.read_table` (comments start with ``#``).
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable


def packaged_table(name: str) -> Traversable:
    """A table shipped in the ``download`` package, e.g. ``"trait_diseases.tsv"``.

    Examples
    --------
    >>> packaged_table("trait_diseases.tsv").name
    'trait_diseases.tsv'
    """
    return resources.files(__package__).joinpath(name)
