"""The ``rules`` method: cohorts by rule (:mod:`.cohorts`), statistics as ``regress.py``.

Its tasks keep a core busy (table parsing, model fits): with ``-j`` they run in
worker processes, each problem through ``regress.py``'s engine
(:func:`genotex.regress.runner.run_problems`), whose bytes do not depend on the
process or the order.
"""

from __future__ import annotations

import time
from typing import Mapping

from genotex.methods.base import (COHORT, DONE, FAILED, PROBLEM, SKIPPED, CohortTask, Method,
                                  MethodConfig, RunContext, TaskOutcome)
from genotex.methods.rules.cohorts import preprocess_geo, preprocess_tcga
from genotex.regress.runner import RunSettings, run_problems
from utils.paths import ProjectPaths
from utils.problems import Problem
from utils.symbols import load_synonym_map

#: regress runner statuses -> task statuses.
_STATUS = {"done": DONE, "up-to-date": DONE, "skipped": SKIPPED, "failed": FAILED}


class RulesAgent(Method):
    """Offline, deterministic: no model, no randomness (see :mod:`genotex.methods.rules`)."""

    name = "rules"
    preprocesses = True
    cpu_bound = True

    def __init__(self, paths: ProjectPaths, synonyms: Mapping[str, str]) -> None:
        self.paths = paths
        self.synonyms = synonyms

    @classmethod
    def from_config(cls, config: MethodConfig) -> "RulesAgent":
        """The run's paths and synonym map."""
        return cls(config.paths, load_synonym_map(config.paths.gene_synonyms))

    def preprocess_cohort(self, task: CohortTask, ctx: RunContext) -> TaskOutcome:
        """One cohort by rule; the decisions go to the run log."""
        start = time.monotonic()
        trait_dir = ctx.preprocess_root / task.trait
        if task.source == "TCGA":
            decisions = preprocess_tcga(task, trait_dir, self.paths.gene_synonyms)
        else:
            decisions = preprocess_geo(task, trait_dir, self.paths.gene_synonyms, self.synonyms)
        ctx.log.write("decisions", task=task.key, **decisions)
        return TaskOutcome(COHORT, task.key, DONE, seconds=time.monotonic() - start)

    def answer_problem(self, problem: Problem, ctx: RunContext) -> TaskOutcome:
        """The statistics of ``regress.py`` on the rules' preprocess tree (a problem without
        a usable cohort is skipped with regress.py's reason)."""
        settings = RunSettings(str(ctx.preprocess_root), str(ctx.regress_root),
                               str(self.paths.task_info), remove_stale=True)
        outcome = run_problems([problem], settings, jobs=1, progress=False).outcomes[0]
        return TaskOutcome(PROBLEM, str(problem), _STATUS.get(outcome.status, FAILED),
                           outcome.reason or "", seconds=outcome.seconds or 0.0)
