"""Compatibility surface of the original ``utils.utils`` (SPEC Appendix A)."""

from __future__ import annotations

from typing import Iterable, List, Optional, Tuple

from utils.io import PathLike
from utils.problems import normalize_trait, question_pairs
from utils.symbols import normalize_symbols

__all__ = ["normalize_trait", "get_question_pairs", "normalize_gene_symbols"]


def get_question_pairs(task_info_path: PathLike) -> List[Tuple[str, Optional[str]]]:
    """All ``(trait, condition)`` problems of a task-info file, in problem order."""
    return question_pairs(task_info_path)


def normalize_gene_symbols(gene_symbols: Iterable[object]) -> List[Optional[str]]:
    """Official symbols for ``gene_symbols`` via the project's synonym map.

    Unmapped labels give ``None``.
    """
    return normalize_symbols(gene_symbols)
