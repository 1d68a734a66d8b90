"""Where a run's tasks execute: this thread, threads, worker processes or a Dask cluster.

Every backend is a :class:`Backend`: ``submit(task)`` returns a
:class:`concurrent.futures.Future` of a :data:`TaskResult` (the outcome, and the
run-log records of a task run elsewhere), and ``capacity`` says how many tasks
may run at once.

* :class:`Inline` (``-j 1``): the task runs when submitted, in the caller's thread.
* :class:`Threads` (``-j N``, methods waiting on the network): threads of this
  process share the method, its model client (and rate limiter) and its kernels.
* :class:`Processes` (``-j N``, :attr:`~genotex.methods.base.Method.cpu_bound`
  methods such as ``rules``): spawned worker processes (as ``regress.py``'s),
  each building the method once from its config (:func:`run_elsewhere`).
* :class:`Cluster` (``--scheduler``): the same function on a Dask cluster
  (:mod:`genotex.methods.cluster`).

Tasks run elsewhere get a :class:`~genotex.methods.runlog.MemoryLog` and no
:meth:`~genotex.methods.base.Method.prepare` (no endpoint probe, no kernel pool:
each GenoAgent task starts its own kernel there).
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from genotex.methods import build_method
from genotex.methods.base import (COHORT, Method, MethodConfig, RunContext, TaskOutcome,
                                  run_isolated)
from genotex.methods.scheduler import Task
from genotex.methods.runlog import MemoryLog
from utils.problems import load_task_info
from utils.runtime import spawn_pool, stop_pool

logger = logging.getLogger(__name__)

#: A task's outcome and the run-log records it wrote elsewhere (empty when run here).
TaskResult = Tuple[TaskOutcome, List[Tuple[Optional[str], Dict[str, Any]]]]
#: Methods built in a worker process, by run (a long-lived cluster worker serves many runs).
_BUILT_PER_PROCESS = 2


def run_task(method: Method, task: Task, ctx: RunContext) -> TaskOutcome:
    """Run one task of ``method``; any exception becomes a failed outcome."""
    if task.kind == COHORT:
        return run_isolated(task.kind, task.key, lambda: method.preprocess_cohort(task.item, ctx))
    return run_isolated(task.kind, task.key, lambda: method.answer_problem(task.item, ctx))


@dataclass(frozen=True)
class RemoteRun:
    """What a worker process needs to run a task of this run (picklable, no secret).

    Attributes
    ----------
    run_id : str
        Identifies the run (the worker builds the method once per run).
    method : str
        Registry name.
    config : MethodConfig
        The method's settings (its model client travels without the API key).
    run_dir, tree : Path
    time_limit : float
    max_tokens_per_task : int
    cache : ExchangeCache, optional
    log_level : int
    """

    run_id: str
    method: str
    config: MethodConfig
    run_dir: Path
    tree: Path
    time_limit: float = 0.0
    max_tokens_per_task: int = 0
    cache: Any = None
    log_level: int = logging.WARNING


class _Built:
    """This process's methods and task infos, by run id (a few, most recent kept)."""

    def __init__(self) -> None:
        self._items: "collections.OrderedDict[str, Tuple[Method, Dict[str, Any]]]" = \
            collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, run: RemoteRun) -> Tuple[Method, Dict[str, Any]]:
        with self._lock:
            if run.run_id not in self._items:
                self._items[run.run_id] = (build_method(run.method, run.config),
                                           load_task_info(run.config.paths.task_info))
                while len(self._items) > _BUILT_PER_PROCESS:
                    _, (old, _) = self._items.popitem(last=False)
                    old.close()
            return self._items[run.run_id]


_BUILT = _Built()


def run_elsewhere(run: RemoteRun, task: Task) -> TaskResult:
    """Run one task in this (worker) process; the outcome and the run-log records."""
    method, task_info = _BUILT.get(run)
    log = MemoryLog()
    cache = run.cache
    if cache is not None:
        chat = getattr(method, "chat", None)
        cache.secrets = list(getattr(chat, "secrets", []))
    ctx = RunContext(paths=run.config.paths, run_dir=run.run_dir, tree=run.tree,
                     task_info=task_info, log=log, time_limit=run.time_limit,
                     cache=cache, max_tokens_per_task=run.max_tokens_per_task)
    outcome = run_task(method, task, ctx)
    return outcome, log.records


def _init_process(log_level: int) -> None:
    # the same start-up as regress.py's worker processes
    from genotex.regress.runner import _init_worker

    _init_worker(log_level)


class Backend:
    """Runs tasks (see module docstring)."""

    #: Tasks that may run at the same time.
    capacity: int = 1
    #: Whether two cohort tasks of one trait must not run at once (no shared file locks).
    exclusive_groups: bool = False
    #: What the run log says about it.
    description: str = ""

    def submit(self, task: Task) -> "cf.Future[TaskResult]":
        raise NotImplementedError

    def close(self, wait: bool = True) -> None:
        """Stop the workers; ``wait`` False (an interrupted run): tasks not started are
        cancelled and running ones are not waited for."""


class Inline(Backend):
    """One task at a time, in the caller's thread."""

    def __init__(self, method: Method, ctx: RunContext) -> None:
        self.method, self.ctx = method, ctx
        self.description = "this process, one task at a time"

    def submit(self, task: Task) -> "cf.Future[TaskResult]":
        future: "cf.Future[TaskResult]" = cf.Future()
        future.set_result((run_task(self.method, task, self.ctx), []))
        return future


class Threads(Backend):
    """``jobs`` threads sharing the method (for tasks that wait on the network)."""

    def __init__(self, method: Method, ctx: RunContext, jobs: int) -> None:
        self.method, self.ctx, self.capacity = method, ctx, jobs
        self._pool = cf.ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="task")
        self.description = f"{jobs} threads"

    def submit(self, task: Task) -> "cf.Future[TaskResult]":
        return self._pool.submit(lambda: (run_task(self.method, task, self.ctx), []))

    def close(self, wait: bool = True) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=True)


class Processes(Backend):
    """``jobs`` spawned worker processes (for CPU-bound methods)."""

    def __init__(self, run: RemoteRun, jobs: int) -> None:
        self.run, self.capacity = run, jobs
        self._pool = spawn_pool(jobs, _init_process, (run.log_level,))
        self.description = f"{jobs} worker processes"

    def submit(self, task: Task) -> "cf.Future[TaskResult]":
        return self._pool.submit(run_elsewhere, self.run, task)

    def close(self, wait: bool = True) -> None:
        stop_pool(self._pool, wait=wait)


class Cluster(Backend):
    """A Dask cluster (``--scheduler``)."""

    exclusive_groups = True

    def __init__(self, run: RemoteRun, address: str) -> None:
        from genotex.methods.cluster import dask_executor

        self.run = run
        self._cluster = dask_executor(address)
        self.capacity = self._cluster.threads
        self.description = (f"Dask cluster {address}: {self._cluster.workers} workers, "
                            f"{self._cluster.threads} threads")

    @property
    def workers(self) -> int:
        """Worker processes of the cluster."""
        return self._cluster.workers

    def submit(self, task: Task) -> "cf.Future[TaskResult]":
        return self._cluster.executor.submit(run_elsewhere, self.run, task)

    def close(self, wait: bool = True) -> None:
        self._cluster.executor.shutdown(wait=False)
        self._cluster.close()
