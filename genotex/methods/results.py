"""Writing a problem's answer as a result document (SPEC 2 regression JSON)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Sequence

from utils.io import atomic_write_json
from utils.problems import Problem, result_path


def ranked_gene_document(genes: Sequence[str], method: str,
                         note: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """A result document listing ``genes`` in rank order.

    Methods without coefficients give the i-th of n genes the score
    ``(n - i) / n`` as ``Coefficient``, so "descending absolute coefficient"
    is the listed order; ``cv_performance`` is empty (no model was fitted).
    """
    n = len(genes)
    scores = [round((n - i) / n, 6) for i in range(n)]
    document: Dict[str, Any] = {
        "significant_genes": {"Variable": list(genes), "Coefficient": scores,
                              "Absolute Coefficient": list(scores)},
        "cv_performance": {"prediction": {}, "selection": {}},
        "method": {"name": method, **dict(note or {})},
    }
    return document


def write_result(regress_root: Path, problem: Problem, document: Mapping[str, Any]) -> Path:
    """Write ``document`` at the problem's result path (atomically); returns the path."""
    path = result_path(regress_root, problem)
    atomic_write_json(path, dict(document))
    return path
