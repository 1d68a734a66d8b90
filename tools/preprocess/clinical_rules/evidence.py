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
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from tools.preprocess.clinical_rules.knowledge import Match, other_traits_in
from tools.preprocess.clinical_rules.lexicon import TraitLexicon, trait_lexicon
from tools.preprocess.clinical_rules.text import (find_phrase, fold, is_missing_text,
                                                  plain_text, raw_tokens, split_cell,
                                                  text_tokens)
from tools.preprocess.clinical_rules.words import (CANCER_GENERIC_WORDS, CONTROL_ABBREVIATIONS,
                                                   CONTROL_PHRASES, CONTROL_WORDS,
                                                   DISEASE_KEY_WORDS, DISEASE_SUFFIXES,
                                                   GENERIC_CASE_WORDS, GENERIC_STATE_WORDS,
                                                   GENERIC_TRAIT_WORDS,
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
        Strength of the trait mention: 3 name, subtype, abbreviation or cell
        line of the trait; 2 all content words of the name, organ + cancer
        word, or a related diagnosis; 1 one distinctive word, a bare cancer
        word (cancer traits), a causal gene or a precursor state; 0 none.
    negated : bool
        The mention is negated (``non-diabetic``, ``cancer-free``).
    control : int
        2 strong control word, 1 weak control word, 0 none.
    generic_case : bool
        A generic case word (``patient``) is present.
    other_disease : bool
        The cell names a disease that is not the trait.
    precursor : bool
        The strongest mention is a precursor state (``MCI``, ``Barrett's``).
    line_only : bool
        The strongest mention is a cell line of the trait, nothing else.
    words : tuple of str
        The evidence, ``"<field>: <entry>"`` for every lexicon entry that
        matched (``"names: rheumatoid arthritis"``, ``"controls: normotensive"``).
    """

    level: int = 0
    negated: bool = False
    control: int = 0
    generic_case: bool = False
    other_disease: bool = False
    precursor: bool = False
    line_only: bool = False
    words: Tuple[str, ...] = ()


class Mention(NamedTuple):
    """One trait mention: strength, canonical-token span (end exclusive), source."""

    level: int
    start: int
    end: int
    source: str


#: Strength of a mention by the data-file field that matched it.
FIELD_LEVELS = {"names": 3, "subtypes": 3, "abbreviations": 3, "cell_lines": 3,
                "related": 2, "genes": 1, "precursors": 1}


def _other_type(tokens: Sequence[str], lex: TraitLexicon) -> bool:
    """A "type N" trait and a cell naming another type ("type 1 diabetes" for type 2)."""
    others = {n for n in ("1", "2", "3", "i", "ii", "iii")
              if n not in (lex.type_number, {"1": "i", "2": "ii", "3": "iii"}
                           .get(lex.type_number))}
    for i, token in enumerate(tokens[:-1]):
        if token == "type" and tokens[i + 1] in others:
            return True
    return any(re.fullmatch(rf"t{n}d(m)?|dm{n}", t) for t in tokens for n in others
               if n.isdigit())


def trait_mentions(tokens: Sequence[str], raw: Sequence[str], lex: TraitLexicon
                   ) -> List[Mention]:
    """Trait mentions (:class:`Mention`) in a text's canonical and raw tokens.

    From the name itself (phrases, initials, content words, a distinctive
    word, organ + cancer word) and from the data file (:data:`FIELD_LEVELS`);
    a mention inside a differential diagnosis of the data file ("vascular
    dementia" for Alzheimer's) is not one.
    """
    if lex.type_number is not None and _other_type(tokens, lex):
        return []        # "type 1 diabetes" is not type 2
    found: List[Mention] = []
    token_set = set(tokens)
    for phrase in lex.phrases:
        for start in find_phrase(tokens, phrase):
            found.append(Mention(3, start, start + len(phrase), "name: " + " ".join(phrase)))
    for abbr in lex.abbreviations:
        if any(word == abbr or (len(abbr) >= 3 and word.lower() == abbr.lower())
               for word in raw):
            # position among canonical tokens (for negation); 0 when it was split
            target = text_tokens(abbr)
            starts = find_phrase(tokens, target) if target else []
            for start in starts or [0]:
                found.append(Mention(3, start, start + max(len(target), 1),
                                     "abbreviation: " + abbr))
    if lex.core and all(t in token_set for t in lex.core):
        first = min(tokens.index(t) for t in lex.core)
        last = max(tokens.index(t) for t in lex.core)
        found.append(Mention(2, first, last + 1, "name words: " + " ".join(lex.core)))
    if lex.is_cancer:
        cancer_positions = [i for i, t in enumerate(tokens) if t in CANCER_GENERIC_WORDS]
        organ_positions = [i for i, t in enumerate(tokens) if t in lex.organs]
        if cancer_positions and organ_positions:
            found.append(Mention(2, min(organ_positions + cancer_positions),
                                 max(organ_positions + cancer_positions) + 1,
                                 "organ + cancer word: " + " ".join(
                                     tokens[i] for i in sorted(organ_positions
                                                               + cancer_positions))))
        elif cancer_positions and not names_other_organ(tokens, lex):
            for i in cancer_positions:
                found.append(Mention(1, i, i + 1, "cancer word: " + tokens[i]))
    for i, token in enumerate(tokens):
        if token in lex.distinctive:
            # "leukemia" alone names acute myeloid leukemia only weakly
            named = token in NAMED_CANCER_WORDS and len(lex.core) == 1
            found.append(Mention(2 if named else 1, i, i + 1, "name word: " + token))
    matches = lex.knowledge.find_tokens(tokens, raw)
    excluded = [(m.start, m.end) for m in matches if m.field == "not_trait"]
    # a name-derived mention inside a differential diagnosis ("adrenocortical
    # adenoma" for adrenocortical carcinoma) is not one
    found = [m for m in found if not any(a <= m.start and m.end <= b and m.level < 3
                                         for a, b in excluded)]
    other_organ = lex.is_cancer and names_other_organ(tokens, lex)
    for match in matches:
        level = FIELD_LEVELS.get(match.field)
        if level is None:
            continue
        if any(a <= match.start and match.end <= b and (a, b) != (match.start, match.end)
               or (a, b) == (match.start, match.end) and level < 3 for a, b in excluded):
            continue
        source = f"{match.field}: {match.text}"
        if is_generic_span(tokens[match.start:match.end]):
            if other_organ:
                continue        # "breast cancer" is not this cancer's "cancer"
            level, source = 1, "generic " + source
        found.append(Mention(level, match.start, match.end, source))
    return found


def is_generic_span(tokens: Sequence[str]) -> bool:
    """A lexicon entry made only of generic state words (``tumor``, ``stage III``).

    Such an entry says "some disease in some state", not which disease, so it
    is weak evidence (:data:`.words.GENERIC_STATE_WORDS`, cancer words, numbers).
    """
    return bool(tokens) and all(t in GENERIC_STATE_WORDS or t in CANCER_GENERIC_WORDS
                                or t.isdigit() for t in tokens)


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


@functools.lru_cache(maxsize=1)
def _phrase_tokens() -> Tuple[Tuple[Tuple[str, ...], ...], Tuple[Tuple[str, ...], ...]]:
    """Canonical tokens of the treatment-control and control phrases (computed once)."""
    return (tuple(text_tokens(t) for t in TREATMENT_CONTROL_PHRASES),
            tuple(text_tokens(t) for t in CONTROL_PHRASES))


def strip_treatment_controls(tokens: Tuple[str, ...]) -> Tuple[str, ...]:
    """``tokens`` with experimental-control phrases (``vehicle control``) blanked out."""
    out = list(tokens)
    present = set(tokens)
    for phrase in _phrase_tokens()[0]:
        if phrase[0] not in present:
            continue
        for start in find_phrase(out, phrase):
            for k in range(start, start + len(phrase)):
                out[k] = "_"
    return tuple(out)


def control_level(tokens: Tuple[str, ...], raw: Sequence[str], lex: TraitLexicon,
                  matches: Optional[Sequence[Match]] = None) -> int:
    """2 for a strong control word or phrase, 1 for a weak one, 0 for none.

    Strong: a generic control word or phrase (``control``, ``healthy``,
    ``adjacent normal``), a control abbreviation (``HC``), or a control group
    of the trait's data-file entry (``normotensive``, ``MCF10A``).
    """
    clean = strip_treatment_controls(tokens)
    if any(t in CONTROL_WORDS for t in clean):
        return 2
    present = set(clean)
    for phrase in _phrase_tokens()[1]:
        if phrase[0] in present and find_phrase(clean, phrase):
            return 2
    if matches is None:
        matches = lex.knowledge.find_tokens(tokens, raw)
    if any(m.field in ("controls", "control_cell_lines") for m in matches):
        return 2
    if any(word in CONTROL_ABBREVIATIONS for word in raw):
        return 2
    if any(t in WEAK_CONTROL_WORDS for t in clean):
        return 1
    return 0


def names_other_disease(tokens: Sequence[str], raw: Sequence[str], lex: TraitLexicon,
                        mention_tokens: Iterable[int],
                        matches: Optional[Sequence[Match]] = None) -> bool:
    """Whether a cell names a disease other than the trait.

    Outside the trait's own mention (``mention_tokens``): a differential
    diagnosis of the data file (``ulcerative colitis`` for Crohn's disease), a
    name, abbreviation or cell line of another trait of the data file that the
    trait's own entry does not cover (:func:`.knowledge.other_traits_in`), a
    named syndrome or disease ("Williams syndrome"), a word with a disease
    suffix (``-itis``, ``-osis``, ``-oma`` ...), a tumour word for a non-cancer
    trait, or an upper-case abbreviation that is neither the trait's nor lab
    jargon.
    """
    used = set(mention_tokens)
    if matches is None:
        matches = lex.knowledge.find_tokens(tokens, raw)
    for match in matches:
        if match.field == "not_trait" and not used.issuperset(range(match.start, match.end)):
            return True
    own = set(used) | {k for m in matches if m.field != "not_trait"
                       for k in range(m.start, m.end)}
    for match in other_traits_in(tokens, raw, lex.trait):
        if not own.issuperset(range(match.start, match.end)):
            return True     # a name or cell line of another trait of the data file
    if lex.is_cancer and any(t in CANCER_GENERIC_WORDS for t in tokens) \
            and names_other_organ(tokens, lex):
        return True         # "breast cancer" for a pancreatic cancer trait
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
    abbreviations = set(lex.abbreviations) | {
        word for m in matches if m.field != "not_trait" for word in raw_tokens(m.text)}
    for word in raw:
        if (word.isalpha() and word.isupper() and 2 <= len(word) <= 5
                and word not in abbreviations and word not in LAB_ABBREVIATIONS):
            return True
    return False


def cell_evidence(text: str, lex: TraitLexicon) -> Evidence:
    """The :class:`Evidence` one piece of text holds about the trait of ``lex``."""
    return _cell_evidence(str(text), lex.trait)


@functools.lru_cache(maxsize=65536)
def _cell_evidence(text: str, trait: str) -> Evidence:
    lex = trait_lexicon(trait)
    tokens = text_tokens(text)
    raw = raw_tokens(text)
    matches = lex.knowledge.find_tokens(tokens, raw)
    mentions = trait_mentions(tokens, raw, lex)
    # "pre-diabetes", "pre-eclampsia": a precursor state, neither case nor control
    mentions = [m for m in mentions if not (m.start >= 1
                                            and tokens[m.start - 1] in VOIDING_PREFIXES)]
    positive = [m for m in mentions if not is_negated(tokens, m.start, m.end)]
    negative = [m for m in mentions if is_negated(tokens, m.start, m.end)]
    level = max((m.level for m in positive), default=0)
    negated = bool(negative) and level <= max(m.level for m in negative)
    precursor = bool(positive) and all(m.source.startswith("precursors:")
                                       for m in positive if m.level == level)
    line_only = bool(positive) and all(m.source.startswith("cell_lines:")
                                       for m in positive if m.level == level)
    # generic case words, themselves possibly negated ("non-affected")
    generic = False
    for i, token in enumerate(tokens):
        if token in GENERIC_CASE_WORDS and not is_negated(tokens, i, i + 1):
            generic = True
        if token in GENERIC_CASE_WORDS and is_negated(tokens, i, i + 1):
            negated = negated or level == 0
    used = [k for m in mentions for k in range(m.start, m.end)]
    words = [m.source for m in positive] + [f"negated {m.source}" for m in negative]
    words += [f"{m.field}: {m.text}" for m in matches
              if m.field in ("controls", "control_cell_lines", "not_trait")]
    return Evidence(level=level, negated=negated,
                    control=control_level(tokens, raw, lex, matches), generic_case=generic,
                    other_disease=names_other_disease(tokens, raw, lex, used, matches),
                    precursor=precursor, line_only=line_only,
                    words=tuple(dict.fromkeys(words)))


@functools.lru_cache(maxsize=4096)
def background_names_trait(background: str, trait: str) -> bool:
    """Whether the series text names the trait (any level)."""
    if not background:
        return False
    lex = trait_lexicon(trait)
    tokens = text_tokens(background)
    return bool(trait_mentions(tokens, raw_tokens(background), lex))


@functools.lru_cache(maxsize=4096)
def background_level(background: str, trait: str) -> int:
    """Strength of the best trait mention in the series text (0-3, see :class:`Mention`)."""
    if not background:
        return 0
    lex = trait_lexicon(trait)
    mentions = trait_mentions(text_tokens(background), raw_tokens(background), lex)
    return max((m.level for m in mentions), default=0)


#: An abbreviation opening a bracket: ``(AD = 97)``, ``[ND,``, ``(PCOS)``.
_BRACKETED_ABBREVIATION = re.compile(
    r"[(\[]\s*(?P<abbr>[A-Z][A-Za-z0-9]{0,3}[A-Z0-9](?:/[A-Z0-9]+)?)"
    r"\s*(?=[)\];,=:]|\s*[=,;]|\s+n\b)")
#: The words right before it (at most 81 characters, starting with a letter).
_PHRASE_BEFORE = re.compile(r"[A-Za-z][A-Za-z0-9'\u2019\- ]{2,80}$")


def _defined_abbreviations(text: str) -> List[Tuple[str, str]]:
    """``(phrase, abbreviation)`` of every "phrase (ABBR" in a text, left to right.

    The bracket is found first and the phrase read backwards from it, which
    keeps the search linear in the length of the text.
    """
    found = []
    for match in _BRACKETED_ABBREVIATION.finditer(text):
        before = text[max(0, match.start() - 200):match.start()].rstrip()
        phrase = _PHRASE_BEFORE.search(before[-81:])
        if phrase:
            found.append((phrase.group(0), match.group("abbr")))
    return found


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
    for phrase, abbr in _defined_abbreviations(text):
        phrase = re.split(r"[()\[\];:,.]|\band\b|\bor\b|\bvs\b|\bversus\b|\bfrom\b",
                          phrase)[-1]
        words = phrase.split()[-5:]
        if not words:
            continue
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
    return bool(key) and _key_names_trait(key, lex.trait)


@functools.lru_cache(maxsize=16384)
def _key_names_trait(key: str, trait: str) -> bool:
    lex = trait_lexicon(trait)
    tokens = text_tokens(key)
    return any(m.level >= 2 or (m.level == 1 and not lex.is_cancer)
               for m in trait_mentions(tokens, raw_tokens(key), lex))


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
    if not isinstance(cell, str):
        return _classify_trait_cell(cell, trait, background)
    return _classify_cached(cell, trait, background)


@functools.lru_cache(maxsize=65536)
def _classify_cached(cell: str, trait: str, background: str) -> Tuple[Optional[float], int]:
    return _classify_trait_cell(cell, trait, background)


def _classify_trait_cell(cell: Any, trait: str, background: str
                         ) -> Tuple[Optional[float], int]:
    key, value = split_cell(cell)
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
    if ev.precursor:
        return None, 0      # "pre-diabetes", "MCI": neither case nor control on its own
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
    key, value = split_cell(cell)
    label, strength = classify_trait_cell(cell, trait, background)
    return {"key": key, "value": value, "tokens": text_tokens(value or ""),
            "evidence": cell_evidence(value or "", trait_lexicon(trait)),
            "label": label, "strength": strength,
            "background_names_trait": background_names_trait(background, trait)}
