"""Which task may start now: the dependencies between cohort and problem tasks.

A problem reads the preprocessed cohorts of its trait (and, for a two-step
problem, of its condition trait): its task starts once every cohort task of
those traits has *ended* (done, failed or skipped -- a problem can still be
answered from the cohorts that did succeed, and it reports why when none did).
Cohort tasks need nothing.

Ready tasks start in the run's order (cohorts first, by trait and accession,
then problems as listed), so one worker (``-j 1``) runs exactly the order of
old: every cohort, then every problem.

``exclusive_groups`` (a cluster whose workers may not share file locks): two
cohort tasks of one trait never run at the same time, since both update the
trait's ``cohort_info.json``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set

from genotex.methods.base import COHORT, PROBLEM, CohortTask
from utils.problems import Problem


@dataclass(frozen=True)
class Task:
    """One unit of work of a run.

    Attributes
    ----------
    kind : {"cohort", "problem"}
    key : str
        ``<Trait>/<cohort>`` or ``<Trait>|<Condition>``.
    item : CohortTask or Problem
    needs : frozenset of str
        Keys of the cohort tasks that must end first.
    group : str
        A cohort task's trait ('' for problems).
    """

    kind: str
    key: str
    item: Any
    needs: FrozenSet[str] = field(default_factory=frozenset)
    group: str = ""


def build_tasks(cohorts: Sequence[CohortTask], problems: Sequence[Problem]) -> List[Task]:
    """The run's tasks in run order: cohort tasks, then problems with their needs."""
    by_trait: Dict[str, List[str]] = defaultdict(list)
    for cohort in cohorts:
        by_trait[cohort.trait].append(cohort.key)
    tasks = [Task(COHORT, c.key, c, group=c.trait) for c in cohorts]
    for problem in problems:
        traits = [problem.trait] + ([problem.condition] if problem.is_two_step else [])
        needs = frozenset(key for trait in traits for key in by_trait.get(trait, ()))
        tasks.append(Task(PROBLEM, str(problem), problem, needs))
    return tasks


class TaskGraph:
    """Tasks waiting, running and ended; :meth:`next_ready` hands out the next to start.

    Parameters
    ----------
    tasks : sequence of Task
        In run order.
    ended : set of str, optional
        Keys of tasks already ended (kept from an earlier session): not run again.
    exclusive_groups : bool
        Never run two cohort tasks of one group (trait) at once.
    """

    def __init__(self, tasks: Sequence[Task], ended: Optional[Set[str]] = None,
                 exclusive_groups: bool = False) -> None:
        self.order = {task.key: index for index, task in enumerate(tasks)}
        self.ended: Set[str] = set(ended or ())
        self._waiting = [task for task in tasks if task.key not in self.ended]
        self._running: Dict[str, Task] = {}
        self._groups: Counter = Counter()
        self.exclusive_groups = exclusive_groups

    def _may_start(self, task: Task) -> bool:
        if not task.needs <= self.ended:
            return False
        return not (self.exclusive_groups and task.kind == COHORT and self._groups[task.group])

    def next_ready(self) -> Optional[Task]:
        """The first waiting task that may start (marked running), or None."""
        for index, task in enumerate(self._waiting):
            if self._may_start(task):
                del self._waiting[index]
                self._running[task.key] = task
                if task.kind == COHORT:
                    self._groups[task.group] += 1
                return task
        return None

    def finish(self, task: Task) -> None:
        """``task`` ended (whatever its status): tasks needing it may start."""
        self._running.pop(task.key, None)
        if task.kind == COHORT:
            self._groups[task.group] -= 1
        self.ended.add(task.key)

    @property
    def waiting(self) -> List[Task]:
        """Tasks not started yet, in run order."""
        return list(self._waiting)

    @property
    def running(self) -> List[Task]:
        """Tasks started and not ended."""
        return list(self._running.values())

    def rank(self, key: str) -> int:
        """A task's place in the run order (reports list tasks in this order)."""
        return self.order.get(key, len(self.order))


__all__ = ["Task", "TaskGraph", "build_tasks", "COHORT", "PROBLEM"]
