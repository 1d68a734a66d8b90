"""The input files of a GEO cohort folder (SPEC 4.1, Appendix A).

A cohort folder ``input/GEO/<Trait>/<GSE>/`` holds the family SOFT file, one
series matrix per platform (``<GSE>-<GPL>_series_matrix.txt.gz`` for a
multi-platform series) and, for some RNA-seq series, NCBI count tables. The
matrices are ordered by what their headers say (human platforms first, then
by platform number), never by directory order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Tuple

from tools.preprocess.geo.header import platform_sort_key, read_series_header
from utils.errors import InputFileError
from utils.io import PathLike

_PLATFORM_IN_NAME = re.compile(r"-(GPL\d+)_series_matrix", re.IGNORECASE)
_COUNT_TABLE_SUFFIXES = (".tsv", ".tsv.gz", ".txt", ".txt.gz", ".csv", ".csv.gz")


@dataclass(frozen=True)
class SeriesMatrixFile:
    """One series matrix of a cohort folder.

    Attributes
    ----------
    path : pathlib.Path
    platform_id : str or None
        From the file name (``<GSE>-<GPL>_series_matrix``) or the header.
    is_human : bool or None
        From the sample taxids/organisms; None when the header does not say.
    n_samples : int
    """

    path: Path
    platform_id: Optional[str]
    is_human: Optional[bool]
    n_samples: int


@dataclass(frozen=True)
class GeoCohortFiles:
    """The input files of one GEO cohort folder.

    Attributes
    ----------
    cohort_dir : pathlib.Path
    soft_path : pathlib.Path or None
        The family SOFT file, else a stand-alone platform SOFT.
    matrices : tuple of SeriesMatrixFile
        Every series matrix, human platforms first, then by platform number
        and file name (never by directory order).
    count_tables : tuple of pathlib.Path
        NCBI-generated RNA-seq count tables (``*_counts_*``), sorted.
    """

    cohort_dir: Path
    soft_path: Optional[Path]
    matrices: Tuple[SeriesMatrixFile, ...]
    count_tables: Tuple[Path, ...]

    @property
    def human_matrices(self) -> Tuple[SeriesMatrixFile, ...]:
        """Matrices of human platforms (or of platforms whose organism is unstated)."""
        return tuple(m for m in self.matrices if m.is_human is not False)

    @property
    def matrix_path(self) -> Optional[Path]:
        """The first human matrix (see :attr:`matrices` for the order)."""
        human = self.human_matrices
        return human[0].path if human else None


def is_matrix_name(name: str) -> bool:
    """True for a series matrix file name.

    Examples
    --------
    >>> is_matrix_name("GSE1-GPL96_series_matrix.txt.gz"), is_matrix_name("GSE1_family.soft")
    (True, False)
    """
    return "series_matrix" in name.lower()


def is_soft_name(name: str) -> bool:
    """True for a family or platform SOFT file name (gzip or plain).

    Examples
    --------
    >>> is_soft_name("GSE1_family.soft.gz"), is_soft_name("GPL96.soft"), is_soft_name("a.txt")
    (True, True, False)
    """
    lower = name.lower()
    return lower.endswith((".soft", ".soft.gz")) or "family.soft" in lower


def is_count_table_name(name: str) -> bool:
    """True for an NCBI-generated RNA-seq count table name.

    Examples
    --------
    >>> is_count_table_name("GSE1_raw_counts_GRCh38.p13_NCBI.tsv.gz")
    True
    """
    lower = name.lower()
    return "_counts" in lower and lower.endswith(_COUNT_TABLE_SUFFIXES)


def _describe_matrix(path: Path) -> SeriesMatrixFile:
    header = read_series_header(path)
    match = _PLATFORM_IN_NAME.search(path.name)
    if match:
        platform = match.group(1).upper()
    else:
        platforms = header.platform_ids
        platform = platforms[0] if platforms else None
    return SeriesMatrixFile(path=path, platform_id=platform, is_human=header.is_human,
                            n_samples=len(header.sample_ids))


def _matrix_order(matrix: SeriesMatrixFile) -> tuple:
    human_rank = {True: 0, None: 1, False: 2}[matrix.is_human]
    return (human_rank, platform_sort_key(matrix.platform_id or ""), matrix.path.name)


def find_geo_files(cohort_dir: PathLike) -> GeoCohortFiles:
    """List the series matrices, SOFT file and count tables of a cohort folder.

    Parameters
    ----------
    cohort_dir : path-like
        ``input/GEO/<Trait>/<GSE>/``.

    Returns
    -------
    GeoCohortFiles
        Matrices are described from their headers (platform id, organism).

    Raises
    ------
    InputFileError
        The folder does not exist, or a matrix header cannot be read.
    """
    folder = Path(cohort_dir)
    if not folder.is_dir():
        raise InputFileError(folder, "cohort folder not found")
    names = sorted(p.name for p in folder.iterdir() if p.is_file())
    family = [n for n in names if "family.soft" in n.lower()]
    soft_names = family or [n for n in names if is_soft_name(n)]
    matrices = sorted((_describe_matrix(folder / n) for n in names if is_matrix_name(n)),
                      key=_matrix_order)
    return GeoCohortFiles(
        cohort_dir=folder,
        soft_path=folder / soft_names[0] if soft_names else None,
        matrices=tuple(matrices),
        count_tables=tuple(folder / n for n in names if is_count_table_name(n)),
    )


def geo_get_relevant_filepaths(cohort_dir: PathLike) -> Tuple[str, str]:
    """The SOFT file and the series matrix of a cohort (Appendix A).

    For a multi-platform series the matrix of the first human platform is
    returned (platforms sorted by number; see :func:`find_geo_files` for all).

    Parameters
    ----------
    cohort_dir : path-like

    Returns
    -------
    (soft_path, matrix_path) : tuple of str

    Raises
    ------
    InputFileError
        Naming the folder, when it lacks a SOFT file, a series matrix, or a
        matrix of a human platform.
    """
    files = find_geo_files(cohort_dir)
    found = ", ".join(sorted(p.name for p in files.cohort_dir.iterdir())) or "nothing"
    missing = []
    if files.soft_path is None:
        missing.append("a SOFT file (*_family.soft[.gz] or GPL*.soft[.gz])")
    if not files.matrices:
        missing.append("a series matrix (*_series_matrix.txt[.gz])")
    if missing:
        raise InputFileError(files.cohort_dir, f"cohort folder lacks {' and '.join(missing)}"
                             f" (found: {found})")
    if files.matrix_path is None:
        platforms = ", ".join(m.platform_id or m.path.name for m in files.matrices)
        raise InputFileError(files.cohort_dir, "no series matrix of a human platform "
                             f"(platforms: {platforms})")
    return str(files.soft_path), str(files.matrix_path)
