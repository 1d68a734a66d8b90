"""Choosing the characteristics rows of the trait, age and sex: :func:`infer_clinical_rows`.

* Age / sex: cells keyed ``age`` (``age (yrs)``, ``age at sampling``) /
  ``sex``/``gender`` that parse; a row qualifies with half of its values (a
  fifth in rows that mix keys); plain keys beat "age at onset/death"; keyless
  rows qualify when 80 % of their values parse (with an age unit for ages).
* Trait: a numeric row whose key names the trait (measured traits such as
  heart rate), else a row whose values split into cases AND controls; ranked
  by strength of the trait mention, then whether most values are decided,
  then a disease-like key (``disease state``, ``diagnosis``, ``group``...),
  then row order. A row where every sample is a case gives no trait row.
  Keys of experimental factors (``treatment``, ``time``, ``agent``...) never
  hold the trait.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from tools.preprocess.clinical import convert_gender, split_key_value
from tools.preprocess.clinical_rules.evidence import key_names_trait
from tools.preprocess.clinical_rules.lexicon import trait_lexicon
from tools.preprocess.clinical_rules.quantities import age_key_class, is_sex_key, parse_age
from tools.preprocess.clinical_rules.text import is_missing_text, text_tokens
from tools.preprocess.clinical_rules.values import (infer_clinical_values, trait_is_numeric,
                                                    trait_labels)
from tools.preprocess.clinical_rules.words import DISEASE_KEY_WORDS, NON_TRAIT_KEY_WORDS

#: A row is the feature's row when this share of its present cells matches ...
ROW_SHARE = 0.5
#: ... or, in a row mixing keys, this smaller share.
MIXED_ROW_SHARE = 0.2
#: Keyless rows: share of values that must parse (and, for ages, carry a unit).
KEYLESS_SHARE = 0.8
#: Share of decided values that makes a trait row "decisive".
DECISIVE_SHARE = 0.75
_AGE_UNIT = re.compile(r"\d\s*(y|yr|yrs|year|years|yo)\b")

Score = Tuple


def row_key(values: Sequence[Any]) -> str:
    """The most common key of a row's cells, lower case (first seen wins ties)."""
    counts: Dict[str, int] = {}
    for cell in values:
        key, value = split_key_value(cell)
        if value is not None:
            counts[key.lower()] = counts.get(key.lower(), 0) + 1
    return max(counts, key=lambda k: counts[k]) if counts else ""


def present_cells(values: Sequence[Any]) -> List[Any]:
    """Cells whose value is not missing."""
    return [v for v in values if not is_missing_text(split_key_value(v)[1])]


def _qualifies(hits: int, share: float, min_mixed_hits: int) -> bool:
    return share >= ROW_SHARE or (share >= MIXED_ROW_SHARE and hits >= min_mixed_hits)


def age_row_score(values: Sequence[Any]) -> Optional[Score]:
    """Ranking of a row as the age row (None: not a candidate).

    The best key class, then more matching values, then the larger share, wins.
    """
    present = present_cells(values)
    if not present:
        return None
    best_class, hits = 0, 0
    for cell in present:
        key_class = age_key_class(split_key_value(cell)[0])
        if key_class and parse_age(cell) is not None:
            hits += 1
            best_class = max(best_class, key_class)
    share = hits / len(present)
    if best_class and _qualifies(hits, share, 2):
        return (best_class, hits, share)
    if not row_key(values):
        with_unit = sum(bool(_AGE_UNIT.search(str(v).lower())) for v in present) / len(present)
        parsed = sum(parse_age(v) is not None for v in present) / len(present)
        if with_unit >= KEYLESS_SHARE and parsed >= KEYLESS_SHARE:
            return (0, 0, parsed)
    return None


def gender_row_score(values: Sequence[Any]) -> Optional[Score]:
    """Ranking of a row as the sex row (None: not a candidate); like the age row."""
    present = present_cells(values)
    if not present:
        return None
    hits = sum(is_sex_key(split_key_value(cell)[0]) and convert_gender(cell) is not None
               for cell in present)
    share = hits / len(present)
    if share >= ROW_SHARE or (share >= MIXED_ROW_SHARE and hits >= 1 and len(present) >= 2):
        return (2, share)
    if not row_key(values):
        parsed = sum(convert_gender(v) is not None for v in present) / len(present)
        if parsed >= KEYLESS_SHARE:
            return (1, parsed)
    return None


def trait_row_score(values: Sequence[Any], trait: str, background: str) -> Optional[Score]:
    """Ranking tuple of a row as the trait row (None: not a candidate)."""
    lex = trait_lexicon(trait)
    # cells with a value (missing words included: the background may define
    # them, e.g. "ND" = non-demented controls)
    present = [v for v in values if split_key_value(v)[1] is not None]
    if not present:
        return None
    key = row_key(values)
    key_trait = key_names_trait(key, lex)
    if set(text_tokens(key)) & NON_TRAIT_KEY_WORDS and not key_trait:
        return None
    if key_trait and trait_is_numeric(present):
        converted = infer_clinical_values("trait", list(present), trait, background)
        if len({c for c in converted if c is not None}) >= 2:
            share = sum(c is not None for c in converted) / len(present)
            return (2, 3, True, 2, share)
        return None
    labels, strengths = trait_labels(list(present), trait, background)
    if 1.0 not in labels or 0.0 not in labels:
        return None
    case_level = max(s for label, s in zip(labels, strengths) if label == 1.0)
    coverage = sum(label is not None for label in labels) / len(labels)
    key_score = 2 if key_trait else (1 if set(text_tokens(key)) & DISEASE_KEY_WORDS else 0)
    # a row that decides most of its values beats one naming the trait in its
    # key but leaving most values undecided ("amd classification: MD1/GA/CNV")
    return (1, case_level, coverage >= DECISIVE_SHARE, key_score, coverage)


def best_row(scores: Mapping[Any, Optional[Score]], order: Sequence[Any]) -> Optional[Any]:
    """Highest-ranked candidate; ties go to the earliest row."""
    best, best_score = None, None
    for row in order:
        score = scores.get(row)
        if score is not None and (best_score is None or score > best_score):
            best, best_score = row, score
    return best


def infer_clinical_rows(characteristics: Dict[int, List[str]], trait: str,
                        background: str) -> dict:
    """Choose the characteristics rows holding the trait, the age and the sex.

    Parameters
    ----------
    characteristics : dict of int to list of str
        ``get_unique_values_by_row(clinical_df)``: row number -> distinct raw
        cells (``None`` for missing cells), at most 30 per row.
    trait : str
        Benchmark trait name with underscores (``"Heart_rate"``).
    background : str
        Series title / summary / overall design.

    Returns
    -------
    dict
        ``{"trait_row": int | None, "age_row": int | None, "gender_row": int | None}``.
        The trait row is one whose values split into cases and controls (or,
        for a measured trait, a numeric row whose key names it); a row where
        every sample is a case gives None (nothing to compare). Age and gender
        rows are the rows keyed ``age`` / ``sex``/``gender`` (or keyless rows
        of ages / sexes) whose values mostly parse.

    Examples
    --------
    >>> infer_clinical_rows({0: ["tissue: synovium"], 1: ["Sex: M", "Sex: F"],
    ...                      2: ["group: control", "group: rheumatoid arthritis"],
    ...                      3: ["age: 25", "age: 50"]}, "Rheumatoid_Arthritis", "")
    {'trait_row': 2, 'age_row': 3, 'gender_row': 1}
    """
    order = list(characteristics)
    age = best_row({r: age_row_score(v) for r, v in characteristics.items()}, order)
    gender = best_row({r: gender_row_score(v) for r, v in characteristics.items()
                       if r != age}, order)
    trait_scores = {r: trait_row_score(v, trait, background)
                    for r, v in characteristics.items() if r not in (age, gender)}
    return {"trait_row": best_row(trait_scores, order), "age_row": age, "gender_row": gender}
