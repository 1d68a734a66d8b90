"""Numbers in characteristics cells: ages, measured quantities, age and sex keys.

Ages go through the library's ready converter
(:func:`tools.preprocess.clinical.convert_age`); :func:`parse_age` only adds
spellings that converter leaves out (decimal commas, decades, "3 years 6
months", units in parentheses, age and sex in one cell such as ``60F``).
Sexes go through :func:`tools.preprocess.clinical.convert_gender`;
:func:`parse_sex` adds ``W`` (weiblich / woman), age-and-sex cells and a
``female: 1`` / ``male: 0`` indicator key.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from tools.preprocess.clinical import MAX_AGE_YEARS, convert_age, convert_gender
from tools.preprocess.clinical_rules.text import (is_missing_text, plain_text, split_cell,
                                                  text_tokens)
from tools.preprocess.clinical_rules.words import AGE_KEY_WORDS, SEX_KEY_WORDS

_DECIMAL_COMMA = re.compile(r"(?<=\d),(?=\d)")
_DECADE = re.compile(r"^(?P<decade>\d0)'?s$")
_YEARS_MONTHS = re.compile(r"^(?P<years>\d+(?:\.\d+)?)\s*(?:y|yr|yrs|year|years)[,\s]*"
                           r"(?P<months>\d+(?:\.\d+)?)\s*(?:m|mo|mos|month|months)$")
_NUMBER_VALUE = re.compile(r"^(?P<n>[-+]?\d+(?:[.,]\d+)?)\s*(?P<u>[a-zµμ%/0-9.^*\- ]{0,20})$")
#: Key words of an age at diagnosis: a weaker age row, used when nothing better.
AGE_EVENT_WORDS = frozenset({"diagnosis", "dx"})
#: Key words of an age that is not the sample's age ("age at onset", "age of
#: menarche", "gestational age"): never the age row (curators' convention).
NOT_AGE_WORDS = frozenset({"onset", "gestational", "menarche", "smoking", "start", "first",
                           "symptom", "disease", "psoriasis", "menopause", "father",
                           "mother", "maternal", "paternal", "parent", "gestation"})
#: An age and a sex in one cell: ``60F``, ``64 M``, ``F/49``, ``49/M``, ``M, 49`` (two or
#: three digits; a separator after the letter, so that ``M6`` -- month 6 -- is no age).
_AGE_SEX = re.compile(r"^(?:(?P<age1>\d{2,3}(?:\.\d+)?)\s*[/,;\- ]?\s*(?P<sex1>[mf])"
                      r"|(?P<sex2>[mf])\s*[/,;\- ]\s*(?P<age2>\d{2,3}(?:\.\d+)?))$")
#: Extra female words (German ``weiblich``, ``W``) beside the library's lists.
EXTRA_FEMALE_WORDS = frozenset({"w", "weiblich", "frau", "femme", "mujer", "femenino"})
EXTRA_MALE_WORDS = frozenset({"mannlich", "maennlich", "homme", "hombre", "masculino"})
#: Words by which a series text states its subjects' sex ("obese Japanese men",
#: "32 women with PTSD", "all male").
POPULATION_SEX_WORDS = frozenset({"men", "women", "man", "woman", "male", "males", "female",
                                  "females", "boys", "girls"})
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
    key, value = split_cell(cell)
    if is_missing_text(value):
        return None
    both = age_and_sex(value) if not age_key_class(key) else None   # "age: 49 M" stays None
    if both is not None:
        return both[0]
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
    _, value = split_cell(cell)
    if is_missing_text(value):
        return None
    match = _NUMBER_VALUE.match(plain_text(value))
    if not match:
        return None
    unit = match.group("u").strip()
    if re.search(r"\d", unit) and not re.fullmatch(r"[a-z%/]*\d?", unit.replace(" ", "")):
        return None             # "1-2", "12 3": not a single measurement
    return float(match.group("n").replace(",", "."))


def age_and_sex(value: Optional[str]) -> Optional[tuple]:
    """``(years, sex)`` of a cell holding both (``60F`` -> (60.0, 0.0)), else None."""
    if value is None:
        return None
    match = _AGE_SEX.match(plain_text(value))
    if not match:
        return None
    age = float(match.group("age1") or match.group("age2"))
    sex = match.group("sex1") or match.group("sex2")
    if not 0.0 <= age <= MAX_AGE_YEARS:
        return None
    return age, (0.0 if sex == "f" else 1.0)


def parse_sex(cell: Any) -> Optional[float]:
    """Sex as 0 (female) / 1 (male) from a raw cell, None when unclear.

    :func:`tools.preprocess.clinical.convert_gender`, plus ``W`` and a few
    non-English words, age-and-sex cells (``64M``), and indicator keys
    (``female: 1`` -> 0, ``female: 0`` -> 1; ``male: 1`` -> 1).
    """
    key, value = split_cell(cell)
    if is_missing_text(value):
        return None
    both = age_and_sex(value)
    if both is not None:
        return both[1]
    answer = plain_text(value)
    indicator = plain_text(key)
    if indicator in ("female", "male") and answer in ("0", "1", "yes", "no", "y", "n"):
        yes = answer in ("1", "yes", "y")
        return (0.0 if yes else 1.0) if indicator == "female" else (1.0 if yes else 0.0)
    words = set(re.findall(r"[a-z]+", answer))
    female = bool(words & EXTRA_FEMALE_WORDS)
    male = bool(words & EXTRA_MALE_WORDS)
    if female != male:
        return 0.0 if female else 1.0
    return convert_gender(cell)


def age_key_class(key: str) -> int:
    """How plainly a key names an age.

    Returns
    -------
    int
        3 plain age key (``age``, ``age (yrs)``), 2 qualified (``age at
        sampling``, ``age at death``, ``age at surgery``), 1 an age at
        diagnosis, 0 not an age key (also ``age at onset``, ``gestational
        age``, ``age of menarche``: not the sample's age).
    """
    tokens = set(text_tokens(key)) | set(re.findall(r"[a-z]+", key.lower()))
    if not tokens & AGE_KEY_WORDS or tokens & NOT_AGE_WORDS:
        return 0
    if tokens & AGE_EVENT_WORDS:
        return 1
    if tokens <= PLAIN_AGE_KEY_WORDS:
        return 3
    return 2


def text_states_sex(text: str) -> bool:
    """Whether a series text names its subjects' sex (:data:`POPULATION_SEX_WORDS`)."""
    return bool(set(re.findall(r"[a-z]+", (text or "").lower())) & POPULATION_SEX_WORDS)


def is_sex_key(key: str) -> bool:
    """Whether a key is a sex key (``Sex``, ``gender``, ``donor sex``, ``female``)."""
    words = set(re.findall(r"[a-z]+", key.lower()))
    return bool(words & SEX_KEY_WORDS) or key.strip().lower() in ("female", "male")
