"""NCBI Entrez E-utilities: the GEO DataSets (``gds``) search of SPEC 8.1.

* ``esearch`` finds the series of a trait with the benchmark's query; ids come
  back in GEO's order, which is kept.
* ``esummary`` gives each hit's accession, entry type and sample count.
* NCBI allows 3 requests per second, 10 with an API key. The key and the contact
  e-mail come from the environment only (``NCBI_API_KEY``, ``NCBI_EMAIL``), never
  from a committed file.
"""

from __future__ import annotations

import json
import logging
import os
import random
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence

from download.fetch import HttpClient
from utils.arguments import base_url_setting
from utils.io.http import DownloadError, RateLimiter, RetryPolicy

logger = logging.getLogger(__name__)

EUTILS_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/"
ENV_EUTILS_URL = "GENOTEX_EUTILS_URL"
ENV_API_KEY = "NCBI_API_KEY"
ENV_EMAIL = "NCBI_EMAIL"
TOOL_NAME = "genotex"
RATE_WITHOUT_KEY = 3.0
RATE_WITH_KEY = 10.0

DATASET_TYPES = (
    "expression profiling by array",
    "expression profiling by high throughput sequencing",
    "genome variation profiling by high throughput sequencing",
    "genome variation profiling by snp array",
    "snp genotyping by snp array",
    "third party reanalysis",
)


#: Search hits considered per trait, in GEO's order.
RETMAX = 500


@dataclass(frozen=True)
class GdsQuery:
    """The filters of the benchmark's GEO search (SPEC 8.1 defaults)."""

    min_samples: int = 30
    max_samples: int = 10000
    first_year: int = 2010
    last_year: int = 2025
    organism: str = "Homo sapiens"
    dataset_types: tuple = DATASET_TYPES

    def term(self, words: str) -> str:
        """The full Entrez query for the search ``words`` of one trait."""
        types = " OR ".join(f'"{kind}"[DataSet Type]' for kind in self.dataset_types)
        return (f"({self.min_samples}:{self.max_samples}[Number of Samples]) AND "
                f'("{self.organism}"[Organism]) AND '
                f"({self.first_year}:{self.last_year}[Publication Date]) AND "
                f"({words}) AND ({types})")


def trait_search_words(trait: str) -> str:
    """Search words of a normalized trait name: underscores become spaces.

    >>> trait_search_words("Type_2_Diabetes")
    'Type 2 Diabetes'
    """
    return " ".join(trait.replace("_", " ").split())


@dataclass(frozen=True)
class EutilsSettings:
    """Where E-utilities lives and who is asking.

    Attributes
    ----------
    base_url : str
        Ends with ``/``; ``esearch.fcgi`` and ``esummary.fcgi`` are appended.
    api_key, email : str, optional
        From ``NCBI_API_KEY`` / ``NCBI_EMAIL``; the key raises the rate limit.
    tool : str
        Sent as ``tool=`` as NCBI asks.
    """

    base_url: str = EUTILS_URL
    api_key: Optional[str] = None
    email: Optional[str] = None
    tool: str = TOOL_NAME

    @classmethod
    def from_environ(cls, base_url: Optional[str] = None,
                     environ: Optional[Mapping[str, str]] = None) -> "EutilsSettings":
        """Settings from flags and ``NCBI_API_KEY``, ``NCBI_EMAIL``, ``GENOTEX_EUTILS_URL``."""
        environ = os.environ if environ is None else environ
        return cls(base_url=base_url_setting(base_url, environ, ENV_EUTILS_URL, EUTILS_URL),
                   api_key=environ.get(ENV_API_KEY) or None,
                   email=environ.get(ENV_EMAIL) or None)

    @property
    def rate(self) -> float:
        """Allowed requests per second."""
        return RATE_WITH_KEY if self.api_key else RATE_WITHOUT_KEY


class EutilsClient:
    """``esearch`` / ``esummary`` with NCBI's rate limit and retries.

    Parameters
    ----------
    settings : EutilsSettings
    http : HttpClient, optional
        Built with a :class:`RateLimiter` at ``settings.rate`` when omitted;
        a given client should carry its own limiter.
    """

    def __init__(self, settings: EutilsSettings, http: Optional[HttpClient] = None) -> None:
        self.settings = settings
        self.http = http or HttpClient(RetryPolicy(), rate_limiter=RateLimiter(settings.rate))
        self._rng = random.Random(0)

    def _params(self, **extra: Any) -> Dict[str, Any]:
        params: Dict[str, Any] = {"tool": self.settings.tool, "retmode": "json"}
        if self.settings.email:
            params["email"] = self.settings.email
        if self.settings.api_key:
            params["api_key"] = self.settings.api_key
        params.update(extra)
        return params

    def _get_json(self, endpoint: str, params: Dict[str, Any], item: str) -> Dict[str, Any]:
        """GET a JSON answer; unreadable JSON is retried like a transient failure."""
        url = self.settings.base_url + endpoint
        policy = self.http.policy
        problem = "no answer"
        for attempt in range(1, policy.max_attempts + 1):
            raw = self.http.get_bytes(url, params=params, item=item)
            try:
                data = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as exc:
                problem = f"invalid JSON from E-utilities ({exc})"
            else:
                if isinstance(data, dict):
                    return data
                problem = "E-utilities answer is not a JSON object"
            if attempt < policy.max_attempts:
                logger.warning("%s: %s; retrying", item, problem)
                self.http.sleep(policy.backoff(attempt, self._rng))
        raise DownloadError(item, url, problem, policy.max_attempts)

    def esearch(self, term: str, db: str = "gds", retmax: int = RETMAX,
                item: str = "esearch") -> List[str]:
        """Ids matching ``term``, in the order the database returns them."""
        data = self._get_json("esearch.fcgi", self._params(db=db, term=term, retmax=retmax),
                              item)
        result = data.get("esearchresult", {})
        if "ERROR" in result or "error" in data:
            raise DownloadError(item, self.settings.base_url + "esearch.fcgi",
                                f"E-utilities error: {result.get('ERROR') or data.get('error')}")
        return [str(i) for i in result.get("idlist", [])]

    def esummary(self, ids: Sequence[str], db: str = "gds", batch_size: int = 100,
                 item: str = "esummary") -> List[Dict[str, Any]]:
        """Document summaries of ``ids``, in the order of ``ids`` (missing ones skipped)."""
        summaries: List[Dict[str, Any]] = []
        for start in range(0, len(ids), batch_size):
            batch = list(ids[start:start + batch_size])
            data = self._get_json("esummary.fcgi",
                                  self._params(db=db, id=",".join(batch)), item)
            result = data.get("result", {})
            for uid in batch:
                doc = result.get(uid)
                if isinstance(doc, dict) and "error" not in doc:
                    summaries.append(doc)
        return summaries
