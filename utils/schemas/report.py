"""The evaluation report that ``eval.py --report FILE`` writes (SPEC 6, docs/evaluation.md).

Scores are percentages (0-100; CSC may be negative) except AUROC and the GSEA
enrichment score (0-1). A score that is undefined (no item to average, a metric
undefined for a problem) is written as ``null``. :func:`report_document` validates a
report (NaN already replaced by None) and returns it in schema key order.

Several methods evaluated together (``eval.py -p A B C --report FILE``) give a
:class:`Comparison`: the leaderboard (rows = methods, columns in the shape of the
paper's Table 2) and each method's report (:func:`comparison_document`).
"""

from __future__ import annotations

from typing import Annotated, Any, Dict, List, Literal, Mapping, Optional

from pydantic import Field

from utils.schemas.base import StrictModel, dump, optional_key, validate

Status = Literal["ok", "missing", "malformed", "empty", "reference-error", "no-reference"]
Conventions = Literal["genotex", "legacy"]
Category = Literal["unconditional", "conditional one-step", "two-step"]
CategoryOrOverall = Literal["unconditional", "conditional one-step", "two-step", "overall"]
Count = Annotated[int, Field(ge=0)]
Score = Optional[float]
StatusCounts = Dict[Status, Count]


class Mean(StrictModel):
    """A mean over the items where the value is defined."""

    mean: Score
    """Null when ``n`` is 0."""
    n: Count
    """How many values were averaged."""


class FilteringSummary(StrictModel):
    """Dataset filtering as binary classification, positive = usable (percent)."""

    f1: Score
    precision: Score
    recall: Score
    accuracy: Score
    tp: Count
    """Cohorts the reference and the prediction both call positive."""
    fp: Count
    """Called positive by the prediction only."""
    fn: Count
    """Called positive by the reference only."""
    tn: Count
    n: Count


class TraitFiltering(FilteringSummary):
    """Dataset filtering over one trait's cohorts."""

    trait: str


class FilteringItem(StrictModel):
    """One cohort: is it positive (usable; ``is_available`` with legacy conventions)?"""

    trait: str
    cohort: str
    reference_positive: bool
    predicted_positive: bool
    correct: bool
    status: Status
    """Status of the prediction's record."""
    message: str


class Filtering(StrictModel):
    label: Literal["is_usable", "is_available"]
    """The record field classified (``is_available`` with legacy conventions)."""
    averaged_over: Literal["cohorts", "traits"]
    """How the summary's scores are computed: over all cohorts, or per trait and
    then averaged (legacy conventions); the counts are over all cohorts."""
    summary: FilteringSummary
    traits: List[TraitFiltering]
    """The same scores per trait."""
    status_counts: StatusCounts
    cohorts: List[FilteringItem]


class DatasetSelectionItem(StrictModel):
    """One problem: which cohort (or ``trait+condition`` cohort pair) was selected."""

    trait: str
    condition: str
    category: Category
    reference: Optional[str]
    predicted: Optional[str]
    correct: Optional[bool]
    """Null when the reference selects nothing (the problem is not scored)."""
    accuracy: Score
    """100 or 0; null when not scored."""
    status: Status
    message: str


class DatasetSelection(StrictModel):
    summary: Dict[CategoryOrOverall, Mean]
    """Accuracy (percent) by problem category."""
    status_counts: StatusCounts
    problems: List[DatasetSelectionItem]


class Selection(StrictModel):
    filtering: Filtering
    dataset_selection: DatasetSelection


class TableItem(StrictModel):
    """One table of one usable reference cohort."""

    trait: str
    cohort: str
    subtask: Literal["gene", "clinical", "linked"]
    status: Status
    aj: Score
    """Attribute Jaccard (percent)."""
    sj: Score
    """Sample Jaccard (percent)."""
    csc: Score
    """Composite similarity correlation AJ x SJ x mean correlation (percent)."""
    coverage: Score
    """Percent of the reference's finite values that have a finite predicted value."""
    correlation: Score
    """Mean Pearson correlation of the comparable features (missing predicted
    values filled with the feature's mean)."""
    common_features: Count
    common_samples: Count
    correlated_features: Count
    message: str
    bytes_read: Count


class TableSummary(StrictModel):
    aj: Mean
    sj: Mean
    csc: Mean
    coverage: Mean
    correlation: Mean
    """Over the tables read (status ``ok``)."""
    cohorts: Count
    """Items scored (reference errors left out)."""


class Subtask(StrictModel):
    summary: TableSummary
    status_counts: StatusCounts
    cohorts: List[TableItem]


class Preprocessing(StrictModel):
    gene: Subtask = optional_key("Gene tables (genes x samples).")
    clinical: Subtask = optional_key("Clinical tables (features x samples).")
    linked: Subtask = optional_key("Linked tables (samples x features).")
    bytes_read: Count
    """CSV bytes parsed (reference and prediction, after decompression)."""


class AnalysisItem(StrictModel):
    """One problem's ranked gene list against the reference."""

    trait: str
    condition: str
    category: Category
    status: Status
    precision: Score
    recall: Score
    f1: Score
    jaccard: Score
    auroc: Score
    gsea_es: Score
    predicted_genes: Count
    reference_genes: Count
    universe: Literal["reference", "virtual", ""]
    """Where the gene universe came from (empty when the reference result is missing)."""
    universe_size: Optional[Count]
    message: str
    predicted_cv: Dict[str, float]
    """Finite numbers of the prediction's ``cv_performance.prediction`` (dotted keys)."""
    reference_cv: Dict[str, float]


class CategorySummary(StrictModel):
    """Means of the gene-list metrics over a category's problems."""

    precision: Mean
    recall: Mean
    f1: Mean
    jaccard: Mean
    auroc: Mean
    gsea_es: Mean
    problems: Count
    succeeded: Count
    """Problems with a valid prediction file."""
    success_rate: Score


class TraitPrediction(StrictModel):
    """Means of ``cv_performance.prediction`` metrics by category."""

    predicted: Dict[CategoryOrOverall, Dict[str, Mean]]
    reference: Dict[CategoryOrOverall, Dict[str, Mean]]


class Analysis(StrictModel):
    summary: Dict[CategoryOrOverall, CategorySummary]
    trait_prediction: TraitPrediction
    status_counts: StatusCounts
    problems: List[AnalysisItem]


class EvaluationReport(StrictModel):
    """Scores of a prediction tree against a reference tree (``eval.py --report``)."""

    method: str
    """The method's name in leaderboards (default: the prediction folder's name)."""
    prediction: str
    """The prediction tree."""
    reference: str
    """The reference tree."""
    conventions: Conventions
    """``genotex`` (docs/evaluation.md) or ``legacy`` (the original evaluator's,
    docs/evaluation.md, "Legacy conventions")."""
    gene_synonyms: Optional[str]
    """The synonym map the analysis gene symbols went through (``eval.py -g FILE``); null
    for the canonical reading: symbols compared as written, stripped and upper-cased
    (docs/evaluation.md)."""
    tasks: List[Literal["selection", "preprocessing", "analysis"]]
    subtasks: List[Literal["gene", "clinical", "linked"]]
    selection: Selection = optional_key(
        "Dataset filtering and selection (docs/evaluation.md, \"Selection\").")
    preprocessing: Preprocessing = optional_key(
        "Table comparison (docs/evaluation.md, \"Preprocessing\").")
    analysis: Analysis = optional_key(
        "Gene lists and trait prediction (docs/evaluation.md, \"Analysis\").")


class LeaderboardColumn(StrictModel):
    """One column of the leaderboard."""

    key: str
    """``<task>.<group>.<metric>``, e.g. ``analysis.two-step.auroc``."""
    task: Literal["selection", "preprocessing", "analysis", "resources"]
    """``resources``: the run folder's resource report (tokens, cost, time per problem)."""
    group: str
    """``filtering``/``dataset selection``, a subtask, an analysis category, or
    ``per problem``."""
    metric: str
    scale: Literal["percent", "unit", "count", "usd", "seconds"]
    """``percent`` (0-100), ``unit`` (0-1: AUROC, GSEA ES), or a resource's unit."""


class LeaderboardRow(StrictModel):
    """One method's scores (the mean over its repeats, when it has several)."""

    method: str
    prediction: str
    scores: Dict[str, Score]
    """By column key; null when undefined or not evaluated."""
    sd: Dict[str, Score] = optional_key(
        "Sample standard deviation over the repeats, by column key (null: fewer than two "
        "defined values). Only for methods given as a run folder of repeats.")
    repeats: Count = optional_key("How many repeated runs the row averages.")


class Leaderboard(StrictModel):
    """Methods (rows) against the scores of the paper's Table 2 (columns)."""

    reference: str
    conventions: Conventions
    gene_synonyms: Optional[str]
    """The synonym map the analysis gene symbols went through (``eval.py -g FILE``); null
    for the canonical reading: symbols compared as written, stripped and upper-cased
    (docs/evaluation.md)."""
    columns: List[LeaderboardColumn]
    rows: List[LeaderboardRow]


class Comparison(StrictModel):
    """Several methods scored against one reference (``eval.py -p A B C --report``)."""

    leaderboard: Leaderboard
    reports: List[EvaluationReport]
    """Each method's full report, in leaderboard order."""


def report_document(report: Mapping[str, Any]) -> Dict[str, Any]:
    """A report (NaN already replaced by None) validated, keys in schema order."""
    return dump(validate(EvaluationReport, dict(report)))


def comparison_document(comparison: Mapping[str, Any]) -> Dict[str, Any]:
    """A comparison (NaN already replaced by None) validated, keys in schema order."""
    return dump(validate(Comparison, dict(comparison)))
