"""The planted statistical model behind every synthetic cohort.

For a cohort with genes ``g`` and samples ``i`` the log2 expression is

    x[g, i] = mu[g] + offset[g] + e[g, i] + a[g] * age_z[i] + m[g] * male[i] + shift[b[i], g]

* ``e[g, i] = sigma[g] * (sqrt(1 - l[g]^2) * z[g, i] + l[g] * F[module(g), i])`` is
  biological variation (``z`` standard normal noise, ``F`` a few latent
  co-expression modules); ``mu``, ``sigma`` and the modules belong to the gene
  and are the same in every cohort.
* ``a`` / ``m`` are non-zero for a few Age genes / Gender genes (sex-chromosome
  genes have large ``m``); the same genes in every cohort.
* ``shift`` is a technical batch effect (cohorts with ``batch``), independent of
  the trait.

The trait depends on the planted genes (SPEC: the regression direction), on Age
and on Gender through a liability

    L[i] = sum_g beta[g] * e[g, i] / sigma[g] + gamma_age * age_z[i]
           + gamma_gender * male[i] + tau * eps[i]

Binary traits: the ``k`` samples with the largest liability are cases (so the
case count is exact). Continuous traits: ``mean + sd * L / sd_theory(L)``.

Every random draw comes from a stream named after what it draws (gene profile,
trait, cohort), so adding a cohort to a plan never changes another cohort.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from genotex.synthetic.genes import GeneCatalog
from genotex.synthetic.rng import stream
from genotex.synthetic.spec import CohortPlan, Plan, TraitPlan

AGE_CENTRE = 50.0
AGE_SCALE = 15.0
MISSING_SHARE = 0.35  # share of cells missing in a "missing gene" / "missing sample"
BATCH_GAP_CONSTANT = 200.0  # SPEC 5.3: a gap larger than 200 / n means a batch effect
BATCH_MARGIN = 0.02  # calibrated batch effects clear the SPEC 5.3 threshold by this much
BATCH_GROWTH = 1.5
BATCH_MAX_STEPS = 12


@dataclass(frozen=True)
class GeneProfile:
    """Per-gene parameters shared by all cohorts.

    Attributes
    ----------
    mean, sd : dict
        Baseline log2 level and biological SD.
    module, loading : dict
        Latent module index (-1: none) and loading on it.
    """

    mean: Mapping[str, float]
    sd: Mapping[str, float]
    module: Mapping[str, int]
    loading: Mapping[str, float]


@dataclass(frozen=True)
class TraitModel:
    """Planted genes and covariate effects of one trait.

    Attributes
    ----------
    plan : TraitPlan
    planted : dict
        Gene -> effect on the liability per SD (largest |effect| first).
    known, novel : tuple of str
        Planted genes among / outside the trait's related genes.
    """

    plan: TraitPlan
    planted: Mapping[str, float]
    known: Tuple[str, ...]
    novel: Tuple[str, ...]


@dataclass(frozen=True)
class Biology:
    """Everything shared across cohorts: gene profiles, covariate genes, traits."""

    profile: GeneProfile
    age_genes: Mapping[str, float]
    gender_genes: Mapping[str, float]
    traits: Mapping[str, TraitModel]
    n_modules: int


@dataclass
class CohortData:
    """Simulated values of one cohort (before any file formatting).

    Attributes
    ----------
    genes : list of str
        Official symbols (rows of ``expression``).
    expression : ndarray, shape (n_genes, n_samples)
        Log2 expression; NaN marks a missing cell.
    trait : ndarray
        True trait value per sample (NaN: no label by design, e.g. TCGA controls).
    trait_observed : ndarray of bool
        False where the files do not record the trait of a labelled sample.
    age : ndarray
        Age in whole years.
    male : ndarray of int
        1 male, 0 female.
    age_observed, gender_observed : ndarray of bool
    batch : ndarray of int
        Batch index (all 0 without a batch effect).
    batch_factor : float
        Multiplier the calibration applied to the planted batch shifts.
    planted : dict
        Planted genes of the cohort -> effect.
    missing_genes, missing_samples : list
        Genes and sample positions with heavy missingness.
    """

    genes: List[str]
    expression: np.ndarray
    trait: np.ndarray
    trait_observed: np.ndarray
    age: np.ndarray
    male: np.ndarray
    age_observed: np.ndarray
    gender_observed: np.ndarray
    batch: np.ndarray
    planted: Dict[str, float]
    batch_factor: float = 1.0
    missing_genes: List[str] = field(default_factory=list)
    missing_samples: List[int] = field(default_factory=list)

    @property
    def n_samples(self) -> int:
        """Number of samples."""
        return self.expression.shape[1]


# --------------------------------------------------------------------------- shared biology

def gene_profile(universe: Sequence[str], sex_genes: Sequence[str], n_modules: int,
                 seed: int) -> GeneProfile:
    """Draw baseline level, SD and module membership of every gene."""
    rng = stream(seed, "gene-profile")
    n = len(universe)
    means = np.clip(rng.normal(7.5, 1.8, n), 3.0, 13.0)
    sds = np.clip(rng.lognormal(np.log(0.45), 0.35, n), 0.15, 1.5)
    modules = np.where(rng.random(n) < 0.3, rng.integers(0, max(n_modules, 1), n), -1)
    if n_modules == 0:
        modules[:] = -1
    loadings = rng.uniform(0.3, 0.7, n)
    mean = {g: round(float(v), 3) for g, v in zip(universe, means)}
    for gene in sex_genes:
        # XIST is high in females; Y-chromosome genes are near background in females.
        mean[gene] = 9.5 if gene == "XIST" else 3.0
    return GeneProfile(
        mean=mean,
        sd={g: round(float(v), 3) for g, v in zip(universe, sds)},
        module={g: int(m) for g, m in zip(universe, modules)},
        loading={g: (round(float(v), 3) if m >= 0 else 0.0)
                 for g, v, m in zip(universe, loadings, modules)})


def plant_trait(trait: TraitPlan, catalog: GeneCatalog, excluded: Sequence[str],
                seed: int) -> TraitModel:
    """Choose the planted genes of a trait and their effects.

    Known planted genes are drawn from the trait's related genes in the
    universe; novel ones from background genes not in ``excluded``.
    """
    rng = stream(seed, "trait", trait.name)
    related = list(catalog.related.get(trait.name, ()))
    if trait.planted:
        genes = list(trait.planted)
    else:
        if trait.n_known > len(related):
            raise ValueError(f"trait {trait.name}: n_known={trait.n_known} but only "
                             f"{len(related)} related genes are in the universe")
        excluded_set = set(excluded)
        pool = [g for g in catalog.background if g not in excluded_set]
        if trait.n_novel > len(pool):
            raise ValueError(f"trait {trait.name}: n_novel={trait.n_novel} but only "
                             f"{len(pool)} background genes are free")
        known = [related[i] for i in sorted(rng.choice(len(related), trait.n_known,
                                                       replace=False))]
        novel = [pool[i] for i in sorted(rng.choice(len(pool), trait.n_novel,
                                                    replace=False))]
        genes = known + novel
    low, high = trait.effect_range
    sizes = np.sort(rng.uniform(low, high, len(genes)))[::-1]
    signs = rng.choice([-1.0, 1.0], len(genes))
    order = rng.permutation(len(genes))  # which gene gets which (sorted) size
    planted = {genes[j]: round(float(signs[k] * sizes[k]), 3)
               for k, j in enumerate(order)}
    planted = dict(sorted(planted.items(), key=lambda kv: -abs(kv[1])))
    related_set = set(related)
    return TraitModel(plan=trait, planted=planted,
                      known=tuple(g for g in planted if g in related_set),
                      novel=tuple(g for g in planted if g not in related_set))


def covariate_genes(catalog: GeneCatalog, excluded: Sequence[str], n_age: int,
                    n_gender: int, profile: GeneProfile, seed: int
                    ) -> Tuple[Dict[str, float], Dict[str, float]]:
    """Age genes and Gender genes with their effects (log2 per SD / male vs female)."""
    rng = stream(seed, "covariate-genes")
    excluded_set = set(excluded)
    pool = [g for g in catalog.background if g not in excluded_set]
    take = min(len(pool), n_age + n_gender)
    chosen = [pool[i] for i in rng.choice(len(pool), take, replace=False)]
    signs = rng.choice([-1.0, 1.0], take)
    sizes = rng.uniform(0.5, 1.0, take)
    age = {g: round(float(s * z * profile.sd[g]), 3)
           for g, s, z in zip(chosen[:n_age], signs[:n_age], sizes[:n_age])}
    gender = {g: round(float(s * z * 1.5 * profile.sd[g]), 3)
              for g, s, z in zip(chosen[n_age:], signs[n_age:], sizes[n_age:])}
    for gene in catalog.sex_genes:
        gender[gene] = -5.5 if gene == "XIST" else 6.0
    return age, gender


def build_biology(plan: Plan, catalog: GeneCatalog) -> Biology:
    """Draw the shared biology of a plan: profiles, planted traits, covariate genes."""
    profile = gene_profile(catalog.universe, catalog.sex_genes, plan.genes.n_modules,
                           plan.seed)
    traits: Dict[str, TraitModel] = {}
    taken: List[str] = list(catalog.sex_genes)
    for name in sorted(plan.traits):
        model = plant_trait(plan.traits[name], catalog, taken, plan.seed)
        traits[name] = model
        taken.extend(model.novel)
    planted_all = [g for m in traits.values() for g in m.planted]
    age, gender = covariate_genes(catalog, planted_all + list(catalog.sex_genes),
                                  plan.genes.n_age_genes, plan.genes.n_gender_genes,
                                  profile, plan.seed)
    return Biology(profile=profile, age_genes=age, gender_genes=gender, traits=traits,
                   n_modules=plan.genes.n_modules)


# --------------------------------------------------------------------------- one cohort

def draw_clinical(cohort: CohortPlan, trait: TraitPlan, n: int, rng: np.random.Generator
                  ) -> Tuple[np.ndarray, np.ndarray]:
    """Ages (whole years, 18-90) and sexes (1 male) of ``n`` subjects."""
    age = np.clip(np.rint(rng.normal(cohort.age_mean, cohort.age_sd, n)), 18, 90)
    if trait.sex is not None:
        male = np.full(n, 1 if trait.sex == "male" else 0)
    else:
        male = (rng.random(n) >= cohort.female_fraction).astype(int)
    return age, male


def _liability(trait: TraitModel, genes: Sequence[str], standardized: np.ndarray,
               age_z: np.ndarray, male: np.ndarray, rng: np.random.Generator
               ) -> Tuple[np.ndarray, float]:
    index = {g: k for k, g in enumerate(genes)}
    liability = np.zeros(standardized.shape[1])
    variance = 0.0
    for gene, beta in trait.planted.items():
        if gene in index:
            liability += beta * standardized[index[gene]]
            variance += beta ** 2
    plan = trait.plan
    liability += plan.age_effect * age_z + plan.gender_effect * male
    liability += plan.noise * rng.standard_normal(liability.size)
    variance += plan.age_effect ** 2 + 0.25 * plan.gender_effect ** 2 + plan.noise ** 2
    return liability, float(np.sqrt(variance))


def _labels(cohort: CohortPlan, trait: TraitModel, liability: np.ndarray, scale: float,
            labelled: np.ndarray) -> np.ndarray:
    values = np.full(liability.size, np.nan)
    if trait.plan.kind == "continuous":
        raw = trait.plan.mean + trait.plan.sd * liability / scale
        values[labelled] = np.round(raw[labelled], trait.plan.decimals)
        return values
    positions = np.flatnonzero(labelled)
    k = (cohort.n_cases if cohort.n_cases is not None
         else int(round(cohort.case_fraction * positions.size)))
    order = positions[np.argsort(-liability[positions], kind="stable")]
    values[positions] = 0.0
    values[order[:k]] = 1.0
    return values


def _plant_missing(cohort: CohortPlan, data: CohortData, protected: set,
                   rng: np.random.Generator) -> None:
    x = data.expression
    n_genes, n = x.shape
    if cohort.missing_rate > 0:
        x[rng.random(x.shape) < cohort.missing_rate] = np.nan
    candidates = [k for k, g in enumerate(data.genes) if g not in protected]
    if cohort.missing_genes:
        rows = sorted(rng.choice(candidates, min(cohort.missing_genes, len(candidates)),
                                 replace=False))
        for row in rows:
            x[row, rng.random(n) < MISSING_SHARE] = np.nan
        data.missing_genes = [data.genes[r] for r in rows]
    if cohort.missing_samples:
        cols = sorted(rng.choice(n, cohort.missing_samples, replace=False))
        for col in cols:
            x[rng.random(n_genes) < MISSING_SHARE, col] = np.nan
        data.missing_samples = [int(c) for c in cols]


def largest_eigen_gap(x: np.ndarray) -> float:
    """Largest gap between consecutive normalized top-10 eigenvalues (SPEC 5.3).

    ``x`` is samples x genes; columns are centred, eigenvalues of ``X X^T`` are
    divided by the largest.
    """
    centred = x - x.mean(axis=0)
    values = np.sort(np.linalg.eigvalsh(centred @ centred.T))[::-1][:10]
    if values[0] <= 0:
        return 0.0
    values = values / values[0]
    return float(np.max(values[:-1] - values[1:]))


def calibrate_batch(base: np.ndarray, shifts: np.ndarray, written: str = "log2") -> float:
    """Smallest factor (1, 1.5, 1.5^2, ...) making the batch detectable.

    Parameters
    ----------
    base : ndarray, shape (genes, samples)
        Log2 expression without the batch shifts.
    shifts : ndarray, shape (genes, samples)
        Planted batch shift of every cell.
    written : str
        Scale of the written values (``log2``; ``linear`` / ``counts`` are
        checked on ``2**x``), because SPEC 5.3 looks at the raw gene matrix.

    Returns
    -------
    float
        The factor; 1.0 when the rule cannot fire (200/n + margin >= 1 exceeds
        every normalized gap, i.e. about 204 samples or fewer) or never fires
        within the cap.
    """
    n = base.shape[1]
    threshold = BATCH_GAP_CONSTANT / n + BATCH_MARGIN
    if threshold >= 1.0:
        return 1.0
    factor = 1.0
    for _ in range(BATCH_MAX_STEPS):
        values = base + factor * shifts
        if written != "log2":
            values = np.exp2(values)
        if largest_eigen_gap(values.T) > threshold:
            return factor
        factor *= BATCH_GROWTH
    return 1.0


def simulate_cohort(cohort: CohortPlan, genes: Sequence[str], biology: Biology,
                    seed: int, n_unlabelled: int = 0, written: str = "log2") -> CohortData:
    """Simulate one cohort.

    Parameters
    ----------
    cohort : CohortPlan
    genes : sequence of str
        Genes measured in the cohort (official symbols, universe members).
    biology : Biology
    seed : int
        The plan seed.
    n_unlabelled : int
        Samples (placed last) that get no trait label by design.
    written : str
        Scale the values will be written in (used to calibrate a batch effect).

    Returns
    -------
    CohortData
    """
    rng = stream(seed, "cohort", cohort.key)
    trait = biology.traits[cohort.trait]
    profile = biology.profile
    n, p = cohort.n_samples, len(genes)
    age, male = draw_clinical(cohort, trait.plan, n, rng)
    age_z = (age - AGE_CENTRE) / AGE_SCALE
    sd = np.array([profile.sd[g] for g in genes])
    loading = np.array([profile.loading[g] for g in genes])
    module = np.array([profile.module[g] for g in genes])
    factors = rng.standard_normal((max(biology.n_modules, 1), n))
    noise = rng.standard_normal((p, n))
    shared = np.where(module[:, None] >= 0, factors[np.maximum(module, 0)], 0.0)
    standardized = np.sqrt(1 - loading[:, None] ** 2) * noise + loading[:, None] * shared
    offset = rng.normal(0.0, 0.25, p)
    x = (np.array([profile.mean[g] for g in genes]) + offset)[:, None] + sd[:, None] * standardized
    x += np.array([biology.age_genes.get(g, 0.0) for g in genes])[:, None] * age_z
    x += np.array([biology.gender_genes.get(g, 0.0) for g in genes])[:, None] * male
    batch = np.zeros(n, dtype=int)
    factor = 1.0
    if cohort.batch:
        batch = rng.permutation(np.arange(n) % cohort.n_batches)
        hit = rng.random(p) < cohort.batch_fraction
        shifts = rng.normal(0.0, cohort.batch_strength, (cohort.n_batches, p)) * hit
        shifts[0] = 0.0
        cells = shifts[batch].T
        factor = calibrate_batch(x, cells, written) if cohort.batch_detectable else 1.0
        x += factor * cells
    liability, scale = _liability(trait, genes, standardized, age_z, male, rng)
    labelled = np.ones(n, dtype=bool)
    if n_unlabelled:
        labelled[n - n_unlabelled:] = False
    values = (_labels(cohort, trait, liability, scale, labelled) if cohort.has_trait
              else np.full(n, np.nan))
    present = set(genes)
    data = CohortData(
        genes=list(genes), expression=x, trait=values,
        trait_observed=np.isfinite(values), age=age, male=male,
        age_observed=np.full(n, cohort.has_age), gender_observed=np.full(n, cohort.has_gender),
        batch=batch, batch_factor=factor,
        planted={g: b for g, b in trait.planted.items() if g in present}
        if cohort.has_trait else {})
    _hide(data.trait_observed, cohort.trait_missing, rng)
    if cohort.has_age:
        _hide(data.age_observed, cohort.age_missing, rng)
    if cohort.has_gender:
        _hide(data.gender_observed, cohort.gender_missing, rng)
    protected = set(trait.planted) | set(biology.gender_genes) | set(biology.age_genes)
    _plant_missing(cohort, data, protected, rng)
    return data


def _hide(observed: np.ndarray, count: int, rng: np.random.Generator) -> None:
    """Mark ``count`` currently observed positions as not recorded."""
    positions = np.flatnonzero(observed)
    if count and positions.size:
        observed[rng.choice(positions, min(count, positions.size), replace=False)] = False


def simulate_background(genes: Sequence[str], n: int, profile: Optional[GeneProfile],
                        rng: np.random.Generator) -> np.ndarray:
    """Log2 expression of samples with no planted structure (e.g. another species)."""
    means = np.array([profile.mean.get(g, 7.0) for g in genes]) if profile else \
        rng.normal(7.5, 1.8, len(genes))
    return means[:, None] + rng.normal(0, 0.5, (len(genes), n))
