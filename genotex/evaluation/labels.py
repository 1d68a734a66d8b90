"""Unique canonical labels of a predicted or reference table.

Table labels and gene symbols are compared in the project's canonical form
(:func:`utils.symbols.canonical_label`: stripped and upper-cased). Gene symbols
of the analysis task may further be mapped through a synonym map (``eval.py
-g``, :func:`utils.symbols.canonical_genes`); table labels never are, so that
a synonym merge cannot turn two predicted rows into a duplicate.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Sequence

from genotex.evaluation.statuses import MALFORMED, ItemError
from utils.symbols import canonical_labels


def canonical_unique(labels: Sequence[str], path: Path, what: str) -> List[str]:
    """Canonical labels; a blank label or a repeat (after canonicalization) is malformed."""
    canonical = canonical_labels(labels)
    distinct = set(canonical)
    if "" in distinct:
        raise ItemError(path, MALFORMED, f"empty {what} label at position "
                        f"{canonical.index('') + 1}")
    if len(distinct) == len(canonical):
        return canonical
    seen: Dict[str, int] = {}
    for position, label in enumerate(canonical):
        if label in seen:
            raise ItemError(path, MALFORMED, f"duplicate {what} {labels[position]!r} "
                            f"(positions {seen[label] + 1} and {position + 1})")
        seen[label] = position
    return canonical  # pragma: no cover - unreachable
