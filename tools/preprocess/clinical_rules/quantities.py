"""Numbers in characteristics cells: ages, measured quantities, age and sex keys.

Ages go through the library's ready converter
(:func:`tools.preprocess.clinical.convert_age`); :func:`parse_age` only adds
spellings that converter leaves out (decimal commas, decades, "3 years 6
months", units in parentheses). Sexes use
:func:`tools.preprocess.clinical.convert_gender` unchanged.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from tools.preprocess.clinical import MAX_AGE_YEARS, convert_age, split_key_value
from tools.preprocess.clinical_rules.text import is_missing_text, plain_text, text_tokens
from tools.preprocess.clinical_rules.words import AGE_KEY_WORDS, SEX_KEY_WORDS

_DECIMAL_COMMA = re.compile(r"(?<=\d),(?=\d)")
_DECADE = re.compile(r"^(?P<decade>\d0)'?s$")
_YEARS_MONTHS = re.compile(r"^(?P<years>\d+(?:\.\d+)?)\s*(?:y|yr|yrs|year|years)[,\s]*"
                           r"(?P<months>\d+(?:\.\d+)?)\s*(?:m|mo|mos|month|months)$")
_NUMBER_VALUE = re.compile(r"^(?P<n>[-+]?\d+(?:[.,]\d+)?)\s*(?P<u>[a-zµμ%/0-9.^*\- ]{0,20})$")
#: Key words of an age at an event ("age at onset"): a weaker age row.
AGE_EVENT_WORDS = frozenset({"onset", "diagnosis", "gestational", "menarche", "death",
                             "surgery", "smoking", "start", "first", "symptom", "disease"})
#: Key words allowed in a plain age key ("age (yrs)", "age in years").
PLAIN_AGE_KEY_WORDS = frozenset({"age", "yr", "year", "yrs", "years", "y", "month", "at", "in"})


def parse_age(cell: Any) -> Optional[float]:
    """Age in years from a raw cell, None when not parseable.

    Parameters
    ----------
    cell : object
        Anything :func:`tools.preprocess.clinical.convert_age` reads (``"age:
        49"``, ``"49y"``, ``"age (months): 18"``, ``"40-49"``), and also
        ``"49,5"`` (decimal comma), ``"40s"`` (44.5), ``"3 years 6 months"``
        and ``"49 (years)"``.

    Returns
    -------
    float or None
        Years; None for missing words, open ranges (``>80``, ``90+``), a bare
        ``m`` unit (months or male?) and implausible ages.
    """
    key, value = split_key_value(cell)
    if is_missing_text(value):
        return None
    text = plain_text(_DECIMAL_COMMA.sub(".", value)).rstrip(".;,").strip()
    text = re.sub(r"\s+", " ", text.replace("(", " ").replace(")", " ")).strip()
    years: Optional[float] = None
    decade = _DECADE.match(text)
    years_months = _YEARS_MONTHS.match(text)
    if decade:
        years = float(decade.group("decade")) + 4.5
    elif years_months:
        years = float(years_months.group("years")) + float(years_months.group("months")) / 12
    else:
        return convert_age(f"{key}: {text}" if key else text)
    return years if 0.0 <= years <= MAX_AGE_YEARS else None


def parse_number(cell: Any) -> Optional[float]:
    """A measured quantity from a raw cell (``"74"``, ``"77 bpm"``, ``"31.2 ng/ml"``).

    Returns
    -------
    float or None
        None for missing words, censored values (``<5``, ``>100``) and text
        that does not start with the number (``"week 12"``).
    """
    _, value = split_key_value(cell)
    if is_missing_text(value):
        return None
    match = _NUMBER_VALUE.match(plain_text(value))
    if not match:
        return None
    unit = match.group("u").strip()
    if re.search(r"\d", unit) and not re.fullmatch(r"[a-z%/]*\d?", unit.replace(" ", "")):
        return None             # "1-2", "12 3": not a single measurement
    return float(match.group("n").replace(",", "."))


def age_key_class(key: str) -> int:
    """How plainly a key names an age.

    Returns
    -------
    int
        3 plain age key (``age``, ``age (yrs)``), 2 qualified (``age at
        sampling``), 1 an age at an event (``age at onset``), 0 not an age key.
    """
    tokens = set(text_tokens(key))
    if not tokens & AGE_KEY_WORDS:
        return 0
    if tokens & AGE_EVENT_WORDS:
        return 1
    if tokens <= PLAIN_AGE_KEY_WORDS:
        return 3
    return 2


def is_sex_key(key: str) -> bool:
    """Whether a key is a sex key (``Sex``, ``gender``, ``donor sex``)."""
    return bool(set(re.findall(r"[a-z]+", key.lower())) & SEX_KEY_WORDS)
