"""What the rules know about one trait name: :class:`TraitLexicon`.

A lexicon joins two sources: what the benchmark trait name itself says
(``"Rheumatoid_Arthritis"``: the full name, automatic initials, the content
words of the name, one distinctive word, and for cancer traits the spellings
of the organ, ``gastric`` = ``stomach``), and the trait's entry in the data
file of :mod:`.knowledge` (names, subtypes, abbreviations, cell lines, related
diagnoses, differential diagnoses, control groups ...), kept as
:attr:`TraitLexicon.knowledge`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

from tools.preprocess.clinical_rules.knowledge import TraitKnowledge, trait_knowledge
from tools.preprocess.clinical_rules.text import fold, text_tokens
from tools.preprocess.clinical_rules.words import (ANATOMY_WORDS, CANCER_GENERIC_WORDS,
                                                   CONTINUOUS_HINT_WORDS, CORE_DROP_WORDS,
                                                   GENERIC_TRAIT_WORDS, NAMED_CANCER_WORDS,
                                                   NON_CANCER_OMA, ORGAN_GROUPS)



@dataclass(frozen=True)
class TraitLexicon:
    """Everything the rules know about one trait name.

    Attributes
    ----------
    trait : str
        The benchmark name (underscores).
    phrases : tuple of tuple of str
        Phrases of the name itself, canonical tokens (strongest match; the
        data file's names and subtypes are matched through ``knowledge``).
    abbreviations : tuple of str
        Raw-case abbreviations read from the name (``COPD``) and its initials.
    core : tuple of str
        Content words of the name: all present -> a match.
    distinctive : tuple of str
        Words that identify the trait alone (``rheumatoid``, ``crohn``).
    organs : tuple of str
        Cancer traits: organ spellings that, with a cancer word, name the trait.
    is_cancer : bool
    type_number : str or None
        The number in "type 2" names (a cell saying "type 1" is not this trait).
    knowledge : TraitKnowledge
        The trait's entry of the data file (:mod:`.knowledge`).
    """

    trait: str
    phrases: Tuple[Tuple[str, ...], ...]
    abbreviations: Tuple[str, ...]
    core: Tuple[str, ...]
    distinctive: Tuple[str, ...]
    organs: Tuple[str, ...]
    is_cancer: bool
    type_number: Optional[str]
    knowledge: TraitKnowledge

    @property
    def looks_continuous(self) -> bool:
        """Whether the trait is a measured quantity (``Heart_rate``)."""
        return looks_continuous(self.trait)


def looks_continuous(trait: str) -> bool:
    """Whether a trait is measured on a scale (``Heart_rate``, ``Height``).

    The data file's ``kind = "quantity"``; for a trait it does not list, a
    hint word in the name (``level``, ``rate``, ``density`` ...).
    """
    knowledge = trait_knowledge(trait)
    if knowledge.listed:
        return knowledge.is_quantity
    return bool(set(text_tokens(trait.replace("_", " "))) & CONTINUOUS_HINT_WORDS)


def is_cancer_token(token: str) -> bool:
    """Whether a canonical token names a tumour (``carcinoma``, ``glioma``, ``-oma``)."""
    return (token in CANCER_GENERIC_WORDS or token in NAMED_CANCER_WORDS
            or (token.endswith("oma") and len(token) > 5 and token not in NON_CANCER_OMA))


def _name_phrases(main: str, parens: List[str]) -> Tuple[List[Tuple[str, ...]], List[str]]:
    """Phrases and abbreviations from the name itself (parentheses, "X and Y Z")."""
    phrases: List[Tuple[str, ...]] = []
    abbreviations: List[str] = []

    def add_phrase(text: str) -> None:
        tokens = text_tokens(text)
        if tokens and tokens not in phrases:
            phrases.append(tokens)

    add_phrase(main)
    for inner in parens:
        if re.fullmatch(r"[A-Z0-9-]{2,8}", inner.strip()):
            abbreviations.append(inner.strip())
        else:
            add_phrase(inner)
            words = [w for w in re.findall(r"[A-Za-z]+", inner) if w.lower() not in
                     CORE_DROP_WORDS]
            if len(words) >= 2:
                abbreviations.append("".join(w[0] for w in words).upper())
    # "X and Y Z": each part that names a disease on its own, plus "X Z".
    parts = re.split(r"\band\b", main)
    if len(parts) == 2:
        left, right = text_tokens(parts[0]), text_tokens(parts[1])
        for part in (left, right):
            if part and any(t not in ANATOMY_WORDS and t not in GENERIC_TRAIT_WORDS
                            for t in part):
                if part not in phrases:
                    phrases.append(part)
        if len(left) == 1 and len(right) >= 2 and left + right[-1:] not in phrases:
            phrases.append(left + right[-1:])
    return phrases, abbreviations


def _type_number(main: str) -> Optional[str]:
    match = re.search(r"\btype\s*(\d+|i{1,3})\b", main.lower())
    if not match:
        return None
    return {"i": "1", "ii": "2", "iii": "3"}.get(match.group(1), match.group(1))


@functools.lru_cache(maxsize=512)
def trait_lexicon(trait: str) -> TraitLexicon:
    """Build (and cache) the :class:`TraitLexicon` of a benchmark trait name."""
    name = fold(trait).replace("_", " ")
    main = re.sub(r"\([^)]*\)", " ", name).strip()
    phrases, abbreviations = _name_phrases(main, re.findall(r"\(([^)]*)\)", name))
    knowledge = trait_knowledge(trait)
    tokens = [t for t in text_tokens(main) if t not in CORE_DROP_WORDS]
    is_cancer = (knowledge.is_cancer if knowledge.listed
                 else any(is_cancer_token(t) for t in tokens))
    core = tuple(t for t in tokens if not (is_cancer and t in CANCER_GENERIC_WORDS))
    if not core:
        core = tuple(tokens)
    distinctive = tuple(t for t in core if t not in GENERIC_TRAIT_WORDS
                        and t not in ANATOMY_WORDS and not t.isdigit()
                        and t not in CANCER_GENERIC_WORDS and len(t) > 2)
    # Automatic initials for multi-word disease names ("CRC", "T2D", "AS").
    words = [w for w in re.findall(r"[A-Za-z0-9]+", main) if w.lower() not in
             {"and", "of", "the", "with", "in"}]
    if 2 <= len(words) <= 4 and not looks_continuous(trait) and not is_cancer:
        initials = "".join(w[0] if not w.isdigit() else w for w in words).upper()
        if initials not in abbreviations:
            abbreviations.append(initials)
    organs: List[str] = []
    if is_cancer:
        for token in core:
            for group in ORGAN_GROUPS:
                if token in group:
                    organs.extend(g for g in group if g not in organs)
    return TraitLexicon(trait=trait, phrases=tuple(phrases),
                        abbreviations=tuple(dict.fromkeys(abbreviations)),
                        core=core, distinctive=distinctive, organs=tuple(organs),
                        is_cancer=is_cancer, type_number=_type_number(main),
                        knowledge=knowledge)
