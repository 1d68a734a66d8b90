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
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from tools.preprocess.clinical import convert_gender
from tools.preprocess.clinical_rules.evidence import (background_level, cell_evidence,
                                                      classify_trait_cell, key_names_trait)
from tools.preprocess.clinical_rules.lexicon import trait_lexicon
from tools.preprocess.clinical_rules.quantities import (age_key_class, is_sex_key,
                                                        parse_age, parse_number)
from tools.preprocess.clinical_rules.text import (is_missing_text, plain_text, split_cell,
                                                  text_tokens)
from tools.preprocess.clinical_rules.words import (KEY_CATEGORIES, MARKED_WORDS, NO_WORDS,
                                                   ROMAN_NUMERALS, UNMARKED_WORDS, YES_WORDS)

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
        _, value = split_cell(cell)
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


@dataclass(frozen=True)
class ValueDecision:
    """How one cell of a trait row was converted.

    Attributes
    ----------
    value : float or None
        1 case, 0 control, a number, or None.
    rule : str
        The convention that decided it (``"names the trait"``, ``"other disease"``,
        ``"marked state"``, ``"complement"`` ...).
    evidence : tuple of str
        Lexicon entries that matched.
    """

    value: Label
    rule: str
    evidence: Tuple[str, ...] = ()


def polarity(value: str) -> Optional[float]:
    """1 for a marked state (responder, relapse, treated, high), 0 for its opposite.

    A negation (``non-responder``, ``relapse-free``, ``no``, ``-``, ``NEG``) turns
    a marked word into 0; ``(+)``/``(-)`` and ``POS``/``NEG`` signs count too.
    None when the value holds neither kind of word or both.
    """
    text = plain_text(value)
    if re.search(r"\(\s*-\s*\)|(?<![a-z0-9])-\s*$|\bneg(ative)?\b", text):
        return 0.0
    if re.search(r"\(\s*\+\s*\)|\+\s*$", text):
        return 1.0
    tokens = text_tokens(value)
    marked = [i for i, t in enumerate(tokens) if t in MARKED_WORDS]
    unmarked = [t for t in tokens if t in UNMARKED_WORDS]
    negated = any(i > 0 and tokens[i - 1] in ("non", "no", "not", "un", "without")
                  or i + 1 < len(tokens) and tokens[i + 1] in ("free", "negative")
                  for i in marked)
    if marked and not negated and not unmarked:
        return 1.0
    if unmarked or negated:
        return 0.0 if (negated or not marked) else None
    return None


def stage_number(value: str) -> Optional[float]:
    """The number of a stage or grade (``III`` -> 3, ``Stage IIb`` -> 2, ``2`` -> 2)."""
    text = plain_text(value)
    match = re.fullmatch(r"(?:stage|grade|g|t)?\s*([ivx]+|[0-5])\s*[abc]?", text)
    if not match:
        return None
    token = match.group(1)
    if token.isdigit():
        return float(token)
    return ROMAN_NUMERALS.get(token)


def row_conversions(values: Sequence[Any], trait: str, background: str
                    ) -> List[ValueDecision]:
    """Convert the cells of one trait row with the curators' conventions.

    In order:

    1. missing words -> None;
    2. a stage or grade row -> the stage number (``III`` -> 3); a row of
       numbers -> the number for a measured trait (data file: ``quantity``);
       for a binary trait, a measure the data file gives a guideline cut-off
       for (``AHI >= 5``) -> 1 / 0 by the cut-off, any other number names
       nothing of the trait -> 0 (as in rule 4); a yes/no row keyed by the
       trait -> 1 / 0;
    3. a row where some value names the trait (medium or strong evidence): the
       cases -> 1, controls -> 0, and everything else -- other diseases, values
       naming nothing, precursor states -> 0 (but when the key names the trait,
       a value naming nothing is a kind of the trait -> 1);
    4. otherwise (a response, stage, genotype, treatment or tissue row used
       as the trait): weak cases (tumour, gene, precursor) -> 1, controls -> 0;
       a marked state (responder, relapse, treated, mutant, high) -> 1 and its
       unmarked or negated opposite -> 0 (:func:`polarity`); what is left is
       the complement of the decided values (1 beside controls only, else 0);
       a row of one value that names nothing, in a series whose text names
       the trait, -> 1 (every sample is a case).
    """
    lex = trait_lexicon(trait)
    cells = list(values)
    pairs = [split_cell(c) for c in cells]
    # a missing word the series text defines ("ND" = non-demented) is a value
    defined = [v is not None and is_missing_text(v)
               and classify_trait_cell(cells[i], trait, background)[0] is not None
               for i, (_, v) in enumerate(pairs)]
    present = [i for i, (_, v) in enumerate(pairs) if not is_missing_text(v) or defined[i]]
    decisions: List[Optional[ValueDecision]] = [None] * len(cells)
    for i, (_, v) in enumerate(pairs):
        if i not in present:
            decisions[i] = ValueDecision(None, "missing")
    keys = [k for k, _ in pairs]
    present_cells = [cells[i] for i in present]
    yes_no = _is_yes_no_row(present_cells)
    key_trait = any(key_names_trait(k, lex) for k in keys)
    numeric = trait_is_numeric(present_cells)
    stage_key = bool(set(text_tokens(" ".join(keys))) & KEY_CATEGORIES["stage"])
    stages = [stage_number(pairs[i][1]) if stage_key else None for i in present]
    if present and stage_key and all(n is not None for n in stages):
        for i, number in zip(present, stages):
            decisions[i] = ValueDecision(number, "stage number")
        return [d or ValueDecision(None, "undecided") for d in decisions]
    if present and numeric and not (yes_no and key_trait):
        quantity = lex.knowledge.is_quantity or lex.looks_continuous
        for i in present:
            number = parse_number(cells[i])
            cutoff = None if quantity else lex.knowledge.cutoff_for(keys[i])
            if quantity:
                decisions[i] = ValueDecision(number, "number")
            elif cutoff is not None and number is not None:
                decisions[i] = ValueDecision(float(cutoff.holds(number)),
                                             f"guideline cut-off {cutoff.text}")
            else:       # a number names nothing of a binary trait (rule 4 below)
                decisions[i] = ValueDecision(0.0, "names nothing (a number)")
        return [d or ValueDecision(None, "undecided") for d in decisions]
    if yes_no:
        for i in present:
            answer = plain_text(pairs[i][1])
            decisions[i] = ValueDecision(1.0 if answer in YES_WORDS else 0.0, "yes/no answer")
        return [d or ValueDecision(None, "undecided") for d in decisions]
    labels, strengths = trait_labels(cells, trait, background)
    evidence = {i: cell_evidence(pairs[i][1], lex) for i in present}
    trait_row = any(labels[i] == 1.0 and evidence[i].level >= 2 and not evidence[i].precursor
                    for i in present)
    # weak cases (a bare tumour word) count in a contrast, not in a list of tumours
    kinds = {value_shape(pairs[i][1]) for i in present}
    weak_ok = len(kinds) <= 2 or any(labels[i] == 0.0 for i in present)
    if lex.knowledge.is_quantity:
        # a measured trait given as a level: "high BMD" 1, "low BMD" 0
        states = {i: polarity(pairs[i][1]) for i in present}
        if all(state is not None for state in states.values()):
            for i, state in states.items():
                decisions[i] = ValueDecision(state, "high / low level", evidence[i].words)
            return [d or ValueDecision(None, "undecided") for d in decisions]
    key_names = key_trait and not yes_no
    for i in present:
        ev = evidence[i]
        words = ev.words
        if key_names and labels[i] is None and not ev.other_disease:
            decisions[i] = ValueDecision(1.0, "kind of the trait (key names it)", words)
        elif labels[i] == 1.0 and (ev.level >= 2 or (not trait_row and weak_ok)) and not (
                trait_row and ev.precursor):
            decisions[i] = ValueDecision(1.0, "names the trait", words)
        elif labels[i] == 0.0:
            decisions[i] = ValueDecision(0.0, "control", words)
        elif trait_row:
            rule = "other disease" if ev.other_disease else (
                "precursor" if ev.precursor else "not the trait")
            decisions[i] = ValueDecision(0.0, rule, words)
    if not trait_row:
        for i in present:
            if decisions[i] is None:
                state = polarity(pairs[i][1])
                if state is not None:
                    decisions[i] = ValueDecision(state, "marked state" if state
                                                 else "unmarked state", evidence[i].words)
        decided = {d.value for d in decisions if d is not None and d.rule != "missing"}
        if decided:
            fill, rule = (1.0 if decided == {0.0} else 0.0), "complement"
        elif len(kinds) == 1 and background_level(background, trait) >= 2:
            fill, rule = 1.0, "series of the trait"
        else:
            fill, rule = 0.0, "names nothing"
        for i in present:
            if decisions[i] is None:
                decisions[i] = ValueDecision(fill, rule, evidence[i].words)
    return [d or ValueDecision(None, "undecided") for d in decisions]


def trait_is_numeric(values: Sequence[Any]) -> bool:
    """Whether at least :data:`NUMERIC_SHARE` of the present cells are numbers."""
    present = [v for v in values if not is_missing_text(split_cell(v)[1])]
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
    keys = [split_cell(v)[0] for v in values]
    has_own = any(is_own_key(k) for k in keys if k)
    return [None if has_own and key and not is_own_key(key) else parse(cell)
            for cell, key in zip(values, keys)]


def _is_yes_no_row(values: Sequence[Any]) -> bool:
    answers = YES_WORDS | NO_WORDS
    return all(is_missing_text(split_cell(v)[1])
               or plain_text(split_cell(v)[1]) in answers for v in values)


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
    return [d.value for d in row_conversions(values, trait, background)]
