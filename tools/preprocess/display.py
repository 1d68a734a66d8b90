"""Compact, JSON-friendly previews of tables for notebooks and agent prompts."""

from __future__ import annotations

import math
from typing import Any, Dict, List

import pandas as pd


def _plain(value: Any) -> Any:
    """A NumPy/pandas scalar as a plain Python value; missing -> None."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def preview_df(df: pd.DataFrame, n: int = 5, max_items: int = 200) -> Dict[Any, List[Any]]:
    """The first ``n`` values of (at most ``max_items``) columns of a table.

    Parameters
    ----------
    df : DataFrame
    n : int, default 5
        Rows shown per column.
    max_items : int, default 200
        Columns shown at most (the first ones), so a 20k-gene table stays short.

    Returns
    -------
    dict
        ``{column: [first n values]}`` with plain Python values (NaN -> None).
    """
    head = df.iloc[:n, :max_items]
    return {column: [_plain(v) for v in head.iloc[:, i].tolist()]
            for i, column in enumerate(head.columns)}
