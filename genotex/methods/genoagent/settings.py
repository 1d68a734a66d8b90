"""GenoAgent's switches: the ablations of the paper's Table 2 and the runtime limits."""

from __future__ import annotations

from dataclasses import field
from typing import Annotated, Dict, Optional

from pydantic import ConfigDict, Field, field_validator
from pydantic.dataclasses import dataclass

GIB = 1 << 30

PROJECT_MANAGER = "Project Manager"
DATA_ENGINEER = "Data Engineer"
STATISTICIAN = "Statistician"
CODE_REVIEWER = "Code Reviewer"
DOMAIN_EXPERT = "Domain Expert"
#: Roles that call a model (the Project Manager coordinates without one).
ROLES = (DATA_ENGINEER, STATISTICIAN, CODE_REVIEWER, DOMAIN_EXPERT)


@dataclass(frozen=True, config=ConfigDict(extra="forbid", allow_inf_nan=False))
class AgentSettings:
    """How GenoAgent works.

    A frozen pydantic dataclass: every field is checked when the settings are
    built (counts non-negative, limits positive, ``role_models`` keyed by
    :data:`ROLES`); a bad value raises ``pydantic.ValidationError`` naming the field.

    Attributes
    ----------
    planning : bool
        The programming agent chooses each next action (next step, skip a
        step, go back to an earlier one); False runs every step once in the
        fixed order (the "no planning" ablation).
    reviewer : bool
        The Code Reviewer checks each executed step ("no reviewer" ablation).
    domain_expert : bool
        The Domain Expert writes the inference-heavy steps (which rows hold the
        trait, how values encode cases and controls); False leaves them to the
        programming agent ("no domain expert" ablation).
    domain_hints : bool
        The clinical step's instruction carries the rule-based proposal of
        :mod:`tools.preprocess.clinical_rules` (rows, confidences, evidence,
        value conversions) for the writer to check; False leaves it out (the
        paper's ablations ran without it).
    review_rounds : int
        Reviews per step at most (the paper's 0 / 1 / 2 rounds); 0 is the same
        as no reviewer.
    debug_attempts : int
        Without a review, how often a failed step is rewritten from its error.
    format_retries : int
        How often a reply without a code block is asked for again.
    max_actions : int
        Actions per task at most (a guard against planning loops).
    step_timeout : float
        Seconds one executed step may take.
    memory_bytes : int
        Address-space limit of the kernel.
    role_models : mapping
        ``{role: model}`` overriding the default model for a role.
    reuse_kernels : bool
        Reuse a task's kernel for a later task after a clean reset
        (:mod:`genotex.methods.sandbox.pool`); False starts a new one per task.
    """

    planning: bool = True
    reviewer: bool = True
    domain_expert: bool = True
    domain_hints: bool = True
    review_rounds: Annotated[int, Field(ge=0)] = 2
    debug_attempts: Annotated[int, Field(ge=0)] = 2
    format_retries: Annotated[int, Field(ge=0)] = 2
    max_actions: Annotated[int, Field(ge=1)] = 24
    step_timeout: Annotated[float, Field(gt=0)] = 600.0
    memory_bytes: Annotated[int, Field(gt=0)] = 8 * GIB
    role_models: Dict[str, str] = field(default_factory=dict)
    reuse_kernels: bool = True

    @field_validator("role_models")
    @classmethod
    def _known_roles(cls, role_models: Dict[str, str]) -> Dict[str, str]:
        unknown = sorted(set(role_models) - set(ROLES))
        if unknown:
            raise ValueError(f"unknown role(s) {unknown}; roles that call a model: "
                             f"{', '.join(ROLES)}")
        return role_models

    @property
    def reviews(self) -> int:
        """Review rounds actually used (0 when the reviewer is off)."""
        return self.review_rounds if self.reviewer else 0

    def model_for(self, role: str) -> Optional[str]:
        """The model of ``role`` (None: the endpoint's default)."""
        return self.role_models.get(role)
