"""Running GenoAgent on demo cohorts against the scripted server (shared by the tests)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence, Tuple

from genotex.methods.base import RunContext, TaskOutcome
from genotex.methods.genoagent.method import GenoAgent
from genotex.methods.genoagent.settings import AgentSettings
from genotex.methods.inputs import cohort_tasks
from genotex.methods.llm.client import ChatClient, EndpointSettings
from genotex.methods.resources import Price
from genotex.methods.runlog import RunLog
from genotex.methods.runner import RunOptions, RunSummary, run_method
from genotex.testing.fake_llm import Script
from genotex.testing.canned import (GEO_CODE, HYPERTENSION_CLINICAL,
                                                    NEEDS_MAPPING, STATISTICS_CODE, TCGA_CODE,
                                                    block)
from utils.paths import resolve_paths
from utils.problems import Problem, load_task_info

API_KEY = "sk-test-0123456789abcdef-SECRET"
PRICES = {"fake-model": Price(input=1.0, output=2.0)}
#: The client's default retry policy made quick (derived from the default, so this
#: package needs no import of the policy's home, ``download.fetch``).
FAST_RETRY = replace(EndpointSettings.retry, max_attempts=4, backoff_base=0.01,
                     backoff_max=0.05, max_retry_after=5.0, timeout=30.0)
#: Small, quick settings for tests (the step loop's logic is unchanged).
TEST_SETTINGS = AgentSettings(step_timeout=60.0, memory_bytes=4 << 30)
SKIP = '{"action": "skip"}'


def client(base_url: str, retry: Any = FAST_RETRY) -> ChatClient:
    """A client of the scripted server, with the test key (``retry``: a retry policy)."""
    return ChatClient(EndpointSettings(base_url, "fake-model", retry), API_KEY)


def script_geo_cohort(script: Script, key: str, clinical: Optional[str] = None) -> Script:
    """Queue one code reply per GEO step of ``key`` (skips the mapping when not needed)."""
    mapping_steps = ("gene_annotation", "gene_identifier_mapping")
    for step, code in GEO_CODE.items():
        if NEEDS_MAPPING[key] or step not in mapping_steps:
            script.add("code", block(code), step=step, task=key)
    script.add("code", block(clinical or HYPERTENSION_CLINICAL[key]), step="dataset_analysis",
               task=key)
    script.add("code", block(f"requires_gene_mapping = {NEEDS_MAPPING[key]}\n"
                             "print(requires_gene_mapping)"),
               step="gene_identifier_review", task=key)
    if not NEEDS_MAPPING[key]:
        script.add("plan", SKIP, step="gene_annotation", task=key)
        script.add("plan", SKIP, step="gene_identifier_mapping", task=key)
    return script


def script_tcga_cohort(script: Script, key: str) -> Script:
    """Queue one code reply per TCGA step of ``key``."""
    for step, code in TCGA_CODE.items():
        script.add("code", block(code), step=step, task=key)
    return script


def script_problems(script: Script, problems: Iterable[Problem]) -> Script:
    """Queue the Statistician's code for each problem."""
    for problem in problems:
        for step, code in STATISTICS_CODE.items():
            script.add("code", block(code), step=step, task=str(problem))
    return script


def run_cohort(run_dir: Path, base_url: str, key: str,
               settings: AgentSettings = TEST_SETTINGS, time_limit: float = 0.0,
               chat: Optional[ChatClient] = None) -> Tuple[TaskOutcome, RunContext]:
    """Preprocess one demo cohort (``<Trait>/<cohort>``) with GenoAgent, no problems."""
    paths = resolve_paths()
    trait = key.split("/")[0]
    task = next(t for t in cohort_tasks(paths, [trait]) if t.key == key)
    tree = run_dir / "prediction"
    log = RunLog(run_dir / "run_log.jsonl", [API_KEY])
    ctx = RunContext(paths=paths, run_dir=run_dir, tree=tree,
                     task_info=load_task_info(paths.task_info), log=log, time_limit=time_limit)
    method = GenoAgent(chat or client(base_url), settings, paths, PRICES)
    try:
        outcome = method.preprocess_cohort(task, ctx)
    finally:
        log.close()
    return outcome, ctx


def run_genoagent(run_dir: Path, base_url: str, problems: Sequence[Problem],
                  settings: AgentSettings = TEST_SETTINGS, time_limit: float = 0.0,
                  chat: Optional[ChatClient] = None, **options) -> RunSummary:
    """Run GenoAgent on the demo inputs for ``problems`` (and their traits' cohorts);
    ``options``: more :class:`RunOptions` (``jobs``, ``replay`` ...)."""
    paths = resolve_paths()
    method = GenoAgent(chat or client(base_url), settings, paths, PRICES)
    return run_method(method, paths, list(problems),
                      RunOptions(run_dir=run_dir, progress=False, time_limit=time_limit,
                                 secrets=[API_KEY], **options))
