"""TCGA cohorts from the UCSC Xena TCGA hub (SPEC 8.2).

The committed table ``download/xena_cohorts.tsv`` maps each Xena cohort to its
folder under ``input/TCGA/`` and to the benchmark cancer traits it serves. Each
cohort yields three Xena datasets::

    TCGA.<CODE>.sampleMap/<CODE>_clinicalMatrix   -> TCGA.<CODE>.sampleMap_<CODE>_clinicalMatrix
    TCGA.<CODE>.sampleMap/HiSeqV2(.gz)            -> TCGA.<CODE>.sampleMap_HiSeqV2.gz
    TCGA.<CODE>.sampleMap/HiSeqV2_PANCAN(.gz)     -> TCGA.<CODE>.sampleMap_HiSeqV2_PANCAN.gz

The clinical matrix is required; of the two gene matrices, those the hub has are
fetched (at least one must exist). Sizes come from ``HEAD`` and are verified.
"""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence

from download.fetch import DownloadError, HttpClient, RemoteNotFoundError
from download.tables import TableSource, data_lines, packaged_table, read_table
from download.transfer import DownloadUnit, RemoteFile
from utils.errors import InputFileError
from utils.io import PathLike

XENA_URL = "https://tcga-xena-hub.s3.us-east-1.amazonaws.com/download/"
ENV_XENA_URL = "GENOTEX_XENA_URL"
COHORT_TABLE = packaged_table("xena_cohorts.tsv")
CANCER_TRAITS = packaged_table("cancer_traits.txt")
GENE_DATASETS = ("HiSeqV2", "HiSeqV2_PANCAN")
_COLUMNS = ("code", "xena_cohort", "folder", "traits")


@dataclass(frozen=True)
class XenaCohort:
    """One row of the cohort table."""

    code: str
    xena_cohort: str
    folder: str
    traits: tuple

    def dataset_id(self, dataset: str) -> str:
        """Xena dataset id, e.g. ``TCGA.LUAD.sampleMap/HiSeqV2``."""
        name = f"{self.code}_clinicalMatrix" if dataset == "clinicalMatrix" else dataset
        return f"TCGA.{self.code}.sampleMap/{name}"

    def file_name(self, dataset: str) -> str:
        """Local file name: the dataset id with ``/`` as ``_`` (gene matrices gzipped)."""
        suffix = "" if dataset == "clinicalMatrix" else ".gz"
        return self.dataset_id(dataset).replace("/", "_") + suffix

    def url(self, base_url: str, dataset: str) -> str:
        """Download URL on the hub (the dataset id URL-encoded, ``/`` as ``%2F``)."""
        suffix = "" if dataset == "clinicalMatrix" else ".gz"
        return base_url + urllib.parse.quote(self.dataset_id(dataset), safe="") + suffix


def xena_base_url(base_url: Optional[str] = None,
                  environ: Optional[Mapping[str, str]] = None) -> str:
    """Hub download root from a flag, ``$GENOTEX_XENA_URL`` or the default; ends with ``/``."""
    environ = os.environ if environ is None else environ
    url = base_url or environ.get(ENV_XENA_URL) or XENA_URL
    return url if url.endswith("/") else url + "/"


def read_cancer_traits(path: TableSource = CANCER_TRAITS) -> List[str]:
    """The committed list of benchmark traits that are cancers."""
    return [line.strip() for _, line in data_lines(path)]


def read_cohort_table(path: TableSource = COHORT_TABLE,
                      cancer_traits: Optional[Iterable[str]] = None) -> List[XenaCohort]:
    """Parse ``xena_cohorts.tsv``; every mapped trait must be a cancer trait.

    Raises
    ------
    InputFileError
        On a malformed row, a duplicate code, or a non-cancer trait (with the line).
    """
    cancers = set(read_cancer_traits() if cancer_traits is None else cancer_traits)
    cohorts: List[XenaCohort] = []
    seen = set()
    for number, (code, name, folder, traits) in read_table(path, _COLUMNS):
        if not all((name, folder, traits)):
            raise InputFileError(path, "empty cell (use '-' for no traits)", line=number)
        if code in seen:
            raise InputFileError(path, f"duplicate cohort code {code}", line=number)
        seen.add(code)
        mapped = tuple(t for t in traits.split(";") if t and t != "-")
        non_cancer = [t for t in mapped if t not in cancers]
        if non_cancer:
            raise InputFileError(path, f"{code}: TCGA cohorts serve cancer traits only, "
                                 f"not {', '.join(non_cancer)}", line=number)
        cohorts.append(XenaCohort(code, name, folder, mapped))
    return cohorts


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


def trait_cohort_map(cohorts: Sequence[XenaCohort]) -> Dict[str, str]:
    """``{trait: folder}``: the TCGA cohort folder of each cancer trait."""
    return {trait: c.folder for c in cohorts for trait in c.traits}


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
