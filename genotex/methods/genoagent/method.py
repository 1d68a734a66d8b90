"""GenoAgent (the paper's multi-agent method): the Project Manager and the task set-up.

The **Project Manager** coordinates without a model call: it assigns every
cohort to the Data Engineer's GEO or TCGA action units, then every problem to
the Statistician -- after checking, with the benchmark's own selection rule,
that the preprocessed tree has a usable cohort (or pair) for it; a problem
without one is skipped with the reason, at no cost. Each task gets a warm
sandboxed kernel (:mod:`genotex.methods.sandbox`) from the run's kernel pool
(started ahead, one per concurrent task, reused after a clean reset:
:mod:`genotex.methods.sandbox.pool`), a setup cell with the task's variables,
and the step loop (:mod:`.loop`). Tasks may run in threads at the same time. The executed steps are saved as
``<tree>/code/<Trait>/<cohort>.ipynb`` (problems:
``<tree>/code/<Trait>/significant_genes_condition_<C>.ipynb``), also when the
task failed (the steps run so far).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Mapping, Optional

from genotex.methods.base import (COHORT, DONE, FAILED, PROBLEM, SKIPPED, CohortTask, Method,
                                  MethodConfig, RunContext, TaskOutcome, failed_outcome)
from genotex.methods.genoagent.hints import clinical_hints
from genotex.methods.genoagent.loop import ExecutedStep, StepError, StepLoop, TaskSpec
from genotex.methods.genoagent.notebook import save_task_notebook
from genotex.methods.genoagent.prompts import (library_reference, system_prompt,
                                               with_domain_hints)
from genotex.methods.genoagent.settings import (CODE_REVIEWER, DATA_ENGINEER, DOMAIN_EXPERT,
                                                PROJECT_MANAGER, STATISTICIAN, AgentSettings)
from genotex.methods.genoagent.steps import (setup_code, task_description, units_for,
                                             warmup_code)
from genotex.methods.llm.client import ChatClient
from genotex.methods.llm.exchange import Exchange
from genotex.methods.resources import Price
from genotex.methods.sandbox.kernel import ExecutionResult, SandboxKernel, SandboxSettings
from genotex.methods.sandbox.pool import KernelPool, warm_kernel
from utils.paths import ProjectPaths
from utils.problems import Problem, result_path
from utils.selection import select_in_tree

logger = logging.getLogger(__name__)

#: The GEO step whose instruction carries the rules' clinical proposal.
CLINICAL_UNIT = "dataset_analysis"
#: Seconds the setup cell (library imports) may take, whatever the step timeout.
SETUP_TIMEOUT = 300.0
#: Environment variables the kernel gets so the library finds this run's inputs.
_PATH_VARIABLES = {"GENOTEX_ROOT": "root", "GENOTEX_INPUT": "input",
                   "GENOTEX_METADATA": "metadata", "GENOTEX_GENE_SYNONYMS": "gene_synonyms",
                   "GENOTEX_TASK_INFO": "task_info"}


@functools.lru_cache(maxsize=4)
def _references(kind: str) -> str:
    if kind == "problem":
        from tools.statistics import __all__ as names
        return library_reference("tools.statistics", names)
    from tools.preprocess import __all__ as names
    return library_reference("tools.preprocess", names)


def system_prompts(kind: str) -> Dict[str, str]:
    """``{role: system prompt}`` for a task kind (``GEO``, ``TCGA`` or ``problem``)."""
    reference = _references(kind)
    programmer = STATISTICIAN if kind == "problem" else DATA_ENGINEER
    return {role: system_prompt(role, reference)
            for role in (programmer, DOMAIN_EXPERT, CODE_REVIEWER)}


@dataclass
class _Lease:
    """A task's kernel, and whether the task ended normally (the kernel may be reused)."""

    kernel: SandboxKernel
    ok: bool = False


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


class GenoAgent(Method):
    """The multi-agent LLM method (module docstring; switches in :class:`AgentSettings`)."""

    name = "genoagent"
    preprocesses = True
    needs_llm = True

    def __init__(self, chat: ChatClient, settings: AgentSettings, paths: ProjectPaths,
                 prices: Mapping[str, Price]) -> None:
        self.chat = chat
        self.settings = settings
        self.paths = paths
        self.prices = prices
        self._pool: Optional[KernelPool] = None

    @classmethod
    def from_config(cls, config: MethodConfig) -> "GenoAgent":
        """Endpoint, switches, paths and prices of the run."""
        return cls(config.require_chat(cls.name), config.agent or AgentSettings(),
                   config.paths, config.prices)

    def prepare(self, ctx: RunContext) -> None:
        """Probe the endpoint before any kernel starts (a dead one stops the run), then
        start the kernel pool (``ctx.jobs`` kernels, warmed up in the background; none
        when the tasks run in other processes)."""
        ctx.log.write("probe", endpoint="not contacted (replaying a run)" if ctx.replaying
                      else self.chat.probe())
        if ctx.jobs < 1:
            return
        self._pool = KernelPool(lambda number: self._sandbox(ctx, f"kernels/k{number}"),
                                ctx.jobs, warmup_code(), reuse=self.settings.reuse_kernels,
                                log=ctx.log).start()

    def close(self) -> None:
        """Shut the kernel pool down."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def _sandbox(self, ctx: RunContext, key: str) -> SandboxSettings:
        environment = {name: str(getattr(self.paths, attribute))
                       for name, attribute in _PATH_VARIABLES.items()}
        return SandboxSettings(writable_root=ctx.tree, scratch=ctx.scratch / _slug(key),
                               memory_bytes=self.settings.memory_bytes,
                               step_timeout=self.settings.step_timeout,
                               environment=environment, hidden_values=tuple(self.chat.secrets),
                               lock_dir=ctx.scratch / "locks")

    @contextlib.contextmanager
    def _kernel(self, ctx: RunContext, key: str) -> Iterator["_Lease"]:
        """A warm kernel for one task: from the pool (given back after), or a new one (a
        task run without a pool, e.g. on a cluster worker). Set the lease's ``ok`` when
        the task ended normally: only then may the kernel be reused."""
        if self._pool is None:
            kernel = warm_kernel(self._sandbox(ctx, key), warmup_code())
            try:
                yield _Lease(kernel)
            finally:
                kernel.shutdown()
            return
        lease = _Lease(self._pool.acquire())
        try:
            yield lease
        finally:
            self._pool.release(lease.kernel, reusable=lease.ok)

    def _run_task(self, kind: str, spec: TaskSpec, notebook: Path, ctx: RunContext
                  ) -> TaskOutcome:
        """Run one task in a fresh kernel; whatever ends it, its notebook and accounting stay."""
        start = time.monotonic()
        loop: Optional[StepLoop] = None
        setup: Optional[ExecutionResult] = None
        steps: List[ExecutedStep] = []
        outcome = TaskOutcome(kind, spec.key, DONE)
        try:
            with self._kernel(ctx, spec.key) as lease:
                kernel = lease.kernel
                setup = kernel.execute(spec.setup_code,
                                       timeout=max(self.settings.step_timeout, SETUP_TIMEOUT))
                ctx.log.write("execute", task=spec.key, step="setup", role=PROJECT_MANAGER,
                              code=spec.setup_code, status=setup.status, output=setup.text,
                              error=setup.error)
                if not setup.ok:
                    outcome.status = FAILED
                    outcome.reason = f"setup cell failed: {setup.error.splitlines()[0]}"
                else:
                    deadline = ctx.deadline(start)
                    loop = StepLoop(spec, self.chat, kernel, self.settings, ctx.log,
                                    self.prices, deadline=deadline,
                                    exchange=Exchange.for_task(ctx, self.chat, spec.key,
                                                               self.prices, deadline))
                    steps = loop.run()
                    lease.ok = True
        except StepError as exc:
            outcome.status, outcome.reason = FAILED, str(exc)
        except Exception as exc:  # noqa: BLE001 - model, kernel or run failures end the task
            logger.debug("task %s failed", spec.key, exc_info=True)
            outcome = failed_outcome(kind, spec.key, exc)
        if loop is not None:
            outcome.usage = loop.usage
            steps = steps or loop.history
        outcome.seconds = time.monotonic() - start
        if setup is not None:
            attempt = loop.attempt if loop is not None and outcome.status == FAILED else None
            save_task_notebook(notebook, spec, setup, steps,
                               failure=outcome.reason if outcome.status == FAILED else "",
                               attempt=attempt)
        return outcome

    def preprocess_cohort(self, task: CohortTask, ctx: RunContext) -> TaskOutcome:
        """The Data Engineer (and Domain Expert) preprocess one cohort."""
        units = units_for(task.source)
        if self.settings.domain_hints and task.source == "GEO":
            hints = clinical_hints(task.input_dir, task.trait)
            if hints:
                units = tuple(with_domain_hints(u, hints) if u.name == CLINICAL_UNIT else u
                              for u in units)
                ctx.log.write("hints", role=DOMAIN_EXPERT, task=task.key, step=CLINICAL_UNIT,
                              text=hints)
        ctx.log.write("assign", role=PROJECT_MANAGER, task=task.key, to=DATA_ENGINEER,
                      units=[u.name for u in units])
        code = setup_code(task=task)
        spec = TaskSpec(task.key, task_description(task=task), code, DATA_ENGINEER, units,
                        system_prompts(task.source))
        return self._run_task(COHORT, spec, ctx.code_root / task.trait / f"{task.cohort}.ipynb",
                              ctx)

    def answer_problem(self, problem: Problem, ctx: RunContext) -> TaskOutcome:
        """The Statistician answers one problem, if the tree can answer it."""
        selection = select_in_tree(problem, ctx.preprocess_root, ctx.task_info)
        if not selection.ok:
            ctx.log.write("assign", role=PROJECT_MANAGER, task=str(problem), to=None,
                          reason=selection.reason)
            return TaskOutcome(PROBLEM, str(problem), SKIPPED,
                               f"no usable cohort: {selection.reason}")
        units = units_for("problem")
        ctx.log.write("assign", role=PROJECT_MANAGER, task=str(problem), to=STATISTICIAN,
                      units=[u.name for u in units], cohorts=list(selection.cohorts))
        code = setup_code(problem=problem)
        spec = TaskSpec(str(problem), task_description(problem=problem), code, STATISTICIAN,
                        units, system_prompts("problem"))
        path = result_path(ctx.regress_root, problem)
        notebook = ctx.code_root / problem.trait / path.with_suffix(".ipynb").name
        outcome = self._run_task(PROBLEM, spec, notebook, ctx)
        if outcome.status == DONE and not path.is_file():
            outcome.status, outcome.reason = FAILED, f"the analysis saved no result ({path.name})"
        return outcome
