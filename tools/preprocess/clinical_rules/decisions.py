"""The clinical decisions of a series with a confidence and their evidence.

:func:`decide_clinical_rows` answers the three questions of the clinical step
(which row holds the trait, the age, the sex) and says, for each answer, how
sure the rules are (a confidence between 0 and 1), why (the key, the words of
the lexicon that matched, the convention that applied) and which other rows
came close; for the trait row it also converts each distinct value and says
by which convention. Other methods read it: GenoAgent's Domain Expert gets
:meth:`ClinicalDecisions.describe` in its prompt, and the ``rules`` method
records :meth:`ClinicalDecisions.low_confidence` in the cohort's note.

Confidence of the trait row: the probability the ranking gives the chosen
alternative (:mod:`.ranker`). Confidence of the age and sex rows: fixed by
how the row was recognised (:data:`AGE_SEX_CONFIDENCE`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from tools.preprocess.clinical_rules.evidence import background_level
from tools.preprocess.clinical_rules.features import dominant_key
from tools.preprocess.clinical_rules.ranker import (Alternative, RowModel, alternatives,
                                                   best_alternative, load_row_model,
                                                   score_alternatives)
from tools.preprocess.clinical_rules.row_scores import (best_sex_row, choose_age_row,
                                                  choose_gender_row, mixes_keys,
                                                  one_sex_rows, present_cells)
from tools.preprocess.clinical_rules.values import row_conversions

#: Below this confidence a decision is "low confidence" (noted, hinted).
LOW_CONFIDENCE = 0.6
#: Confidence of an age / sex decision by how it was taken.
AGE_SEX_CONFIDENCE = {
    "plain key": 0.95,          # "age: 49" / "Sex: F" in most cells
    "qualified key": 0.85,      # "age at death", mixed rows, cells like "60F"
    "keyless": 0.7,             # values without key ("49 y", "female")
    "constant sex": 0.55,       # one sex for every sample (the convention is close)
    "none found": 0.95,         # no row looks like it
    "none constant": 0.6,       # only a constant (one-sex) row looked like it
}
FEATURES = ("trait", "age", "gender")


@dataclass(frozen=True)
class RowDecision:
    """One answer of the clinical step.

    Attributes
    ----------
    feature : str
        ``trait``, ``age`` or ``gender``.
    row : object or None
        The chosen row (None: not available).
    confidence : float
        How sure the rules are (0-1).
    evidence : tuple of str
        Why: the key, the lexicon entries that matched, the convention used.
    alternatives : tuple of (row, probability)
        The other candidates, best first (trait: probabilities of the
        ranking; age / sex: the candidates the rules saw, probability None).
    values : tuple of (cell, value, rule)
        For the trait row: each distinct value, its conversion and the
        convention that decided it.
    """

    feature: str
    row: Any
    confidence: float
    evidence: Tuple[str, ...] = ()
    alternatives: Tuple[Tuple[Any, Optional[float]], ...] = ()
    values: Tuple[Tuple[str, Optional[float], str], ...] = ()

    @property
    def low_confidence(self) -> bool:
        """Whether the confidence is under :data:`LOW_CONFIDENCE`."""
        return self.confidence < LOW_CONFIDENCE

    def as_dict(self) -> Dict[str, Any]:
        """A JSON-friendly dictionary."""
        return {"feature": self.feature, "row": self.row,
                "confidence": round(self.confidence, 3), "evidence": list(self.evidence),
                "alternatives": [[r, None if p is None else round(p, 3)]
                                 for r, p in self.alternatives],
                "values": [list(v) for v in self.values]}


@dataclass(frozen=True)
class ClinicalDecisions:
    """The three decisions of a series (:func:`decide_clinical_rows`)."""

    trait: str
    decisions: Tuple[RowDecision, ...]
    characteristics: Mapping[Any, Sequence[Any]] = field(default_factory=dict, repr=False)

    def get(self, feature: str) -> RowDecision:
        """The decision of ``trait``, ``age`` or ``gender``."""
        for decision in self.decisions:
            if decision.feature == feature:
                return decision
        raise KeyError(feature)

    def rows(self) -> Dict[str, Any]:
        """``{"trait_row", "age_row", "gender_row"}`` (the contract's answer)."""
        return {f"{d.feature}_row": d.row for d in self.decisions}

    def low_confidence(self) -> List[RowDecision]:
        """The decisions under :data:`LOW_CONFIDENCE`."""
        return [d for d in self.decisions if d.low_confidence]

    def note(self) -> str:
        """One line naming the low-confidence decisions ("" when there are none)."""
        parts = []
        for d in self.low_confidence():
            second = next((r for r, _ in d.alternatives if r != d.row), "none")
            parts.append(f"{d.feature} row {d.row} (confidence {d.confidence:.2f}, "
                         f"next {second})")
        return ("low-confidence clinical decisions (characteristics rows): "
                + "; ".join(parts)) if parts else ""

    def describe(self, max_values: int = 8) -> str:
        """The decisions as text for a reader (an LLM agent's prompt).

        Each decision: the row and its first values, the confidence, the
        evidence, the runners-up; for the trait row, how its values convert.
        """
        lines = [f"Rule-based proposal for the trait {self.trait} (a hint, not ground "
                 "truth; rows are numbers of the characteristics table):"]
        for d in self.decisions:
            shown = _row_preview(self.characteristics, d.row)
            flag = " LOW CONFIDENCE" if d.low_confidence else ""
            lines.append(f"- {d.feature}_row = {d.row}{shown} (confidence "
                         f"{d.confidence:.2f}{flag})")
            if d.evidence:
                lines.append("  evidence: " + "; ".join(d.evidence))
            others = [(r, p) for r, p in d.alternatives if r != d.row][:3]
            if others:
                lines.append("  alternatives: " + ", ".join(
                    f"{r}" + ("" if p is None else f" ({p:.2f})") for r, p in others))
            for cell, value, rule in d.values[:max_values]:
                lines.append(f"  {cell!r} -> {value} ({rule})")
            if len(d.values) > max_values:
                lines.append(f"  ... {len(d.values) - max_values} more values")
        return "\n".join(lines)

    def as_dict(self) -> Dict[str, Any]:
        """A JSON-friendly dictionary."""
        return {"trait": self.trait, "decisions": [d.as_dict() for d in self.decisions]}


def _row_preview(characteristics: Mapping[Any, Sequence[Any]], row: Any, n: int = 3) -> str:
    if row is None or row not in characteristics:
        return ""
    cells = [str(c) for c in present_cells(characteristics[row])][:n]
    return f" [{'; '.join(cells)}{' ...' if len(present_cells(characteristics[row])) > n else ''}]"


def _age_sex_decision(feature: str, characteristics: Mapping[Any, Sequence[Any]], row: Any,
                      scores: Mapping[Any, Any]) -> RowDecision:
    others = tuple((r, None) for r in scores if r != row)
    if row is None:
        kind = "none constant" if scores else "none found"
        evidence = ("only rows where every sample is the same" if scores and feature == "age"
                    else _left_out_sex(characteristics, scores) if scores
                    else "no row of parseable ages" if feature == "age"
                    else "no row of parseable sexes",)
        return RowDecision(feature, None, AGE_SEX_CONFIDENCE[kind], evidence, others)
    values = characteristics[row]
    key, n_keys = dominant_key(values)
    score = scores.get(row)
    if feature == "gender" and row in one_sex_rows(characteristics, list(scores)):
        kind, reason = "constant sex", "one sex for every sample"
    elif not key:
        kind, reason = "keyless", "values parse without a key"
    elif n_keys >= 2 or (feature == "age" and score is not None and score[0] < 3):
        kind, reason = "qualified key", f"key '{key}'" + (" (row mixes keys)"
                                                           if n_keys >= 2 else "")
    else:
        kind, reason = "plain key", f"key '{key}'"
    return RowDecision(feature, row, AGE_SEX_CONFIDENCE[kind], (reason,), others)


def _left_out_sex(characteristics: Mapping[Any, Sequence[Any]],
                  scores: Mapping[Any, Any]) -> str:
    """Why the rows naming one sex were left out (:func:`.row_scores.keeps_one_sex_row`)."""
    if any(not mixes_keys(characteristics[r]) for r in scores):
        return ("only a row where every sample has the same sex, beside an age row, and "
                "neither the trait nor the series text explains the single sex")
    return "only rows mixing keys that name one sex (the sex of one group of samples)"


def _trait_decision(characteristics: Mapping[Any, Sequence[Any]], trait: str,
                    background: str, exclude: Sequence[Any], model: RowModel) -> RowDecision:
    options = alternatives(characteristics, trait, background, exclude,
                           background_level(background, trait))
    scored = score_alternatives(options, model)
    best = best_alternative(scored)
    ranked = sorted(scored, key=lambda a: -a.probability)
    evidence = _trait_evidence(best)
    values: Tuple[Tuple[str, Optional[float], str], ...] = ()
    if best.row is not None:
        cells = [c for c in present_cells(characteristics[best.row])]
        distinct = list(dict.fromkeys(str(c) for c in cells))
        converted = row_conversions(distinct, trait, background)
        values = tuple((cell, d.value, d.rule) for cell, d in zip(distinct, converted))
    return RowDecision("trait", best.row, best.probability, evidence,
                       tuple((a.row, a.probability) for a in ranked), values)


def _trait_evidence(best: Alternative) -> Tuple[str, ...]:
    """What made the chosen alternative win, in words."""
    if best.row is None:
        reasons = ["no row separates the trait's samples convincingly"]
        if best.features.get("none_no_evidence"):
            reasons.append("no row names the trait")
        if best.features.get("none_models"):
            reasons.append("rows describe models (cell lines, treatments, time points)")
        return tuple(reasons)
    profile = best.profile
    reasons = [f"key '{profile.key}'" if profile is not None and profile.key else "no key"]
    if profile is not None:
        words = [w for c in profile.cells for w in c.evidence.words]
        if words:
            reasons.append("matched: " + ", ".join(dict.fromkeys(words)))
    conventions = {"within": "another row says every sample has the trait; this row splits them",
                   "constant": "every sample has the same value (kept, as curators do)",
                   "case_control": "cases and controls in one row",
                   "numeric_trait": "numbers under a key naming the trait",
                   "key_answer": "yes/no answers under a key naming the trait",
                   "sole": "the only candidate row"}
    reasons += [text for name, text in conventions.items() if best.features.get(name)]
    return tuple(reasons)


def not_trait_rows(characteristics: Mapping[Any, Sequence[Any]], age_row: Any,
                   gender_row: Any, gender_scores: Mapping[Any, Any]) -> List[Any]:
    """The rows the trait ranking leaves out: the age row and the sex row.

    A row naming one sex that the sex convention left out (:func:`.row_scores.
    keeps_one_sex_row`) still holds nothing but the sex, so it is left out too;
    rows mixing keys stay trait candidates.
    """
    sex_row = gender_row if gender_row is not None else best_sex_row(
        gender_scores, list(characteristics))
    return [r for r in (age_row, sex_row)
            if r is not None and dominant_key(characteristics[r])[1] < 2]


def decide_clinical_rows(characteristics: Mapping[Any, Sequence[Any]], trait: str,
                         background: str, model: Optional[RowModel] = None
                         ) -> ClinicalDecisions:
    """The trait, age and sex rows of a series, each with confidence and evidence.

    Parameters
    ----------
    characteristics : mapping
        Row -> distinct raw cells (``get_unique_values_by_row``).
    trait : str
        Benchmark trait name.
    background : str
        Series title / summary / design.
    model : RowModel, optional
        Weights of the trait-row ranking (default: the shipped ones).

    Returns
    -------
    ClinicalDecisions

    Examples
    --------
    >>> d = decide_clinical_rows({0: ["Sex: F", "Sex: M"], 1: ["age: 40", "age: 61"],
    ...                           2: ["disease: asthma", "disease: healthy control"]},
    ...                          "Asthma", "")
    >>> d.rows()
    {'trait_row': 2, 'age_row': 1, 'gender_row': 0}
    >>> d.get("trait").values[0]
    ('disease: asthma', 1.0, 'names the trait')
    """
    model = model or load_row_model()
    age_row, age_scores = choose_age_row(characteristics)
    gender_row, gender_scores = choose_gender_row(characteristics, age_row, trait, background)
    exclude = not_trait_rows(characteristics, age_row, gender_row, gender_scores)
    trait_decision = _trait_decision(characteristics, trait, background, exclude, model)
    return ClinicalDecisions(
        trait=trait,
        decisions=(trait_decision,
                   _age_sex_decision("age", characteristics, age_row, age_scores),
                   _age_sex_decision("gender", characteristics, gender_row, gender_scores)),
        characteristics=characteristics)
