"""What general biomedical knowledge says about a trait: :class:`TraitKnowledge`.

The knowledge comes from the package's data file ``trait_lexicon.toml`` (names,
abbreviations, subtypes, related diagnoses, precursors, differential
diagnoses, control groups, organs, causal genes, cell lines, staging systems
and measured quantities of every GenoTEX trait; the file says which
vocabularies each entry follows), read once with :mod:`importlib.resources`.
A trait the file does not list still gets a :class:`TraitKnowledge` built from
its name alone, so the rules work -- more weakly -- on any trait.

Phrases are matched on canonical tokens (:func:`.text.text_tokens`: case,
plurals, accents, hyphens and adjective forms do not matter); abbreviations on
the raw text (case-sensitive up to three characters); cell lines on the text
with everything but letters and digits removed (``MCF-7`` = ``MCF7``).
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from tools.preprocess.clinical_rules.text import fold, raw_tokens, text_tokens

#: The data file (package data of :mod:`tools.preprocess.clinical_rules`).
LEXICON_FILE = "trait_lexicon.toml"
#: Kinds of trait the data file distinguishes.
KINDS = ("disease", "cancer", "quantity", "phenotype")
#: Values of the ``sex`` field (a trait of one sex only).
SEXES = ("female", "male")
#: Phrase fields of an entry, in the order evidence is reported.
PHRASE_FIELDS = ("names", "subtypes", "related", "precursors", "not_trait", "controls",
                 "organs", "genes", "staging", "measures")
#: Fields of raw-text identifiers.
RAW_FIELDS = ("abbreviations", "cell_lines", "control_cell_lines")
#: Fields of guideline thresholds (:class:`Cutoff`).
CUTOFF_FIELDS = ("cutoffs",)
#: Words dropped from a trait name before it becomes a phrase.
_NAME_DROP = frozenset({"and", "of", "the", "in", "with"})

Phrase = Tuple[str, ...]


@dataclass(frozen=True)
class Match:
    """One piece of knowledge found in a text.

    Attributes
    ----------
    field : str
        Which field of the lexicon matched (``names``, ``subtypes``,
        ``abbreviations``, ``cell_lines`` ...).
    text : str
        The lexicon entry that matched, as written in the data file.
    start, end : int
        Span in the text's canonical tokens (end exclusive); raw-text matches
        are mapped onto the nearest canonical tokens.
    """

    field: str
    text: str
    start: int
    end: int


#: A cut-off entry: ``"<measure> <operator> <number>"``.
_CUTOFF = re.compile(r"^(?P<measure>.+?)\s*(?P<op>>=|<=|>|<)\s*(?P<value>-?\d+(?:\.\d+)?)$")
#: Shortest word compared with one edit allowed (``sistolic`` = ``systolic``).
FUZZY_MIN = 6


@dataclass(frozen=True)
class Cutoff:
    """A guideline threshold defining a binary trait on a measure (``AHI >= 5``).

    Attributes
    ----------
    text : str
        The entry as written in the data file.
    measure : tuple of str
        Canonical tokens of the measure's name.
    op : str
        ``>=``, ``<=``, ``>`` or ``<``.
    value : float
        The threshold.
    """

    text: str
    measure: Phrase
    op: str
    value: float

    def holds(self, number: float) -> bool:
        """Whether a measured value meets the threshold (has the trait)."""
        return {">=": number >= self.value, "<=": number <= self.value,
                ">": number > self.value, "<": number < self.value}[self.op]


def parse_cutoff(entry: str) -> Cutoff:
    """Read one ``cutoffs`` entry; ValueError when it is not ``measure op number``."""
    match = _CUTOFF.match(entry.strip())
    tokens = text_tokens(match.group("measure")) if match else ()
    if not match or not tokens:
        raise ValueError(f"{LEXICON_FILE}: cut-off {entry!r} is not 'measure >= number'")
    return Cutoff(entry, tuple(tokens), match.group("op"), float(match.group("value")))


def near_word(a: str, b: str) -> bool:
    """Equal words, or words of :data:`FUZZY_MIN` letters or more one edit apart."""
    if a == b:
        return True
    if min(len(a), len(b)) < FUZZY_MIN or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i + 1:] == b[i + 1:] if len(a) == len(b) else a[i:] == b[i + 1:]


def holds_phrase(tokens: Sequence[str], phrase: Phrase) -> bool:
    """Whether ``phrase`` occurs in ``tokens``, each word within one edit (:func:`near_word`)."""
    n = len(phrase)
    return any(all(near_word(tokens[i + k], phrase[k]) for k in range(n))
               for i in range(len(tokens) - n + 1))


class PhraseIndex:
    """Phrases (canonical token tuples) of several fields, indexed by their first token."""

    def __init__(self, entries: Iterable[Tuple[str, str]]) -> None:
        by_first: Dict[str, List[Tuple[Phrase, str, str]]] = {}
        for field, entry in entries:
            tokens = text_tokens(entry)
            if tokens:
                by_first.setdefault(tokens[0], []).append((tokens, field, entry))
        for items in by_first.values():
            items.sort(key=lambda item: -len(item[0]))      # longest first
        self._by_first = by_first

    def __bool__(self) -> bool:
        return bool(self._by_first)

    def find(self, tokens: Sequence[str]) -> List[Tuple[int, int, str, str]]:
        """``(start, end, field, entry)`` of every phrase occurring in ``tokens``."""
        found = []
        for i, token in enumerate(tokens):
            for phrase, field, entry in self._by_first.get(token, ()):
                end = i + len(phrase)
                if end <= len(tokens) and tuple(tokens[i:end]) == phrase:
                    found.append((i, end, field, entry))
        return found


@functools.lru_cache(maxsize=65536)
def squash(text: str) -> str:
    """Lower-case letters and digits only (``"MCF-7"`` -> ``"mcf7"``)."""
    return re.sub(r"[^a-z0-9]", "", fold(text).lower())


class RawIndex:
    """Abbreviations and cell lines, matched on raw tokens.

    Abbreviations (``kind="abbr"``) are matched as raw token sequences, case
    sensitively up to three characters and case-insensitively beyond. Cell
    lines (``kind="line"``) are matched as squashed runs of one to four raw
    tokens (``"MDA-MB-231"``, ``"MDA MB 231"`` and ``"mdamb231"`` are one line).
    """

    def __init__(self, entries: Iterable[Tuple[str, str]], kind: str) -> None:
        self.kind = kind
        self._exact: Dict[Tuple[str, ...], List[Tuple[str, str]]] = {}
        self._folded: Dict[Tuple[str, ...], List[Tuple[str, str]]] = {}
        self._squashed: Dict[str, List[Tuple[str, str]]] = {}
        self._prefixes: set = set()
        self.max_len = 1
        for field, entry in entries:
            parts = tuple(raw_tokens(entry))
            if not parts:
                continue
            if kind == "line":
                key = squash(entry)
                if len(key) >= 2:
                    _add(self._squashed, key, (field, entry))
                    self._prefixes.update(key[:i] for i in range(1, len(key) + 1))
                    self.max_len = max(self.max_len, min(len(parts), 4))
            elif len("".join(parts)) <= 3:
                _add(self._exact, parts, (field, entry))
                self._prefixes.add(parts[0])
                self.max_len = max(self.max_len, len(parts))
            else:
                _add(self._folded, tuple(p.lower() for p in parts), (field, entry))
                self._prefixes.add(parts[0].lower())
                self.max_len = max(self.max_len, len(parts))

    def __bool__(self) -> bool:
        return bool(self._exact or self._folded or self._squashed)

    def find(self, raw: Sequence[str]) -> List[Tuple[int, int, str, str]]:
        """``(start, end, field, entry)`` in raw-token positions."""
        if not self:
            return []
        found = []
        if self.kind == "line":
            squashed = [squash(token) for token in raw]
            for i in range(len(raw)):
                run = ""
                for n in range(1, self.max_len + 1):
                    if i + n > len(raw):
                        break
                    run += squashed[i + n - 1]
                    if run not in self._prefixes:
                        break
                    for field, entry in self._squashed.get(run, ()):
                        found.append((i, i + n, field, entry))
            return found
        lowered = [token.lower() for token in raw]
        for i in range(len(raw)):
            if raw[i] not in self._prefixes and lowered[i] not in self._prefixes:
                continue
            for n in range(1, self.max_len + 1):
                if i + n > len(raw):
                    break
                hits = self._exact.get(tuple(raw[i:i + n])) or \
                    self._folded.get(tuple(lowered[i:i + n])) or ()
                for field, entry in hits:
                    found.append((i, i + n, field, entry))
        return found


def _add(table: Dict, key: object, item: Tuple[str, str]) -> None:
    items = table.setdefault(key, [])
    if item not in items:
        items.append(item)


@dataclass(frozen=True)
class TraitKnowledge:
    """Everything the lexicon knows about one trait.

    Attributes
    ----------
    trait : str
        Benchmark name (underscores).
    kind : str
        ``disease``, ``cancer``, ``quantity`` or ``phenotype``.
    listed : bool
        Whether the data file has an entry (False: built from the name only).
    follows : tuple of str
        Vocabularies the entry follows.
    phrases : PhraseIndex
        The phrase entries of every field.
    abbreviations : RawIndex
        Entries written like abbreviations (any field), matched on raw tokens.
    lines : RawIndex
        Cell lines (fields ``cell_lines`` and ``control_cell_lines``).
    name_words : frozenset of str
        Canonical content words of the trait's names (used to tell a named
        other disease from the trait).
    type_number : str or None
        The number of a "type N" name (``"2"`` for Type_2_Diabetes).
    cutoffs : tuple of Cutoff
        Guideline thresholds defining the trait on a measure.
    sex : str or None
        ``"female"`` or ``"male"`` for a trait of one sex only (an organ only
        that sex has: prostate, ovary, uterus ...), else None.
    """

    trait: str
    kind: str
    listed: bool
    follows: Tuple[str, ...]
    phrases: PhraseIndex
    abbreviations: RawIndex
    lines: RawIndex
    name_words: FrozenSet[str]
    type_number: Optional[str]
    cutoffs: Tuple[Cutoff, ...] = ()
    sex: Optional[str] = None

    def cutoff_for(self, key: str) -> Optional[Cutoff]:
        """The cut-off whose measure a row's key names (spelling slips forgiven), or None."""
        tokens = text_tokens(key)
        for cutoff in self.cutoffs:
            if holds_phrase(tokens, cutoff.measure):
                return cutoff
        return None

    @property
    def is_cancer(self) -> bool:
        """Whether the trait is a tumour."""
        return self.kind == "cancer"

    @property
    def is_quantity(self) -> bool:
        """Whether the trait is measured on a scale (``Heart_rate``, ``Height``)."""
        return self.kind == "quantity"

    def find(self, text: str) -> List[Match]:
        """Every piece of knowledge occurring in ``text``.

        Raw-text matches (abbreviations, cell lines) are placed on the
        canonical tokens that cover the same characters, so that negation
        checks see them in context.
        """
        return self.find_tokens(text_tokens(text), raw_tokens(text))

    def find_tokens(self, tokens: Sequence[str], raw: Sequence[str]) -> List[Match]:
        """:meth:`find` on a text's canonical and raw tokens (cached per trait)."""
        return list(_find_cached(self.trait, tuple(tokens), tuple(raw)))

    def _find(self, tokens: Sequence[str], raw: Sequence[str]) -> List[Match]:
        matches = [Match(field, entry, start, end)
                   for start, end, field, entry in self.phrases.find(tokens)]
        if raw:
            for index in (self.abbreviations, self.lines):
                for start, end, field, entry in index.find(raw):
                    first, last = _canonical_span(raw, start, end, tokens)
                    matches.append(Match(field, entry, first, last))
        return matches


@functools.lru_cache(maxsize=65536)
def _find_cached(trait: str, tokens: Tuple[str, ...], raw: Tuple[str, ...]
                 ) -> Tuple[Match, ...]:
    return tuple(trait_knowledge(trait)._find(tokens, raw))


def _canonical_span(raw: Sequence[str], start: int, end: int, tokens: Sequence[str]
                    ) -> Tuple[int, int]:
    """Canonical-token span of the raw tokens ``raw[start:end]``.

    The run's own canonical tokens are looked for in ``tokens`` (the occurrence
    nearest to the raw position wins); failing that, the proportional position.
    """
    target = text_tokens(" ".join(raw[start:end]))
    total = max(len(tokens), 1)
    guess = min(total - 1, round(start * total / max(len(raw), 1)))
    if target:
        n = len(target)
        hits = [i for i in range(len(tokens) - n + 1) if tuple(tokens[i:i + n]) == target]
        if hits:
            best = min(hits, key=lambda i: abs(i - guess))
            return best, best + n
    return guess, guess + 1


@functools.lru_cache(maxsize=1)
def load_lexicon() -> Dict[str, dict]:
    """The data file as ``{trait: entry}`` (read once per process)."""
    text = resources.files("tools.preprocess.clinical_rules").joinpath(LEXICON_FILE) \
        .read_text(encoding="utf-8")
    data = tomllib.loads(text)
    traits = data.get("traits", {})
    for trait, entry in traits.items():
        kind = entry.get("kind")
        if kind not in KINDS:
            raise ValueError(f"{LEXICON_FILE}: trait {trait!r} has kind {kind!r}, "
                             f"not one of {', '.join(KINDS)}")
        if entry.get("sex", "female") not in SEXES:
            raise ValueError(f"{LEXICON_FILE}: trait {trait!r} has sex {entry['sex']!r}, "
                             f"not one of {', '.join(SEXES)}")
    return traits


def lexicon_sources() -> Tuple[str, ...]:
    """The vocabularies the data file follows (its ``[meta] sources``)."""
    text = resources.files("tools.preprocess.clinical_rules").joinpath(LEXICON_FILE) \
        .read_text(encoding="utf-8")
    return tuple(tomllib.loads(text).get("meta", {}).get("sources", ()))


def name_phrases(trait: str) -> Tuple[List[str], List[str]]:
    """Phrases and abbreviations read from a benchmark trait name itself.

    ``"Chronic_obstructive_pulmonary_disease_(COPD)"`` gives the phrase
    "Chronic obstructive pulmonary disease" and the abbreviation ``COPD``;
    ``"Lupus_(Systemic_Lupus_Erythematosus)"`` gives both names.
    """
    name = fold(trait).replace("_", " ")
    main = re.sub(r"\([^)]*\)", " ", name).strip()
    phrases = [main] if main else []
    abbreviations = []
    for inner in re.findall(r"\(([^)]*)\)", name):
        inner = inner.strip()
        if re.fullmatch(r"[A-Z0-9-]{2,8}", inner):
            abbreviations.append(inner)
        elif inner:
            phrases.append(inner)
    return phrases, abbreviations


def _type_number(trait: str) -> Optional[str]:
    match = re.search(r"\btype\s*(\d+|i{1,3})\b", trait.replace("_", " ").lower())
    if not match:
        return None
    return {"i": "1", "ii": "2", "iii": "3"}.get(match.group(1), match.group(1))


def _guess_kind(trait: str) -> str:
    """Kind of a trait the data file does not list, from its name."""
    words = set(text_tokens(trait.replace("_", " ")))
    if words & {"cancer", "carcinoma", "tumor", "leukemia", "lymphoma", "melanoma",
                "sarcoma", "glioma", "glioblastoma", "neoplasia", "neoplasm", "myeloma"}:
        return "cancer"
    if words & {"level", "rate", "height", "density", "length", "index", "weight", "count",
                "concentration"}:
        return "quantity"
    return "disease"


@functools.lru_cache(maxsize=1024)
def trait_knowledge(trait: str) -> TraitKnowledge:
    """The (cached) :class:`TraitKnowledge` of a benchmark trait name."""
    entry = load_lexicon().get(trait)
    listed = entry is not None
    entry = dict(entry or {})
    phrases, abbreviations = name_phrases(trait)
    names = list(dict.fromkeys(phrases + list(entry.get("names", ()))))
    fields = {field: list(entry.get(field, ())) for field in PHRASE_FIELDS}
    fields["names"] = names
    phrase_entries = [(f, v) for f, values in fields.items() for v in values
                      if not looks_like_abbreviation(v)]
    abbreviation_entries = [("abbreviations", v) for v in abbreviations
                            + list(entry.get("abbreviations", ()))]
    abbreviation_entries += [(f, v) for f, values in fields.items() for v in values
                             if looks_like_abbreviation(v)]
    line_entries = [(f, v) for f in ("cell_lines", "control_cell_lines")
                    for v in entry.get(f, ())]
    name_words = frozenset(t for text in names if not looks_like_abbreviation(text)
                           for t in text_tokens(text) if t not in _NAME_DROP)
    return TraitKnowledge(
        trait=trait, kind=entry.get("kind") or _guess_kind(trait), listed=listed,
        follows=tuple(entry.get("follows", ())), phrases=PhraseIndex(phrase_entries),
        abbreviations=RawIndex(abbreviation_entries, "abbr"),
        lines=RawIndex(line_entries, "line"),
        name_words=name_words, type_number=_type_number(trait),
        cutoffs=tuple(parse_cutoff(c) for c in entry.get("cutoffs", ())),
        sex=entry.get("sex"))


#: Shortest abbreviation of another trait that marks another disease (two
#: letters are too often something else: "CM", "AS", "OM").
OTHER_ABBREVIATION_MIN = 3


@functools.lru_cache(maxsize=1)
def _all_traits_indexes() -> Tuple[PhraseIndex, RawIndex, RawIndex]:
    """Names, abbreviations and cell lines of every listed trait, the trait as field."""
    names, abbreviations, lines = [], [], []
    for trait, entry in load_lexicon().items():
        for text in list(name_phrases(trait)[0]) + list(entry.get("names", ())):
            (abbreviations if looks_like_abbreviation(text) else names).append((trait, text))
        abbreviations += [(trait, a) for a in entry.get("abbreviations", ())
                          if len(a) >= OTHER_ABBREVIATION_MIN]
        lines += [(trait, line) for line in entry.get("cell_lines", ())
                  if len(squash(line)) >= OTHER_ABBREVIATION_MIN
                  and re.search(r"[a-z]", squash(line))]     # not "9-7" (a number)
    abbreviations = [(t, a) for t, a in abbreviations if len(a) >= OTHER_ABBREVIATION_MIN]
    return PhraseIndex(names), RawIndex(abbreviations, "abbr"), RawIndex(lines, "line")


def other_traits_in(tokens: Sequence[str], raw: Sequence[str], trait: str) -> List[Match]:
    """Names, abbreviations and cell lines of OTHER traits of the data file in a text.

    Each :class:`Match` has the other trait as ``field``. The whole data file
    is general knowledge about 132 diseases and measures: a value naming one
    of them (``"Psoriatic arthritis"`` for Psoriasis, the glioblastoma line
    ``LN229`` for a prostate cancer trait) names another disease.
    """
    return [m for m in _other_cached(tuple(tokens), tuple(raw)) if m.field != trait]


@functools.lru_cache(maxsize=65536)
def _other_cached(tokens: Tuple[str, ...], raw: Tuple[str, ...]) -> Tuple[Match, ...]:
    phrases, abbreviations, lines = _all_traits_indexes()
    found = [Match(field, entry, start, end) for start, end, field, entry in phrases.find(tokens)]
    if raw:
        for index in (abbreviations, lines):
            for start, end, field, entry in index.find(raw):
                first, last = _canonical_span(raw, start, end, tokens)
                found.append(Match(field, entry, first, last))
    return tuple(found)


def looks_like_abbreviation(entry: str) -> bool:
    """An entry written like an abbreviation (``HbSS``, ``PMF``, ``T2D``, ``CIN2+``).

    One word holding an upper-case letter after its first character (or only
    upper-case letters, digits and symbols), not ending in a ``+``/``-`` sign:
    matched on the raw text, not as a phrase, so ``AS`` never matches the word
    "as".
    """
    text = entry.strip()
    if not text or " " in text or text[-1] in "+-":
        return False        # "HIV-", "HER2+": the sign matters, matched as a phrase
    letters = [ch for ch in text if ch.isalpha()]
    return bool(letters) and (any(ch.isupper() for ch in text[1:]) or
                              all(ch.isupper() for ch in letters))
