"""What a characteristics row looks like, as named numbers: the ranker's features.

:func:`profile_row` reads one row once (its key, the category of the key, each
distinct value's trait evidence and number); :func:`row_features` turns a
profile, in the context of the other rows of the series, into the named
features of :data:`ROW_FEATURES`; :func:`none_features` describes the series
as a whole for the "no trait row" alternative (:data:`NONE_FEATURES`). Every
feature is 0 or 1 unless its description says otherwise. The weights that
combine them are in :mod:`.ranker`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from tools.preprocess.clinical_rules.evidence import (Evidence, cell_evidence,
                                                      classify_trait_cell, trait_mentions)
from tools.preprocess.clinical_rules.lexicon import TraitLexicon, trait_lexicon
from tools.preprocess.clinical_rules.quantities import parse_number
from tools.preprocess.clinical_rules.text import (is_missing_text, plain_text, raw_tokens,
                                                  split_cell, text_tokens)
from tools.preprocess.clinical_rules.words import KEY_CATEGORIES, NO_WORDS, YES_WORDS

#: Words of a value that describe a model rather than a patient.
MODEL_VALUE_WORDS = frozenset({"line", "xenograft", "organoid", "ipsc", "hipsc", "clone",
                               "immortalized", "immortalised", "transformed", "passage",
                               "culture", "cultured", "spheroid", "neurosphere", "pdx"})
#: Share of a row's values that must be numbers for the row to be numeric.
NUMERIC_SHARE = 0.6
#: Distinct values from which a row looks like identifiers or measurements.
MANY_VALUES = 10

#: Features of a row, with what each says (all 0/1 unless stated).
ROW_FEATURES: Dict[str, str] = {
    "strong": "a value names the trait: name, subtype or abbreviation",
    "line": "the only strong evidence is a cell line of the trait",
    "level": "strength of the best case value / 3 (0-1)",
    "weak": "best value evidence is weak: generic state word, cancer word, gene, precursor",
    "case_share": "share of the values that are cases (0-1)",
    "gene": "a value names a causal gene of the trait",
    "organ": "a value names an organ or tissue of the trait",
    "key_trait": "the key names the trait (or its measured quantity)",
    "key_name": "the key names the trait by name, subtype or abbreviation",
    "key_word": "the key holds a word of the trait's name, nothing more (weak)",
    "key_staging": "the key names a staging system or a measure of the trait "
                   "(data file: staging, measures)",
    "key_answer": "the key names the trait by name, abbreviation or measure, and the "
                  "values are yes/no answers",
    "model_values": "a value speaks of a model: cell line, xenograft, organoid ...",
    "disease_all_cases": "a disease key whose every value is a case",
    "numeric_trait": "most values are numbers and the key names the trait, a staging "
                     "system or a measure of it",
    "control": "a value is a control (healthy, normal, negated mention ...)",
    "contrast": "the row holds the trait and something else (control, other values)",
    "case_control": "a value is a case (even weakly) and another a control",
    "constant": "every sample has the same value",
    "all_cases": "every value is a case of the trait",
    "other_diseases": "share of values naming another disease (0-1)",
    "disease_list": "two or more values name other diseases",
    "numeric": "most values are numbers",
    "yes_no": "every value is a yes/no answer",
    "many_values": f"{MANY_VALUES} or more distinct values",
    "two_values": "exactly two distinct values",
    "sole": "the only candidate row",
    "sole_background": "the only candidate row, and the series text names the trait",
    "response_background": "a response / outcome key with several values, and the series "
                           "text names the trait",
    "mixed_keys": "the row mixes several keys",
    "first": "the first row that is not an age or sex row",
    "within": "another row says every value is a case, and this row varies",
    "within_response": "'within' and the key is a response / outcome key",
    "within_stage": "'within' and the key is a stage / grade / severity key",
    "within_subtype": "'within' and the key is a subtype / genotype key",
    "within_tissue": "'within' and the row contrasts tumour or disease with normal",
    "bg_contrast": "the series text names the trait and the row has a control but no case",
    "blind": "neither the row nor the series text names the trait",
    "unnamed": "the row names neither the trait, not even weakly, nor a staging system "
               "or measure of it (the series text may)",
    **{f"k_{name}": f"the key is a {name.replace('_', ' ')} key"
       for name in KEY_CATEGORIES},
}
#: Features of the "no trait row" alternative (series-level).
NONE_FEATURES: Dict[str, str] = {
    "none_bias": "constant 1 (the base rate of 'no trait row')",
    "none_no_evidence": "no row names the trait, not even weakly, nor a staging system "
                        "or measure of it",
    "none_no_strong": "no row names the trait by name, subtype, abbreviation or cell line",
    "none_background": "the series text names the trait",
    "none_models": "every row is a cell line, treatment, time or identifier row",
}


@dataclass(frozen=True)
class CellInfo:
    """One distinct value of a row and what it says.

    Attributes
    ----------
    cell : str
        The raw ``key: value`` cell.
    key, value : str
        Its two halves (:func:`tools.preprocess.clinical.split_key_value`).
    label : float or None
        :func:`.evidence.classify_trait_cell` alone (1 case, 0 control).
    strength : int
        Its strength (0-3).
    evidence : Evidence
        The mentions behind it.
    number : float or None
        The value read as a measurement.
    """

    cell: str
    key: str
    value: str
    label: Optional[float]
    strength: int
    evidence: Evidence
    number: Optional[float]


@dataclass(frozen=True)
class RowProfile:
    """One characteristics row, read once.

    Attributes
    ----------
    row : object
        The row's label (key of the characteristics dictionary).
    key : str
        Its most common key, lower case.
    categories : frozenset of str
        Categories of the key (:data:`.words.KEY_CATEGORIES`).
    key_level : int
        Strength of the trait mention in the key (0-3).
    cells : tuple of CellInfo
        Its distinct present values (missing words left out).
    n_keys : int
        Distinct keys in the row.
    key_staging : bool
        Whether the key names a staging system or measure of the trait.
    """

    row: Any
    key: str
    categories: FrozenSet[str]
    key_level: int
    cells: Tuple[CellInfo, ...]
    n_keys: int
    key_staging: bool = False

    @property
    def n_values(self) -> int:
        """Distinct present values."""
        return len(self.cells)

    @property
    def numeric(self) -> bool:
        """Whether most values are numbers."""
        if not self.cells:
            return False
        numbers = sum(c.number is not None for c in self.cells)
        return numbers >= max(1, NUMERIC_SHARE * len(self.cells))

    def cases(self, min_level: int = 1) -> List[CellInfo]:
        """Values that are cases of the trait with at least this evidence level."""
        return [c for c in self.cells if c.label == 1.0 and c.evidence.level >= min_level]

    @property
    def best_level(self) -> int:
        """Strongest non-negated trait evidence among the case values."""
        return max((c.evidence.level for c in self.cells if c.label == 1.0), default=0)


def dominant_key(values: Sequence[Any]) -> Tuple[str, int]:
    """The most common key of a row (lower case; first seen wins ties) and the key count."""
    counts: Dict[str, int] = {}
    for cell in values:
        key, value = split_cell(cell)
        if value is not None:
            counts[key.lower()] = counts.get(key.lower(), 0) + 1
    if not counts:
        return "", 0
    return max(counts, key=lambda k: counts[k]), len(counts)


#: Shortest category word looked for inside a run-together key word.
COMPOUND_PART = 6


def key_categories(key: str) -> FrozenSet[str]:
    """Categories of a key by its words (``"disease state"`` -> disease).

    A long word that matches no category is also searched for category words
    of :data:`COMPOUND_PART` letters or more written together with another
    word (``"bestresponse"`` -> response, ``"diseasestatus"`` -> disease).
    """
    tokens = set(text_tokens(key)) | set(re.findall(r"[a-z]+", key.lower()))
    found = {name for name, words in KEY_CATEGORIES.items() if tokens & words}
    for token in tokens:
        if len(token) <= COMPOUND_PART or any(token in w for w in KEY_CATEGORIES.values()):
            continue
        found.update(name for name, words in KEY_CATEGORIES.items()
                     if any(len(w) >= COMPOUND_PART and w in token for w in words))
    return frozenset(found)


def key_level(key: str, lex: TraitLexicon) -> int:
    """Strength of the trait mention in a key; a quantity trait's measure counts 3."""
    if not key:
        return 0
    tokens = text_tokens(key)
    raw = raw_tokens(key)
    level = max((m.level for m in trait_mentions(tokens, raw, lex)), default=0)
    if lex.knowledge.is_quantity and any(m.field == "measures"
                                         for m in lex.knowledge.find_tokens(tokens, raw)):
        level = 3
    return level


def key_names_staging(key: str, lex: TraitLexicon) -> bool:
    """Whether a key names a staging system, a measure or a cut-off's measure (data file)."""
    if not key:
        return False
    return lex.knowledge.cutoff_for(key) is not None or any(
        m.field in ("staging", "measures")
        for m in lex.knowledge.find_tokens(text_tokens(key), raw_tokens(key)))


def profile_row(row: Any, values: Sequence[Any], trait: str, background: str) -> RowProfile:
    """Read one row (see :class:`RowProfile`)."""
    lex = trait_lexicon(trait)
    key, n_keys = dominant_key(values)
    cells: List[CellInfo] = []
    seen = set()
    for cell in values:
        k, value = split_cell(cell)
        identity = cell_identity(cell)
        if is_missing_text(value) or identity in seen:
            continue
        seen.add(identity)
        label, strength = classify_trait_cell(cell, trait, background)
        cells.append(CellInfo(cell=str(cell), key=k, value=value or "", label=label,
                              strength=strength, evidence=cell_evidence(value or "", lex),
                              number=parse_number(cell)))
    return RowProfile(row=row, key=key, categories=key_categories(key),
                      key_level=key_level(key, lex), cells=tuple(cells), n_keys=n_keys,
                      key_staging=key_names_staging(key, lex))


def cell_identity(cell: Any) -> Tuple[str, str]:
    """What makes two cells the same value: key and value, case and spaces ignored.

    ``"Tissue: Mucosa"`` and ``"tissue:mucosa"`` are one value.
    """
    key, value = split_cell(cell)
    return plain_text(key), plain_text(value or "")


def is_yes_no(profile: RowProfile) -> bool:
    """Whether every value is a yes/no answer (``Y``, ``no``, ``1``, ``0``)."""
    answers = YES_WORDS | NO_WORDS
    return bool(profile.cells) and all(plain_text(c.value) in answers for c in profile.cells)


def says_all_cases(profile: RowProfile) -> bool:
    """A row whose every value names the trait (medium or strong evidence)."""
    return bool(profile.cells) and all(c.label == 1.0 and c.evidence.level >= 2
                                       for c in profile.cells)


def knowledge_fields(profile: RowProfile, trait: str) -> FrozenSet[str]:
    """Data-file fields matched by any value of the row."""
    knowledge = trait_lexicon(trait).knowledge
    return frozenset(m.field for c in profile.cells for m in knowledge.find(c.value))


def row_features(profile: RowProfile, others: Sequence[RowProfile], first: bool,
                 background_level: int, trait: str) -> Dict[str, float]:
    """The named features (:data:`ROW_FEATURES`) of one candidate row.

    Parameters
    ----------
    profile : RowProfile
    others : sequence of RowProfile
        The other candidate rows of the series.
    first : bool
        Whether this is the first candidate row.
    background_level : int
        Strength of the trait mention in the series text.
    trait : str
    """
    level = profile.best_level
    cases = [c for c in profile.cells if c.label == 1.0]
    strong = [c for c in cases if c.evidence.level >= 3]
    fields = knowledge_fields(profile, trait)
    key_trait = profile.key_level >= 2
    control = any(c.label == 0.0 for c in profile.cells)
    varying = profile.n_values >= 2
    holds_trait = level >= 1 or key_trait
    non_case = any(c.label != 1.0 for c in profile.cells)
    other = sum(c.evidence.other_disease and c.label != 1.0 for c in profile.cells)
    within = varying and not says_all_cases(profile) and any(says_all_cases(o) for o in others)
    background = background_level >= 2
    cats = profile.categories
    tissue_contrast = control and any(c.label == 1.0 for c in profile.cells)
    features = {
        "strong": float(any(not c.evidence.line_only for c in strong)),
        "line": float(bool(strong) and all(c.evidence.line_only for c in strong)),
        "level": level / 3.0,
        "weak": float(level == 1),
        "case_share": len(cases) / profile.n_values if profile.cells else 0.0,
        "gene": float("genes" in fields),
        "organ": float("organs" in fields),
        "key_trait": float(key_trait),
        "key_name": float(profile.key_level >= 3),
        "key_word": float(profile.key_level == 1),
        "key_staging": float(profile.key_staging),
        "key_answer": float(profile.key_level >= 3 and is_yes_no(profile)),
        "model_values": float(any(set(text_tokens(c.value)) & MODEL_VALUE_WORDS
                                  for c in profile.cells)),
        "disease_all_cases": float("disease" in cats and says_all_cases(profile)),
        "numeric_trait": float((key_trait or profile.key_staging) and profile.numeric),
        "control": float(control),
        "contrast": float(holds_trait and varying and (control or non_case)),
        "case_control": float(level >= 1 and control),
        "constant": float(profile.n_values == 1),
        "all_cases": float(bool(profile.cells) and level >= 2
                           and all(c.label == 1.0 for c in profile.cells)),
        "other_diseases": other / profile.n_values if profile.cells else 0.0,
        "disease_list": float(other >= 2),
        "numeric": float(profile.numeric),
        "yes_no": float(is_yes_no(profile)),
        "many_values": float(profile.n_values >= MANY_VALUES),
        "two_values": float(profile.n_values == 2),
        "sole": float(not others),
        "sole_background": float(not others and background),
        "response_background": float("response" in cats and background and varying),
        "mixed_keys": float(profile.n_keys >= 2),
        "first": float(first),
        "within": float(within),
        "within_response": float(within and "response" in cats),
        "within_stage": float(within and "stage" in cats),
        "within_subtype": float(within and bool(cats & {"subtype", "genotype"})),
        "within_tissue": float(within and tissue_contrast),
        "bg_contrast": float(background and control and level == 0),
        "blind": float(level == 0 and not key_trait and not background),
        "unnamed": float(level == 0 and not key_trait and not profile.key_staging),
    }
    for name in KEY_CATEGORIES:
        features[f"k_{name}"] = float(name in cats)
    return features


def none_features(profiles: Sequence[RowProfile], background_level: int) -> Dict[str, float]:
    """The named features (:data:`NONE_FEATURES`) of the "no trait row" alternative."""
    model_categories = {"cell_line", "treatment", "time", "identifier"}
    return {
        "none_bias": 1.0,
        "none_no_evidence": float(not any(p.best_level >= 1 or p.key_level >= 2
                                          or p.key_staging for p in profiles)),
        "none_no_strong": float(not any(p.best_level >= 3 or p.key_level >= 3
                                        for p in profiles)),
        "none_background": float(background_level >= 2),
        "none_models": float(bool(profiles) and all(p.categories & model_categories
                                                    for p in profiles)),
    }


def feature_names() -> Tuple[str, ...]:
    """Every feature name, row features first (the order of a weight vector)."""
    return tuple(ROW_FEATURES) + tuple(NONE_FEATURES)


def as_vector(features: Mapping[str, float]) -> List[float]:
    """A feature dictionary as a list in :func:`feature_names` order (absent = 0)."""
    return [float(features.get(name, 0.0)) for name in feature_names()]
