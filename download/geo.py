"""Choose and lay out the GEO series of each trait (SPEC 8.1).

For each trait: search ``gds`` (see :mod:`download.eutils`), walk the hits in
GEO's order, keep a series when every series-matrix file is between
``min_matrix_mb`` and ``max_matrix_mb`` and its family SOFT is under
``max_soft_mb``, and stop at ``max_series`` series. Files come from GEO's HTTPS
download area (``<base>/series/GSEnnn/GSE1234/matrix/`` and ``.../soft/``);
multi-platform series have several ``<GSE>-<GPL>_series_matrix.txt.gz`` files and
all are kept. Sizes are in MiB (1 MB = 1,048,576 bytes) and come from ``HEAD``.

The chosen series per trait (the *plan*) is saved in the state folder, so a
re-run after an interruption downloads exactly the same series without
searching again (``--replan`` searches afresh).

One bad item never stops a trait's plan: an esummary entry whose accession is
not ``GSE`` followed by ASCII digits is skipped (logged), and a series whose
listing or ``HEAD`` requests fail is recorded in ``TraitPlan.failed`` with the
reason; the walk goes on to the next hit. A plan with failed series is planned
again by the next run.
"""

from __future__ import annotations

import html
import logging
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Mapping, Optional, Sequence

from download.eutils import RETMAX, EutilsClient, GdsQuery, trait_search_words
from download.fetch import HttpClient
from download.transfer import DownloadUnit, RemoteFile
from utils.arguments import base_url_setting
from utils.io import PathLike, atomic_write_json, read_json, read_text
from utils.io.http import (DownloadError, NameResolutionError, RemoteNotFoundError,
                           RunDeadlineExceeded)

logger = logging.getLogger(__name__)

GEO_URL = "https://ftp.ncbi.nlm.nih.gov/geo/"
ENV_GEO_URL = "GENOTEX_GEO_URL"
MIB = 1024 * 1024
PLAN_NAME = "geo_plan.json"
_ACCESSION = re.compile(r"GSE[0-9]+")  # ASCII digits only; always fullmatch
_ASCII_DIGITS = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class SizeRules:
    """File-size and count rules of SPEC 8.1 (sizes in MiB)."""

    min_matrix_mb: float = 0.1
    max_matrix_mb: float = 100.0
    max_soft_mb: float = 100.0
    max_series: int = 10


@dataclass(frozen=True)
class SeriesFile:
    """One file of a chosen series."""

    name: str
    url: str
    size: Optional[int]


@dataclass
class SeriesPlan:
    """A series chosen for a trait, with its files."""

    accession: str
    n_samples: Optional[int]
    files: List[SeriesFile]


@dataclass
class TraitPlan:
    """The series chosen for one trait, why others were passed over, which failed.

    Attributes
    ----------
    trait, query : str
    series : list of SeriesPlan
    rejected : dict
        ``{accession: reason}`` of series that do not meet the rules.
    failed : dict
        ``{accession: error}`` of series that could not be checked (the
        listing or a ``HEAD`` failed); the next run plans the trait again.
    """

    trait: str
    query: str
    series: List[SeriesPlan] = field(default_factory=list)
    rejected: Dict[str, str] = field(default_factory=dict)
    failed: Dict[str, str] = field(default_factory=dict)


def geo_base_url(base_url: Optional[str] = None,
                 environ: Optional[Mapping[str, str]] = None) -> str:
    """GEO download root from a flag, ``$GENOTEX_GEO_URL`` or the default; ends with ``/``."""
    return base_url_setting(base_url, os.environ if environ is None else environ, ENV_GEO_URL,
                            GEO_URL)


def is_series_accession(text: str) -> bool:
    """True for ``GSE`` followed by ASCII digits, nothing else (no newline, no other digits).

    Examples
    --------
    >>> is_series_accession("GSE100300"), is_series_accession("GSE100300\\n")
    (True, False)
    >>> is_series_accession("GSE\u0661\u0662\u0663")  # Arabic-Indic digits
    False
    """
    return _ACCESSION.fullmatch(text) is not None


def series_url(base_url: str, accession: str) -> str:
    """``<base>series/GSE1nnn/GSE1234/`` (the last three digits become ``nnn``)."""
    if not is_series_accession(accession):
        raise ValueError(f"not a GEO series accession: {accession!r}")
    digits = accession[3:]
    stub = f"GSE{digits[:-3]}nnn" if len(digits) > 3 else "GSEnnn"
    return f"{base_url}series/{stub}/{accession}/"


def matrix_file_names(listing: str, accession: str) -> List[str]:
    """Series-matrix file names of ``accession`` in a folder listing (sorted, unique)."""
    pattern = re.compile(rf'href="({re.escape(accession)}(?:-GPL[0-9]+)?_series_matrix\.txt\.gz)"')
    return sorted(set(pattern.findall(html.unescape(listing))))


def series_from_summaries(summaries: Sequence[Mapping[str, object]]) -> Iterator[tuple]:
    """``(accession, n_samples)`` of the series entries among ``gds`` summaries, in order."""
    seen = set()
    for doc in summaries:
        if str(doc.get("entrytype", "GSE")).upper() != "GSE":
            continue
        accession = str(doc.get("accession") or "")
        if not is_series_accession(accession) and \
                _ASCII_DIGITS.fullmatch(str(doc.get("gse", ""))):
            accession = f"GSE{doc['gse']}"
        if not is_series_accession(accession):
            logger.warning("esummary entry with an invalid series accession skipped: %r "
                           "(expected GSE and ASCII digits)", accession[:40])
            continue
        if accession in seen:
            continue
        seen.add(accession)
        samples = str(doc.get("n_samples"))
        yield accession, int(samples) if _ASCII_DIGITS.fullmatch(samples) else None


def plan_series(http: HttpClient, base_url: str, accession: str, n_samples: Optional[int],
                rules: SizeRules) -> tuple[Optional[SeriesPlan], str]:
    """Check one series against the size rules.

    Returns
    -------
    (SeriesPlan or None, str)
        The plan when the series qualifies, else ``None`` and the reason.
    """
    folder = series_url(base_url, accession)
    try:
        listing = http.get_bytes(folder + "matrix/", item=f"{accession} matrix listing")
    except RemoteNotFoundError:
        return None, "no matrix folder"
    names = matrix_file_names(listing.decode("utf-8", "replace"), accession)
    if not names:
        return None, "no series matrix file"
    files = []
    for name in names:
        info = http.head(folder + "matrix/" + name, item=f"{accession}: {name}")
        if info.size is None:
            return None, f"{name}: size unknown"
        if not rules.min_matrix_mb * MIB <= info.size <= rules.max_matrix_mb * MIB:
            return None, (f"{name}: {info.size / MIB:.2f} MB outside "
                          f"[{rules.min_matrix_mb}, {rules.max_matrix_mb}] MB")
        files.append(SeriesFile(name, info.url, info.size))
    soft_name = f"{accession}_family.soft.gz"
    try:
        soft = http.head(folder + "soft/" + soft_name, item=f"{accession}: {soft_name}")
    except RemoteNotFoundError:
        return None, "no family SOFT file"
    if soft.size is None or soft.size >= rules.max_soft_mb * MIB:
        size = "unknown" if soft.size is None else f"{soft.size / MIB:.2f} MB"
        return None, f"{soft_name}: {size}, limit {rules.max_soft_mb} MB"
    files.append(SeriesFile(soft_name, soft.url, soft.size))
    return SeriesPlan(accession, n_samples, files), "kept"


def plan_trait(trait: str, eutils: EutilsClient, http: HttpClient, base_url: str,
               query: GdsQuery = GdsQuery(), rules: SizeRules = SizeRules(),
               search_words: Optional[str] = None, retmax: int = RETMAX,
               summary_batch: int = 20) -> TraitPlan:
    """Search GEO for ``trait`` and keep up to ``rules.max_series`` qualifying series.

    Summaries are requested in small batches in GEO's order, so a trait with
    many hits costs only the requests needed to find ``max_series`` series.
    """
    term = query.term(search_words or trait_search_words(trait))
    plan = TraitPlan(trait, term)
    ids = eutils.esearch(term, retmax=retmax, item=f"{trait}: esearch")
    for start in range(0, len(ids), summary_batch):
        batch = eutils.esummary(ids[start:start + summary_batch],
                                item=f"{trait}: esummary")
        for accession, n_samples in series_from_summaries(batch):
            if any(s.accession == accession for s in plan.series):
                continue
            try:
                chosen, reason = plan_series(http, base_url, accession, n_samples, rules)
            except (NameResolutionError, RunDeadlineExceeded):
                raise  # nothing else would work either: the caller stops
            except DownloadError as exc:
                logger.error("%s: %s", trait, exc)
                plan.failed[accession] = str(exc)
                continue
            if chosen is None:
                plan.rejected[accession] = reason
                continue
            plan.series.append(chosen)
            if len(plan.series) >= rules.max_series:
                return plan
    return plan


def plan_units(plans: Sequence[TraitPlan], geo_root: PathLike) -> List[DownloadUnit]:
    """One download unit per (trait, series): ``<geo_root>/<Trait>/<GSE>/<file>``."""
    units = []
    for plan in plans:
        for series in plan.series:
            folder = Path(geo_root) / plan.trait / series.accession
            files = tuple(RemoteFile(f.url, folder / f.name, size=f.size)
                          for f in series.files)
            units.append(DownloadUnit(f"{series.accession} ({plan.trait})", files))
    return units


def save_plans(path: PathLike, plans: Mapping[str, TraitPlan]) -> None:
    """Write the plans (the search checkpoint) atomically as JSON."""
    atomic_write_json(path, {trait: asdict(plan) for trait, plan in plans.items()})


def load_plans(path: PathLike) -> Dict[str, TraitPlan]:
    """Read saved plans; an absent file gives ``{}``."""
    if not Path(path).is_file():
        return {}
    data = read_json(path)
    plans = {}
    for trait, entry in data.items():
        series = [SeriesPlan(s["accession"], s.get("n_samples"),
                             [SeriesFile(**f) for f in s["files"]])
                  for s in entry.get("series", [])]
        plans[trait] = TraitPlan(trait, entry.get("query", ""), series,
                                 dict(entry.get("rejected", {})),
                                 dict(entry.get("failed", {})))
    return plans


def read_search_terms(path: PathLike) -> Dict[str, str]:
    """``{trait: search words}`` from a two-column TSV (``#`` comments allowed)."""
    terms = {}
    for line in read_text(path).splitlines():
        if line.strip() and not line.startswith("#"):
            trait, _, words = line.partition("\t")
            if words.strip():
                terms[trait.strip()] = words.strip()
    return terms


def describe_plans(plans: Sequence[TraitPlan]) -> str:
    """A short table of the chosen series per trait."""
    lines = []
    for plan in plans:
        chosen = ", ".join(s.accession for s in plan.series) or "-"
        failed = f"; {len(plan.failed)} could not be checked" if plan.failed else ""
        lines.append(f"{plan.trait}: {len(plan.series)} series ({chosen}); "
                     f"{len(plan.rejected)} passed over{failed}")
    return "\n".join(lines)
