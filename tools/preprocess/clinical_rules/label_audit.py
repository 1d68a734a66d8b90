"""Decisions of a curators' corpus that contradict the corpus itself.

A scorer counts every curator decision as right. Some decisions of the dev
split cannot be matched by any reader of the characteristics, however good,
and this module lists them so that the split's owner can check them:

* **twins** (:func:`conflicting_twins`): two series of the same trait whose
  characteristics are identical, row for row and value for value (a
  SuperSeries and its sub-series, say), but whose curators chose different
  rows. Any method that answers from the characteristics answers both alike,
  so it misses one of the two whatever it does.
* **rows without their feature** (:func:`rows_without_their_feature`): a
  curator's sex row where no value reads as a sex, an age row where no value
  reads as an age, and a trait row that is the series' own age or sex row
  while every one of its values converts to the same trait value (the
  conversion carries nothing of the trait). The sex and age readings are
  the rules' own (:func:`.quantities.parse_sex`, :func:`.quantities.parse_age`,
  :func:`.row_scores.choose_age_row`), so a finding is "no value reads as one
  here", not a proof that the curator erred.

Only the command line of :mod:`.devset` (``--label-audit``), tests and
benchmarks read a corpus; no method does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Sequence

from tools.preprocess.clinical_rules.quantities import parse_age, parse_sex
from tools.preprocess.clinical_rules.row_scores import (choose_age_row, choose_gender_row,
                                                        gender_row_score, present_cells)
from tools.preprocess.clinical_rules.text import split_cell

Record = Dict[str, Any]
#: The decisions a record holds, by feature.
FEATURE_ROWS = (("trait", "trait_row"), ("age", "age_row"), ("gender", "gender_row"))


@dataclass(frozen=True)
class LabelFinding:
    """One decision of the corpus that the corpus itself contradicts.

    Attributes
    ----------
    series : str
        The record's ``id`` (``Trait/GSE...``).
    feature : str
        ``trait``, ``age`` or ``gender``.
    kind : str
        ``twin`` (see :func:`conflicting_twins`) or ``no <feature>`` /
        ``trait row is the age row`` / ``trait row is the sex row``.
    detail : str
        What was seen, in words.
    """

    series: str
    feature: str
    kind: str
    detail: str

    def describe(self) -> str:
        """One line: series, feature, kind and detail."""
        return f"{self.series}  {self.feature} row  {self.kind}: {self.detail}"


def _characteristics(record: Record) -> Dict[int, List[Any]]:
    return {int(row): list(values) for row, values in record["characteristics"].items()}


def conflicting_twins(records: Sequence[Record]) -> List[LabelFinding]:
    """Pairs of one trait's series with identical characteristics but different rows.

    One finding per feature that differs, on the later series of the pair
    (records in corpus order), naming the earlier one.
    """
    first_seen: Dict[Any, Record] = {}
    findings = []
    for record in records:
        identity = (record["trait"], json.dumps(record["characteristics"], sort_keys=True))
        twin = first_seen.setdefault(identity, record)
        if twin is record:
            continue
        for feature, field in FEATURE_ROWS:
            if twin.get(field) != record.get(field):
                findings.append(LabelFinding(
                    record["id"], feature, "twin",
                    f"same characteristics as {twin['id']}, whose {feature} row is "
                    f"{twin.get(field)}; here {record.get(field)}"))
    return findings


def _values_of(record: Record, field: str) -> List[Any]:
    row = record.get(field)
    return present_cells(record["characteristics"].get(str(row), [])) if row is not None else []


def _reads_no_sex(values: Sequence[Any]) -> bool:
    return bool(values) and gender_row_score(values) is None and all(
        parse_sex(v) is None for v in values)


def _reads_no_age(values: Sequence[Any]) -> bool:
    return bool(values) and all(parse_age(v) is None for v in values)


def _constant_conversion(record: Record) -> bool:
    conversion = (record.get("conversions") or {}).get("trait") or {}
    converted = [c for c, failed in zip(conversion.get("converted", []),
                                        conversion.get("failed", [])) if not failed]
    return len(converted) >= 2 and len(set(converted)) == 1


def rows_without_their_feature(records: Sequence[Record]) -> List[LabelFinding]:
    """Curators' rows in which nothing reads as the feature they were chosen for."""
    findings = []
    for record in records:
        for feature, field, reads_none in (("gender", "gender_row", _reads_no_sex),
                                           ("age", "age_row", _reads_no_age)):
            values = _values_of(record, field)
            if reads_none(values):
                shown = ", ".join(repr(split_cell(v)[0] + ": " + (split_cell(v)[1] or ""))
                                  for v in values[:3])
                findings.append(LabelFinding(record["id"], feature, f"no {feature}",
                                             f"row {record[field]} holds {shown}"))
        trait_row = record.get("trait_row")
        if trait_row is None or not _constant_conversion(record):
            continue
        characteristics = _characteristics(record)
        age_row, _ = choose_age_row(characteristics)
        gender_row, _ = choose_gender_row(characteristics, age_row)
        for other, name in ((age_row, "age"), (gender_row, "sex")):
            if trait_row == other:
                findings.append(LabelFinding(
                    record["id"], "trait", f"trait row is the {name} row",
                    f"row {trait_row} is the series' {name} row and every value converts "
                    f"to the same trait value"))
    return findings


def audit_labels(records: Sequence[Record]) -> List[LabelFinding]:
    """Every finding of :func:`conflicting_twins` and :func:`rows_without_their_feature`."""
    return conflicting_twins(records) + rows_without_their_feature(records)
