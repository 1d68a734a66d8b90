"""TCGA cohorts from the UCSC Xena TCGA hub (SPEC 8.2).

The committed cohort table (:mod:`utils.tcga_cohorts`: each Xena cohort, its
folder under ``input/TCGA/`` and the cancer traits it serves) says what to
fetch. Each cohort yields three Xena datasets (:meth:`~utils.tcga_cohorts.XenaCohort.file_name`).
The clinical matrix is required; of the two gene matrices, those the hub has are
fetched (at least one must exist). Sizes come from ``HEAD`` and are verified.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, List, Mapping, Optional, Sequence

from download.fetch import HttpClient
from download.transfer import DownloadUnit, RemoteFile
from utils.arguments import base_url_setting
from utils.io import PathLike
from utils.io.http import DownloadError, RemoteNotFoundError
from utils.tcga_cohorts import XenaCohort

XENA_URL = "https://tcga-xena-hub.s3.us-east-1.amazonaws.com/download/"
ENV_XENA_URL = "GENOTEX_XENA_URL"
GENE_DATASETS = ("HiSeqV2", "HiSeqV2_PANCAN")


def xena_base_url(base_url: Optional[str] = None,
                  environ: Optional[Mapping[str, str]] = None) -> str:
    """Hub download root from a flag, ``$GENOTEX_XENA_URL`` or the default; ends with ``/``."""
    return base_url_setting(base_url, os.environ if environ is None else environ, ENV_XENA_URL,
                            XENA_URL)


def select_cohorts(cohorts: Sequence[XenaCohort], codes: Optional[Iterable[str]] = None,
                   traits: Optional[Iterable[str]] = None) -> List[XenaCohort]:
    """Cohorts named by ``codes``, else those serving any of ``traits``, else all mapped.

    Raises
    ------
    ValueError
        For an unknown cohort code.
    """
    by_code = {c.code: c for c in cohorts}
    if codes:
        unknown = [code for code in codes if code.upper() not in by_code]
        if unknown:
            raise ValueError(f"unknown Xena cohort code(s): {', '.join(unknown)}; "
                             f"known: {', '.join(sorted(by_code))}")
        return [by_code[code.upper()] for code in codes]
    wanted = set(traits) if traits is not None else None
    return [c for c in cohorts if c.traits and (wanted is None or wanted & set(c.traits))]


def plan_cohort(http: HttpClient, base_url: str, cohort: XenaCohort, tcga_root: PathLike,
                gene_datasets: Sequence[str] = GENE_DATASETS) -> DownloadUnit:
    """Ask the hub which files exist and build the cohort's download unit.

    Raises
    ------
    DownloadError
        When the clinical matrix or every gene matrix is missing on the hub.
    """
    folder = Path(tcga_root) / cohort.folder
    label = f"TCGA {cohort.code}"
    files = []
    for dataset in ("clinicalMatrix", *gene_datasets):
        url = cohort.url(base_url, dataset)
        try:
            info = http.head(url, item=f"{label}: {cohort.file_name(dataset)}")
        except RemoteNotFoundError:
            if dataset == "clinicalMatrix":
                raise
            continue
        files.append(RemoteFile(url, folder / cohort.file_name(dataset), size=info.size,
                                text=True))
    if len(files) < 2:
        raise DownloadError(label, cohort.url(base_url, gene_datasets[0]),
                            f"no gene matrix ({', '.join(gene_datasets)}) on the hub")
    return DownloadUnit(label, tuple(files))
