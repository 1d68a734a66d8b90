"""Which task may start: a problem once the cohorts of the traits it reads have ended."""

from __future__ import annotations

from pathlib import Path

from genotex.methods.base import COHORT, PROBLEM, CohortTask
from genotex.methods.scheduler import TaskGraph, build_tasks
from utils.problems import Problem

COHORTS = [CohortTask("A", "GSE1", "GEO", Path("a1")), CohortTask("A", "GSE2", "GEO", Path("a2")),
           CohortTask("B", "GSE3", "GEO", Path("b3")), CohortTask("C", "Xena", "TCGA", Path("c"))]
PROBLEMS = [Problem("A", None), Problem("B", "A"), Problem("C", "Age"), Problem("D", None)]


def drain(graph: TaskGraph):
    """Start everything ready, one at a time, ending each at once (the -j 1 order)."""
    order = []
    while (task := graph.next_ready()) is not None:
        order.append(task.key)
        graph.finish(task)
    return order


def test_a_problem_needs_the_cohorts_of_its_traits():
    needs = {t.key: t.needs for t in build_tasks(COHORTS, PROBLEMS) if t.kind == PROBLEM}
    assert needs["A|None"] == {"A/GSE1", "A/GSE2"}
    # two-step: the condition trait's cohorts too
    assert needs["B|A"] == {"B/GSE3", "A/GSE1", "A/GSE2"}
    assert needs["C|Age"] == {"C/Xena"}
    assert needs["D|None"] == frozenset()          # no cohort: ready at once


def test_one_worker_runs_every_cohort_then_every_problem():
    graph = TaskGraph(build_tasks(COHORTS, PROBLEMS))
    assert drain(graph) == ["A/GSE1", "A/GSE2", "B/GSE3", "C/Xena", "A|None", "B|A", "C|Age",
                            "D|None"]


def test_problems_wait_for_their_cohorts_only():
    graph = TaskGraph(build_tasks(COHORTS, PROBLEMS))
    started = [graph.next_ready() for _ in range(4)]        # the four cohorts
    assert [t.kind for t in started] == [COHORT] * 4
    # D|None needs no cohort: ready while the cohorts run; nothing else is
    d = graph.next_ready()
    assert d.key == "D|None" and graph.next_ready() is None
    graph.finish(started[3])                                # C/Xena ended
    assert graph.next_ready().key == "C|Age"
    graph.finish(started[0])                                # A/GSE1: A still waits for GSE2
    assert graph.next_ready() is None
    graph.finish(started[1])
    assert graph.next_ready().key == "A|None"
    assert graph.next_ready() is None                       # B|A waits for B/GSE3
    graph.finish(started[2])
    assert graph.next_ready().key == "B|A"
    assert graph.waiting == []


def test_tasks_ended_in_an_earlier_session_are_not_run_and_count_as_ended():
    graph = TaskGraph(build_tasks(COHORTS, PROBLEMS), ended={"C/Xena", "C|Age"})
    assert drain(graph) == ["A/GSE1", "A/GSE2", "B/GSE3", "A|None", "B|A", "D|None"]


def test_exclusive_groups_keep_one_cohort_task_per_trait_running():
    graph = TaskGraph(build_tasks(COHORTS, PROBLEMS), exclusive_groups=True)
    first = graph.next_ready()
    second = graph.next_ready()
    assert (first.key, second.key) == ("A/GSE1", "B/GSE3")   # A/GSE2 waits for A/GSE1
    third = graph.next_ready()
    assert third.key == "C/Xena"
    graph.finish(first)
    assert graph.next_ready().key == "A/GSE2"
