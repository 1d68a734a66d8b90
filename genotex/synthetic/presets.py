"""Presets: plans for whole synthetic benchmarks shaped like the real GenoTEX.

``full-size`` (:data:`FULL_SIZE`) follows the published shape of the benchmark:
911 cohorts of 132 traits, 1,384 problems (132 unconditional, 1,252 conditions),
samples per cohort averaging 167; GEO series on 54,675-, 33,297- and 22,283-probe
array platforms and RNA-seq series with NCBI-style count tables; 40 TCGA (Xena)
cohorts of about 20,530 genes and 100-1,200 samples. What the published figures
do not fix is an assumption of this module, stated where it is made: platform
shares, the spread of sample sizes (log-normal), which cohorts record age, sex
or a batch effect.

Traits, their conditions and related genes come from a ``task_info.json`` when
one is given (e.g. the real one, read at generation time only), else they are
generated (``Trait_001`` ... with official symbols of the synonym map as related
genes and 1,252 conditions in all).

Cohorts are listed in a seeded random order, so the first ``N``
(:func:`subset_plan`, ``--cohorts N``) are a random sample of the whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from genotex.synthetic.genes import official_symbols
from genotex.synthetic.options import PRESET_NAMES
from genotex.synthetic.rng import stream
from genotex.synthetic.spec import Plan, plan_from_mapping
from utils.columns import AGE, GENDER
from utils.problems import normalize_trait


@dataclass(frozen=True)
class ArrayPlatform:
    """A GEO platform of a preset: probes, the genes they measure, the style."""

    id: str
    style: str
    probes: int
    genes: int
    share: float


@dataclass(frozen=True)
class BenchmarkShape:
    """The figures a preset reproduces (see the module docstring)."""

    n_traits: int = 132
    n_cohorts: int = 911
    n_conditions: int = 1252
    n_tcga: int = 40
    mean_samples: int = 167
    tcga_samples: Tuple[int, int] = (100, 1200)
    geo_samples: Tuple[int, int] = (6, 1500)
    #: Spread (log scale) of GEO series sizes: most are small, a few very large.
    geo_sigma: float = 1.0
    tcga_genes: int = 20530
    #: Official symbols in the gene universe (related genes of the traits + background).
    universe: int = 40000
    platforms: Tuple[ArrayPlatform, ...] = (
        ArrayPlatform("GPL9500570", "affymetrix", 54675, 21000, 0.35),
        ArrayPlatform("GPL9506244", "illumina", 33297, 20100, 0.20),
        ArrayPlatform("GPL9500096", "affymetrix", 22283, 13000, 0.20),
        ArrayPlatform("GPL9518573", "rnaseq", 0, 38800, 0.25),
    )
    #: Related genes per generated trait: log-normal with this median, capped.
    related_median: int = 72
    related_cap: int = 2000


FULL_SIZE = BenchmarkShape()
PRESETS = {"full-size": FULL_SIZE}
assert tuple(PRESETS) == PRESET_NAMES, "genotex.synthetic.options.PRESET_NAMES is stale"
SEX_GENES = 6  # GenePlan's default sex genes
#: Words that make a real trait name continuous (e.g. ``Heart_rate``); generated
#: traits: every 16th.
CONTINUOUS_WORDS = ("rate", "height", "weight", "body_mass", "bmi", "pressure", "level",
                    "density", "count")


# --------------------------------------------------------------------------- traits

def generated_task_info(shape: BenchmarkShape, synonyms: Mapping[str, str],
                        seed: int) -> Dict[str, Dict[str, Any]]:
    """Trait names, conditions and related genes with the shape's totals.

    Every trait has Age and Gender as conditions plus other traits, so that the
    conditions number ``shape.n_conditions``; related genes are official symbols
    of ``synonyms`` drawn from a shared pool (traits overlap, as real ones do).
    """
    rng = stream(seed, "preset-traits")
    names = [f"Trait_{k + 1:03d}" for k in range(shape.n_traits)]
    others = _split_total(shape.n_conditions - 2 * shape.n_traits, shape.n_traits, rng,
                          shape.n_traits - 1)
    symbols = sorted(official_symbols(synonyms).values())
    pool_size = min(len(symbols), 7500)
    pool = [symbols[k] for k in np.sort(rng.choice(len(symbols), pool_size, replace=False))]
    info: Dict[str, Dict[str, Any]] = {}
    for k, name in enumerate(names):
        count = int(min(shape.related_cap, max(0, round(
            shape.related_median * math.exp(1.3 * rng.standard_normal())))))
        genes = [pool[i] for i in rng.choice(pool_size, min(count, pool_size), replace=False)]
        partners = [names[i] for i in rng.choice([i for i in range(len(names)) if i != k],
                                                 others[k], replace=False)]
        info[name] = {"related_genes": genes, "conditions": [AGE, GENDER] + sorted(partners)}
    return info


def _split_total(total: int, parts: int, rng: np.random.Generator, cap: int) -> List[int]:
    """``parts`` non-negative integers (geometric-like, at most ``cap``) summing to ``total``."""
    raw = rng.exponential(1.0, parts)
    counts = np.minimum(np.floor(raw / raw.sum() * total).astype(int), cap)
    order = np.argsort(-raw)
    k = 0
    while counts.sum() < total:
        if counts[order[k % parts]] < cap:
            counts[order[k % parts]] += 1
        k += 1
    return counts.tolist()


def is_continuous(trait: str, position: int, generated: bool) -> bool:
    """The preset's choice of continuous traits (see :data:`CONTINUOUS_WORDS`)."""
    if generated:
        return position % 16 == 15
    words = trait.lower()
    return any(w in words.split("_") or words.endswith(w) for w in CONTINUOUS_WORDS)


# --------------------------------------------------------------------------- sizes

def lognormal_sizes(count: int, total: int, bounds: Tuple[int, int], sigma: float
                    ) -> List[int]:
    """``count`` integer sizes within ``bounds`` summing to ``total``, log-normal quantiles.

    The sizes are the quantiles ``(k + 1/2) / count`` of a log-normal of spread
    ``sigma`` whose location is solved for the total (bisection; clipping to the
    bounds included); rounding is settled on the largest sizes.
    """
    low, high = bounds
    if not low * count <= total <= high * count:
        raise ValueError(f"{count} sizes in [{low}, {high}] cannot sum to {total}")
    from scipy.stats import norm

    z = norm.ppf((np.arange(count) + 0.5) / count)

    def sizes(mu: float) -> np.ndarray:
        return np.clip(np.exp(mu + sigma * z), low, high)

    a, b = math.log(low) - 5 * sigma, math.log(high) + 5 * sigma
    for _ in range(200):
        mid = (a + b) / 2
        a, b = (mid, b) if sizes(mid).sum() < total else (a, mid)
    result = np.floor(sizes((a + b) / 2)).astype(int)
    k = count - 1
    while result.sum() < total:
        if result[k] < high:
            result[k] += 1
        k = k - 1 if k > 0 else count - 1
    return result.tolist()


def loguniform_sizes(count: int, bounds: Tuple[int, int]) -> List[int]:
    """``count`` sizes spread log-uniformly over ``bounds`` (quantiles)."""
    low, high = bounds
    return [int(round(low * (high / low) ** ((k + 0.5) / count))) for k in range(count)]


# --------------------------------------------------------------------------- the plan

def _trait_entries(task_info: Mapping[str, Any], generated: bool,
                   related_counts: Mapping[str, int]) -> Dict[str, Dict[str, Any]]:
    traits = {}
    for position, name in enumerate(sorted(task_info)):
        entry: Dict[str, Any] = {"n_known": min(5, related_counts.get(name, 0)), "n_novel": 2}
        if is_continuous(name, position, generated):
            entry.update(kind="continuous", label=name.replace("_", " ").lower(), unit="units",
                         mean=100.0, sd=15.0, decimals=1)
        traits[name] = entry
    return traits


def _tcga_traits(names: Sequence[str], traits: Mapping[str, Any], count: int,
                 rng: np.random.Generator) -> List[str]:
    """Binary traits with a TCGA cohort: cancers first (by name), then at random."""
    binary = [n for n in names if traits[n].get("kind", "binary") == "binary"]
    words = ("cancer", "carcinoma", "tumor", "leukemia", "lymphoma", "melanoma", "glioma",
             "sarcoma", "mesothelioma", "myeloma")
    cancers = [n for n in binary if any(w in n.lower() for w in words)]
    rest = [n for n in binary if n not in set(cancers)]
    chosen = cancers[:count]
    if len(chosen) < count:
        chosen += [rest[i] for i in sorted(rng.choice(len(rest), count - len(chosen),
                                                      replace=False))]
    return chosen


def _geo_cohort(trait: str, kind: str, number: int, n: int,
                platform: ArrayPlatform, gsm_start: int, rng: np.random.Generator
                ) -> Dict[str, Any]:
    """One GEO series of the preset (the shares are this module's assumptions)."""
    cohort: Dict[str, Any] = {
        "id": f"GSE{number}", "trait": trait, "source": "geo", "platform": platform.id,
        "n_samples": n, "gsm_start": gsm_start,
        "case_fraction": float(np.round(rng.uniform(0.25, 0.75), 2)),
        "has_trait": bool(rng.random() < 0.88), "has_age": bool(rng.random() < 0.55),
        "has_gender": bool(rng.random() < 0.7),
        "age_mean": float(np.round(rng.uniform(30, 65), 1)),
        "empty_characteristics_row": bool(rng.random() < 0.05)}
    if platform.style == "rnaseq":
        cohort["scale"] = "counts"
        cohort["count_ids"] = "entrez" if rng.random() < 0.85 else "symbol"
    else:
        cohort["scale"] = "linear" if platform.style == "affymetrix" and rng.random() < 0.25 \
            else "log2"
        cohort["missing_token"] = "null" if rng.random() < 0.2 else ""
    if kind == "binary" and rng.random() < 0.15:
        cohort["trait_field"] = "source_name" if rng.random() < 0.5 else "title"
    if rng.random() < 0.15:
        cohort["missing_rate"] = 0.002
    if rng.random() < 0.1:
        cohort["missing_genes"] = 20
    if 205 <= n <= 600 and rng.random() < 0.15:
        cohort["batch"] = True
    return cohort


def coverage(genes: int, universe: int, protected: int) -> float:
    """Share of the unprotected universe genes that gives ``genes`` genes in all."""
    return float(min(1.0, max(0.0, (genes - protected) / (universe - protected))))


def _tcga_cohort(trait: str, code: str, n: int,
                 gene_coverage: float, rng: np.random.Generator) -> Dict[str, Any]:
    return {"id": "Xena", "trait": trait, "source": "tcga", "code": code, "n_samples": n,
            "case_fraction": float(np.round(rng.uniform(0.85, 0.95), 2)),
            "n_other": int(rng.integers(0, 4)), "n_clinical_only": int(rng.integers(0, 6)),
            "gene_coverage": round(gene_coverage, 6),
            "age_mean": float(np.round(rng.uniform(45, 70), 1))}


def _tcga_code(k: int) -> str:
    """Synthetic TCGA codes (``SAA``, ``SAB``, ...): never a real Xena folder."""
    return "S" + chr(65 + k // 26 % 26) + chr(65 + k % 26)


def preset_plan(shape: BenchmarkShape, synonyms: Mapping[str, str],
                task_info: Mapping[str, Any], seed: int = 0, generated: bool = False
                ) -> Plan:
    """The whole preset plan (every cohort, in a seeded random order).

    Parameters
    ----------
    shape : BenchmarkShape
    synonyms : mapping
        The full synonym map (``{ALIAS_UPPER: Official}``): the universe needs
        ``shape.universe`` official symbols.
    task_info : mapping
        Traits of the benchmark (:func:`generated_task_info` or a real one).
    seed : int
    generated : bool
        Whether the traits are generated (decides the continuous ones).
    """
    rng = stream(seed, "preset-plan")
    official = official_symbols(synonyms)
    names = sorted(normalize_trait(t) for t in task_info)
    if len(names) < 1:
        raise ValueError("a preset needs at least one trait")
    related = {normalize_trait(t): {official[g.upper()] for g in e.get("related_genes", [])
                                    if g.upper() in official}
               for t, e in task_info.items()}
    related_all = set().union(*related.values())
    background = shape.universe - len(related_all) - SEX_GENES
    if background < 0:
        raise ValueError(f"the related genes ({len(related_all)}) exceed the universe")
    traits = _trait_entries({n: None for n in names}, generated,
                            {n: len(related[n]) for n in names})
    # planted and sex genes are on every human platform and TCGA matrix: the coverage of
    # the other genes is set so that the totals come out as the shape says
    protected = SEX_GENES + sum(t["n_known"] + t["n_novel"] for t in traits.values())
    n_tcga = min(shape.n_tcga, len(names))
    tcga_traits = _tcga_traits(names, traits, n_tcga, rng)
    n_geo = shape.n_cohorts - n_tcga
    geo_traits = _geo_traits(names, n_geo, rng)
    tcga_sizes = loguniform_sizes(n_tcga, shape.tcga_samples)
    geo_sizes = lognormal_sizes(n_geo, shape.mean_samples * shape.n_cohorts - sum(tcga_sizes),
                                shape.geo_samples, shape.geo_sigma)
    geo_sizes = [geo_sizes[k] for k in rng.permutation(n_geo)]
    platforms = _platform_sequence(shape, n_geo, rng)
    cohorts: List[Dict[str, Any]] = []
    gsm_start = 30_000_000
    for k, (trait, n, platform) in enumerate(zip(geo_traits, geo_sizes, platforms)):
        kind = traits[trait].get("kind", "binary")
        cohorts.append(_geo_cohort(trait, kind, 9_300_001 + k, n, platform, gsm_start, rng))
        gsm_start += n
    for k, (trait, n) in enumerate(zip(tcga_traits, rng.permutation(tcga_sizes).tolist())):
        cohorts.append(_tcga_cohort(trait, _tcga_code(k), int(n),
                                    coverage(shape.tcga_genes, shape.universe, protected), rng))
    cohorts = [cohorts[k] for k in rng.permutation(len(cohorts))]
    mapping = {
        "seed": seed,
        "description": "full-size preset: the shape of the GenoTEX benchmark (synthetic)",
        "genes": {"known_per_trait": 10**9, "random_background": background},
        "traits": traits,
        "platforms": {p.id: _platform_entry(p, coverage(p.genes, shape.universe, protected))
                      for p in shape.platforms},
        "cohorts": cohorts}
    return plan_from_mapping(mapping, "<preset>")


def _geo_traits(names: Sequence[str], count: int, rng: np.random.Generator) -> List[str]:
    """Trait of every GEO series: each trait at least one, the rest skewed (Zipf-like)."""
    weights = 1.0 / np.arange(1, len(names) + 1) ** 0.8
    order = rng.permutation(len(names))
    extra = rng.choice(len(names), count - len(names), p=weights / weights.sum())
    picks = list(range(len(names))) + extra.tolist()
    return [names[order[i]] for i in picks]


def _platform_sequence(shape: BenchmarkShape, count: int, rng: np.random.Generator
                       ) -> List[ArrayPlatform]:
    """Platforms in the shape's shares (exact counts, seeded order)."""
    counts = [int(round(p.share * count)) for p in shape.platforms]
    counts[0] += count - sum(counts)
    sequence = [p for p, c in zip(shape.platforms, counts) for _ in range(c)]
    return [sequence[k] for k in rng.permutation(count)]


def _platform_entry(platform: ArrayPlatform, share: float) -> Dict[str, Any]:
    entry: Dict[str, Any] = {"style": platform.style, "coverage": round(share, 6),
                             "title": f"Synthetic {platform.style} platform, "
                                      f"{platform.probes or platform.genes:,} "
                                      f"{'probes' if platform.probes else 'genes'}"}
    if platform.probes:
        multi = 0.03 if platform.style == "affymetrix" else 0.0
        entry["probes_per_gene"] = round(max(1.0, (platform.probes - 12) / platform.genes
                                             - multi), 3)
        entry["multi_gene_fraction"] = multi
    return entry


def subset_plan(plan: Plan, n_cohorts: Optional[int]) -> Plan:
    """The first ``n_cohorts`` cohorts (a random sample: the order is seeded).

    Traits and platforms stay, so the gene universe, the planted genes and the
    probe designs, hence every file of a kept cohort, are those of the whole
    preset.
    """
    if n_cohorts is None or n_cohorts >= len(plan.cohorts):
        return plan
    if n_cohorts < 1:
        raise ValueError("--cohorts must be at least 1")
    return replace(plan, cohorts=plan.cohorts[:n_cohorts])


def plan_statistics(plan: Plan) -> Dict[str, Any]:
    """Counts and sizes of a plan's cohorts (what the preset promises)."""
    sizes = [c.n_samples for c in plan.cohorts]
    tcga = [c.n_samples for c in plan.cohorts if c.source == "tcga"]
    by_platform: Dict[str, int] = {}
    for c in plan.cohorts:
        if c.source == "geo":
            by_platform[c.platform] = by_platform.get(c.platform, 0) + 1
    return {"cohorts": len(sizes), "traits": len({c.trait for c in plan.cohorts}),
            "plan_traits": len(plan.traits),
            "tcga": len(tcga), "geo": len(sizes) - len(tcga),
            "samples": sum(sizes), "mean_samples": sum(sizes) / max(1, len(sizes)),
            "tcga_samples": (min(tcga), max(tcga)) if tcga else None,
            "geo_by_platform": dict(sorted(by_platform.items()))}
