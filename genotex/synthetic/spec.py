"""Declarative plan of a synthetic benchmark: genes, traits, platforms, cohorts.

A plan is a JSON or TOML document (see ``docs/synthetic.md`` for every key)::

    {"seed": 7,
     "genes": {"known_per_trait": 30, "background": ["ACTB", ...]},
     "traits": {"Rheumatoid_Arthritis": {"kind": "binary", "n_known": 6}},
     "platforms": {"GPL91001": {"style": "affymetrix"}},
     "cohorts": [{"id": "GSE9100101", "trait": "Rheumatoid_Arthritis",
                  "source": "geo", "platform": "GPL91001", "n_samples": 60}]}

Loading validates every key (unknown keys are errors, so a typo never passes
silently) and fills defaults. The dataclasses are frozen: a plan is a value.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

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
_GPL = re.compile(r"^GPL\d+$")
_TCGA_CODE = re.compile(r"^[A-Z]{2,5}$")


class PlanError(InputFileError):
    """A synthetic plan is malformed (the message names the file and the key)."""


@dataclass(frozen=True)
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

    known_per_trait: int = 30
    background: Tuple[str, ...] = ()
    random_background: int = 0
    sex_genes: Tuple[str, ...] = ("XIST", "RPS4Y1", "DDX3Y", "KDM5D", "UTY", "EIF1AY")
    n_age_genes: int = 6
    n_gender_genes: int = 4
    n_modules: int = 4


@dataclass(frozen=True)
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
    kind: str = "binary"
    n_known: int = 5
    n_novel: int = 2
    planted: Tuple[str, ...] = ()
    effect_range: Tuple[float, float] = (0.8, 2.0)
    noise: float = 0.5
    age_effect: float = 0.0
    gender_effect: float = 0.0
    sex: Optional[str] = None
    case_text: str = ""
    control_text: str = "healthy control"
    label: str = ""
    unit: str = ""
    mean: float = 0.0
    sd: float = 1.0
    decimals: int = 0
    tissue: str = "whole blood"


@dataclass(frozen=True)
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

    id: str
    style: str = "affymetrix"
    organism: str = HUMAN
    coverage: float = 0.95
    alias_fraction: float = 0.05
    multi_gene_fraction: float = 0.03
    no_symbol_probes: int = 12
    title: str = ""
    probes_per_gene: Optional[float] = None


@dataclass(frozen=True)
class ExtraPlatform:
    """Samples of a multi-platform series measured on another (non-human) platform."""

    platform: str
    n_samples: int = 12


@dataclass(frozen=True)
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
    source: str = "geo"
    n_samples: int = 60
    case_fraction: float = 0.5
    n_cases: Optional[int] = None
    has_trait: bool = True
    has_age: bool = True
    has_gender: bool = True
    female_fraction: float = 0.5
    age_mean: float = 52.0
    age_sd: float = 13.0
    batch: bool = False
    n_batches: int = 2
    batch_strength: float = 1.0
    batch_fraction: float = 0.7
    batch_detectable: bool = True
    missing_rate: float = 0.0
    missing_genes: int = 0
    missing_samples: int = 0
    trait_missing: int = 0
    age_missing: int = 0
    gender_missing: int = 0
    gene_coverage: float = 0.97
    alias_fraction: float = 0.02
    platform: str = ""
    scale: str = "log2"
    decimals: Optional[int] = None
    missing_token: str = ""
    trait_field: str = "characteristics"
    spelling: Optional[int] = None
    spelling_noise: float = 0.05
    empty_characteristics_row: bool = False
    count_ids: str = "entrez"
    extra_platforms: Tuple[ExtraPlatform, ...] = ()
    soft_sample_rows: int = 20
    gsm_start: Optional[int] = None
    code: str = ""
    disease: str = ""
    site: str = ""
    folder: str = ""
    n_other: int = 0
    n_clinical_only: int = 0
    write_hiseqv2: bool = True
    write_pancan: bool = True
    title: str = ""
    summary: str = ""
    design: str = ""

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


@dataclass(frozen=True)
class Plan:
    """A whole synthetic benchmark."""

    seed: int = 0
    genes: GenePlan = field(default_factory=GenePlan)
    traits: Mapping[str, TraitPlan] = field(default_factory=dict)
    platforms: Mapping[str, PlatformPlan] = field(default_factory=dict)
    cohorts: Tuple[CohortPlan, ...] = ()

    def trait_cohorts(self, trait: str) -> List[CohortPlan]:
        """Cohorts of one trait, in plan order."""
        return [c for c in self.cohorts if c.trait == trait]


# --------------------------------------------------------------------------- loading

def _coerce(cls, data: Mapping[str, Any], where: str, source: PathLike) -> Any:
    """Build dataclass ``cls`` from a mapping, refusing unknown keys."""
    if not isinstance(data, Mapping):
        raise PlanError(source, f"{where}: expected an object, got {type(data).__name__}")
    names = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(names))
    if unknown:
        raise PlanError(source, f"{where}: unknown key(s) {unknown}; "
                        f"allowed: {sorted(names)}")
    values = {}
    for key, value in data.items():
        if isinstance(value, list):
            value = tuple(value)
        values[key] = value
    try:
        return cls(**values)
    except TypeError as exc:
        raise PlanError(source, f"{where}: {exc}") from exc


def _check(condition: bool, source: PathLike, message: str) -> None:
    if not condition:
        raise PlanError(source, message)


def _validate_trait(trait: TraitPlan, source: PathLike) -> None:
    where = f"traits.{trait.name}"
    _check(trait.kind in TRAIT_KINDS, source, f"{where}.kind must be one of {TRAIT_KINDS}")
    _check(trait.n_known >= 0 and trait.n_novel >= 0, source,
           f"{where}: n_known and n_novel must be >= 0")
    low, high = trait.effect_range
    _check(0 < low <= high, source, f"{where}.effect_range must be 0 < low <= high")
    _check(trait.sex in (None, "female", "male"), source,
           f"{where}.sex must be null, 'female' or 'male'")
    _check(trait.noise >= 0 and trait.sd > 0, source, f"{where}: noise >= 0 and sd > 0")


def _validate_platform(platform: PlatformPlan, source: PathLike) -> None:
    where = f"platforms.{platform.id}"
    _check(bool(_GPL.match(platform.id)), source, f"{where}: id must look like GPL123")
    _check(platform.style in PLATFORM_STYLES, source,
           f"{where}.style must be one of {PLATFORM_STYLES}")
    _check(0 < platform.coverage <= 1, source, f"{where}.coverage must be in (0, 1]")
    _check(0 <= platform.alias_fraction <= 1 and 0 <= platform.multi_gene_fraction <= 1,
           source, f"{where}: fractions must be in [0, 1]")
    _check(platform.probes_per_gene is None
           or 1 <= platform.probes_per_gene <= MAX_PROBES_PER_GENE - 1, source,
           f"{where}.probes_per_gene must be in [1, {MAX_PROBES_PER_GENE - 1}]")


def _validate_cohort(cohort: CohortPlan, plan: Plan, index: int,
                     source: PathLike) -> None:
    where = f"cohorts[{index}] ({cohort.key})"
    _check(cohort.source in SOURCES, source, f"{where}.source must be one of {SOURCES}")
    _check(cohort.trait in plan.traits, source,
           f"{where}.trait {cohort.trait!r} is not a plan trait")
    _check(cohort.n_samples >= 4, source, f"{where}.n_samples must be >= 4")
    _check(0 < cohort.case_fraction < 1, source, f"{where}.case_fraction must be in (0, 1)")
    if cohort.n_cases is not None:
        _check(0 <= cohort.n_cases <= cohort.n_samples, source,
               f"{where}.n_cases must be within [0, n_samples]")
    _check(0 <= cohort.missing_rate < 0.5, source, f"{where}.missing_rate must be in [0, 0.5)")
    _check(cohort.missing_samples + cohort.trait_missing < cohort.n_samples, source,
           f"{where}: too many samples with missing data")
    _check(cohort.n_batches >= 2, source, f"{where}.n_batches must be >= 2")
    if cohort.source == "geo":
        _check(cohort.gse_number > 0, source, f"{where}.id must be a GSE accession")
        _check(cohort.platform in plan.platforms, source,
               f"{where}.platform {cohort.platform!r} is not a plan platform")
        platform = plan.platforms[cohort.platform]
        _check(platform.organism == HUMAN, source,
               f"{where}: the main platform must be human")
        _check(cohort.scale in SCALES, source, f"{where}.scale must be one of {SCALES}")
        _check((cohort.scale == "counts") == (platform.style == "rnaseq"), source,
               f"{where}: scale 'counts' goes with an 'rnaseq' platform and only with it")
        _check(cohort.trait_field in TRAIT_FIELDS, source,
               f"{where}.trait_field must be one of {TRAIT_FIELDS}")
        _check(cohort.count_ids in COUNT_IDS, source,
               f"{where}.count_ids must be one of {COUNT_IDS}")
        _check(cohort.missing_token in ("", "null", "NA"), source,
               f"{where}.missing_token must be '', 'null' or 'NA'")
        _check(plan.traits[cohort.trait].kind == "binary"
               or cohort.trait_field == "characteristics", source,
               f"{where}: a continuous trait is recorded in the characteristics")
        for extra in cohort.extra_platforms:
            _check(extra.platform in plan.platforms, source,
                   f"{where}: extra platform {extra.platform!r} is not a plan platform")
            _check(plan.platforms[extra.platform].organism != HUMAN, source,
                   f"{where}: extra platforms must be non-human")
            _check(plan.platforms[extra.platform].style != "rnaseq", source,
                   f"{where}: extra platforms must be arrays")
    else:
        _check(cohort.id == "Xena", source, f"{where}: a TCGA cohort id must be 'Xena'")
        _check(bool(_TCGA_CODE.match(cohort.code)), source,
               f"{where}.code must be a TCGA code such as PRAD")
        _check(plan.traits[cohort.trait].kind == "binary", source,
               f"{where}: TCGA cohorts have a binary (tumour/normal) trait")
        _check(cohort.has_trait and cohort.trait_missing == 0, source,
               f"{where}: a TCGA trait comes from the barcodes and is always recorded")


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
        Unknown keys, wrong values, dangling references, duplicate ids.
    """
    if not isinstance(data, Mapping):
        raise PlanError(source, "a plan must be an object")
    top = {"seed", "genes", "traits", "platforms", "cohorts", "description"}
    unknown = sorted(set(data) - top)
    _check(not unknown, source, f"unknown top-level key(s) {unknown}; allowed: {sorted(top)}")
    seed = data.get("seed", 0)
    _check(isinstance(seed, int) and seed >= 0, source, "seed must be an integer >= 0")
    genes = _coerce(GenePlan, data.get("genes", {}), "genes", source)
    traits: Dict[str, TraitPlan] = {}
    for name, entry in dict(data.get("traits", {})).items():
        entry = dict(entry)
        entry.setdefault("name", normalize_trait(name))
        trait = _coerce(TraitPlan, entry, f"traits.{name}", source)
        _check(trait.name == normalize_trait(name), source,
               f"traits.{name}: name must equal the normalized key")
        _validate_trait(trait, source)
        traits[trait.name] = trait
    platforms: Dict[str, PlatformPlan] = {}
    for pid, entry in dict(data.get("platforms", {})).items():
        entry = dict(entry)
        entry.setdefault("id", pid)
        platform = _coerce(PlatformPlan, entry, f"platforms.{pid}", source)
        _validate_platform(platform, source)
        platforms[platform.id] = platform
    cohorts = []
    for index, entry in enumerate(data.get("cohorts", [])):
        entry = dict(entry)
        extras = entry.get("extra_platforms", [])
        entry["extra_platforms"] = tuple(
            _coerce(ExtraPlatform, e, f"cohorts[{index}].extra_platforms", source)
            for e in extras)
        if "trait" in entry:
            entry["trait"] = normalize_trait(entry["trait"])
        cohorts.append(_coerce(CohortPlan, entry, f"cohorts[{index}]", source))
    plan = Plan(seed=seed, genes=genes, traits=traits, platforms=platforms,
                cohorts=tuple(cohorts))
    _check(bool(plan.cohorts), source, "a plan needs at least one cohort")
    keys = [c.key for c in plan.cohorts]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    _check(not dupes, source, f"duplicate cohorts {dupes}")
    for index, cohort in enumerate(plan.cohorts):
        _validate_cohort(cohort, plan, index, source)
    return plan


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
