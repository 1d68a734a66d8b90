"""Free-text sample annotations of synthetic GEO series, in varied spellings.

Real series spell the same fact many ways (``gender: female``, ``Sex: F``,
``Gender:M``; ``age: 49``, ``Age: 49 years``, ``age (yrs): 61``) and a few cells
of one series often differ in spacing or case (``Gender:M`` next to
``Gender: F``). A cohort picks one style per feature; ``spelling_noise`` then
perturbs single cells without changing what they say.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Tuple

import numpy as np

from genotex.synthetic.spec import CohortPlan, TraitPlan

AGE_STYLES = ("age: {v}", "Age: {v} years", "age (yrs): {v}", "Age:{v}", "age: {v}y",
              "age at sampling (years): {v}")
GENDER_STYLES = (("gender: female", "gender: male"), ("Sex: F", "Sex: M"),
                 ("Gender:F", "Gender:M"), ("sex: Female", "sex: Male"),
                 ("gender: F", "gender: M"), ("Sex: female", "Sex: male"))
BINARY_STYLES = (("disease state: {case}", "disease state: {control}"),
                 ("diagnosis: {case}", "diagnosis: {control}"),
                 ("group: {case}", "group: control"),
                 ("subject status: patient with {case}", "subject status: {control}"),
                 ("phenotype: {case}", "phenotype: {control}"))
CONTINUOUS_STYLES = ("{label} ({unit}): {v}", "{label}: {v} {unit}")
MISSING_VALUE_TEXT = ("", "NA", "not available")
NO_TRAIT_ROWS = (("time point: baseline", "time point: week 12"),
                 ("treatment: none", "treatment: methotrexate"))


@dataclass(frozen=True)
class Spelling:
    """The styles a cohort uses for its characteristics."""

    age: str
    gender: Tuple[str, str]
    binary: Tuple[str, str]
    continuous: str


def choose_spelling(cohort: CohortPlan, rng: np.random.Generator) -> Spelling:
    """Styles of one cohort: ``cohort.spelling`` if set, else drawn."""
    k = cohort.spelling if cohort.spelling is not None else int(rng.integers(0, 60))
    return Spelling(age=AGE_STYLES[k % len(AGE_STYLES)],
                    gender=GENDER_STYLES[(k + 1) % len(GENDER_STYLES)],
                    binary=BINARY_STYLES[(k + 2) % len(BINARY_STYLES)],
                    continuous=CONTINUOUS_STYLES[k % len(CONTINUOUS_STYLES)])


def trait_texts(trait: TraitPlan) -> Tuple[str, str]:
    """(case, control) wording of a binary trait."""
    case = trait.case_text or trait.name.replace("_", " ").lower()
    return case, trait.control_text


def perturb(cell: str, rng: np.random.Generator, share: float) -> str:
    """With probability ``share``, vary the spacing after ``:`` or the key's case."""
    if not cell or ":" not in cell or rng.random() >= share:
        return cell
    key, _, value = cell.partition(":")
    if rng.random() < 0.5:
        return f"{key}:{value.strip()}" if value.startswith(" ") else f"{key}: {value}"
    key = key[:1].lower() + key[1:] if key[:1].isupper() else key[:1].upper() + key[1:]
    return f"{key}:{value}"


def key_of(style: str) -> str:
    """The key part (before ``:``) of a style template."""
    return style.split(":", 1)[0]


def characteristics_rows(cohort: CohortPlan, trait: TraitPlan, spelling: Spelling,
                         labels: np.ndarray, label_observed: np.ndarray, age: np.ndarray,
                         age_observed: np.ndarray, male: np.ndarray,
                         gender_observed: np.ndarray, batch: np.ndarray,
                         rng: np.random.Generator) -> Tuple[List[List[str]], Dict[str, int],
                                                            Dict[str, object]]:
    """All ``!Sample_characteristics_ch1`` rows of a human series.

    Returns
    -------
    rows : list of list of str
        One list of cells per characteristics line (file order).
    positions : dict
        Feature (``trait``, ``age``, ``gender``, ...) -> row number (0-based).
    trait_values : dict
        Text written for each trait class (binary) or the value template.
    """
    n = labels.size
    share = cohort.spelling_noise
    named: Dict[str, List[str]] = {}
    named["tissue"] = [f"tissue: {trait.tissue}"] * n
    trait_values: Dict[str, object] = {}
    if cohort.has_trait and cohort.trait_field == "characteristics":
        named["trait"] = _trait_cells(cohort, trait, spelling, labels, label_observed,
                                      rng, trait_values)
    elif not cohort.has_trait:
        pair = NO_TRAIT_ROWS[int(rng.integers(0, len(NO_TRAIT_ROWS)))]
        named["design"] = [pair[int(rng.integers(0, 2))] for _ in range(n)]
    if cohort.has_gender:
        named["gender"] = [
            perturb(spelling.gender[int(m)], rng, share) if seen else ""
            for m, seen in zip(male, gender_observed)]
    if cohort.has_age:
        named["age"] = [
            perturb(spelling.age.format(v=int(a)), rng, share) if seen else
            _missing(spelling.age, rng)
            for a, seen in zip(age, age_observed)]
    if cohort.batch:
        named["batch"] = [f"processing batch: B{int(b) + 1}" for b in batch]
    order = ["tissue"] + [str(k) for k in rng.permutation(sorted(set(named) - {"tissue"}))]
    rows = [named[k] for k in order]
    positions = {k: i for i, k in enumerate(order)}
    if cohort.empty_characteristics_row:
        rows.append([""] * n)
    return rows, positions, trait_values


def _missing(style: str, rng: np.random.Generator) -> str:
    text = MISSING_VALUE_TEXT[int(rng.integers(0, len(MISSING_VALUE_TEXT)))]
    return f"{key_of(style)}: {text}" if text else ""


def _trait_cells(cohort: CohortPlan, trait: TraitPlan, spelling: Spelling,
                 labels: np.ndarray, observed: np.ndarray, rng: np.random.Generator,
                 trait_values: Dict[str, object]) -> List[str]:
    share = cohort.spelling_noise
    cells = []
    if trait.kind == "continuous":
        label = trait.label or trait.name.replace("_", " ").lower()
        template = spelling.continuous.replace("{label}", label).replace("{unit}", trait.unit)
        trait_values["template"] = template
        for value, seen in zip(labels, observed):
            if not seen:
                cells.append(_missing(template, rng))
                continue
            number = f"{value:.{trait.decimals}f}" if trait.decimals else str(int(value))
            cells.append(perturb(template.format(v=number).strip(), rng, share))
        return cells
    case, control = trait_texts(trait)
    texts = (spelling.binary[1].format(case=case, control=control),
             spelling.binary[0].format(case=case, control=control))
    trait_values.update({texts[1]: 1, texts[0]: 0})
    unknown = f"{key_of(spelling.binary[0])}: unknown"
    for value, seen in zip(labels, observed):
        cells.append(perturb(texts[int(value)], rng, share) if seen else unknown)
    return cells


def sample_titles(cohort: CohortPlan, trait: TraitPlan, labels: np.ndarray,
                  observed: np.ndarray) -> List[str]:
    """``!Sample_title`` cells (carry the trait when ``trait_field == 'title'``)."""
    case, control = trait_texts(trait)
    short = "".join(w[0] for w in case.split()).upper() if " " in case else case
    titles = []
    for k, (value, seen) in enumerate(zip(labels, observed), start=1):
        if cohort.has_trait and cohort.trait_field == "title" and seen:
            titles.append(f"{short}_patient_{k:03d}" if value == 1 else f"control_{k:03d}")
        else:
            titles.append(f"{trait.tissue} sample {k:03d}")
    return titles


def source_names(cohort: CohortPlan, trait: TraitPlan, labels: np.ndarray,
                 observed: np.ndarray) -> List[str]:
    """``!Sample_source_name_ch1`` cells (carry the trait when asked)."""
    case, control = trait_texts(trait)
    names = []
    for value, seen in zip(labels, observed):
        if cohort.has_trait and cohort.trait_field == "source_name" and seen:
            who = f"{case} patient" if value == 1 else control
            names.append(f"{trait.tissue}, {who}")
        else:
            names.append(trait.tissue)
    return names


def series_texts(cohort: CohortPlan, trait: TraitPlan, n_human: int) -> Dict[str, str]:
    """Title, summary and overall design of a GEO series (marked synthetic)."""
    case, control = trait_texts(trait)
    what = trait.label or trait.name.replace("_", " ").lower()
    if cohort.title:
        title = cohort.title
    elif not cohort.has_trait:
        title = f"Synthetic {trait.tissue} expression in {case} over time"
    elif trait.kind == "continuous":
        title = f"Synthetic {trait.tissue} expression and {what}"
    else:
        title = f"Synthetic {trait.tissue} expression in {case} and {control}s"
    if cohort.summary:
        summary = cohort.summary
    else:
        summary = (f"SYNTHETIC DATA generated by generate_synthetic.py for the GenoTEX demo; "
                   f"no real subject was measured. The design mimics a study of {what} "
                   f"in {trait.tissue}.")
    if cohort.design:
        design = cohort.design
    elif not cohort.has_trait:
        design = (f"{n_human} {trait.tissue} samples from {case} patients, profiled at "
                  f"baseline and after 12 weeks of treatment.")
    elif trait.kind == "continuous":
        design = f"{n_human} subjects; {what} ({trait.unit}) recorded for each sample."
    else:
        design = f"{n_human} {trait.tissue} samples from {case} patients and {control}s."
    return {"title": title, "summary": summary, "design": design}
