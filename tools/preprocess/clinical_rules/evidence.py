"""Trait evidence in one cell and the decision case / control / undecided.

:func:`classify_trait_cell` decides one raw characteristics cell for a binary
trait, in this order:

0. an abbreviation the background defines ("non-demented controls (ND)");
1. missing words (``NA``, ``unknown``) -> undecided;
2. a key naming the trait with a yes/no answer (``"diabetes: yes"``);
3. a negated mention (``non-diabetic``, ``cancer-free``) -> control;
4. a control word (``control``, ``healthy``, ``normal``, trait-specific ones
   such as ``normotensive``) -> control; it beats a trait mention in the same
   cell ("normal tissue adjacent to tumor"); treatment controls (``vehicle``,
   ``mock``, ``DMSO``) are removed first;
5. a trait mention (name, synonym, abbreviation, all content words, one
   distinctive word, or organ + cancer word) -> case;
6. a generic case word (``patient``) -> case, only when the background names
   the trait and the cell names no other disease;
7. otherwise undecided.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from tools.preprocess.clinical import split_key_value
from tools.preprocess.clinical_rules.lexicon import TraitLexicon, trait_lexicon
from tools.preprocess.clinical_rules.text import (find_phrase, fold, is_missing_text,
                                                  plain_text, raw_tokens, text_tokens)
from tools.preprocess.clinical_rules.words import (CANCER_GENERIC_WORDS, CONTROL_ABBREVIATIONS,
                                                   CONTROL_PHRASES, CONTROL_WORDS,
                                                   DISEASE_KEY_WORDS, DISEASE_SUFFIXES,
                                                   GENERIC_CASE_WORDS, GENERIC_TRAIT_WORDS,
                                                   LAB_ABBREVIATIONS, NAMED_CANCER_WORDS,
                                                   NEGATION_FILLERS, NEGATORS_AFTER,
                                                   NEGATORS_TIGHT, NEGATORS_WIDE, NO_WORDS,
                                                   NOT_DISEASE_WORDS, ORGAN_GROUPS,
                                                   TREATMENT_CONTROL_PHRASES, VOIDING_PREFIXES,
                                                   WEAK_CONTROL_WORDS, YES_WORDS)

#: Words that mark an abbreviation defined in the background as a model, not patients.
MODEL_WORDS = frozenset({"line", "cell", "clone", "strain", "mouse", "mice", "xenograft",
                         "organoid"})


@dataclass(frozen=True)
class Evidence:
    """What one cell says about the trait.

    Attributes
    ----------
    level : int
        Strength of the trait mention: 3 name/synonym/abbreviation, 2 all
        content words or organ + cancer word, 1 one distinctive word or a bare
        cancer word (cancer traits), 0 none.
    negated : bool
        The mention is negated (``non-diabetic``, ``cancer-free``).
    control : int
        2 strong control word, 1 weak control word, 0 none.
    generic_case : bool
        A generic case word (``patient``) is present.
    other_disease : bool
        The cell names a disease that is not the trait.
    """

    level: int = 0
    negated: bool = False
    control: int = 0
    generic_case: bool = False
    other_disease: bool = False


def trait_mentions(tokens: Sequence[str], raw: Sequence[str], lex: TraitLexicon
                   ) -> List[Tuple[int, int, int]]:
    """Trait mentions as ``(level, start, end)`` token spans (end exclusive)."""
    found: List[Tuple[int, int, int]] = []
    token_set = set(tokens)
    if lex.type_number is not None:
        others = {n for n in ("1", "2", "3", "i", "ii", "iii")
                  if n not in (lex.type_number, {"1": "i", "2": "ii", "3": "iii"}
                               .get(lex.type_number))}
        for i, token in enumerate(tokens[:-1]):
            if token == "type" and tokens[i + 1] in others:
                return []        # "type 1 diabetes" is not type 2
        if any(re.fullmatch(rf"t{n}d(m)?|dm{n}", t) for t in tokens for n in others
               if n.isdigit()):
            return []
    for phrase in lex.phrases:
        for start in find_phrase(tokens, phrase):
            found.append((3, start, start + len(phrase)))
    for abbr in lex.abbreviations:
        if any(word == abbr or (len(abbr) >= 3 and word.lower() == abbr.lower())
               for word in raw):
            # position among canonical tokens (for negation); 0 when it was split
            target = text_tokens(abbr)
            starts = find_phrase(tokens, target) if target else []
            for start in starts or [0]:
                found.append((3, start, start + max(len(target), 1)))
    if lex.core and all(t in token_set for t in lex.core):
        first = min(tokens.index(t) for t in lex.core)
        last = max(tokens.index(t) for t in lex.core)
        found.append((2, first, last + 1))
    if lex.is_cancer:
        cancer_positions = [i for i, t in enumerate(tokens) if t in CANCER_GENERIC_WORDS]
        organ_positions = [i for i, t in enumerate(tokens) if t in lex.organs]
        if cancer_positions and organ_positions:
            found.append((2, min(organ_positions + cancer_positions),
                          max(organ_positions + cancer_positions) + 1))
        elif cancer_positions and not names_other_organ(tokens, lex):
            for i in cancer_positions:
                found.append((1, i, i + 1))
    for i, token in enumerate(tokens):
        if token in lex.distinctive:
            found.append((2 if token in NAMED_CANCER_WORDS else 1, i, i + 1))
    return found


def names_other_organ(tokens: Sequence[str], lex: TraitLexicon) -> bool:
    """A cancer cell naming an organ the trait does not name (another cancer)."""
    for group in ORGAN_GROUPS:
        if any(t in group for t in tokens) and not any(g in lex.organs for g in group):
            if lex.organs or group[0] not in ("blood", "brain"):
                return True
    return False


def is_negated(tokens: Sequence[str], start: int, end: int) -> bool:
    """Whether the mention ``tokens[start:end]`` is negated.

    ``non``/``un`` right before it, a wide negator (``no``, ``without``) up to
    four filler words before it ("no history of diabetes"), or a negator right
    after it ("cancer-free", "HIV negative").
    """
    if start >= 1 and tokens[start - 1] in NEGATORS_TIGHT:
        return True
    j = start - 1
    while j >= 0 and start - j <= 4:
        if tokens[j] in NEGATORS_WIDE:
            return True
        if tokens[j] not in NEGATION_FILLERS:
            break
        j -= 1
    return end < len(tokens) and tokens[end] in NEGATORS_AFTER


def strip_treatment_controls(tokens: Tuple[str, ...]) -> Tuple[str, ...]:
    """``tokens`` with experimental-control phrases (``vehicle control``) blanked out."""
    out = list(tokens)
    for text in TREATMENT_CONTROL_PHRASES:
        phrase = text_tokens(text)
        for start in find_phrase(out, phrase):
            for k in range(start, start + len(phrase)):
                out[k] = "_"
    return tuple(out)


def control_level(tokens: Tuple[str, ...], raw: Sequence[str], lex: TraitLexicon) -> int:
    """2 for a strong control word or phrase, 1 for a weak one, 0 for none."""
    clean = strip_treatment_controls(tokens)
    if any(t in CONTROL_WORDS for t in clean):
        return 2
    for text in CONTROL_PHRASES:
        if find_phrase(clean, text_tokens(text)):
            return 2
    for phrase in lex.control_phrases:
        if find_phrase(clean, phrase):
            return 2
    if any(word in CONTROL_ABBREVIATIONS for word in raw):
        return 2
    if any(t in WEAK_CONTROL_WORDS for t in clean):
        return 1
    return 0


def names_other_disease(tokens: Sequence[str], raw: Sequence[str], lex: TraitLexicon,
                        mention_tokens: Iterable[int]) -> bool:
    """Whether a cell names a disease other than the trait.

    Outside the trait's own mention (``mention_tokens``): a named syndrome or
    disease ("Williams syndrome"), a word with a disease suffix (``-itis``,
    ``-osis``, ``-oma`` ...), a tumour word for a non-cancer trait, or an
    upper-case abbreviation that is neither the trait's nor lab jargon.
    """
    used = set(mention_tokens)
    trait_words = {t for p in lex.phrases for t in p} | set(lex.core) | set(lex.organs)
    for i, token in enumerate(tokens):
        if i in used or token in trait_words:
            continue
        if token in {"syndrome", "disease", "disorder"} and i > 0 and i - 1 not in used \
                and tokens[i - 1] not in GENERIC_TRAIT_WORDS | GENERIC_CASE_WORDS \
                | CONTROL_WORDS | NEGATORS_TIGHT | NEGATORS_WIDE and not tokens[i - 1].isdigit():
            return True     # "Williams syndrome patient": a named other disease
        if token in NOT_DISEASE_WORDS:
            continue
        if token.endswith(DISEASE_SUFFIXES) and len(token) > 4:
            return True
        if lex.is_cancer is False and token in CANCER_GENERIC_WORDS | NAMED_CANCER_WORDS:
            return True
    abbreviations = set(lex.abbreviations)
    for word in raw:
        if (word.isalpha() and word.isupper() and 2 <= len(word) <= 5
                and word not in abbreviations and word not in LAB_ABBREVIATIONS):
            return True
    return False


def cell_evidence(text: str, lex: TraitLexicon) -> Evidence:
    """The :class:`Evidence` one piece of text holds about the trait of ``lex``."""
    tokens = text_tokens(text)
    raw = raw_tokens(text)
    mentions = trait_mentions(tokens, raw, lex)
    # "pre-diabetes", "pre-eclampsia": a precursor state, neither case nor control
    mentions = [m for m in mentions if not (m[1] >= 1 and tokens[m[1] - 1] in VOIDING_PREFIXES)]
    positive = [m for m in mentions if not is_negated(tokens, m[1], m[2])]
    negative = [m for m in mentions if is_negated(tokens, m[1], m[2])]
    level = max((m[0] for m in positive), default=0)
    negated = bool(negative) and level <= max(m[0] for m in negative)
    # generic case words, themselves possibly negated ("non-affected")
    generic = False
    for i, token in enumerate(tokens):
        if token in GENERIC_CASE_WORDS and not is_negated(tokens, i, i + 1):
            generic = True
        if token in GENERIC_CASE_WORDS and is_negated(tokens, i, i + 1):
            negated = negated or level == 0
    used = [k for m in mentions for k in range(m[1], m[2])]
    return Evidence(level=level, negated=negated, control=control_level(tokens, raw, lex),
                    generic_case=generic,
                    other_disease=names_other_disease(tokens, raw, lex, used))


@functools.lru_cache(maxsize=4096)
def background_names_trait(background: str, trait: str) -> bool:
    """Whether the series text names the trait (any level)."""
    if not background:
        return False
    lex = trait_lexicon(trait)
    tokens = text_tokens(background)
    return bool(trait_mentions(tokens, raw_tokens(background), lex))


_ABBREVIATION_DEFINITION = re.compile(
    r"(?P<phrase>[A-Za-z][A-Za-z0-9'\u2019\- ]{2,80}?)\s*[(\[]\s*"
    r"(?P<abbr>[A-Z][A-Za-z0-9]{0,3}[A-Z0-9](?:/[A-Z0-9]+)?)\s*(?=[)\];,=:]|\s*[=,;]|\s+n\b)")


@functools.lru_cache(maxsize=4096)
def background_abbreviations(background: str, trait: str
                             ) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """Abbreviations the series text defines for cases and for controls.

    ``"Alzheimer's disease (AD = 97) and non-demented controls (ND = 98)"``
    defines ``AD`` (names the trait -> case) and ``ND`` (a control phrase ->
    control). The phrase is the last five words before the parenthesis, cut at
    the previous parenthesis, "and", "or", "vs" or punctuation.

    Returns
    -------
    (case_abbreviations, control_abbreviations) : tuple of tuple of str
    """
    if not background:
        return (), ()
    lex = trait_lexicon(trait)
    cases: List[str] = []
    controls: List[str] = []
    text = fold(background)
    for match in _ABBREVIATION_DEFINITION.finditer(text):
        phrase = re.split(r"[()\[\];:,.]|\band\b|\bor\b|\bvs\b|\bversus\b|\bfrom\b",
                          match.group("phrase"))[-1]
        words = phrase.split()[-5:]
        if not words:
            continue
        abbr = match.group("abbr")
        if set(text_tokens(" ".join(words))) & MODEL_WORDS:
            continue        # "melanoma cell line (A375)" names a model, not patients
        ev = cell_evidence(" ".join(words), lex)
        if ev.negated or (ev.control == 2 and ev.level < 3):
            if abbr not in controls:
                controls.append(abbr)
        elif ev.level >= 2 and abbr not in cases:
            cases.append(abbr)
    both = set(cases) & set(controls)
    return (tuple(a for a in cases if a not in both),
            tuple(a for a in controls if a not in both))


def key_names_trait(key: str, lex: TraitLexicon) -> bool:
    """Whether a characteristics key (``"hypertension"``, ``"RA status"``) names the trait."""
    if not key:
        return False
    tokens = text_tokens(key)
    return any(level >= 2 or (level == 1 and not lex.is_cancer)
               for level, _, _ in trait_mentions(tokens, raw_tokens(key), lex))


def classify_trait_cell(cell: Any, trait: str, background: str = ""
                        ) -> Tuple[Optional[float], int]:
    """Decide one cell of a binary trait, without row context.

    Parameters
    ----------
    cell : object
        Raw ``key: value`` cell (or a bare value).
    trait : str
        Benchmark trait name.
    background : str
        Series text; generic case words count only when it names the trait.

    Returns
    -------
    label : float or None
        1.0 case, 0.0 control, None undecided.
    strength : int
        3 name/synonym/explicit answer, 2 content words / organ + cancer word
        / strong control, 1 weak evidence, 0 none.
    """
    key, value = split_key_value(cell)
    if value is not None and background:
        # an abbreviation the series text defines beats the missing-word list
        # ("ND" = non-demented controls, not "not determined")
        defined_cases, defined_controls = background_abbreviations(background, trait)
        if value.strip() in defined_controls:
            return 0.0, 2
        if value.strip() in defined_cases:
            return 1.0, 3
    if is_missing_text(value):
        return None, 0
    lex = trait_lexicon(trait)
    simple = plain_text(value)
    if key_names_trait(key, lex):
        if simple in YES_WORDS:
            return 1.0, 3
        if simple in NO_WORDS:
            return 0.0, 3
    if simple == "none":
        return (0.0, 1) if key_is_disease_like(key) else (None, 0)
    ev = cell_evidence(value, lex)
    if ev.level == 0 and ev.control == 0 and background:
        defined_cases, defined_controls = background_abbreviations(background, trait)
        raw = set(raw_tokens(value))
        if raw & set(defined_controls):
            return 0.0, 2
        if raw & set(defined_cases):
            return 1.0, 3
    if ev.negated:
        return 0.0, 3
    if ev.control == 2:
        return 0.0, 2
    if ev.level >= 1:
        if ev.level == 1 and ev.other_disease:
            return None, 0
        return 1.0, ev.level
    if ev.control == 1:
        return 0.0, 1
    if ev.generic_case and not ev.other_disease and background_names_trait(background, trait):
        return 1.0, 1
    return None, 0


def key_is_disease_like(key: str) -> bool:
    """Whether a key usually holds a sample's group (``disease state``, ``diagnosis``)."""
    return bool(set(text_tokens(key)) & DISEASE_KEY_WORDS)


def explain_value(cell: Any, trait: str, background: str = "") -> Dict[str, Any]:
    """The evidence behind :func:`classify_trait_cell` for one cell (debugging aid)."""
    key, value = split_key_value(cell)
    label, strength = classify_trait_cell(cell, trait, background)
    return {"key": key, "value": value, "tokens": text_tokens(value or ""),
            "evidence": cell_evidence(value or "", trait_lexicon(trait)),
            "label": label, "strength": strength,
            "background_names_trait": background_names_trait(background, trait)}
