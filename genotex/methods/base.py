"""What every automated method and the runner share: tasks, outcomes, usage, context.

A run turns the raw inputs (``input/`` + ``metadata/``) into a prediction tree
laid out like ``output/`` (SPEC 2). Its work comes in two kinds of *task*:

* a **cohort** task preprocesses one input cohort of a trait (a GEO series or
  the trait's TCGA cohort) into ``preprocess/<Trait>/`` (gene, clinical and
  linked tables and the cohort's ``cohort_info.json`` record);
* a **problem** task answers one gene-trait problem into
  ``regress/<Trait>/significant_genes_condition_<C>.json``.

A method implements :class:`Method`; data-free methods only answer problems.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Dict, Mapping, Optional

from genotex.methods.errors import RunAborted  # noqa: F401 (re-exported)
from utils.paths import ProjectPaths
from utils.problems import Problem

logger = logging.getLogger(__name__)

COHORT = "cohort"
PROBLEM = "problem"
DONE = "done"
FAILED = "failed"
SKIPPED = "skipped"


@dataclass(frozen=True)
class CohortTask:
    """One input cohort of one trait.

    Attributes
    ----------
    trait : str
        Trait folder name.
    cohort : str
        GSE accession, or ``Xena`` for the trait's TCGA cohort.
    source : {"GEO", "TCGA"}
    input_dir : Path
        The cohort's input folder.
    """

    trait: str
    cohort: str
    source: str
    input_dir: Path

    @property
    def key(self) -> str:
        """``<Trait>/<cohort>``: the task's name in logs, state and reports."""
        return f"{self.trait}/{self.cohort}"


@dataclass
class Usage:
    """Model use of a task: answered calls, tokens and their cost in US dollars.

    ``cost`` is NaN when a model's price is unknown (see :mod:`.resources`);
    ``failed_calls`` counts requests that got no answer (after their retries).
    """

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    failed_calls: int = 0

    def add(self, other: "Usage") -> None:
        """Add ``other`` to this usage (in place)."""
        self.calls += other.calls
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cost += other.cost
        self.failed_calls += other.failed_calls

    def as_dict(self) -> Dict[str, Any]:
        """Plain values for JSON (NaN cost as None)."""
        return {"calls": self.calls, "failed_calls": self.failed_calls,
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost": None if math.isnan(self.cost) else round(self.cost, 6)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Usage":
        """Inverse of :meth:`as_dict`."""
        cost = data.get("cost")
        return cls(int(data.get("calls", 0)), int(data.get("input_tokens", 0)),
                   int(data.get("output_tokens", 0)),
                   math.nan if cost is None else float(cost),
                   int(data.get("failed_calls", 0)))


@dataclass
class TaskOutcome:
    """How one task ended.

    Attributes
    ----------
    kind : {"cohort", "problem"}
    key : str
        ``<Trait>/<cohort>`` or ``<Trait>|<Condition>``.
    status : {"done", "failed", "skipped"}
        ``done``: the method finished the task (a cohort judged not usable is
        done); ``failed``: it stopped with an error (``reason``); ``skipped``:
        there was nothing to do (e.g. no usable cohort for a problem).
    reason : str
    seconds : float
    usage : Usage
    abort : str
        Set when the run must stop after this task (:class:`RunAborted`): the reason.
        Not stored in the run state.
    """

    kind: str
    key: str
    status: str
    reason: str = ""
    seconds: float = 0.0
    usage: Usage = field(default_factory=Usage)
    abort: str = ""

    @property
    def succeeded(self) -> bool:
        """Whether the task's code ran to the end (the paper's "success")."""
        return self.status == DONE

    def as_dict(self) -> Dict[str, Any]:
        """Plain values for the run state and the report."""
        return {"kind": self.kind, "key": self.key, "status": self.status,
                "reason": self.reason, "seconds": round(self.seconds, 3),
                **self.usage.as_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "TaskOutcome":
        """Inverse of :meth:`as_dict`."""
        return cls(str(data["kind"]), str(data["key"]), str(data["status"]),
                   str(data.get("reason", "")), float(data.get("seconds", 0.0)),
                   Usage.from_dict(data))


def failed_outcome(kind: str, key: str, exc: BaseException, seconds: float = 0.0,
                   usage: Optional[Usage] = None) -> TaskOutcome:
    """The outcome of a task ended by ``exc`` (``abort`` set for :class:`RunAborted`)."""
    outcome = TaskOutcome(kind, key, FAILED, f"{type(exc).__name__}: {exc}", seconds,
                          usage if usage is not None else Usage())
    if isinstance(exc, RunAborted):
        outcome.abort = str(exc)
    return outcome


def run_isolated(kind: str, key: str, action: Callable[[], TaskOutcome]) -> TaskOutcome:
    """Run one task; an exception becomes a failed outcome with its reason (and timing)."""
    start = time.monotonic()
    try:
        outcome = action()
    except Exception as exc:  # noqa: BLE001 - isolate every failure
        logger.debug("%s %s failed", kind, key, exc_info=True)
        outcome = failed_outcome(kind, key, exc)
    if not outcome.seconds:
        outcome.seconds = time.monotonic() - start
    return outcome


@dataclass
class RunContext:
    """What a method may use while it runs.

    Attributes
    ----------
    paths : ProjectPaths
        Inputs, metadata and task info (read only).
    run_dir : Path
        The run folder (log, report, state, scratch).
    tree : Path
        The prediction tree (``preprocess/``, ``regress/``, ``code/``) below ``run_dir``.
    task_info : dict
        The loaded task info.
    log : RunLog
        JSON-lines run log (:class:`genotex.methods.runlog.RunLog`).
    time_limit : float
        Seconds per task (0: none); methods check it between their steps.
    progress : bool
        Whether progress bars may be shown.
    jobs : int
        Tasks that may run at the same time in this process (a method may prepare that
        many kernels); 0 when the tasks run in other processes.
    cache : ExchangeCache, optional
        The run's kept exchanges (:mod:`genotex.methods.llm.cache`); replaying, the
        source of every answer.
    max_tokens_per_task : int
        Tokens a task may use (0: no limit).
    budget : Budget, optional
        The run's spending (:mod:`genotex.methods.budget`).
    """

    paths: ProjectPaths
    run_dir: Path
    tree: Path
    task_info: Mapping[str, Any]
    log: Any
    time_limit: float = 0.0
    progress: bool = False
    jobs: int = 1
    cache: Any = None
    max_tokens_per_task: int = 0
    budget: Any = None

    @property
    def preprocess_root(self) -> Path:
        """``<tree>/preprocess``."""
        return self.tree / "preprocess"

    @property
    def regress_root(self) -> Path:
        """``<tree>/regress``."""
        return self.tree / "regress"

    @property
    def code_root(self) -> Path:
        """``<tree>/code``: notebooks of the executed steps."""
        return self.tree / "code"

    @property
    def replaying(self) -> bool:
        """Whether answers come from another run's exchanges (no network at all)."""
        return self.cache is not None and self.cache.replay_from is not None

    @property
    def scratch(self) -> Path:
        """A private folder of the run (kernel files, temporary files)."""
        return self.run_dir / "scratch"

    def deadline(self, start: Optional[float] = None) -> Optional[float]:
        """``time.monotonic()`` value at which a task started at ``start`` must stop."""
        if self.time_limit <= 0:
            return None
        return (time.monotonic() if start is None else start) + self.time_limit


@dataclass(frozen=True)
class MethodConfig:
    """Settings a method is built from (each method reads what it needs).

    Attributes
    ----------
    paths : ProjectPaths
    seed : int
        Seed of every random choice (the ``random`` baseline).
    n_genes : int
        Genes listed per problem by the data-free baselines.
    chat : ChatClient, optional
        The model endpoint (:class:`genotex.methods.llm.client.ChatClient`).
    prices : mapping
        Price table (:func:`genotex.methods.resources.load_price_table`).
    agent : object, optional
        GenoAgent settings (:class:`genotex.methods.genoagent.settings.AgentSettings`).
    """

    paths: ProjectPaths
    seed: int = 42
    n_genes: int = 50
    chat: Any = None
    prices: Mapping[str, Any] = field(default_factory=dict)
    agent: Any = None

    def require_chat(self, method: str) -> Any:
        """The endpoint, or a ValueError naming the flags ``method`` needs."""
        if self.chat is None:
            raise ValueError(f"{method} needs a model endpoint (--base-url, --model)")
        return self.chat


class Method:
    """Base class of the automated methods (see :mod:`genotex.methods` for the registry).

    Subclasses set :attr:`name` and override what they do: data-free methods
    leave :attr:`preprocesses` False and answer problems only. Tasks may run at
    the same time (``-j``): in threads of one process -- :meth:`preprocess_cohort`
    and :meth:`answer_problem` must then be thread-safe --, or, for
    :attr:`cpu_bound` methods and on a cluster, in other processes, where the
    method is built again from its :attr:`config`.
    """

    name: ClassVar[str] = ""
    #: Whether the method preprocesses cohorts (cohort tasks run before problems).
    preprocesses: ClassVar[bool] = False
    #: Whether the method needs a model endpoint.
    needs_llm: ClassVar[bool] = False
    #: Whether its tasks keep a core busy (run in worker processes with ``-j``, not threads).
    cpu_bound: ClassVar[bool] = False
    #: The settings the method was built from (:func:`genotex.methods.build_method`); a
    #: method built otherwise cannot run in other processes.
    config: Optional["MethodConfig"] = None

    @classmethod
    def from_config(cls, config: MethodConfig) -> "Method":
        """Build the method from the run's settings."""
        raise NotImplementedError

    def preprocess_cohort(self, task: CohortTask, ctx: RunContext) -> TaskOutcome:
        """Preprocess one cohort into ``ctx.preprocess_root``."""
        raise NotImplementedError(f"{self.name} does not preprocess cohorts")

    def answer_problem(self, problem: Problem, ctx: RunContext) -> TaskOutcome:
        """Answer one problem into ``ctx.regress_root`` (its cohorts are finished)."""
        raise NotImplementedError(f"{self.name} does not answer problems")

    def prepare(self, ctx: "RunContext") -> None:
        """Check what the run needs before any task starts (the LLM methods probe their
        endpoint); raise :class:`RunAborted` to stop the run at once."""

    def close(self) -> None:
        """Release resources (kernels, connections); called once at the end of a run."""
