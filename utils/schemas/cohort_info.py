"""``output/preprocess/<Trait>/cohort_info.json``: ``{cohort: record}`` (SPEC 4.8).

* :class:`CohortRecord` is the record the preprocessing library writes, keys in
  SPEC order; :class:`CohortInfo` the whole file. :func:`cohort_info_document`
  validates records and returns the file's content (cohorts sorted).
* :class:`CohortRecordReading` is what cohort selection and the evaluator read from
  any tree: ``is_usable`` must be true or false, the other flags true, false or null,
  ``sample_size`` a non-negative integer or null; absent keys are null and unknown
  keys are ignored. :func:`parse_cohort_info` sorts a file's records into valid ones
  and per-cohort problems.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Dict, Mapping, Optional

from pydantic import Field, RootModel, model_validator

from utils.schemas.base import FormatError, ReadingModel, StrictModel, dump, validate

SampleSize = Annotated[int, Field(ge=0)]


class CohortRecord(StrictModel):
    """The outcome of preprocessing one cohort (docs/formats.md, "cohort_info").

    A cohort that stops early (no gene data, no trait) has the availability flags it
    has and nulls for ``is_biased``, ``has_age``, ``has_gender`` and ``sample_size``.
    Two rules hold in every record: ``is_available`` = ``is_gene_available`` and
    ``is_trait_available``; ``is_usable`` = ``is_available`` and ``is_biased`` is false.
    """

    is_usable: bool
    """The cohort may be analysed: available and not biased."""
    is_gene_available: bool
    """Gene expression was found and the final linked table has rows and gene columns."""
    is_trait_available: bool
    """The trait could be read for the samples."""
    is_available: bool
    """Gene data and trait are both available."""
    is_biased: Optional[bool]
    """The trait is too unbalanced (or constant) to analyse; null after an early stop."""
    has_age: Optional[bool]
    """The linked table has an Age column; null after an early stop."""
    has_gender: Optional[bool]
    """The linked table has a Gender column; null after an early stop."""
    sample_size: Optional[SampleSize]
    """Rows of the final linked table; null after an early stop."""
    note: str
    """Free text (why the cohort stopped, what was dropped)."""

    @model_validator(mode="after")
    def _flags_agree(self) -> "CohortRecord":
        if self.is_available != (self.is_gene_available and self.is_trait_available):
            raise ValueError("'is_available' must be is_gene_available and is_trait_available")
        if self.is_usable != (self.is_available and self.is_biased is False):
            raise ValueError("'is_usable' must be is_available and not is_biased")
        return self


#: The record's keys in SPEC 4.8 order.
RECORD_KEYS = tuple(CohortRecord.model_fields)


class CohortInfo(RootModel[Dict[str, CohortRecord]]):
    """``cohort_info.json`` of one trait: the record of each cohort, by cohort id
    (GSE accession, or ``Xena`` for the TCGA cohort)."""


class CohortRecordReading(ReadingModel):
    """The fields of a record that cohort selection and scoring read, from any tree."""

    is_usable: bool
    """Whether the cohort may be analysed."""
    is_gene_available: Optional[bool] = None
    is_trait_available: Optional[bool] = None
    is_available: Optional[bool] = None
    is_biased: Optional[bool] = None
    has_age: Optional[bool] = None
    """True when the linked table has an Age column."""
    has_gender: Optional[bool] = None
    """True when the linked table has a Gender column."""
    sample_size: Optional[SampleSize] = None
    """Rows of the linked table."""


@dataclass
class CohortInfoReading:
    """A ``cohort_info.json`` read leniently.

    Attributes
    ----------
    records : dict
        ``{cohort: CohortRecordReading}`` of the valid records, in file order.
    problems : dict
        ``{cohort: problem}`` of the records that are not valid.
    """

    records: Dict[str, CohortRecordReading] = field(default_factory=dict)
    problems: Dict[str, str] = field(default_factory=dict)


def check_cohort_info_root(data: Any) -> Dict[str, Any]:
    """``data`` itself when it is a JSON object; raises :class:`FormatError` otherwise."""
    if not isinstance(data, dict):
        raise FormatError("expected a JSON object {cohort: record}, found "
                          f"{type(data).__name__}")
    return data


def parse_cohort_info(data: Any) -> CohortInfoReading:
    """Valid records and per-cohort problems of a (possibly damaged) ``cohort_info``.

    Parameters
    ----------
    data : object
        Parsed JSON. Records may also be :class:`CohortRecordReading` already.

    Raises
    ------
    FormatError
        When ``data`` is not a JSON object.
    """
    reading = CohortInfoReading()
    for cohort, record in check_cohort_info_root(data).items():
        try:
            reading.records[cohort] = validate(CohortRecordReading, record)
        except FormatError as exc:
            reading.problems[cohort] = exc.problem
    return reading


def cohort_info_document(records: Mapping[str, Any]) -> Dict[str, Dict[str, Any]]:
    """Content of a ``cohort_info.json``: every record validated, cohorts sorted.

    Parameters
    ----------
    records : mapping
        ``{cohort: CohortRecord or mapping}``.

    Raises
    ------
    FormatError
        Naming the first cohort whose record is not a valid :class:`CohortRecord`.
    """
    document = {}
    for cohort in sorted(records):
        try:
            document[cohort] = dump(validate(CohortRecord, records[cohort]))
        except FormatError as exc:
            raise FormatError(f"record of {cohort!r}: {exc.problem}") from None
    return document
