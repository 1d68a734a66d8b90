"""Running many problems: serial, local processes or a Dask cluster (SPEC 5.7).

* Problems are grouped by trait; a group runs in one worker, so the trait's
  linked table is parsed once there (:class:`tools.statistics.cohort_cache.CohortCache`
  keeps tables across groups and runs, keyed on file content).
* Workers only read the preprocess tree and return result documents; the
  calling process writes every output (atomically), so workers need no write
  access and two writers never race.
* Failures are isolated per problem: the exception's message (which names the
  offending file for bad input) becomes the problem's reason and the run goes
  on.
* Up to date: a result is skipped unless ``force`` when the fingerprint stored
  in its ``analysis.fingerprint`` equals the fingerprint of the current inputs
  (:func:`tools.statistics.engine.problem_fingerprint`).
* Determinism: each problem runs with single-threaded BLAS, so the bytes of a
  result do not depend on ``jobs``, on the scheduler or on the order of work.
  Local runs with fewer processes than cores give each problem
  ``cores // jobs`` threads for its independent LMM fits
  (:func:`threads_per_problem`); each thread's arithmetic is unchanged.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import logging
import os
import pickle
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from threadpoolctl import threadpool_limits

from genotex.regress.cluster import ClusterError, check_workers, opaque_call, result_of
from tools.statistics.cohort_cache import CohortCache
from tools.statistics.engine import ENGINE, AnalysisConfig, ProblemOutcome, run_problem
from utils.errors import InputFileError
from utils.io import read_json
from utils.logs import LOG_FORMAT
from utils.logs import progress as progress_bar
from utils.problems import Problem, load_task_info, result_path
from utils.runtime import available_cores, worker_pool
from utils.schemas.result import stored_provenance, write_result
from utils.selection import COHORT_INFO_NAME, LinkedTableIndex

logger = logging.getLogger(__name__)

STATUSES = ("done", "up-to-date", "skipped", "failed")
DASK_CONNECT_TIMEOUT = "10s"

Group = List[Problem]
Fingerprints = Dict[Problem, Optional[str]]


class SchedulerError(RuntimeError):
    """The distributed scheduler cannot be reached, or its workers cannot run the project."""


def check_inputs(problems: Sequence[Problem], preprocess_root: Path) -> None:
    """Refuse a run whose preprocess tree is missing or holds none of the traits asked for.

    A run over a mistyped folder would otherwise report every problem as
    "skipped: no usable cohort" and succeed. A tree that has some of the
    traits is fine: the others are skipped, each with its reason.

    Raises
    ------
    InputFileError
        Naming the folder and what is missing.
    """
    root = Path(preprocess_root)
    if not root.is_dir():
        raise InputFileError(root, "preprocess tree not found (check --preprocess-dir, "
                                   "--output-dir or GENOTEX_OUTPUT)")
    traits = sorted({name for p in problems
                     for name in ((p.trait, p.condition) if p.is_two_step else (p.trait,))})
    if traits and not any((root / trait / COHORT_INFO_NAME).is_file() for trait in traits):
        shown = ", ".join(traits[:3]) + (", ..." if len(traits) > 3 else "")
        raise InputFileError(root, f"no <Trait>/{COHORT_INFO_NAME} for any of the "
                                   f"{len(traits)} traits asked for ({shown}); "
                                   "is this a preprocess tree?")


@dataclass(frozen=True)
class RunSettings:
    """What every worker needs to know (picklable).

    Attributes
    ----------
    preprocess_root, regress_root, task_info_path : pathlib.Path
        Path-likes given to the constructor are kept as :class:`~pathlib.Path`.
    force : bool
        Re-run problems whose results are up to date.
    remove_stale : bool
        Delete the existing result of a problem that is now skipped or failed
        (by default it is kept and listed in the summary).
    log_level : int
        Logging level for worker processes (the parent's ``-v``).
    config : AnalysisConfig
    run_id : str
        Distinguishes runs, so per-run caches of long-lived (Dask) workers
        are never reused by a later run.
    """

    preprocess_root: Path
    regress_root: Path
    task_info_path: Path
    force: bool = False
    remove_stale: bool = False
    log_level: int = logging.WARNING
    config: AnalysisConfig = AnalysisConfig()
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)

    def __post_init__(self) -> None:
        for name in ("preprocess_root", "regress_root", "task_info_path"):
            object.__setattr__(self, name, Path(getattr(self, name)))


@dataclass
class RunSummary:
    """Outcomes of a run, in problem order."""

    outcomes: List[ProblemOutcome]
    seconds: float = 0.0
    stale: List[Tuple[Problem, Path]] = field(default_factory=list)
    removed: List[Tuple[Problem, Path]] = field(default_factory=list)

    def counts(self) -> Dict[str, int]:
        """Number of problems per status."""
        counter = Counter(o.status for o in self.outcomes)
        return {status: counter.get(status, 0) for status in STATUSES}

    def format(self) -> str:
        """Human-readable summary with the reason of every skip and failure."""
        counts = self.counts()
        lines = [f"{len(self.outcomes)} problems in {self.seconds:.1f} s: "
                 + ", ".join(f"{counts[s]} {s}" for s in STATUSES)]
        for status in ("skipped", "failed"):
            listed = [o for o in self.outcomes if o.status == status]
            if listed:
                lines.append(f"{status}:")
                lines.extend(f"  {o.problem}: {o.reason}" for o in listed)
        if self.stale:
            lines.append(f"kept {len(self.stale)} earlier result(s) of problems now skipped or "
                         "failed (they no longer match the inputs; --remove-stale deletes them):")
            lines.extend(f"  {problem}: {path}" for problem, path in self.stale)
        if self.removed:
            lines.append(f"removed {len(self.removed)} stale result(s) (--remove-stale):")
            lines.extend(f"  {problem}: {path}" for problem, path in self.removed)
        return "\n".join(lines)


# --------------------------------------------------------------------------- worker side

@functools.lru_cache(maxsize=1)
def _process_cohort_cache() -> CohortCache:
    """Parsed tables of this process (content-keyed, so safe across runs)."""
    return CohortCache()


@functools.lru_cache(maxsize=1)
def _run_state(run_id: str, preprocess_root: Path, task_info_path: Path
               ) -> Tuple[Dict[str, Any], LinkedTableIndex, Dict[str, Any]]:
    """Task info, header index and cohort_info cache of one run in this process."""
    return load_task_info(task_info_path), LinkedTableIndex(preprocess_root), {}


def threads_per_problem(jobs: int, cores: Optional[int] = None) -> int:
    """Threads a problem may use when ``jobs`` local worker processes share the cores.

    ``cores // jobs`` (at least 1): with ``-j 1`` on a 2-core machine, a
    problem runs its LMM fold fits and final fit two at a time. BLAS stays
    single-threaded in every case (multi-threaded BLAS changes the last bits
    of some products, and results must not depend on ``-j``).
    """
    cores = available_cores() if cores is None else cores
    return max(1, cores // max(1, jobs))


def analyse_group(problems: Sequence[Problem], settings: RunSettings,
                  previous: Fingerprints, workers: int = 1) -> List[ProblemOutcome]:
    """Analyse a group of problems in this process; never raises per problem.

    Parameters
    ----------
    problems : sequence of Problem
    settings : RunSettings
    previous : dict
        Fingerprint of each problem's existing result (None when absent).
    workers : int
        Threads per problem (:func:`tools.statistics.engine.analyze`); same results.
    """
    outcomes = []
    try:
        task_info, index, info_cache = _run_state(settings.run_id, settings.preprocess_root,
                                                  settings.task_info_path)
    except InputFileError as exc:
        return [ProblemOutcome(problem, "failed", str(exc)) for problem in problems]
    cache = _process_cohort_cache()
    with threadpool_limits(1):
        for problem in problems:
            start = time.perf_counter()
            try:
                outcome = run_problem(problem, settings.preprocess_root, task_info, cache, index,
                                      info_cache, settings.config,
                                      None if settings.force else previous.get(problem), workers)
            except Exception as exc:  # noqa: BLE001 - isolate every failure
                logger.debug("problem %s failed", problem, exc_info=True)
                outcome = ProblemOutcome(problem, "failed", f"{type(exc).__name__}: {exc}")
            outcome.seconds = time.perf_counter() - start
            outcomes.append(outcome)
    return outcomes


def _init_worker(log_level: int) -> None:
    """Start-up of a local worker process: the parent's log level (it exits with the parent,
    :func:`utils.runtime.spawn_pool`)."""
    logging.basicConfig(level=log_level, format=LOG_FORMAT)


# --------------------------------------------------------------------------- client side

def group_by_trait(problems: Iterable[Problem]) -> List[List[Problem]]:
    """Problems grouped by trait, groups and members in input order."""
    groups: Dict[str, List[Problem]] = {}
    for problem in problems:
        groups.setdefault(problem.trait, []).append(problem)
    return list(groups.values())


def largest_first(groups: List[List[Problem]], preprocess_root: Path) -> List[List[Problem]]:
    """Groups ordered by their estimated work, largest first (ties keep their order).

    The estimate is the group's problem count times the bytes of its trait's
    linked tables (the cost of a problem grows with its cohort). Handing the
    longest groups out first keeps a worker from starting a long group while
    the others run out of work (longest-processing-time-first scheduling);
    what is computed does not change.

    Examples
    --------
    >>> a, b = Problem("A"), Problem("B")
    >>> largest_first([[a], [b, Problem("B", "Age")]], Path("/nonexistent"))[0][0] == b
    True
    """
    def work(group: List[Problem]) -> int:
        folder = Path(preprocess_root) / group[0].trait
        try:
            size = sum(entry.stat().st_size for entry in os.scandir(folder)
                       if entry.name.endswith(".csv") and entry.is_file())
        except OSError:
            size = 0
        return len(group) * max(size, 1)

    return sorted(groups, key=work, reverse=True)


def stored_fingerprint(path: Path) -> Optional[str]:
    """The fingerprint of an existing result written by this engine, if any."""
    if not path.is_file():
        return None
    try:
        stamp = stored_provenance(read_json(path))
    except InputFileError:
        return None
    engine_family = ENGINE.split("/")[0]
    return stamp.fingerprint if stamp and stamp.engine.startswith(engine_family) else None


def _settle(outcome: ProblemOutcome, settings: RunSettings, summary: "RunSummary") -> None:
    """Write a finished result; keep (or, if asked, remove) the result of a skipped/failed one.

    Only files written by this engine (:func:`stored_fingerprint`) count as
    stale results; nothing else is ever removed.
    """
    path = result_path(settings.regress_root, outcome.problem)
    if outcome.status == "done":
        write_result(path, outcome.document)
        outcome.document = None
        logger.info("%s: done in %.2f s -> %s", outcome.problem, outcome.seconds, path)
        return
    if outcome.status == "up-to-date":
        logger.info("%s: up to date (%s)", outcome.problem, path)
        return
    if outcome.status == "failed":
        logger.warning("%s failed: %s", outcome.problem, outcome.reason)
    else:
        logger.info("%s skipped: %s", outcome.problem, outcome.reason)
    if stored_fingerprint(path) is None:
        return
    if settings.remove_stale:
        path.unlink()
        summary.removed.append((outcome.problem, path))
        logger.info("%s: removed the stale result %s", outcome.problem, path)
    else:
        summary.stale.append((outcome.problem, path))


def _submit_local(groups: List[Group], settings: RunSettings, previous: Fingerprints,
                  jobs: int) -> Iterator[Tuple[Group, List[ProblemOutcome]]]:
    workers = threads_per_problem(jobs)
    if jobs <= 1:
        for group in groups:
            yield group, analyse_group(group, settings, previous, workers)
        return
    with worker_pool(jobs, _init_worker, (settings.log_level,)) as pool:
        futures = {pool.submit(analyse_group, group, settings,
                               {p: previous[p] for p in group}, workers): group
                   for group in groups}
        for future in cf.as_completed(futures):
            yield futures[future], _group_result(future.result, futures[future])


def _submit_dask(groups: List[Group], settings: RunSettings, previous: Fingerprints,
                 scheduler: str) -> Iterator[Tuple[Group, List[ProblemOutcome]]]:
    """Groups as opaque tasks (:mod:`genotex.regress.cluster`): the scheduler imports
    nothing of the project; every worker is checked before the first group is sent."""
    from distributed import Client, as_completed

    try:
        client = Client(scheduler, timeout=DASK_CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise SchedulerError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc
    with client:
        try:
            check_workers(client, scheduler)
        except ClusterError as exc:
            raise SchedulerError(str(exc)) from exc
        futures = {client.submit(pickle.loads,
                                 opaque_call(analyse_group, group, settings,
                                             {p: previous[p] for p in group}),
                                 pure=False): tuple(group)
                   for group in groups}
        for future in as_completed(list(futures)):
            group = list(futures[future])
            yield group, _group_result(lambda: result_of(future.result()), group)


def _group_result(get: Callable[[], List[ProblemOutcome]], group: Group
                  ) -> List[ProblemOutcome]:
    try:
        return get()
    except Exception as exc:  # noqa: BLE001 - a crashed worker fails its group only
        reason = f"{type(exc).__name__}: {exc}".strip().splitlines()[0]
        return [ProblemOutcome(problem, "failed", f"worker error: {reason}")
                for problem in group]


def _listing_order(item: Tuple[Problem, Path]) -> Tuple[str, Path]:
    """Stale results are listed by ``Trait|Condition`` text, then path."""
    return str(item[0]), item[1]


def run_problems(problems: Sequence[Problem], settings: RunSettings, jobs: int = 1,
                 scheduler: Optional[str] = None, progress: bool = True) -> RunSummary:
    """Run problems and write their results.

    Parameters
    ----------
    problems : sequence of Problem
    settings : RunSettings
    jobs : int
        Local worker processes (ignored with ``scheduler``).
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://host:8786``).
    progress : bool
        Show a tqdm bar.

    Returns
    -------
    RunSummary
    """
    start = time.perf_counter()
    groups = largest_first(group_by_trait(problems), settings.preprocess_root)
    previous = {problem: stored_fingerprint(result_path(settings.regress_root, problem))
                for problem in problems}
    stream = (_submit_dask(groups, settings, previous, scheduler) if scheduler
              else _submit_local(groups, settings, previous, jobs))
    by_problem: Dict[Problem, ProblemOutcome] = {}
    summary = RunSummary([])
    with progress_bar(total=len(problems), unit="problem", enabled=progress) as bar:
        for _, outcomes in stream:
            for outcome in outcomes:
                _settle(outcome, settings, summary)
                by_problem[outcome.problem] = outcome
            bar.update(len(outcomes))
    summary.outcomes = [by_problem[problem] for problem in problems]
    summary.stale.sort(key=_listing_order)
    summary.removed.sort(key=_listing_order)
    summary.seconds = time.perf_counter() - start
    return summary
