"""Choosing the characteristics rows of the trait, age and sex (the row scores and choices).

* Age / sex (rules): cells keyed ``age`` (``age (yrs)``, ``age at sampling``,
  ``age at death``) / ``sex``/``gender`` that parse, or cells holding both
  (``60F``); a row qualifies with half of its values (a fifth in rows that
  mix keys); plain keys beat qualified ones, which beat "age at diagnosis";
  an age at onset, a gestational age or an age of menarche is never the age.
  Among rows of the same class the earliest with at least half the best
  count of ages wins. A row where every sample has the same age is not the
  age row. Among sex rows, the one whose first cell -- the first sample's --
  is a sex wins; when the first sample has no sex, the earliest row with at
  least half the most sexes (as for the age). A row naming one sex only is
  the sex row only when no row varies, and then: always for a trait of one
  sex; for a row of one key, when the series has no age row or its text
  names the subjects' sex (the bias step drops the column later); never for
  a row mixing keys (one group's sex). These are the curators' conventions,
  counted in ``docs/preprocessing_clinical.md``. Age and sex may share a row.
* Trait: the ranking of :mod:`.ranker` over the other rows (a row that mixes
  keys stays a candidate even when it also holds the age or the sex) and
  "no trait row".

:func:`tools.preprocess.clinical_rules.decisions.decide_clinical_rows` gives
the same choices with a confidence and the evidence of each.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from tools.preprocess.clinical_rules.evidence import key_names_trait
from tools.preprocess.clinical_rules.knowledge import trait_knowledge
from tools.preprocess.clinical_rules.lexicon import trait_lexicon
from tools.preprocess.clinical_rules.quantities import (age_and_sex, age_key_class, is_sex_key,
                                                        parse_age, parse_sex, text_states_sex)
from tools.preprocess.clinical_rules.text import is_missing_text, split_cell, text_tokens
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
#: Distinct values ``get_unique_values_by_row`` shows at most (a row holding
#: this many may hold more, unseen).
VALUE_CAP = 30
_AGE_UNIT = re.compile(r"\d\s*(y|yr|yrs|year|years|yo)\b")

Score = Tuple


def row_key(values: Sequence[Any]) -> str:
    """The most common key of a row's cells, lower case (first seen wins ties)."""
    counts: Dict[str, int] = {}
    for cell in values:
        key, value = split_cell(cell)
        if value is not None:
            counts[key.lower()] = counts.get(key.lower(), 0) + 1
    return max(counts, key=lambda k: counts[k]) if counts else ""


def present_cells(values: Sequence[Any]) -> List[Any]:
    """Cells whose value is not missing."""
    return [v for v in values if not is_missing_text(split_cell(v)[1])]


def _qualifies(hits: int, share: float, min_mixed_hits: int) -> bool:
    return share >= ROW_SHARE or (share >= MIXED_ROW_SHARE and hits >= min_mixed_hits)


def age_row_score(values: Sequence[Any]) -> Optional[Score]:
    """Ranking of a row as the age row (None: not a candidate).

    ``(key class, ages, share)``: the best key class, then more matching
    values, then the larger share, wins. A cell holding an age and a sex
    (``60F``) counts as a qualified age key.
    """
    present = present_cells(values)
    if not present:
        return None
    best_class, hits = 0, 0
    for cell in present:
        key, value = split_cell(cell)
        key_class = age_key_class(key) or (2 if age_and_sex(value) else 0)
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


def _is_sex_cell(cell: Any) -> bool:
    key, value = split_cell(cell)
    return (is_sex_key(key) or age_and_sex(value) is not None) and parse_sex(cell) is not None


def gender_row_score(values: Sequence[Any]) -> Optional[Score]:
    """Ranking of a row as the sex row (None: not a candidate); like the age row.

    ``(class, first, share, sexes)``: keyed rows beat keyless ones; then a
    row whose first cell -- the first sample's -- is a sex (in series whose
    samples list their characteristics in different orders, the curators
    take the row where the first sample has its sex, whatever the other
    samples hold there); then the larger share of sexes. ``sexes`` counts
    the distinct cells holding a sex (:func:`choose_gender_row` uses it when
    the first sample has no sex).
    """
    present = present_cells(values)
    if not present:
        return None
    hits = sum(_is_sex_cell(cell) for cell in present)
    share = hits / len(present)
    first = (bool(values) and not is_missing_text(split_cell(values[0])[1])
             and _is_sex_cell(values[0]))
    if first or share >= ROW_SHARE or (share >= MIXED_ROW_SHARE and hits >= 1
                                       and len(present) >= 2):
        return (2, first, share, hits)
    if not row_key(values):
        parsed = sum(parse_sex(v) is not None for v in present) / len(present)
        if parsed >= KEYLESS_SHARE:
            return (1, False, parsed, 0)
    return None


def trait_row_score(values: Sequence[Any], trait: str, background: str) -> Optional[Score]:
    """Ranking tuple of a row as the trait row (None: not a candidate)."""
    lex = trait_lexicon(trait)
    # cells with a value (missing words included: the background may define
    # them, e.g. "ND" = non-demented controls)
    present = [v for v in values if split_cell(v)[1] is not None]
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


def is_constant(values: Sequence[Any]) -> bool:
    """Whether every present cell of a row is the same (case and spaces ignored)."""
    from tools.preprocess.clinical_rules.features import cell_identity
    return len({cell_identity(v) for v in present_cells(values)}) == 1


def choose_age_row(characteristics: Mapping[Any, Sequence[Any]]) -> Tuple[Any, Dict]:
    """The age row (or None) and the scores of the candidates.

    The best key class wins; within it, the earliest row with at least half
    the best number of ages (two mixed rows sharing the ages of a series).
    A constant row (every sample the same age) is not chosen.
    """
    scores = {r: age_row_score(v) for r, v in characteristics.items()}
    scores = {r: sc for r, sc in scores.items()
              if sc is not None and not is_constant(characteristics[r])}
    if not scores:
        return None, scores
    top_class = max(sc[0] for sc in scores.values())
    top_hits = max(sc[1] for sc in scores.values() if sc[0] == top_class)
    for row in characteristics:
        score = scores.get(row)
        if score is not None and score[0] == top_class and score[1] >= 0.5 * top_hits:
            return row, scores
    return None, scores


def _sexes(values: Sequence[Any]) -> set:
    """The sexes (0 / 1) a row's sex cells give."""
    return {parse_sex(cell) for cell in present_cells(values) if _is_sex_cell(cell)} - {None}


def one_sex_rows(characteristics: Mapping[Any, Sequence[Any]], rows: Sequence[Any]
                 ) -> List[Any]:
    """The sex rows among ``rows`` that name one sex only.

    A constant row (:func:`is_constant`); or a row mixing keys whose sex
    cells give one sex, in a series whose sex rows name one sex only (when
    another row holds the other sex, the samples list their characteristics
    in shifting orders and share the sexes out between rows) and below the
    display cap (:data:`VALUE_CAP`: the other sex may be among the unseen
    values of a row holding that many).
    """
    series = set().union(*(_sexes(characteristics[r]) for r in rows)) if rows else set()
    return [r for r in rows if is_constant(characteristics[r])
            or (len(series) == 1 and len(characteristics[r]) < VALUE_CAP)]


def mixes_keys(values: Sequence[Any]) -> bool:
    """Whether a row's cells carry more than one key (``Sex`` and ``cell type``)."""
    from tools.preprocess.clinical_rules.features import dominant_key
    return dominant_key(values)[1] >= 2


def keeps_one_sex_row(values: Sequence[Any], age_row: Any, trait: Optional[str],
                      background: str = "") -> bool:
    """Whether a row naming one sex (:func:`one_sex_rows`) is the sex row.

    Asked only when no row varies. A row mixing keys (:func:`mixes_keys`)
    that names one sex records the sex of one group of samples (one cell
    line's donor): not the sex row, unless the trait is of one sex (the
    lexicon's ``sex``: prostate cancer, PCOS -- there the sex is the design,
    and so for every row naming one sex). A row of one key (every sample the
    same sex) is the sex row unless the series has an age row and nothing
    explains the single sex -- neither the trait nor the series text
    (:func:`.quantities.text_states_sex`: "obese men", "32 women").
    """
    if trait is not None and trait_knowledge(trait).sex is not None:
        return True
    if mixes_keys(values):
        return False
    return age_row is None or text_states_sex(background)


def best_sex_row(scores: Mapping[Any, Score], order: Sequence[Any]) -> Optional[Any]:
    """The best-ranked sex row; without the first sample's sex, the earliest of the most.

    Rows of the top class (and first-sample flag) compete; when none holds the
    first sample's sex, the earliest row with at least half the most sex
    cells wins (samples listing their characteristics in shifting orders
    spread the sexes over several rows; as for the age).
    """
    if not scores:
        return None
    top = max(score[:2] for score in scores.values())
    tied = {row: score for row, score in scores.items() if score[:2] == top}
    if top[1] or top[0] < 2:      # the first sample's sex; keyless rows: the larger share
        return best_row(tied, order)
    most = max(score[3] for score in tied.values())
    return next(row for row in order if row in tied and tied[row][3] >= 0.5 * most)


def choose_gender_row(characteristics: Mapping[Any, Sequence[Any]], age_row: Any,
                      trait: Optional[str] = None, background: str = "") -> Tuple[Any, Dict]:
    """The sex row (or None) and the scores of the candidates.

    A row shared with the age is allowed only when its cells hold both
    (``60F``). A row whose sexes vary wins; without one, a row naming one
    sex is chosen when :func:`keeps_one_sex_row` says so (the bias step
    drops it later).

    Parameters
    ----------
    characteristics : mapping
        Row -> distinct raw cells.
    age_row : object or None
        The age row (:func:`choose_age_row`).
    trait : str, optional
        Benchmark trait name (a trait of one sex keeps a one-sex row).
    background : str, optional
        Series title / summary / design (a text naming the subjects' sex
        keeps a constant row).
    """
    scores = {}
    for row, values in characteristics.items():
        if row == age_row and not any(age_and_sex(split_cell(v)[1])
                                      for v in present_cells(values)):
            continue
        score = gender_row_score(values)
        if score is not None:
            scores[row] = score
    order = list(characteristics)
    one_sex = one_sex_rows(characteristics, list(scores))
    varying = {r: sc for r, sc in scores.items() if r not in one_sex}
    if varying:
        return best_sex_row(varying, order), scores
    kept = {r: sc for r, sc in scores.items()
            if keeps_one_sex_row(characteristics[r], age_row, trait, background)}
    return best_sex_row(kept, order), scores
