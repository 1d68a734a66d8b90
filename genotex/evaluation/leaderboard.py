"""Several methods side by side: the leaderboard in the shape of the paper's Table 2.

Rows are methods; columns are the headline scores of each task and category:
dataset filtering F1 and dataset selection accuracy; AJ, SJ and CSC of each
preprocessing subtask; F1, AUROC and GSEA ES of each analysis category
(unconditional, conditional one-step, two-step, overall), then the trait-prediction
accuracy and the success rate. A column whose task was not evaluated is null.
The document follows :class:`utils.schemas.report.Leaderboard`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence

from genotex.evaluation.summary import OVERALL
from genotex.evaluation.layout import SUBTASKS
from utils.problems import CATEGORIES

PERCENT_SCALE = "percent"
UNIT_SCALE = "unit"
ANALYSIS_GROUPS = (*CATEGORIES, OVERALL)
ANALYSIS_METRICS = ("f1", "auroc", "gsea_es")
TABLE_METRICS = ("aj", "sj", "csc")
#: Short headings of metrics and groups in text and HTML tables.
HEADINGS = {"f1": "F1", "accuracy": "acc", "aj": "AJ", "sj": "SJ", "csc": "CSC",
            "auroc": "AUROC", "gsea_es": "GSEA", "success_rate": "success",
            "trait_accuracy": "trait", "unconditional": "unconditional",
            "conditional one-step": "one-step", "two-step": "two-step", "overall": "overall",
            "filtering": "DF", "dataset selection": "DS", "input_tokens": "in tok",
            "output_tokens": "out tok", "cost_usd": "USD", "seconds": "s",
            "per problem": "per problem"}


@dataclass(frozen=True)
class Column:
    """One leaderboard column: where its score is found in a report."""

    task: str
    group: str
    metric: str
    scale: str = PERCENT_SCALE

    @property
    def key(self) -> str:
        """``<task>.<group>.<metric>``."""
        return f"{self.task}.{self.group}.{self.metric}"

    def as_dict(self) -> Dict[str, str]:
        """The column as in :class:`utils.schemas.report.LeaderboardColumn`."""
        return {"key": self.key, "task": self.task, "group": self.group,
                "metric": self.metric, "scale": self.scale}


def leaderboard_columns() -> List[Column]:
    """Every column, in Table 2 order."""
    columns = [Column("selection", "filtering", "f1"),
               Column("selection", "dataset selection", "accuracy")]
    columns += [Column("preprocessing", subtask, metric)
                for subtask in SUBTASKS for metric in TABLE_METRICS]
    for group in ANALYSIS_GROUPS:
        columns += [Column("analysis", group, metric,
                           UNIT_SCALE if metric in ("auroc", "gsea_es") else PERCENT_SCALE)
                    for metric in ANALYSIS_METRICS]
    columns += [Column("analysis", OVERALL, "trait_accuracy"),
                Column("analysis", OVERALL, "success_rate")]
    return columns


def column_score(report: Mapping[str, Any], column: Column) -> Optional[float]:
    """The score of ``column`` in one method's report (None when not evaluated)."""
    if column.task == "selection":
        selection = report.get("selection")
        if not selection:
            return None
        if column.group == "filtering":
            return selection["filtering"]["summary"][column.metric]
        return selection["dataset_selection"]["summary"][OVERALL]["mean"]
    if column.task == "preprocessing":
        block = (report.get("preprocessing") or {}).get(column.group)
        return block["summary"][column.metric]["mean"] if block else None
    analysis = report.get("analysis")
    if not analysis:
        return None
    summary = analysis["summary"][column.group]
    if column.metric == "success_rate":
        return summary["success_rate"]
    if column.metric == "trait_accuracy":
        predicted = analysis["trait_prediction"]["predicted"].get(column.group, {})
        return predicted.get("accuracy", {}).get("mean")
    return summary[column.metric]["mean"]


def build_leaderboard(reports: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
    """The leaderboard of several methods' reports (same reference and readings).

    Raises
    ------
    ValueError
        When the reports disagree on the reference, the conventions or the gene-symbol
        reading (``gene_synonyms``).
    """
    if not reports:
        raise ValueError("no report to rank")
    shared = ("reference", "conventions", "gene_synonyms")
    if any(len({r.get(key) for r in reports}) > 1 for key in shared):
        raise ValueError("reports to compare must share the reference, the conventions and "
                         "the gene-symbol reading")
    columns = leaderboard_columns()
    rows = [{"method": r["method"], "prediction": r["prediction"],
             "scores": {c.key: column_score(r, c) for c in columns}} for r in reports]
    return {"reference": reports[0]["reference"], "conventions": reports[0]["conventions"],
            "gene_synonyms": reports[0].get("gene_synonyms"),
            "columns": [c.as_dict() for c in columns], "rows": rows}


def unique_method_names(names: Sequence[str]) -> List[str]:
    """Method names made distinct by numbering repeats (``out``, ``out (2)``)."""
    seen: Dict[str, int] = {}
    result = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        result.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return result
