"""Running an automated method from raw inputs to a prediction tree.

A run folder holds::

    <run>/prediction/      the prediction tree: preprocess/, regress/, code/ (eval.py -p)
    <run>/run_log.jsonl    every model exchange and executed step (runlog.py)
    <run>/exchanges/       every exchange with the model, for replaying (llm/cache.py)
    <run>/resources.csv    per problem: success, wall time, tokens, cost (resources.py)
    <run>/tasks.csv        per task (cohorts and problems)
    <run>/resources.json   the same with totals and means (and the budget, the replay)
    <run>/state.json       finished tasks, for resuming
    <run>/scratch/         private working files (kernel files, temporary files)

Behaviour:

* tasks: one per input cohort (methods that preprocess) and one per problem; a
  problem starts once the cohort tasks of the traits it reads have ended
  (:mod:`.scheduler`);
* ``jobs`` tasks at a time: in threads, or in worker processes for CPU-bound
  methods, or on a Dask cluster (``scheduler``) -- :mod:`.workers`; the outputs
  do not depend on which;
* resumable: a task finished in an earlier run of the same method is skipped
  (``force`` starts the run folder afresh); failed and skipped tasks are tried again;
* failures are isolated: an exception ends its task only, with the reason --
  except :class:`~genotex.methods.errors.RunAborted` (an endpoint that cannot be
  used, a replay that departs from its original): the task is recorded, no new
  task starts, the running ones end, the report is written (``RunSummary.aborted``);
* a budget (``max_cost``): no new task starts once the run has spent that much
  (:mod:`.budget`); the summary and ``resources.json`` say so;
* replay (``replay``): answers come from another run folder's exchanges, never
  from the network;
* before any task, :meth:`Method.prepare` (the LLM methods probe their endpoint);
* one progress bar (tqdm, terminal only), one ``task`` line per task in the log;
  reports list tasks in run order, whatever order they ended in.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from genotex.methods.base import (DONE, FAILED, Method, RunAborted, RunContext, TaskOutcome,
                                  failed_outcome)
from genotex.methods.budget import Budget, BudgetState
from genotex.methods.inputs import cohort_tasks, traits_of
from genotex.methods.llm.cache import ExchangeCache, replay_source
from genotex.methods.resources import write_report
from genotex.methods.runlog import RunLog
from genotex.methods.scheduler import Task, TaskGraph, build_tasks
from genotex.methods.workers import (Backend, Cluster, Inline, Processes, RemoteRun, TaskResult,
                                     Threads)
from utils.errors import InputFileError
from utils.io import atomic_write_json, make_folder, read_json
from utils.logs import progress as progress_bar
from utils.paths import ProjectPaths
from utils.problems import Problem, load_task_info

logger = logging.getLogger(__name__)

TREE_NAME = "prediction"
STATE_NAME = "state.json"
LOG_NAME = "run_log.jsonl"
EXCHANGES_NAME = "exchanges"


@dataclass(frozen=True)
class RunOptions:
    """How to run.

    Attributes
    ----------
    run_dir : Path
        The run folder (created when missing).
    force : bool
        Start afresh: the run folder's tree, state, log and reports are removed first.
    time_limit : float
        Seconds per task (0: none).
    progress : bool
        Show progress bars (on a terminal).
    secrets : sequence of str
        Strings never written to the log (the API key).
    jobs : int
        Tasks at a time (local threads or processes).
    scheduler : str, optional
        Address of a Dask scheduler: the tasks run on its cluster (``jobs`` ignored).
    max_cost : float, optional
        US dollars: no task starts once the run has spent this much.
    max_tokens_per_task : int
        Tokens (input + output) a task may use; the call going over ends it (0: none).
    replay : Path, optional
        A run folder whose exchanges answer every request (no network, no cost).
    """

    run_dir: Path
    force: bool = False
    time_limit: float = 0.0
    progress: bool = True
    secrets: Sequence[str] = ()
    jobs: int = 1
    scheduler: Optional[str] = None
    max_cost: Optional[float] = None
    max_tokens_per_task: int = 0
    replay: Optional[Path] = None


@dataclass
class RunSummary:
    """What a run did, tasks in run order."""

    method: str
    run_dir: Path
    tree: Path
    outcomes: List[TaskOutcome] = field(default_factory=list)
    resumed: List[str] = field(default_factory=list)
    report: Dict[str, Any] = field(default_factory=dict)
    aborted: str = ""
    budget: Optional[BudgetState] = None
    backend: str = ""

    def failures(self) -> List[TaskOutcome]:
        """Tasks that failed."""
        return [o for o in self.outcomes if o.status == FAILED]


class RunState:
    """Finished tasks of a run folder (``state.json``), written after every task."""

    def __init__(self, path: Path, method: str) -> None:
        self.path = path
        self.method = method
        self.tasks: Dict[str, Dict[str, Any]] = {}
        if path.is_file():
            document = read_json(path)
            if document.get("method") != method:
                raise InputFileError(path, f"this run folder belongs to method "
                                           f"{document.get('method')!r}, not {method!r}: "
                                           "use another --run-dir (or --force to restart it)")
            self.tasks = dict(document.get("tasks", {}))

    @staticmethod
    def _key(kind: str, key: str) -> str:
        return f"{kind}:{key}"

    def finished(self, kind: str, key: str) -> Optional[TaskOutcome]:
        """The earlier outcome of a task that was done, else None.

        Failed and skipped tasks count as unfinished: a problem skipped for want of a
        usable cohort may be answerable once a failed cohort has been redone.
        """
        entry = self.tasks.get(self._key(kind, key))
        return TaskOutcome.from_dict(entry) if entry and entry["status"] == DONE else None

    def record(self, outcome: TaskOutcome) -> None:
        """Store an outcome and save the state."""
        self.tasks[self._key(outcome.kind, outcome.key)] = outcome.as_dict()
        atomic_write_json(self.path, {"method": self.method, "tasks": self.tasks})


def _fresh_run_folder(run_dir: Path) -> None:
    for name in (TREE_NAME, "scratch", EXCHANGES_NAME):
        if (run_dir / name).exists():
            shutil.rmtree(run_dir / name)
    for name in (STATE_NAME, LOG_NAME, "resources.csv", "tasks.csv", "resources.json"):
        (run_dir / name).unlink(missing_ok=True)


class _Recorder:
    """Collects outcomes: state, log line, budget, summary list."""

    def __init__(self, state: RunState, log: RunLog, summary: RunSummary,
                 budget: Budget) -> None:
        self.state, self.log, self.summary, self.budget = state, log, summary, budget

    def __call__(self, outcome: TaskOutcome) -> None:
        self.state.record(outcome)
        self.log.write("task", **outcome.as_dict())
        self.summary.outcomes.append(outcome)
        self.budget.settle(outcome)
        level = logging.WARNING if outcome.status == FAILED else logging.INFO
        logger.log(level, "%s %s: %s%s", outcome.kind, outcome.key, outcome.status,
                   f" ({outcome.reason})" if outcome.reason else "")
        if outcome.abort and not self.summary.aborted:
            self.summary.aborted = outcome.abort


def _result(future: "cf.Future[TaskResult]", task: Task) -> TaskResult:
    """A finished task's result; a crashed worker fails its task (with the reason)."""
    try:
        return future.result()
    except Exception as exc:  # noqa: BLE001 - a lost worker process fails its task only
        logger.debug("worker of %s failed", task.key, exc_info=True)
        return failed_outcome(task.kind, task.key, RuntimeError(
            f"worker error: {type(exc).__name__}: {exc}")), []


def _execute(graph: TaskGraph, backend: Backend, record: _Recorder, log: RunLog,
             budget: Budget, progress: bool) -> None:
    """Start ready tasks while slots are free, until none is left (or the run stops)."""
    running: Dict["cf.Future[TaskResult]", Task] = {}
    with progress_bar(total=len(graph.waiting), unit="task", desc="tasks",
                      enabled=progress) as bar:
        while True:
            stop = bool(record.summary.aborted) or budget.exhausted()
            while not stop and len(running) < backend.capacity:
                task = graph.next_ready()
                if task is None:
                    break
                running[backend.submit(task)] = task
            if not running:
                return
            done, _ = cf.wait(list(running), return_when=cf.FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: graph.rank(running[f].key)):
                task = running.pop(future)
                outcome, records = _result(future, task)
                log.add(records)
                record(outcome)
                graph.finish(task)
                bar.update(1)


def _backend(method: Method, options: RunOptions, ctx: RunContext, run_id: str,
             tasks: int) -> Backend:
    """Where the tasks run (see :mod:`.workers`)."""
    remote = None
    if method.config is not None:
        remote = RemoteRun(run_id, method.name, method.config, ctx.run_dir, ctx.tree,
                           ctx.time_limit, ctx.max_tokens_per_task, ctx.cache,
                           logging.getLogger().getEffectiveLevel())
    if options.scheduler:
        if remote is None:
            raise ValueError(f"{method.name} was not built from a MethodConfig "
                             "(genotex.methods.build_method): it cannot run on a cluster")
        cluster = Cluster(remote, options.scheduler)
        chat = getattr(method.config, "chat", None)
        if chat is not None:    # each worker process limits its own share of the rates
            chat.limiter.limits = chat.limiter.limits.share(cluster.workers)
        return cluster
    jobs = min(max(1, options.jobs), max(1, tasks))
    if jobs == 1:
        return Inline(method, ctx)
    if method.cpu_bound and remote is not None:
        return Processes(remote, jobs)
    return Threads(method, ctx, jobs)


def _report_order(outcomes: List[TaskOutcome], tasks: Sequence[Task]) -> List[TaskOutcome]:
    rank = {(task.kind, task.key): index for index, task in enumerate(tasks)}
    return sorted(outcomes, key=lambda o: rank.get((o.kind, o.key), len(rank)))


def run_method(method: Method, paths: ProjectPaths, problems: Sequence[Problem],
               options: RunOptions) -> RunSummary:
    """Run ``method`` on ``problems`` (and the cohorts they read); see the module docstring.

    Returns
    -------
    RunSummary
        Outcomes in run order (earlier finished tasks included) and the resource summary.

    Raises
    ------
    InputFileError
        A run folder of another method, or (OutputFileError) one that cannot be
        created; FileNotFoundError: a replay source without exchanges;
        SchedulerError: an unreachable Dask scheduler.
    """
    run_dir = make_folder(Path(options.run_dir).resolve())
    source = replay_source(Path(options.replay)) if options.replay is not None else None
    if options.force:
        _fresh_run_folder(run_dir)
    state = RunState(run_dir / STATE_NAME, method.name)
    tree = run_dir / TREE_NAME
    for folder in (tree / "preprocess", tree / "regress", run_dir / "scratch",
                   run_dir / EXCHANGES_NAME):
        make_folder(folder)
    log = RunLog(run_dir / LOG_NAME, options.secrets)
    run_id = uuid.uuid4().hex
    budget = Budget(options.max_cost, replay=source is not None)
    tasks = build_tasks(cohort_tasks(paths, traits_of(problems)) if method.preprocesses else [],
                        problems)
    summary = RunSummary(method.name, run_dir, tree)
    earlier = {}
    for task in tasks:
        outcome = state.finished(task.kind, task.key)
        if outcome is not None:
            earlier[task.key] = outcome
            summary.outcomes.append(outcome)
            summary.resumed.append(task.key)
            budget.settle(outcome)
    graph = TaskGraph(tasks, set(earlier))
    ctx = RunContext(paths=paths, run_dir=run_dir, tree=tree,
                     task_info=load_task_info(paths.task_info), log=log,
                     time_limit=options.time_limit, progress=options.progress,
                     jobs=min(max(1, options.jobs), max(1, len(graph.waiting))),
                     cache=ExchangeCache(run_dir, run_id, options.secrets, source),
                     max_tokens_per_task=options.max_tokens_per_task, budget=budget)
    record = _Recorder(state, log, summary, budget)
    log.write("run", method=method.name, problems=len(problems), tree=str(tree),
              session=run_id, replay=str(options.replay) if options.replay else None)
    backend: Optional[Backend] = None
    interrupted = True
    try:
        backend = _backend(method, options, ctx, run_id, len(graph.waiting))
        graph.exclusive_groups = backend.exclusive_groups
        summary.backend = backend.description
        # kernels and such are prepared only for the tasks that run in this process
        ctx.jobs = backend.capacity if isinstance(backend, (Inline, Threads)) else 0
        log.write("workers", backend=backend.description, capacity=backend.capacity)
        method.prepare(ctx)
        _execute(graph, backend, record, log, budget, options.progress)
        interrupted = False
    except RunAborted as exc:
        summary.aborted = str(exc)
        interrupted = False
    finally:
        if backend is not None:
            backend.close(wait=not interrupted)
        if summary.aborted:
            log.write("abort", reason=summary.aborted)
        method.close()
        summary.budget = budget.state(len(graph.waiting) if not summary.aborted else 0)
        if summary.budget.stopped:
            log.write("budget", **summary.budget.as_dict())
        log.write("end", done=sum(o.status == DONE for o in summary.outcomes),
                  failed=len(summary.failures()))
        log.close()
    summary.outcomes = _report_order(summary.outcomes, tasks)
    extra: Dict[str, Any] = {"budget": summary.budget.as_dict()}
    if options.replay is not None:
        extra["replayed_from"] = str(Path(options.replay).resolve())
    summary.report = write_report(run_dir, summary.outcomes, problems, method.name, extra)
    return summary
