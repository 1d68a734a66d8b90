"""The ``rules`` method: cohorts by rule (:mod:`.cohorts`), statistics as ``regress.py``."""

from __future__ import annotations

import time
from typing import Iterator, Mapping, Sequence

from genotex.methods.base import (COHORT, DONE, FAILED, PROBLEM, SKIPPED, CohortTask, Method,
                                  MethodConfig, RunContext, TaskOutcome)
from genotex.methods.rules.cohorts import preprocess_geo, preprocess_tcga
from genotex.regress.runner import RunSettings, check_inputs, run_problems
from utils.errors import InputFileError
from utils.paths import ProjectPaths
from utils.problems import Problem
from utils.symbols import load_synonym_map

#: regress runner statuses -> task statuses.
_STATUS = {"done": DONE, "up-to-date": DONE, "skipped": SKIPPED, "failed": FAILED}


class RulesAgent(Method):
    """Offline, deterministic: no model, no randomness (see :mod:`genotex.methods.rules`)."""

    name = "rules"
    preprocesses = True

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

    def answer_problems(self, problems: Sequence[Problem], ctx: RunContext
                        ) -> Iterator[TaskOutcome]:
        """The statistics of ``regress.py`` on the rules' preprocess tree."""
        if not problems:
            return
        try:
            check_inputs(problems, ctx.preprocess_root)
        except InputFileError as exc:
            for problem in problems:
                yield TaskOutcome(PROBLEM, str(problem), SKIPPED, exc.problem)
            return
        settings = RunSettings(str(ctx.preprocess_root), str(ctx.regress_root),
                               str(self.paths.task_info), remove_stale=True)
        summary = run_problems(problems, settings, jobs=1, progress=False)
        for outcome in summary.outcomes:
            yield TaskOutcome(PROBLEM, str(outcome.problem), _STATUS.get(outcome.status, FAILED),
                              outcome.reason or "", seconds=outcome.seconds or 0.0)
