"""The files an output tree may hold (SPEC section 2), for tests (not a test module)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import List

_NAME = r"[^/.][^/]*"  # a visible file or folder name (hidden files are never SPEC files)
OUTPUT_FILES = re.compile(
    rf"preprocess/{_NAME}/(?:(?:gene_data|clinical_data)/)?{_NAME}\.csv"
    rf"|preprocess/{_NAME}/cohort_info\.json"
    rf"|regress/{_NAME}/significant_genes_condition_{_NAME}\.json")


def unexpected_output_files(output_root: Path) -> List[str]:
    """Files below ``output_root`` that SPEC section 2 does not list (relative, sorted)."""
    files = (p.relative_to(output_root).as_posix() for p in output_root.rglob("*")
             if not p.is_dir())
    return sorted(name for name in files if not OUTPUT_FILES.fullmatch(name))
