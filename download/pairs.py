"""Trait-condition pair selection (SPEC 8.4).

Every ordered pair (trait, condition) with the condition among the other
entities, ``Age`` and ``Gender``, filtered by these rules:

1. Condition-only entities (``Vitamin_D_Levels``, ``LDL_Cholesterol_Levels``)
   are never traits (they keep an entry with no conditions).
2. ``Age`` is a condition of every trait; ``Gender`` of every trait that is not
   sex-specific.
3. ``Obesity`` and ``Hypertension`` are conditions of every other trait.
4. A male-specific and a female-specific entity never pair.
5. No cancer x cancer pairs (the committed list ``utils/data/cancer_traits.txt``).
6. Any other pair is kept when the Jaccard index of the two related-gene sets
   reaches the threshold (paper 0.1; the upstream notebook used 0.2).

The comparison is exact (rational arithmetic) and inclusive by default
(``J >= threshold``): the real benchmark keeps the pairs whose Jaccard index is
exactly 0.1 (Chronic_kidney_disease / Congestive_heart_failure, 24/240), so the inclusive
rule reproduces its 1,252 conditions; ``inclusive=False`` gives the strict
"exceeds" reading. Each trait's list is ``Age``, ``Gender``, then the other
conditions by decreasing Jaccard index (ties by name).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Dict, FrozenSet, Iterable, List, Mapping, Sequence, Tuple

from download.defaults import PAPER_THRESHOLD
from utils.columns import AGE, GENDER
from utils.tcga_cohorts import read_cancer_traits

CONDITION_ONLY = frozenset({"Vitamin_D_Levels", "LDL_Cholesterol_Levels"})
UNIVERSAL_CONDITIONS = frozenset({"Obesity", "Hypertension"})
MALE_SPECIFIC = frozenset({"Prostate_Cancer", "Testicular_Cancer"})
FEMALE_SPECIFIC = frozenset({"Cervical_Cancer", "Endometriosis", "Endometrioid_Cancer",
                             "Uterine_Carcinosarcoma", "Uterine_Corpus_Endometrial_Carcinoma",
                             "Ovarian_Cancer", "Polycystic_Ovary_Syndrome"})
UPSTREAM_THRESHOLD = 0.2


@dataclass(frozen=True)
class PairRules:
    """Parameters of the pair rules; the defaults are SPEC 8.4 with the paper's threshold.

    Attributes
    ----------
    threshold : float
        Minimum Jaccard index of the related-gene sets.
    inclusive : bool
        ``J >= threshold`` when True (default), ``J > threshold`` when False.
    cancers : frozenset of str
        Traits that are cancers (default: ``utils/data/cancer_traits.txt``).
    """

    threshold: float = PAPER_THRESHOLD
    inclusive: bool = True
    cancers: FrozenSet[str] = field(default_factory=lambda: frozenset(read_cancer_traits()))
    condition_only: FrozenSet[str] = CONDITION_ONLY
    universal: FrozenSet[str] = UNIVERSAL_CONDITIONS
    male: FrozenSet[str] = MALE_SPECIFIC
    female: FrozenSet[str] = FEMALE_SPECIFIC

    def sex(self, entity: str) -> str:
        """``"male"``, ``"female"`` or ``""`` (not sex-specific)."""
        if entity in self.male:
            return "male"
        if entity in self.female:
            return "female"
        return ""

    def passes(self, overlap: int, union: int) -> bool:
        """Exact test of ``overlap / union`` against the threshold (empty union -> 0).

        The threshold is read as the decimal it is written as (0.1 is 1/10), and
        the test is done in integers: ``overlap * q >= p * union`` for ``p/q``.
        """
        limit = Fraction(str(self.threshold))
        union = union or 1  # two empty sets: J = 0
        left, right = overlap * limit.denominator, limit.numerator * union
        return left >= right if self.inclusive else left > right


def jaccard(first: FrozenSet[str], second: FrozenSet[str]) -> float:
    """Jaccard index of two sets (0 when both are empty)."""
    union = len(first | second)
    return len(first & second) / union if union else 0.0


def pair_allowed(trait: str, condition: str, genes: Mapping[str, FrozenSet[str]],
                 rules: PairRules) -> bool:
    """True when ``(trait, condition)`` survives rules 3-6 (both are entities)."""
    if trait == condition:
        return False
    sexes = {rules.sex(trait), rules.sex(condition)} - {""}
    if len(sexes) > 1:
        return False
    if condition in rules.universal:
        return True
    if trait in rules.cancers and condition in rules.cancers:
        return False
    first, second = genes[trait], genes[condition]
    overlap = len(first & second)
    return rules.passes(overlap, len(first) + len(second) - overlap)


def select_conditions(related_genes: Mapping[str, Sequence[str]],
                      rules: PairRules = None) -> Dict[str, List[str]]:
    """Conditions of every entity, in the stored order described in the module docstring.

    Parameters
    ----------
    related_genes : mapping
        ``{entity: related gene symbols}`` for every trait and condition-only entity.
    rules : PairRules, optional

    Returns
    -------
    dict
        ``{entity: [conditions]}`` in sorted entity order; condition-only entities
        map to ``[]``.
    """
    rules = rules or PairRules()
    genes = {name: frozenset(symbols) for name, symbols in related_genes.items()}
    entities = sorted(genes)
    result: Dict[str, List[str]] = {}
    for trait in entities:
        if trait in rules.condition_only:
            result[trait] = []
            continue
        others = [c for c in entities if pair_allowed(trait, c, genes, rules)]
        others.sort(key=lambda c: (-jaccard(genes[trait], genes[c]), c))
        demographic = [AGE] if rules.sex(trait) else [AGE, GENDER]
        result[trait] = demographic + others
    return result


def build_task_info(related_genes: Mapping[str, Sequence[str]],
                    rules: PairRules = None) -> Dict[str, Dict[str, List[str]]]:
    """``{trait: {"related_genes": [...], "conditions": [...]}}`` for every entity."""
    conditions = select_conditions(related_genes, rules)
    return {trait: {"related_genes": list(related_genes[trait]),
                    "conditions": conditions[trait]} for trait in conditions}


@dataclass(frozen=True)
class PairComparison:
    """How a computed condition set compares with a reference one.

    Attributes
    ----------
    reference, predicted, reproduced : int
        Sizes of the reference set, the computed set and their intersection.
    """

    reference: int
    predicted: int
    reproduced: int

    @property
    def extra(self) -> int:
        """Computed pairs absent from the reference."""
        return self.predicted - self.reproduced

    @property
    def missing(self) -> int:
        """Reference pairs not computed."""
        return self.reference - self.reproduced

    @property
    def recall(self) -> float:
        """Share of the reference reproduced."""
        return self.reproduced / self.reference if self.reference else 1.0

    @property
    def precision(self) -> float:
        """Share of the computed pairs that are in the reference."""
        return self.reproduced / self.predicted if self.predicted else 1.0


def pair_set(conditions: Mapping[str, Iterable[str]]) -> set:
    """``{(trait, condition)}`` of a ``{trait: conditions}`` mapping."""
    return {(trait, c) for trait, conds in conditions.items() for c in conds}


def compare_conditions(predicted: Mapping[str, Iterable[str]],
                       reference: Mapping[str, Iterable[str]]) -> PairComparison:
    """Compare two ``{trait: conditions}`` mappings as sets of ordered pairs."""
    ours, theirs = pair_set(predicted), pair_set(reference)
    return PairComparison(len(theirs), len(ours), len(ours & theirs))


def threshold_sweep(related_genes: Mapping[str, Sequence[str]],
                    reference: Mapping[str, Iterable[str]], thresholds: Sequence[float],
                    rules: PairRules = None) -> List[Tuple[float, PairComparison]]:
    """Reproduction of ``reference`` for each threshold (other rules from ``rules``)."""
    base = rules or PairRules()
    rows = []
    for threshold in thresholds:
        chosen = select_conditions(related_genes, replace(base, threshold=threshold))
        rows.append((threshold, compare_conditions(chosen, reference)))
    return rows


def format_sweep(rows: Sequence[Tuple[float, PairComparison]]) -> str:
    """Markdown table of a sweep."""
    lines = ["| threshold | conditions | reproduced | recall | extra | precision |",
             "|---|---|---|---|---|---|"]
    for threshold, cmp in rows:
        lines.append(f"| {threshold:g} | {cmp.predicted} | {cmp.reproduced} / "
                     f"{cmp.reference} | {100 * cmp.recall:.1f}% | {cmp.extra} | "
                     f"{100 * cmp.precision:.1f}% |")
    return "\n".join(lines)
