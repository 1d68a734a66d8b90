"""Running an automated method from raw inputs to a prediction tree.

A run folder holds::

    <run>/prediction/      the prediction tree: preprocess/, regress/, code/ (eval.py -p)
    <run>/run_log.jsonl    every model exchange and executed step (runlog.py)
    <run>/resources.csv    per problem: success, wall time, tokens, cost (resources.py)
    <run>/tasks.csv        per task (cohorts and problems)
    <run>/resources.json   the same with totals and means
    <run>/state.json       finished tasks, for resuming
    <run>/scratch/         private working files (kernel files, temporary files)

Behaviour:

* cohort tasks first (methods that preprocess), then problem tasks;
* resumable: a task finished in an earlier run of the same method is skipped
  (``force`` starts the run folder afresh); failed and skipped tasks are tried again;
* failures are isolated: an exception ends its task only, with the reason --
  except :class:`~genotex.methods.errors.RunAborted` (an endpoint that cannot be
  used): the task is recorded, the report written, and the run stops
  (``RunSummary.aborted``);
* before any task, :meth:`Method.prepare` (the LLM methods probe their endpoint);
* progress bars (tqdm, terminal only), one ``task`` line per task in the log.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence

from genotex.methods.base import (COHORT, DONE, FAILED, PROBLEM, CohortTask, Method,
                                  RunAborted, RunContext, TaskOutcome, failed_outcome,
                                  run_isolated)
from genotex.methods.inputs import cohort_tasks, traits_of
from genotex.methods.resources import write_report
from genotex.methods.runlog import RunLog
from utils.errors import InputFileError
from utils.io import atomic_write_json, read_json
from utils.logs import progress as progress_bar
from utils.paths import ProjectPaths
from utils.problems import Problem, load_task_info

logger = logging.getLogger(__name__)

TREE_NAME = "prediction"
STATE_NAME = "state.json"
LOG_NAME = "run_log.jsonl"


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
    """

    run_dir: Path
    force: bool = False
    time_limit: float = 0.0
    progress: bool = True
    secrets: Sequence[str] = ()


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
    for name in (TREE_NAME, "scratch"):
        if (run_dir / name).exists():
            shutil.rmtree(run_dir / name)
    for name in (STATE_NAME, LOG_NAME, "resources.csv", "tasks.csv", "resources.json"):
        (run_dir / name).unlink(missing_ok=True)


class _Stop(Exception):
    """A recorded task asked the run to stop."""


class _Recorder:
    """Collects outcomes: state, log line, summary list; stops the run on an abort."""

    def __init__(self, state: RunState, log: RunLog, summary: RunSummary) -> None:
        self.state, self.log, self.summary = state, log, summary

    def __call__(self, outcome: TaskOutcome) -> None:
        self.state.record(outcome)
        self.log.write("task", **outcome.as_dict())
        self.summary.outcomes.append(outcome)
        level = logging.WARNING if outcome.status == FAILED else logging.INFO
        logger.log(level, "%s %s: %s%s", outcome.kind, outcome.key, outcome.status,
                   f" ({outcome.reason})" if outcome.reason else "")
        if outcome.abort:
            self.summary.aborted = outcome.abort
            raise _Stop(outcome.abort)


def _run_cohorts(method: Method, tasks: Sequence[CohortTask], ctx: RunContext,
                 state: RunState, record: _Recorder, summary: RunSummary) -> None:
    with progress_bar(total=len(tasks), unit="cohort", desc="cohorts",
                      enabled=ctx.progress) as bar:
        for task in tasks:
            earlier = state.finished(COHORT, task.key)
            if earlier is not None:
                summary.outcomes.append(earlier)
                summary.resumed.append(task.key)
            else:
                record(run_isolated(COHORT, task.key,
                                    lambda: method.preprocess_cohort(task, ctx)))
            bar.update(1)


def _answers(method: Method, problems: Sequence[Problem], ctx: RunContext
             ) -> Iterator[TaskOutcome]:
    """The method's outcomes; a crash of its generator fails the problems left."""
    left = {str(p): p for p in problems}
    try:
        for outcome in method.answer_problems(problems, ctx):
            left.pop(outcome.key, None)
            yield outcome
    except Exception as exc:  # noqa: BLE001 - isolate the method's own failure
        logger.debug("answering problems failed", exc_info=True)
        for key in list(left):
            yield failed_outcome(PROBLEM, key, exc)


def run_method(method: Method, paths: ProjectPaths, problems: Sequence[Problem],
               options: RunOptions) -> RunSummary:
    """Run ``method`` on ``problems`` (and the cohorts they read); see the module docstring.

    Returns
    -------
    RunSummary
        Outcomes (earlier finished tasks included) and the resource summary.
    """
    run_dir = Path(options.run_dir).resolve()
    run_dir.mkdir(parents=True, exist_ok=True)
    if options.force:
        _fresh_run_folder(run_dir)
    state = RunState(run_dir / STATE_NAME, method.name)
    tree = run_dir / TREE_NAME
    for folder in (tree / "preprocess", tree / "regress", run_dir / "scratch"):
        folder.mkdir(parents=True, exist_ok=True)
    log = RunLog(run_dir / LOG_NAME, options.secrets)
    ctx = RunContext(paths=paths, run_dir=run_dir, tree=tree,
                     task_info=load_task_info(paths.task_info), log=log,
                     time_limit=options.time_limit, progress=options.progress)
    summary = RunSummary(method.name, run_dir, tree)
    record = _Recorder(state, log, summary)
    log.write("run", method=method.name, problems=len(problems), tree=str(tree))
    try:
        method.prepare(ctx)
        if method.preprocesses:
            _run_cohorts(method, cohort_tasks(paths, traits_of(problems)), ctx, state,
                         record, summary)
        pending = []
        for problem in problems:
            earlier = state.finished(PROBLEM, str(problem))
            if earlier is None:
                pending.append(problem)
            else:
                summary.outcomes.append(earlier)
                summary.resumed.append(str(problem))
        with progress_bar(total=len(pending), unit="problem", desc="problems",
                          enabled=options.progress) as bar:
            for outcome in _answers(method, pending, ctx):
                record(outcome)
                bar.update(1)
    except RunAborted as exc:
        summary.aborted = str(exc)
    except _Stop:
        pass
    finally:
        if summary.aborted:
            log.write("abort", reason=summary.aborted)
        method.close()
        log.write("end", done=sum(o.status == DONE for o in summary.outcomes),
                  failed=len(summary.failures()))
        log.close()
    summary.report = write_report(run_dir, summary.outcomes, problems, method.name)
    return summary
