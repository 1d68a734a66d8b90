"""The TCGA cohorts of the benchmark: the committed Xena cohort table (SPEC 4.5, 8.2).

``utils/data/xena_cohorts.tsv`` maps each UCSC Xena TCGA cohort to its folder
under ``input/TCGA/`` and to the benchmark cancer traits it serves;
``utils/data/cancer_traits.txt`` lists the traits that are cancers. Both ship
with the code (package data, read with :mod:`importlib.resources`). The
downloader (:mod:`download.tcga`), pair selection (:mod:`download.pairs`) and
the applications that find the TCGA cohorts of a run (:mod:`genotex.methods.inputs`)
read them here.

Each cohort names three Xena datasets::

    TCGA.<CODE>.sampleMap/<CODE>_clinicalMatrix   -> TCGA.<CODE>.sampleMap_<CODE>_clinicalMatrix
    TCGA.<CODE>.sampleMap/HiSeqV2(.gz)            -> TCGA.<CODE>.sampleMap_HiSeqV2.gz
    TCGA.<CODE>.sampleMap/HiSeqV2_PANCAN(.gz)     -> TCGA.<CODE>.sampleMap_HiSeqV2_PANCAN.gz
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Dict, Iterable, List, Optional, Sequence

from utils.errors import InputFileError
from utils.io import TableSource, data_lines, read_table


def packaged_data(name: str) -> Traversable:
    """A data file shipped in ``utils/data/``, e.g. ``"xena_cohorts.tsv"``.

    Examples
    --------
    >>> packaged_data("cancer_traits.txt").name
    'cancer_traits.txt'
    """
    return resources.files(__package__).joinpath("data", name)


COHORT_TABLE = packaged_data("xena_cohorts.tsv")
CANCER_TRAITS = packaged_data("cancer_traits.txt")
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


def read_cancer_traits(path: TableSource = CANCER_TRAITS) -> List[str]:
    """The committed list of benchmark traits that are cancers.

    Examples
    --------
    >>> "Breast_Cancer" in read_cancer_traits()
    True
    """
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


def trait_cohort_map(cohorts: Sequence[XenaCohort]) -> Dict[str, str]:
    """``{trait: folder}``: the TCGA cohort folder of each cancer trait."""
    return {trait: c.folder for c in cohorts for trait in c.traits}
