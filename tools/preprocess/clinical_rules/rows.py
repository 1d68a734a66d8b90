"""The clinical step's row contract: :func:`infer_clinical_rows`.

The function notebooks, agents and scorers call by this path
(``tools.preprocess.clinical_rules.rows:infer_clinical_rows``); the rows are
decided by :func:`tools.preprocess.clinical_rules.decisions.decide_clinical_rows`
(with a confidence and the evidence of each), whose scores and rules live in
:mod:`tools.preprocess.clinical_rules.row_scores`.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from tools.preprocess.clinical_rules.decisions import decide_clinical_rows


def infer_clinical_rows(characteristics: Dict[int, List[str]], trait: str,
                        background: str, model: Optional[Any] = None) -> dict:
    """Choose the characteristics rows holding the trait, the age and the sex.

    Parameters
    ----------
    characteristics : dict of int to list of str
        ``get_unique_values_by_row(clinical_df)``: row number -> distinct raw
        cells (``None`` for missing cells), at most 30 per row.
    trait : str
        Benchmark trait name with underscores (``"Heart_rate"``).
    background : str
        Series title / summary / overall design.
    model : RowModel, optional
        Weights of the trait-row ranking (default: the shipped ones).

    Returns
    -------
    dict
        ``{"trait_row": int | None, "age_row": int | None, "gender_row": int | None}``
        (the rules: :mod:`.row_scores`; confidences and evidence:
        :func:`decide_clinical_rows`).

    Examples
    --------
    >>> infer_clinical_rows({0: ["tissue: synovium"], 1: ["Sex: M", "Sex: F"],
    ...                      2: ["group: control", "group: rheumatoid arthritis"],
    ...                      3: ["age: 25", "age: 50"]}, "Rheumatoid_Arthritis", "")
    {'trait_row': 2, 'age_row': 3, 'gender_row': 1}
    """
    return decide_clinical_rows(characteristics, trait, background, model).rows()
