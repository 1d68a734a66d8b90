"""Declarative plan of a synthetic benchmark: genes, traits, platforms, cohorts.

A plan is a JSON or TOML document (see ``docs/synthetic.md`` for every key)::

    {"seed": 7,
     "genes": {"known_per_trait": 30, "background": ["ACTB", ...]},
     "traits": {"Rheumatoid_Arthritis": {"kind": "binary", "n_known": 6}},
     "platforms": {"GPL91001": {"style": "affymetrix"}},
     "cohorts": [{"id": "GSE9100101", "trait": "Rheumatoid_Arthritis",
                  "source": "geo", "platform": "GPL91001", "n_samples": 60}]}

Loading validates every key (unknown keys are errors, so a typo never passes
silently) and fills defaults. The plan classes are frozen pydantic dataclasses
(the project's one validator, as :mod:`utils.schemas`): every construction,
``dataclasses.replace`` included, checks the fields (types, ranges, choices)
and the :class:`Plan` checks its cross-references; a problem is a
:class:`PlanError` naming the file and the key. Numbers are kept as written (an
int stays an int), so that a plan's JSON text, hashed into the truth, round-trips.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from dataclasses import field
from importlib.resources.abc import Traversable
from typing import Annotated, Any, Dict, List, Literal, Mapping, Optional, Tuple, Union

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, model_validator
from pydantic.dataclasses import dataclass
from pydantic_core import ArgsKwargs

from genotex.synthetic.options import (COUNT_IDS, PLATFORM_STYLES, SCALES, SOURCES,  # noqa: F401
                                       TRAIT_FIELDS, TRAIT_KINDS)
from utils.errors import InputFileError
from utils.io import PathLike, read_text
from utils.problems import normalize_trait

HUMAN = "Homo sapiens"

#: Most probes one gene gets when ``probes_per_gene`` is set.
MAX_PROBES_PER_GENE = 7
#: Keys added after the first plan format: written by :func:`plan_to_mapping` only when
#: set, so every earlier plan keeps its text (and the truth's ``plan_sha256``).
LATER_KEYS = {"probes_per_gene": None}

_GSE = re.compile(r"^GSE(\d+)$")
_TCGA_CODE = re.compile(r"^[A-Z]{2,5}$")

#: Configuration of every plan class: unknown keys refused, no NaN or infinity.
PLAN_CONFIG = ConfigDict(extra="forbid", allow_inf_nan=False)
#: A number as written in the plan (an int stays an int).
Number = Union[int, float]
NUMBER_TAGS = frozenset({"int", "float"})
Fraction = Annotated[Number, Field(ge=0, le=1)]
Count = Annotated[int, Field(ge=0)]


class PlanError(InputFileError):
    """A synthetic plan is malformed (the message names the file and the key)."""


@dataclass(frozen=True, config=PLAN_CONFIG)
class GenePlan:
    """How the gene universe is assembled.

    Attributes
    ----------
    known_per_trait : int
        The first ``known_per_trait`` related genes (task-info order, strongest
        first) of every plan trait that are official symbols of the synonym map.
    background : tuple of str
        Extra official symbols (genes unrelated to every plan trait).
    sex_genes : tuple of str
        Sex-chromosome genes with a strong Gender effect (kept when present).
    n_age_genes, n_gender_genes : int
        Background genes whose expression shifts with Age / Gender, per cohort.
    n_modules : int
        Latent co-expression modules shared by random genes.
    random_background : int
        Extra background genes drawn (seeded) from the synonym map's official
        symbols; convenient for ad-hoc runs, but the draw depends on the map,
        so committed plans list ``background`` explicitly.
    """

    known_per_trait: Count = 30
    background: Tuple[str, ...] = ()
    random_background: Count = 0
    sex_genes: Tuple[str, ...] = ("XIST", "RPS4Y1", "DDX3Y", "KDM5D", "UTY", "EIF1AY")
    n_age_genes: Count = 6
    n_gender_genes: Count = 4
    n_modules: Count = 4


@dataclass(frozen=True, config=PLAN_CONFIG)
class TraitPlan:
    """The planted model of one trait (shared by all its cohorts).

    Attributes
    ----------
    name : str
        Normalized trait name (folder name).
    kind : {"binary", "continuous"}
    n_known : int
        Planted genes drawn from the trait's related genes in the universe.
    n_novel : int
        Planted genes drawn from background genes (not related to any plan trait).
    planted : tuple of str
        Explicit planted genes (overrides ``n_known`` / ``n_novel``).
    effect_range : (float, float)
        Absolute effect on the liability per SD of a planted gene.
    noise : float
        SD of the residual liability noise.
    age_effect, gender_effect : float
        Effect on the liability per SD of Age and for male vs female.
    sex : {None, "female", "male"}
        Sex-specific trait: every subject has this sex.
    case_text, control_text : str
        Spellings of the two classes in GEO characteristics (binary).
    label : str
        How the trait is named in GEO text (continuous: the measured quantity).
    unit : str
        Unit of a continuous trait (e.g. ``bpm``).
    mean, sd : float
        Location and scale of a continuous trait.
    decimals : int
        Rounding of written continuous values.
    tissue : str
        Tissue written in characteristics and source names.
    """

    name: str
    kind: Literal[TRAIT_KINDS] = "binary"
    n_known: Count = 5
    n_novel: Count = 2
    planted: Tuple[str, ...] = ()
    effect_range: Tuple[Number, Number] = (0.8, 2.0)
    noise: Annotated[Number, Field(ge=0)] = 0.5
    age_effect: Number = 0.0
    gender_effect: Number = 0.0
    sex: Optional[Literal["female", "male"]] = None
    case_text: str = ""
    control_text: str = "healthy control"
    label: str = ""
    unit: str = ""
    mean: Number = 0.0
    sd: Annotated[Number, Field(gt=0)] = 1.0
    decimals: Count = 0
    tissue: str = "whole blood"

    @model_validator(mode="after")
    def _check_effects(self) -> "TraitPlan":
        low, high = self.effect_range
        _require(0 < low <= high, "effect_range must be 0 < low <= high")
        return self


@dataclass(frozen=True, config=PLAN_CONFIG)
class PlatformPlan:
    """A GEO platform (its probe design is shared by every series on it).

    Attributes
    ----------
    id : str
        GPL accession.
    style : {"affymetrix", "illumina", "agilent", "rnaseq"}
        Probe-id and annotation-column conventions (``rnaseq``: no table).
    organism : str
        ``Homo sapiens`` or another species (multi-platform series only).
    coverage : float
        Share of unprotected universe genes on the platform (planted and sex
        genes are always present on human platforms).
    alias_fraction : float
        Share of genes annotated with an alias symbol instead of the official one.
    multi_gene_fraction : float
        Extra probes annotated with several genes (`` /// ``), relative to genes.
    no_symbol_probes : int
        Probes without a usable symbol (controls, accessions, LOC ids).
    title : str
        Platform title (a default names the style and says "synthetic").
    probes_per_gene : float, optional
        Mean probes per gene (``1 + Poisson(probes_per_gene - 1)``, at most
        :data:`MAX_PROBES_PER_GENE`); default (None): one probe, a second for
        30 % and a third for 10 % of the genes (Affymetrix; two at most
        otherwise), about 1.4.
    """

    id: Annotated[str, Field(pattern=r"^GPL\d+$")]
    style: Literal[PLATFORM_STYLES] = "affymetrix"
    organism: str = HUMAN
    coverage: Annotated[Number, Field(gt=0, le=1)] = 0.95
    alias_fraction: Fraction = 0.05
    multi_gene_fraction: Fraction = 0.03
    no_symbol_probes: Count = 12
    title: str = ""
    probes_per_gene: Optional[Annotated[Number, Field(ge=1, le=MAX_PROBES_PER_GENE - 1)]] = None


@dataclass(frozen=True, config=PLAN_CONFIG)
class ExtraPlatform:
    """Samples of a multi-platform series measured on another (non-human) platform."""

    platform: str
    n_samples: Count = 12


@dataclass(frozen=True, config=PLAN_CONFIG)
class CohortPlan:
    """One input cohort (a GEO series or a Xena TCGA cohort).

    Attributes
    ----------
    id : str
        GSE accession for GEO; ``Xena`` for TCGA (the cohort id of SPEC 2).
    trait : str
        Normalized trait name; must be a plan trait.
    source : {"geo", "tcga"}
    n_samples : int
        Human samples of the cohort (TCGA: samples in the expression matrix).
    case_fraction : float
        Share of cases (binary traits; TCGA: tumours among labelled samples).
    n_cases : int, optional
        Exact number of cases (overrides ``case_fraction``; e.g. a biased cohort).
    has_trait, has_age, has_gender : bool
        Whether the files carry that information at all.
    female_fraction : float
    age_mean, age_sd : float
    batch : bool
        Plant a strong technical batch effect (SPEC 5.3 detection fires when
        the cohort is large enough, see ``docs/synthetic.md``).
    n_batches : int
    batch_strength : float
        SD (log2 units) of the per-gene batch shifts.
    batch_fraction : float
        Share of genes shifted by the batch.
    batch_detectable : bool
        Scale the planted shifts up (x1.5 steps) until the SPEC 5.3 rule fires
        on the written values; only possible above 200 samples.
    missing_rate : float
        Share of expression cells left empty at random.
    missing_genes, missing_samples : int
        Genes / samples with 35% of their cells missing (dropped by SPEC 4.6).
    trait_missing, age_missing, gender_missing : int
        Samples whose trait / age / gender is not recorded.
    gene_coverage : float
        TCGA only: share of unprotected universe genes in the matrix.
    alias_fraction : float
        TCGA only: share of genes written under an outdated alias.
    platform : str
        GEO: GPL id of a plan platform.
    scale : {"log2", "linear", "counts"}
        GEO values: log2 intensities, linear (MAS5-like) intensities, or
        RNA-seq counts (``rnaseq`` platforms, empty matrix + count table).
    decimals : int, optional
        Decimals of written values (default 4 for log2, 1 for linear).
    missing_token : str
        How a missing expression value is written (``""`` or ``"null"``).
    trait_field : {"characteristics", "source_name", "title"}
        Where a GEO series records the trait.
    spelling : int, optional
        Index of the spelling style of characteristics (default: drawn).
    spelling_noise : float
        Share of characteristics cells with spacing/case variations.
    empty_characteristics_row : bool
        Add a characteristics line whose cells are all empty.
    count_ids : {"entrez", "symbol"}
        Row ids of an RNA-seq count table.
    extra_platforms : tuple of ExtraPlatform
        Other (non-human) platforms of a multi-platform series.
    soft_sample_rows : int
        Rows of each ``^SAMPLE`` table in the family SOFT.
    gsm_start : int, optional
        First GSM number (default derived from the GSE number).
    code : str
        TCGA cohort code (e.g. ``PRAD``).
    disease : str
        TCGA ``_primary_disease`` text.
    site : str
        TCGA ``_primary_site`` text.
    folder : str
        TCGA Xena folder name (default ``TCGA_<Name>_(<CODE>)``).
    n_other : int
        TCGA samples with a type code that is neither tumour nor normal.
    n_clinical_only : int
        TCGA samples present in the clinicalMatrix only.
    write_hiseqv2, write_pancan : bool
        Which Xena expression files to write.
    title, summary, design : str
        Override the GEO series texts.
    """

    id: str
    trait: str
    source: Literal[SOURCES] = "geo"
    n_samples: Annotated[int, Field(ge=4)] = 60
    case_fraction: Annotated[Number, Field(gt=0, lt=1)] = 0.5
    n_cases: Optional[Count] = None
    has_trait: bool = True
    has_age: bool = True
    has_gender: bool = True
    female_fraction: Fraction = 0.5
    age_mean: Number = 52.0
    age_sd: Annotated[Number, Field(ge=0)] = 13.0
    batch: bool = False
    n_batches: Annotated[int, Field(ge=2)] = 2
    batch_strength: Number = 1.0
    batch_fraction: Fraction = 0.7
    batch_detectable: bool = True
    missing_rate: Annotated[Number, Field(ge=0, lt=0.5)] = 0.0
    missing_genes: Count = 0
    missing_samples: Count = 0
    trait_missing: Count = 0
    age_missing: Count = 0
    gender_missing: Count = 0
    gene_coverage: Fraction = 0.97
    alias_fraction: Fraction = 0.02
    platform: str = ""
    scale: Literal[SCALES] = "log2"
    decimals: Optional[Count] = None
    missing_token: Literal["", "null", "NA"] = ""
    trait_field: Literal[TRAIT_FIELDS] = "characteristics"
    spelling: Optional[Count] = None
    spelling_noise: Fraction = 0.05
    empty_characteristics_row: bool = False
    count_ids: Literal[COUNT_IDS] = "entrez"
    extra_platforms: Tuple[ExtraPlatform, ...] = ()
    soft_sample_rows: Count = 20
    gsm_start: Optional[Count] = None
    code: str = ""
    disease: str = ""
    site: str = ""
    folder: str = ""
    n_other: Count = 0
    n_clinical_only: Count = 0
    write_hiseqv2: bool = True
    write_pancan: bool = True
    title: str = ""
    summary: str = ""
    design: str = ""

    @model_validator(mode="after")
    def _check_cohort(self) -> "CohortPlan":
        """The checks that need several fields of the cohort."""
        if self.n_cases is not None:
            _require(self.n_cases <= self.n_samples, "n_cases must be within [0, n_samples]")
        _require(self.missing_samples + self.trait_missing < self.n_samples,
                 "too many samples with missing data")
        if self.source == "geo":
            _require(self.gse_number > 0, "id must be a GSE accession")
        else:
            _require(self.id == "Xena", "a TCGA cohort id must be 'Xena'")
            _require(bool(_TCGA_CODE.match(self.code)), "code must be a TCGA code such as PRAD")
            _require(self.has_trait and self.trait_missing == 0,
                     "a TCGA trait comes from the barcodes and is always recorded")
        return self

    @property
    def key(self) -> str:
        """``<trait>/<cohort>``: unique within a plan."""
        return f"{self.trait}/{self.id}"

    @property
    def gse_number(self) -> int:
        """Digits of the GSE accession (GEO cohorts only)."""
        match = _GSE.match(self.id)
        return int(match.group(1)) if match else 0

    @property
    def xena_folder(self) -> str:
        """Folder of a TCGA cohort under ``input/TCGA``."""
        return self.folder or f"TCGA_{self.trait}_({self.code})"

    @property
    def value_decimals(self) -> int:
        """Decimals of written expression values."""
        if self.decimals is not None:
            return self.decimals
        return 1 if self.scale == "linear" else 4


@dataclass(frozen=True, config=PLAN_CONFIG)
class Plan:
    """A whole synthetic benchmark."""

    seed: Count = 0
    genes: GenePlan = field(default_factory=GenePlan)
    traits: Dict[str, TraitPlan] = field(default_factory=dict)
    platforms: Dict[str, PlatformPlan] = field(default_factory=dict)
    cohorts: Tuple[CohortPlan, ...] = ()

    def trait_cohorts(self, trait: str) -> List[CohortPlan]:
        """Cohorts of one trait, in plan order."""
        return [c for c in self.cohorts if c.trait == trait]

    @model_validator(mode="before")
    @classmethod
    def _keyed_entries(cls, data: Any) -> Any:
        """A parsed document's defaults: trait names and platform ids from their keys,
        cohort traits normalized, ``description`` ignored."""
        if isinstance(data, ArgsKwargs):  # built from values (``dataclasses.replace``)
            return data
        _require(isinstance(data, Mapping), "a plan must be an object")
        data = {key: value for key, value in data.items() if key != "description"}
        traits = data.get("traits", {})
        if isinstance(traits, Mapping):
            data["traits"] = dict(_trait_entry(name, entry) for name, entry in traits.items())
        platforms = data.get("platforms", {})
        if isinstance(platforms, Mapping):
            data["platforms"] = dict(_keyed(entry, "id", pid) for pid, entry in platforms.items())
        cohorts = data.get("cohorts", ())
        if isinstance(cohorts, (list, tuple)):
            data["cohorts"] = [{**entry, "trait": normalize_trait(entry["trait"])}
                               if isinstance(entry, Mapping) and isinstance(entry.get("trait"), str)
                               else entry for entry in cohorts]
        return data

    @model_validator(mode="after")
    def _check_references(self) -> "Plan":
        """Cohorts name plan traits and platforms that suit them; no cohort twice."""
        _require(bool(self.cohorts), "a plan needs at least one cohort")
        keys = [c.key for c in self.cohorts]
        dupes = sorted({k for k in keys if keys.count(k) > 1})
        _require(not dupes, f"duplicate cohorts {dupes}")
        for index, cohort in enumerate(self.cohorts):
            _check_cohort_references(cohort, self, f"cohorts[{index}] ({cohort.key})")
        return self


# --------------------------------------------------------------------------- loading


def _require(condition: bool, message: str) -> None:
    """A validator's check: ``message`` (naming the key) when ``condition`` fails."""
    if not condition:
        raise ValueError(message)


def _keyed(entry: Any, key: str, default: str) -> Tuple[Any, Any]:
    """``(entry[key], entry)``, ``key`` defaulting to the entry's key in the document."""
    if not isinstance(entry, Mapping):
        return default, entry
    entry = {key: default, **entry}
    return entry[key], entry


def _trait_entry(name: str, entry: Any) -> Tuple[str, Any]:
    """A trait's entry keyed by its normalized name (which its ``name`` must equal)."""
    normalized = normalize_trait(name)
    key, entry = _keyed(entry, "name", normalized)
    _require(key == normalized, f"traits.{name}: name must equal the normalized key")
    return key, entry


def _check_cohort_references(cohort: CohortPlan, plan: Plan, where: str) -> None:
    """The checks of one cohort against the plan's traits and platforms."""
    _require(cohort.trait in plan.traits, f"{where}.trait {cohort.trait!r} is not a plan trait")
    kind = plan.traits[cohort.trait].kind
    if cohort.source != "geo":
        _require(kind == "binary", f"{where}: TCGA cohorts have a binary (tumour/normal) trait")
        return
    _require(cohort.platform in plan.platforms,
             f"{where}.platform {cohort.platform!r} is not a plan platform")
    platform = plan.platforms[cohort.platform]
    _require(platform.organism == HUMAN, f"{where}: the main platform must be human")
    _require((cohort.scale == "counts") == (platform.style == "rnaseq"),
             f"{where}: scale 'counts' goes with an 'rnaseq' platform and only with it")
    _require(kind == "binary" or cohort.trait_field == "characteristics",
             f"{where}: a continuous trait is recorded in the characteristics")
    for extra in cohort.extra_platforms:
        _require(extra.platform in plan.platforms,
                 f"{where}: extra platform {extra.platform!r} is not a plan platform")
        _require(plan.platforms[extra.platform].organism != HUMAN,
                 f"{where}: extra platforms must be non-human")
        _require(plan.platforms[extra.platform].style != "rnaseq",
                 f"{where}: extra platforms must be arrays")


def _location(loc: Tuple[Union[str, int], ...]) -> str:
    """``('cohorts', 0, 'n_samples')`` -> ``cohorts[0].n_samples`` (a :data:`Number`'s
    member tags, ``int`` and ``float``, left out: no plan key has those names)."""
    text = ""
    for part in loc:
        if part in NUMBER_TAGS:
            continue
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def plan_problem(error: ValidationError) -> str:
    """One sentence naming the key of a plan's first validation problem."""
    problems = error.errors(include_url=False)
    details = problems[0]
    if details["type"] in ("unexpected_keyword_argument", "extra_forbidden"):
        reason = "unknown key"
    elif details["type"] == "value_error":
        reason = str(details["ctx"]["error"])  # a validator's own words
    else:
        message = details["msg"]
        reason = f"{message[0].lower()}{message[1:]}, found {details['input']!r:.60}"
    where = _location(tuple(details["loc"]))
    others = len({_location(tuple(p["loc"])) for p in problems} - {where})
    more = f" (and {others} more problem(s))" if others else ""
    return (f"{where}: {reason}" if where else reason) + more


_PLAN = TypeAdapter(Plan)


def plan_from_mapping(data: Mapping[str, Any], source: PathLike = "<plan>") -> Plan:
    """Build and validate a :class:`Plan` from a parsed JSON/TOML document.

    Parameters
    ----------
    data : mapping
        The parsed document.
    source : path-like
        Named in error messages.

    Raises
    ------
    PlanError
        Unknown keys, wrong values, dangling references, duplicate ids (the
        message names the key, e.g. ``cohorts[0].n_samples``).
    """
    try:
        return _PLAN.validate_python(data)
    except ValidationError as exc:
        raise PlanError(source, plan_problem(exc)) from None


def load_plan(path: Union[PathLike, Traversable]) -> Plan:
    """Read a plan file (``.toml`` as TOML, anything else as JSON).

    ``path`` may be a file shipped in a package (:mod:`importlib.resources`),
    such as the demo's plan (:func:`genotex.demo.plan.demo_plan`).
    """
    text = read_text(path)
    try:
        data = (tomllib.loads(text) if str(path).endswith(".toml") else json.loads(text))
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PlanError(path, f"cannot parse plan ({exc})") from exc
    return plan_from_mapping(data, source=path)


def plan_to_mapping(plan: Plan) -> Dict[str, Any]:
    """Plain-JSON form of a plan (round-trips through :func:`plan_from_mapping`)."""
    def clean(obj):
        data = dataclasses.asdict(obj)
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in data.items()
                if k not in LATER_KEYS or v != LATER_KEYS[k]}

    return {
        "seed": plan.seed,
        "genes": clean(plan.genes),
        "traits": {name: clean(t) for name, t in plan.traits.items()},
        "platforms": {pid: clean(p) for pid, p in plan.platforms.items()},
        "cohorts": [clean(c) for c in plan.cohorts],
    }


def single_cohort_mapping(trait: str, source: str = "geo", cohort_id: Optional[str] = None,
                          seed: int = 0, kind: str = "binary", n_samples: int = 60,
                          style: str = "affymetrix", scale: Optional[str] = None,
                          code: str = "", random_background: int = 200,
                          extra: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """A plan document with one trait and one cohort (the CLI's flag mode).

    Parameters
    ----------
    trait : str
        Trait name (normalized here).
    source : {"geo", "tcga"}
    cohort_id : str, optional
        Defaults to ``GSE9100001`` (GEO) or ``Xena`` (TCGA).
    seed, kind, n_samples : see :class:`Plan`, :class:`TraitPlan`, :class:`CohortPlan`
    style : str
        Platform style of a GEO cohort.
    scale : str, optional
        Defaults to ``counts`` for ``rnaseq`` platforms, else ``log2``.
    code : str
        TCGA code of a TCGA cohort.
    random_background : int
        Background genes drawn from the synonym map.
    extra : mapping, optional
        More :class:`CohortPlan` keys.
    """
    name = normalize_trait(trait)
    cohort: Dict[str, Any] = {"id": cohort_id or ("Xena" if source == "tcga" else "GSE9100001"),
                              "trait": name, "source": source, "n_samples": n_samples}
    platforms: Dict[str, Any] = {}
    if source == "geo":
        platforms["GPL91001"] = {"style": style}
        cohort["platform"] = "GPL91001"
        cohort["scale"] = scale or ("counts" if style == "rnaseq" else "log2")
    else:
        cohort["code"] = code
    cohort.update(dict(extra or {}))
    return {"seed": seed, "genes": {"random_background": random_background},
            "traits": {name: {"kind": kind}}, "platforms": platforms, "cohorts": [cohort]}
