"""Canonical labels: table labels and gene symbols are compared stripped and upper-cased.

Gene symbols of the analysis task may further be mapped through a synonym map
(``eval.py -g``); table labels never are, so that a synonym merge cannot turn two
predicted rows into a duplicate.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence

from genotex.evaluation.statuses import MALFORMED, ItemError

_NON_ASCII_SPACE = re.compile(r"[^\S\n]")


def canonical_label(label: str) -> str:
    """Strip and upper-case a table label or gene symbol."""
    return label.strip().upper()


def canonical_labels(labels: Iterable[str]) -> List[str]:
    """:func:`canonical_label` of many labels, with one C-level ``upper()`` call."""
    labels = list(labels)
    joined = "\n".join(labels)
    if len(labels) < 2 or joined.count("\n") != len(labels) - 1:
        return [canonical_label(label) for label in labels]
    texts = joined.upper().split("\n")
    has_space = (any(space in joined for space in " \t\r\x0b\x0c") if joined.isascii()
                 else _NON_ASCII_SPACE.search(joined) is not None)
    return [text.strip() for text in texts] if has_space else texts


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


def canonical_gene(symbol: str, synonyms: Optional[Mapping[str, str]] = None) -> str:
    """Strip + upper-case a gene symbol, then map it through ``synonyms`` if given."""
    return canonical_genes([symbol], synonyms)[0]


def canonical_genes(symbols: Iterable[str],
                    synonyms: Optional[Mapping[str, str]] = None) -> List[str]:
    """:func:`canonical_gene` over many symbols (the evaluator's hot path)."""
    texts = canonical_labels(symbols)
    if not synonyms:
        return texts
    result = []
    for text in texts:
        official = synonyms.get(text)
        result.append(official.strip().upper() if isinstance(official, str)
                      and official.strip() else text)
    return result
