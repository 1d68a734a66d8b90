"""Clinical features of GEO cohorts (SPEC 4.5): rows of the characteristics
table turned into numeric ``<Trait>``, ``Age`` and ``Gender`` features.

A GEO characteristics table (what :func:`tools.preprocess.geo.get_background_and_clinical_data`
returns) has a first column ``!Sample_geo_accession`` holding the row tag, one
column per GSM, an integer index ``0..k-1`` and raw ``key: value`` cells. The
notebook author picks a row per feature and a converter ``cell -> number|None``.

Ready converters
----------------
* :func:`convert_age` -- years as float: ``49``, ``49y``, ``49 years``,
  ``Age:49``, ``age (yrs): 49``, ``49 years old``, months/weeks/days spelled in
  the value or in the key (``age (months): 18`` -> 1.5). A closed range
  (``40-49``, ``40 to 49``) gives its midpoint; open ranges (``>80``, ``80+``)
  and ages outside ``[0, 130]`` years give ``None``.
* :func:`convert_gender` -- 0 female, 1 male, from the words of the value
  (``female``/``woman``/``f``/``xx`` vs ``male``/``man``/``m``/``xy``). Words are
  compared whole, so ``female`` never counts as ``male``; a value naming both
  sexes (``M/F``) is ambiguous -> ``None``.
* :func:`binary_trait_converter` -- builds a 1 case / 0 control converter from
  keyword lists; when keywords of both sides match, the longer (more specific)
  keyword wins (``non-tumor`` beats ``tumor``), a tie gives ``None``.

Every converter reads the text after the first ``:`` (the whole cell when there
is none) and returns ``None`` for anything it cannot parse. Missing cells are
never passed to a converter; they stay missing.
"""

from __future__ import annotations

import logging
import math
import re
from typing import Any, Callable, Iterable, List, Optional, Sequence

import pandas as pd

from utils.columns import AGE, GENDER  # noqa: F401 (re-exported)

logger = logging.getLogger(__name__)

ROW_TAG_COLUMN = "!Sample_geo_accession"

Converter = Callable[[Any], Optional[float]]

MAX_AGE_YEARS = 130.0
_DAYS_PER_YEAR = 365.25
_UNIT_YEARS = {
    "years": 1.0,
    "months": 1.0 / 12.0,
    "weeks": 7.0 / _DAYS_PER_YEAR,
    "days": 1.0 / _DAYS_PER_YEAR,
}
# Spellings of each unit (value side); bare "m"/"d"/"w" are left out on purpose:
# "49 m" is as likely to mean male as months.
_UNIT_WORDS = {
    "years": r"y|yr|yrs|year|years|yo|y\.o|y/o|ys",
    "months": r"mo|mos|mon|month|months",
    "weeks": r"wk|wks|week|weeks",
    "days": r"day|days",
}
_NUMBER = r"\d+(?:\.\d+)?"
_UNIT_GROUP = "|".join(f"(?P<{name}>{words})" for name, words in _UNIT_WORDS.items())
_AGE_PREFIX = r"(?:age\b[^0-9<>+]*?)?(?:~|about|approx\.?|approximately|ca\.?)?\s*"
_AGE_SINGLE = re.compile(
    rf"^{_AGE_PREFIX}(?P<value>{_NUMBER})\s*(?:{_UNIT_GROUP})?\.?\s*(?:old)?\.?$")
_AGE_RANGE = re.compile(
    rf"^{_AGE_PREFIX}(?P<low>{_NUMBER})\s*(?:-|\u2013|\u2014|to)\s*(?P<high>{_NUMBER})"
    rf"\s*(?:{_UNIT_GROUP})?\.?\s*(?:old)?\.?$")

FEMALE_WORDS = frozenset({"female", "females", "woman", "women", "f", "girl", "girls",
                          "fem", "xx"})
MALE_WORDS = frozenset({"male", "males", "man", "men", "m", "boy", "boys", "xy"})


def is_missing(cell: Any) -> bool:
    """True for ``None``, NaN/NA and blank strings."""
    if cell is None or cell is pd.NA:
        return True
    if isinstance(cell, float) and math.isnan(cell):
        return True
    return isinstance(cell, str) and not cell.strip()


def split_key_value(cell: Any) -> tuple[str, Optional[str]]:
    """Split a ``key: value`` cell at its first colon.

    Returns
    -------
    key : str
        Text before the first ``:`` (stripped), ``""`` when there is no colon.
    value : str or None
        Text after the first ``:`` (the whole cell without a colon), stripped;
        ``None`` when missing or empty.
    """
    if is_missing(cell):
        return "", None
    text = str(cell)
    key, sep, value = text.partition(":")
    if not sep:
        key, value = "", text
    value = value.strip()
    return key.strip(), (value or None)


def value_after_colon(cell: Any) -> Optional[str]:
    """The text after the first ``:`` of a cell, stripped (``None`` if empty)."""
    return split_key_value(cell)[1]


def _unit_from_match(match: re.Match) -> Optional[str]:
    for name in _UNIT_WORDS:
        if match.group(name):
            return name
    return None


def _unit_from_key(key: str) -> str:
    lowered = key.lower()
    for name, pattern in (("months", r"month|\bmos?\b"), ("weeks", r"week|\bwks?\b"),
                          ("days", r"\bdays?\b")):
        if re.search(pattern, lowered):
            return name
    return "years"


def convert_age(cell: Any) -> Optional[float]:
    """Age in years from a characteristics cell, ``None`` when unparseable.

    Parameters
    ----------
    cell : object
        E.g. ``"Age: 49"``, ``"age (yrs): 49"``, ``"49y"``, ``"49 years old"``,
        ``"age (months): 18"``, ``"40-49"`` (midpoint 44.5).

    Returns
    -------
    float or None
        Years; ``None`` for missing, unparseable, open-ended or implausible
        (outside 0-130 years) values.
    """
    key, value = split_key_value(cell)
    if value is None:
        return None
    text = re.sub(r"\s+", " ", value.lower()).strip()
    match = _AGE_SINGLE.match(text)
    if match:
        number = float(match.group("value"))
    else:
        match = _AGE_RANGE.match(text)
        if not match:
            return None
        low, high = float(match.group("low")), float(match.group("high"))
        if high < low:
            return None
        number = (low + high) / 2.0
    unit = _unit_from_match(match) or _unit_from_key(key)
    years = number * _UNIT_YEARS[unit]
    if not 0.0 <= years <= MAX_AGE_YEARS:
        return None
    return years


def _words(text: str) -> List[str]:
    return re.findall(r"[a-z]+", text.lower())


def convert_gender(cell: Any) -> Optional[float]:
    """Gender as 0 (female) / 1 (male) from a cell, ``None`` when unclear.

    Parameters
    ----------
    cell : object
        E.g. ``"Gender:M"``, ``"Sex: F"``, ``"gender: female"``, ``"MALE"``.

    Returns
    -------
    float or None
        ``0.0`` female, ``1.0`` male; ``None`` when missing, when no sex word is
        found, or when both sexes are named (pooled samples, ``M/F``).
    """
    value = value_after_colon(cell)
    if value is None:
        return None
    words = set(_words(value))
    female = bool(words & FEMALE_WORDS)
    male = bool(words & MALE_WORDS)
    if female == male:
        return None
    return 0.0 if female else 1.0


def _normalize_text(text: str) -> str:
    return re.sub(r"[\s_]+", " ", text.lower()).strip()


def _longest_match(text: str, keywords: Sequence[str], whole_word: bool) -> int:
    longest = 0
    for keyword in keywords:
        if whole_word:
            pattern = rf"(?<![a-z0-9]){re.escape(keyword)}(?![a-z0-9])"
            found = re.search(pattern, text) is not None
        else:
            found = keyword in text
        if found:
            longest = max(longest, len(keyword))
    return longest


def binary_trait_converter(case_keywords: Iterable[str],
                           control_keywords: Iterable[str],
                           *, whole_word: bool = True) -> Converter:
    """Build a converter mapping a cell to 1 (case), 0 (control) or ``None``.

    Parameters
    ----------
    case_keywords, control_keywords : iterable of str
        Phrases looked for (case-insensitively; ``_`` counts as a space) in the
        text after the cell's first ``:``.
    whole_word : bool, default True
        Match keywords only as whole words (``ra`` does not match
        ``paracancerous``). Set False to match substrings (``tumor`` then
        matches ``tumors``).

    Returns
    -------
    callable
        ``cell -> 1.0 | 0.0 | None``. When phrases of both lists match, the
        longer matching phrase decides (``non-tumor`` beats ``tumor``); equal
        lengths give ``None``.

    Examples
    --------
    >>> convert = binary_trait_converter(["tumor", "cancer"], ["normal", "non-tumor"])
    >>> convert("tissue: Tumor"), convert("tissue: non-tumor"), convert("tissue: ?")
    (1.0, 0.0, None)
    """
    cases = [_normalize_text(k) for k in case_keywords if _normalize_text(k)]
    controls = [_normalize_text(k) for k in control_keywords if _normalize_text(k)]
    if not cases or not controls:
        raise ValueError("binary_trait_converter needs at least one case and one "
                         "control keyword")

    def convert(cell: Any) -> Optional[float]:
        value = value_after_colon(cell)
        if value is None:
            return None
        text = _normalize_text(value)
        case_len = _longest_match(text, cases, whole_word)
        control_len = _longest_match(text, controls, whole_word)
        if case_len == control_len:
            return None
        return 1.0 if case_len > control_len else 0.0

    return convert


_ready_age = convert_age
_ready_gender = convert_gender


def sample_columns(clinical_df: pd.DataFrame) -> List[Any]:
    """The sample columns of a characteristics table (row-tag column left out)."""
    return [c for c in clinical_df.columns if c != ROW_TAG_COLUMN]


class ConverterError(ValueError):
    """A converter failed, or returned something that is not a finite number or None."""


def _to_number(result: Any, feature: str, cell: Any, sample: Any) -> float:
    """The converter's result as a float; NaN for None (or NaN)."""
    if result is None:
        return math.nan
    if isinstance(result, bool):
        return float(result)
    try:
        number = float(result)
    except (TypeError, ValueError) as exc:
        raise ConverterError(f"converter for {feature!r} returned {result!r} for sample "
                             f"{sample} (cell {cell!r}); converters must return a "
                             "number or None") from exc
    if math.isinf(number):
        raise ConverterError(f"converter for {feature!r} returned {result!r} for sample "
                             f"{sample} (cell {cell!r}); converters must return a finite "
                             "number or None")
    return number


def get_feature_data(clinical_df: pd.DataFrame, row_id: Any, feature: str,
                     convert_fn: Converter) -> pd.DataFrame:
    """Convert one characteristics row into a one-row numeric feature table.

    Parameters
    ----------
    clinical_df : DataFrame
        Characteristics table (row-tag column ``!Sample_geo_accession`` optional).
    row_id : int
        Row label (the ``0..k-1`` number shown in the unique-values dictionary).
    feature : str
        Name of the resulting row (the trait name, ``"Age"`` or ``"Gender"``).
    convert_fn : callable
        ``cell -> number | None``; missing cells are not passed to it.

    Returns
    -------
    DataFrame
        One row named ``feature``, one float column per sample.

    Raises
    ------
    KeyError
        When ``row_id`` is not a row of the table.
    ConverterError
        (a ``ValueError``) When the converter fails, or returns something that is
        not a finite number or ``None`` (``inf`` is refused; NaN counts as missing).
    """
    if row_id not in clinical_df.index:
        raise KeyError(f"row {row_id!r} is not in the characteristics table "
                       f"(rows: {list(clinical_df.index)})")
    samples = sample_columns(clinical_df)
    cells = clinical_df.loc[row_id, samples]
    values = []
    for sample, cell in zip(samples, cells):
        if is_missing(cell):
            values.append(math.nan)
            continue
        try:
            result = convert_fn(cell)
        except Exception as exc:
            raise ConverterError(f"converter for {feature!r} failed on sample {sample} "
                                 f"(row {row_id}, cell {cell!r}): {exc}") from exc
        values.append(_to_number(result, feature, cell, sample))
    return pd.DataFrame([values], index=[feature], columns=samples, dtype="float64")


def geo_select_clinical_features(clinical_df: pd.DataFrame, trait: str, trait_row: Any,
                                 convert_trait: Converter,
                                 age_row: Any = None, convert_age: Optional[Converter] = None,
                                 gender_row: Any = None,
                                 convert_gender: Optional[Converter] = None) -> pd.DataFrame:
    """Build the clinical table (features x samples) of a GEO cohort.

    Parameters
    ----------
    clinical_df : DataFrame
        Characteristics table from ``get_background_and_clinical_data``.
    trait : str
        Trait name; becomes the first row's label.
    trait_row : int
        Row holding the trait.
    convert_trait : callable
        Trait converter (``cell -> 1 | 0 | number | None``).
    age_row, gender_row : int, optional
        Rows holding age and gender; ``None`` when not available.
    convert_age, convert_gender : callable, optional
        Converters; default to the ready :func:`convert_age` and
        :func:`convert_gender` of this module when a row is given.

    Returns
    -------
    DataFrame
        Rows ``<trait>``, ``Age``, ``Gender`` (only those available), one float
        column per sample.
    """
    if trait_row is None or convert_trait is None:
        raise ValueError("geo_select_clinical_features needs trait_row and convert_trait: "
                         "a cohort without trait information is not usable")
    features = [get_feature_data(clinical_df, trait_row, trait, convert_trait)]
    if age_row is not None:
        features.append(get_feature_data(clinical_df, age_row, AGE,
                                         convert_age or _ready_age))
    if gender_row is not None:
        features.append(get_feature_data(clinical_df, gender_row, GENDER,
                                         convert_gender or _ready_gender))
    table = pd.concat(features, axis=0)
    logger.info("clinical features %s over %d samples", list(table.index), table.shape[1])
    return table
