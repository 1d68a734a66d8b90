"""The rules' clinical proposal for a GEO cohort, as text for the Domain Expert.

:func:`clinical_hints` reads the cohort's series matrix the way the clinical
step's code reads it (``get_background_and_clinical_data`` with its default
lines, ``get_unique_values_by_row``), so the row numbers of the proposal are
the row numbers the agent sees, and asks
:func:`tools.preprocess.clinical_rules.decide_clinical_rows` for the rows, their
confidences, the evidence and the conversion of each trait value.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

from tools.preprocess import (geo_get_relevant_filepaths, get_background_and_clinical_data,
                              get_unique_values_by_row)
from tools.preprocess.clinical_rules import decide_clinical_rows
from utils.errors import InputFileError

logger = logging.getLogger(__name__)


def clinical_hints(cohort_dir: Path, trait: str) -> Optional[str]:
    """The proposal for one GEO cohort (None when its files cannot be read).

    A cohort whose files are missing or broken gets no hint: the agent's own
    code meets the same problem and reports it.
    """
    try:
        _, matrix = geo_get_relevant_filepaths(str(cohort_dir))
        background, clinical = get_background_and_clinical_data(matrix)
    except (InputFileError, OSError, ValueError) as exc:
        logger.info("no clinical hints for %s: %s", cohort_dir, exc)
        return None
    characteristics = get_unique_values_by_row(clinical)
    return decide_clinical_rows(characteristics, trait, background).describe()
