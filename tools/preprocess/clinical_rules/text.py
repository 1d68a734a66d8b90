"""Text helpers of the rule-based clinical step: folding, tokens, phrases.

Cells are compared as *canonical tokens*: accents folded (``ö`` -> ``o``),
lower case, split on anything that is not a letter or digit (``_``, ``/`` and
``-`` separate), a ``non`` prefix split off (``nondiabetic`` -> ``non
diabetic``), the plural ``s`` dropped and spelling variants mapped to one form
(:data:`.words.WORD_FORMS`: ``diabetic`` -> ``diabete``, ``tumour`` ->
``tumor``). Abbreviations are compared on the raw, case-preserving tokens.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any, List, Optional, Sequence, Tuple

from tools.preprocess.clinical import split_key_value
from tools.preprocess.clinical_rules.words import KEEP_S, MISSING_VALUES, WORD_FORMS


def split_cell(cell: Any) -> Tuple[str, Optional[str]]:
    """:func:`tools.preprocess.clinical.split_key_value`, remembered per cell.

    The rules look at the same cells many times (row scores, profiles,
    conversions); unhashable cells are split afresh.
    """
    try:
        return _split_cached(cell)
    except TypeError:
        return split_key_value(cell)


@functools.lru_cache(maxsize=131072)
def _split_cached(cell: Any) -> Tuple[str, Optional[str]]:
    return split_key_value(cell)


@functools.lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Strip accents (``ö`` -> ``o``) and unify apostrophes."""
    text = unicodedata.normalize("NFKD", str(text))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return text.replace("\u2019", "'").replace("\u2018", "'").replace("`", "'")


@functools.lru_cache(maxsize=65536)
def plain_text(value: str) -> str:
    """``value`` folded, lower-cased, with runs of whitespace as one space."""
    return re.sub(r"\s+", " ", fold(value).lower()).strip()


@functools.lru_cache(maxsize=65536)
def canonical_token(token: str) -> str:
    """Canonical form of one lower-case token (plural, adjective, spelling)."""
    token = WORD_FORMS.get(token, token)
    if len(token) > 5 and token.endswith("ies") and token not in KEEP_S:
        return WORD_FORMS.get(token[:-3] + "y", token[:-3] + "y")   # atrophies -> atrophy
    if (len(token) > 3 and token.endswith("s") and token not in KEEP_S
            and not token.endswith(("ss", "us", "is", "sis"))):
        token = token[:-1]
        token = WORD_FORMS.get(token, token)
    if len(token) > 6 and token.endswith("itic"):       # arthritic -> arthritis
        token = token[:-1] + "s"
    elif len(token) > 6 and token.endswith("otic"):     # cirrhotic -> cirrhosis
        token = token[:-3] + "sis"
    return WORD_FORMS.get(token, token)


@functools.lru_cache(maxsize=65536)
def _tokens_cached(text: str) -> Tuple[str, ...]:
    text = fold(text).lower()
    text = re.sub(r"(?<=[a-z0-9])\+(?=\W|$)", " positive", text)   # HIV+ -> positive
    text = re.sub(r"(?<=[a-z])-(?=\s|$|[,;)])", " negative", text)  # HIV- -> negative
    text = re.sub(r"'s\b", "s", text).replace("'", "")
    out: List[str] = []
    for token in re.findall(r"[a-z0-9]+", text):
        if token.startswith("non") and len(token) >= 6 and token not in {"nonetheless"}:
            out.append("non")
            token = token[3:]
        elif token.startswith("un") and token[2:] in {"affected", "diseased", "involved"}:
            out.append(token)      # keep as a control word
            continue
        out.append(canonical_token(token))
    return tuple(out)


def text_tokens(text: object) -> Tuple[str, ...]:
    """Canonical lower-case tokens of ``text`` (``_``, ``/``, ``-`` separate)."""
    return _tokens_cached(str(text))


def raw_tokens(text: str) -> Tuple[str, ...]:
    """Case-preserving alphanumeric tokens (for abbreviations)."""
    return tuple(re.findall(r"[A-Za-z0-9]+", fold(text)))


def find_phrase(tokens: Sequence[str], phrase: Sequence[str]) -> List[int]:
    """Start positions of ``phrase`` as a contiguous token run in ``tokens``."""
    n = len(phrase)
    if n == 0 or n > len(tokens):
        return []
    first = phrase[0]
    return [i for i in range(len(tokens) - n + 1)
            if tokens[i] == first and tuple(tokens[i:i + n]) == tuple(phrase)]


def is_missing_text(value: Optional[str]) -> bool:
    """True for None and the "not recorded" words of :data:`.words.MISSING_VALUES`."""
    if value is None:
        return True
    return plain_text(value).strip(".").strip() in MISSING_VALUES
