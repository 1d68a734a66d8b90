"""``output/regress/<Trait>/significant_genes_condition_<C>.json``: the result document (SPEC 2).

* :class:`ResultDocument` is what ``regress.py`` (the statistics engine) and the
  notebooks' ``save_result`` write: the ranked genes, the cross-validation
  performance and, from the engine, the ``analysis`` block of docs/statistics.md.
  :func:`result_document` rounds a document's floats (:mod:`utils.precision`),
  validates it and returns it with its keys in schema order; :func:`write_result`
  writes it atomically.
* :class:`ResultReading` is what the evaluator and other readers need from any
  result (a prediction): ``significant_genes.Variable`` a list of strings and, when
  present, the coefficient and p-value lists of the same length holding finite
  numbers; unknown keys are ignored. :func:`parse_result` validates one.
  :func:`stored_provenance` reads the engine and fingerprint of a stored result.
"""

from __future__ import annotations

from typing import Annotated, Any, Dict, List, Literal, Mapping, Optional

from pydantic import Field, ValidationInfo, field_validator, model_validator

from utils.io import PathLike, atomic_write_json
from utils.precision import round_floats
from utils.schemas.base import (FormatError, ReadingModel, StrictModel, dump, optional_key,
                                validate)

Probability = Annotated[float, Field(ge=0.0, le=1.0)]
NonNegative = Annotated[float, Field(ge=0.0)]
Count = Annotated[int, Field(ge=0)]
_ALIGNED = ("coefficient", "absolute_coefficient", "p_value", "corrected_p_value")


def _aligned(values: Optional[List[Any]], info: ValidationInfo) -> Optional[List[Any]]:
    """Refuse a per-gene list whose length differs from ``Variable``'s."""
    genes = info.data.get("variable")
    if values is not None and genes is not None and len(values) != len(genes):
        raise ValueError(f"has {len(values)} values for {len(genes)} genes")
    return values


class SignificantGenes(StrictModel):
    """Genes associated with the trait, most important first: by decreasing absolute
    coefficient, or (LMM) by increasing corrected p-value. Every list is aligned with
    ``Variable``."""

    variable: List[str] = Field(alias="Variable")
    """Gene symbols."""
    coefficient: List[float] = Field(alias="Coefficient")
    """Coefficient of each gene (standardized genes)."""
    absolute_coefficient: List[NonNegative] = Field(alias="Absolute Coefficient")
    """Absolute value of each coefficient."""
    p_value: List[Probability] = optional_key("LMM only: p-value of each gene.")
    corrected_p_value: List[Probability] = optional_key(
        "LMM only: Benjamini-Hochberg corrected p-value of each gene.")

    _check_aligned = field_validator(*_ALIGNED)(_aligned)

    @model_validator(mode="after")
    def _p_values_in_pairs(self) -> "SignificantGenes":
        if (self.p_value is None) != (self.corrected_p_value is None):
            raise ValueError("must hold both 'p_value' and 'corrected_p_value', or neither")
        return self


class CVPerformance(StrictModel):
    """Cross-validated performance of the chosen model (5 folds)."""

    prediction: Dict[str, float]
    """Trait prediction (what predicts: ``analysis.cv_prediction``): accuracy, precision,
    recall, f1 (percent) of a binary trait from the confusion counts pooled over the
    folds; normalized_mse, r2 of a continuous one, means over the folds."""
    selection: Dict[str, float]
    """Known-gene recovery: precision, recall, f1, jaccard (percent, means over the
    folds) of each fold's selected genes against the trait's related genes present in
    the data. For a tuned model (the Lasso) this is the penalty that maximized the mean
    precision against those same genes: the best of the grid's noisy means, an
    optimistic figure, not an independent estimate."""


class Tuning(StrictModel):
    """Lasso penalty search."""

    penalties: List[float]
    """The penalty grid."""
    mean_selection_precision: List[float]
    """Mean selection precision of each penalty over the folds."""
    known_gene_hit: List[bool]
    """Whether any fold selected a known gene with each penalty."""
    reference_genes: List[str]
    """The genes the penalty was tuned on: the trait's known genes (task_info
    ``related_genes``) present in the data. The gene list is chosen to agree with
    them; it carries no error control."""


class Covariates(StrictModel):
    """Fit of the covariates ``[1, Z]``."""

    intercept: float
    coefficients: List[float]
    names: List[str]
    """The covariate of each coefficient (Age, Gender, or the condition trait)."""


class ConditionModel(StrictModel):
    """Step 1 of a two-step problem: the condition predicted from the regressor genes."""

    kind: str
    """``logistic-l2``, ``logistic-l1``, ``least-squares`` or ``lasso``."""
    intercept: float
    coefficients: List[float]
    """One per regressor (standardized scale); a continuous condition is modelled on
    its own z-scale (``condition_mean``, ``condition_sd``)."""
    condition_mean: float = optional_key(
        "Continuous condition only: its mean in the condition cohort.")
    condition_sd: float = optional_key(
        "Continuous condition only: its standard deviation in the condition cohort "
        "(predictions are mapped back to the condition's units).")


class Analysis(StrictModel):
    """How the result was obtained (written by the statistics engine, docs/statistics.md)."""

    engine: str = Field(pattern=r"^genotex-regress/")
    """``genotex-regress/<version>``; the version changes when results would."""
    model: str
    """``Lasso`` or ``LMM``."""
    penalty: Optional[float]
    """The chosen Lasso penalty; null for the LMM."""
    cv_prediction: str
    """What the cross-validated prediction metrics measure (the Lasso at the chosen
    penalty; for the LMM a least-squares refit of each fold's selected genes)."""
    tuning: Tuning = optional_key("Lasso only: the penalty search.")
    delta: float = optional_key(
        "LMM only: REML variance ratio (residual / kinship variance) of the final fit.")
    delta_location: Literal["interior", "lower bound", "upper bound"] = optional_key(
        "LMM only: whether delta is an interior REML maximum or an end of the search "
        "range ln(delta) in [-10, 10].")
    n_pcs: Count = optional_key(
        "LMM only: top principal components of the samples entered as fixed effects.")
    fdr_threshold: float = optional_key("LMM only: the FDR level.")
    batch_effect: bool
    """The batch-effect decision of docs/statistics.md (true selects the LMM)."""
    trait_type: Literal["binary", "continuous"]
    cohorts: List[str] = Field(min_length=1, max_length=2)
    """``[cohort]``, or ``[trait cohort, condition cohort]`` for a two-step problem."""
    n_samples: Count
    n_genes: Count
    n_known_genes_in_data: Count
    covariates: Covariates
    regressors: List[str] = optional_key("Two-step only: the regressor genes of step 1.")
    condition_model: ConditionModel = optional_key("Two-step only: the step-1 model.")
    fingerprint: str
    """SHA-256 of every input of the result (up-to-date check of ``regress.py``)."""


class ResultDocument(StrictModel):
    """Result of one gene-trait association problem (docs/formats.md, "result")."""

    significant_genes: SignificantGenes
    cv_performance: CVPerformance
    analysis: Analysis = optional_key("How the result was obtained (regress.py only).")


class GeneListReading(ReadingModel):
    """``significant_genes`` of any result: only ``Variable`` is required."""

    variable: List[str] = Field(alias="Variable")
    coefficient: List[float] = optional_key(alias="Coefficient")
    absolute_coefficient: List[float] = optional_key(alias="Absolute Coefficient")
    p_value: List[float] = optional_key()
    corrected_p_value: List[float] = optional_key()

    _check_aligned = field_validator(*_ALIGNED)(_aligned)


class ResultReading(ReadingModel):
    """The parts of a result document that readers use."""

    significant_genes: GeneListReading
    cv_performance: Any = None
    """Any JSON value; readers look for a ``prediction`` object inside."""


class EngineStamp(ReadingModel):
    """Which engine wrote a stored result, and from which inputs."""

    engine: str
    fingerprint: str


class _StampedResult(ReadingModel):
    analysis: EngineStamp


def result_document(document: Mapping[str, Any]) -> Dict[str, Any]:
    """A result document with floats rounded (:func:`utils.precision.round_floats`),
    validated against :class:`ResultDocument`, keys in schema order.

    Raises
    ------
    FormatError
        When the document does not follow the format.
    ValueError
        On a NaN or infinite number.
    """
    return dump(validate(ResultDocument, round_floats(dict(document))))


def write_result(path: PathLike, document: Mapping[str, Any]) -> None:
    """Write :func:`result_document` of ``document`` to ``path`` atomically (4-space JSON)."""
    atomic_write_json(path, result_document(document))


def parse_result(data: Any) -> ResultReading:
    """Validate a result read from any tree; raises :class:`FormatError` naming the key."""
    return validate(ResultReading, data)


def stored_provenance(data: Any) -> Optional[EngineStamp]:
    """``analysis.engine`` and ``analysis.fingerprint`` of a stored result, or None."""
    try:
        return validate(_StampedResult, data).analysis
    except FormatError:
        return None
