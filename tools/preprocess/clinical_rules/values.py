"""Converting the raw cells of one feature: :func:`infer_clinical_values`.

Trait cells are decided one by one (:func:`.evidence.classify_trait_cell`),
then with their row's context: when a row holds exactly two kinds of value
and one names the trait specifically while the other carries no evidence
(``primary gastric cancer`` vs ``gastric mucosa tissue``), the other is the
control. A row of mostly numbers is a measured (continuous) trait.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from tools.preprocess.clinical import convert_gender, split_key_value
from tools.preprocess.clinical_rules.evidence import classify_trait_cell, key_names_trait
from tools.preprocess.clinical_rules.lexicon import trait_lexicon
from tools.preprocess.clinical_rules.quantities import (age_key_class, is_sex_key,
                                                        parse_age, parse_number)
from tools.preprocess.clinical_rules.text import is_missing_text, plain_text, text_tokens
from tools.preprocess.clinical_rules.words import NO_WORDS, YES_WORDS

#: Share of a row's present cells that must be numbers for a continuous trait.
NUMERIC_SHARE = 0.6
#: Words left out when comparing the kinds of value in a row.
_SHAPE_NOISE = frozenset({"rep", "replicate", "sample", "patient"})

Label = Optional[float]


def value_shape(value: Optional[str]) -> Tuple[str, ...]:
    """A value's words without numbers (``"Tumour tissue 3"`` -> tumor tissue)."""
    if value is None:
        return ()
    return tuple(t for t in text_tokens(value) if not re.fullmatch(r"[a-z]?\d+[a-z]?", t)
                 and t not in _SHAPE_NOISE)


def trait_labels(values: Sequence[Any], trait: str, background: str
                 ) -> Tuple[List[Label], List[int]]:
    """Case / control labels of a binary trait row, with their strengths.

    Each cell is classified alone, then the row-level complement applies: two
    kinds of value, one of them all cases of strength >= 2 and the other all
    undecided -> the other kind is the control (strength 1).
    """
    decided = [classify_trait_cell(cell, trait, background) for cell in values]
    labels = [label for label, _ in decided]
    strengths = [strength for _, strength in decided]
    shapes: Dict[Tuple[str, ...], List[int]] = {}
    for i, cell in enumerate(values):
        _, value = split_key_value(cell)
        if not is_missing_text(value):
            shapes.setdefault(value_shape(value), []).append(i)
    if len(shapes) == 2:
        groups = [indices for _, indices in sorted(shapes.items())]
        for this, other in ((0, 1), (1, 0)):
            if ({labels[i] for i in groups[this]} == {1.0}
                    and min(strengths[i] for i in groups[this]) >= 2
                    and {labels[i] for i in groups[other]} == {None}):
                for i in groups[other]:
                    labels[i], strengths[i] = 0.0, 1
    return labels, strengths


def trait_is_numeric(values: Sequence[Any]) -> bool:
    """Whether at least :data:`NUMERIC_SHARE` of the present cells are numbers."""
    present = [v for v in values if not is_missing_text(split_key_value(v)[1])]
    if not present:
        return False
    numbers = sum(parse_number(v) is not None for v in present)
    return numbers >= max(1, math.ceil(NUMERIC_SHARE * len(present)))


def convert_keyed(values: Sequence[Any], parse: Callable[[Any], Label],
                  is_own_key: Callable[[str], bool]) -> List[Label]:
    """Parse cells; in a row that mixes keys, cells under a foreign key give None.

    GEO rows sometimes hold ``age: 56`` for most samples and ``Sex: Male`` or
    ``bmi: 23`` for others (a missing line shifts the rest up); only cells
    under the feature's own key (or without a key) are converted then.
    """
    keys = [split_key_value(v)[0] for v in values]
    has_own = any(is_own_key(k) for k in keys if k)
    return [None if has_own and key and not is_own_key(key) else parse(cell)
            for cell, key in zip(values, keys)]


def _is_yes_no_row(values: Sequence[Any]) -> bool:
    answers = YES_WORDS | NO_WORDS
    return all(is_missing_text(split_key_value(v)[1])
               or plain_text(split_key_value(v)[1]) in answers for v in values)


def infer_clinical_values(feature: str, values: List[str], trait: str,
                          background: str) -> List[Label]:
    """Convert raw characteristics cells of one feature.

    Parameters
    ----------
    feature : {"trait", "age", "gender"}
        What the cells hold.
    values : list of str
        Raw cells (``"key: value"``; text after the first ``:`` is the value;
        cells without a colon are values). May be one row's per-sample cells
        or its distinct values; None / NaN cells give None.
    trait : str
        Benchmark trait name (``"Rheumatoid_Arthritis"``).
    background : str
        Series title / summary / design text.

    Returns
    -------
    list of float or None
        One result per cell. Trait: 1.0 case, 0.0 control, None undecided for
        a binary trait; the number for a continuous one (decided from the
        cells: mostly numbers -> continuous, unless the key names the trait
        and every value is a yes/no answer). Age: years. Gender: 0.0 female,
        1.0 male.

    Raises
    ------
    ValueError
        For an unknown ``feature``.

    Examples
    --------
    >>> infer_clinical_values("trait", ["group: RA", "group: healthy control"],
    ...                       "Rheumatoid_Arthritis", "")
    [1.0, 0.0]
    >>> infer_clinical_values("age", ["age: 49y", "Age: 52 years"], "Asthma", "")
    [49.0, 52.0]
    """
    feature = feature.lower()
    if feature == "age":
        return convert_keyed(values, parse_age, lambda key: age_key_class(key) > 0)
    if feature in ("gender", "sex"):
        return convert_keyed(values, convert_gender, is_sex_key)
    if feature != "trait":
        raise ValueError(f"feature must be 'trait', 'age' or 'gender', not {feature!r}")
    lex = trait_lexicon(trait)
    keys = [split_key_value(v)[0] for v in values]
    if trait_is_numeric(values) and not (_is_yes_no_row(values)
                                         and any(key_names_trait(k, lex) for k in keys)):
        return [parse_number(v) for v in values]
    labels, _ = trait_labels(values, trait, background)
    return labels
