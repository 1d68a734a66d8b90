"""The trait outside the characteristics: titles, source names, descriptions, ``_ch2``.

Some series record the group only in ``!Sample_title`` ("AS_patient_001") or
``!Sample_source_name_ch1`` ("whole blood, healthy control").
:func:`infer_clinical_rows_with_sample_lines` searches those lines when the
characteristics hold no trait row and says which ``prefixes_b`` to pass to
:func:`tools.preprocess.geo.get_background_and_clinical_data` so that the row
numbers it returns address the re-read table.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from tools.preprocess.clinical import ROW_TAG_COLUMN
from tools.preprocess.clinical_rules.decisions import decide_clinical_rows
from tools.preprocess.clinical_rules.row_scores import best_row, trait_row_score
from tools.preprocess.clinical_rules.values import infer_clinical_values

CHARACTERISTICS_TAG = "!Sample_characteristics_ch1"
#: Where to look for the trait when the characteristics do not hold it, best
#: first (structured lines before free text). Ties in evidence go this way.
SAMPLE_LINE_PREFERENCE = ("!Sample_characteristics_ch2", "!Sample_source_name_ch1",
                          "!Sample_title", "!Sample_source_name_ch2",
                          "!Sample_description")
#: Every per-sample line that may hold clinical information (prefixes).
ALL_SAMPLE_LINE_PREFIXES = ("!Sample_title", "!Sample_source_name", "!Sample_characteristics",
                            "!Sample_description")


def infer_clinical_rows_with_sample_lines(
        sample_lines: Sequence[Tuple[str, List[Optional[str]]]], trait: str,
        background: str) -> dict:
    """Rows for trait / age / gender, also searching non-characteristics lines.

    The characteristics (``!Sample_characteristics_ch1``) are searched first,
    exactly as :func:`infer_clinical_rows`. When they hold no trait row, the
    other per-sample lines are searched in the order of
    :data:`SAMPLE_LINE_PREFERENCE` (a better-scoring line wins over a
    preferred one). Age and gender come from characteristics lines only.

    Parameters
    ----------
    sample_lines : sequence of (tag, values)
        Every per-sample line IN FILE ORDER: its tag (``"!Sample_title"``,
        ``"!Sample_characteristics_ch1"`` ...) and its distinct raw values.
        :func:`sample_lines_from_matrix` builds it.
    trait, background : str
        As for :func:`infer_clinical_rows`.

    Returns
    -------
    dict
        ``trait_row``, ``age_row``, ``gender_row`` numbered in the table that
        ``get_background_and_clinical_data(matrix, prefixes_b=result["prefixes_b"])``
        returns; ``prefixes_b`` (list of str); ``extra_rows`` (tuple of the
        added tags, empty when the characteristics suffice); ``trait_source``
        (the tag of the trait line, or None); ``decisions`` (the
        :class:`.decisions.ClinicalDecisions` of the characteristics alone,
        rows numbered as in the characteristics-only table).
    """
    lines = [(tag, list(values)) for tag, values in sample_lines]
    positions = [i for i, (tag, _) in enumerate(lines) if tag == CHARACTERISTICS_TAG]
    ch1 = {k: lines[i][1] for k, i in enumerate(positions)}   # the characteristics table
    decisions = decide_clinical_rows(ch1, trait, background)
    base = {name: (None if row is None else positions[row])    # positions in `lines`
            for name, row in decisions.rows().items()}
    trait_pos = base["trait_row"]
    extra: Tuple[str, ...] = ()
    if trait_pos is None:
        candidates: Dict[int, Optional[Tuple]] = {}
        for i, (tag, values) in enumerate(lines):
            if tag == CHARACTERISTICS_TAG or tag not in SAMPLE_LINE_PREFERENCE:
                continue
            if i in (base["age_row"], base["gender_row"]):
                continue
            score = trait_row_score(free_text_cells(tag, values), trait, background)
            if score is not None:
                preference = len(SAMPLE_LINE_PREFERENCE) - SAMPLE_LINE_PREFERENCE.index(tag)
                candidates[i] = score + (preference,)
        trait_pos = best_row(candidates, range(len(lines)))
        if trait_pos is not None:
            extra = (lines[trait_pos][0],)
    prefixes = [ROW_TAG_COLUMN, *extra, CHARACTERISTICS_TAG]
    kept = [i for i, (tag, _) in enumerate(lines) if tag.startswith(tuple(prefixes[1:]))]
    renumber = {pos: k for k, pos in enumerate(kept)}
    return {
        "trait_row": renumber.get(trait_pos) if trait_pos is not None else None,
        "age_row": renumber.get(base["age_row"]) if base["age_row"] is not None else None,
        "gender_row": (renumber.get(base["gender_row"])
                       if base["gender_row"] is not None else None),
        "prefixes_b": prefixes,
        "extra_rows": extra,
        "trait_source": lines[trait_pos][0] if trait_pos is not None else None,
        "decisions": decisions,
    }


def free_text_cells(tag: str, values: Sequence[Optional[str]]) -> List[Optional[str]]:
    """Titles / source names / descriptions are values, not ``key: value`` cells.

    A colon inside a title is not a key separator, so the cell is prefixed
    with an empty key. Channel-2 characteristics keep their keys.
    """
    if tag.startswith("!Sample_characteristics"):
        return list(values)
    return [None if v is None else ": " + str(v) for v in values]


def convert_sample_line(tag: str, cells: Sequence[Optional[str]], trait: str,
                        background: str) -> List[Optional[float]]:
    """Trait values of a title / source-name / description line (whole text)."""
    return infer_clinical_values("trait", free_text_cells(tag, cells), trait, background)


def sample_lines_from_matrix(matrix_file: str, max_len: int = 30
                             ) -> List[Tuple[str, List[Optional[str]]]]:
    """All per-sample lines of a series matrix, in file order, as (tag, distinct values).

    Uses the library's reader through its stable surface ``tools.preprocess``
    (``get_background_and_clinical_data`` with ``prefixes_b``, then
    ``get_unique_values_by_row``), imported when called.
    """
    from tools.preprocess import get_background_and_clinical_data, get_unique_values_by_row
    prefixes = [ROW_TAG_COLUMN, *ALL_SAMPLE_LINE_PREFIXES]
    _, table = get_background_and_clinical_data(matrix_file, prefixes_b=prefixes)
    unique = get_unique_values_by_row(table, max_len=max_len)
    return [(str(table.iloc[i, 0]), list(unique[label]))
            for i, label in enumerate(table.index)]
