r"""Run an automated method: raw inputs -> a prediction tree that ``eval.py`` scores.

Examples
--------
    python run_agent.py --method rules                          # offline, deterministic
    python eval.py -p runs/rules/prediction                      # score it
    python run_agent.py --method random --seed 7 --run-dir /tmp/random
    export GENOTEX_LLM_API_KEY=...                               # never on the command line
    python run_agent.py --method llm-no-data --model gpt-4o --base-url https://api.openai.com/v1
    python run_agent.py --method genoagent --model qwen2.5-coder --no-reviewer \
        --base-url http://localhost:11434/v1                     # an ablation, local server
    python run_agent.py --method genoagent ... -j 8 --rpm 60 --max-cost 20
    python run_agent.py --replay runs/genoagent --run-dir runs/replayed   # offline, no cost
    python run_agent.py --method random --repeats 3 --run-dir runs/random3
    python eval.py -p runs/random3                               # mean +- sd of the repeats
    python run_agent.py --method rules --scheduler tcp://10.0.0.5:8786   # a Dask cluster
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

from genotex.cli.common import SELECTION_HELP, UsageError
from genotex.methods import build_method, method_class, method_names
from genotex.methods.genoagent.settings import GIB, ROLES, AgentSettings
from genotex.methods.llm.client import (RESERVED_KEYS, STRUCTURED_LEVELS, ChatClient,
                                        EndpointSettings, redact)
from genotex.methods.llm.ratelimit import RateLimiter, RateLimits
from utils.arguments import non_negative_float, positive_int
from utils.errors import InputFileError, exits_quietly_on_interrupt
from utils.io import atomic_write_json, read_json
from utils.io.http import RetryPolicy
from utils.logs import add_verbosity_argument, configure_logging
from utils.paths import add_path_arguments, paths_from_args
from utils.runtime import in_utf8_mode

if TYPE_CHECKING:
    from genotex.methods.runner import RunOptions, RunSummary

# The methods' base, their runner, the price table, the repeats' folders and the problem
# list (numpy, pandas) are imported by the functions that use them, after the arguments
# are parsed, so that --help comes back at once.

logger = logging.getLogger("run_agent")

ENV_BASE_URL = "GENOTEX_LLM_BASE_URL"
ENV_MODEL = "GENOTEX_LLM_MODEL"
ENV_API_KEY = "GENOTEX_LLM_API_KEY"
FALLBACK_API_KEY = "OPENAI_API_KEY"
#: The run folder file keeping the command's settings (``--replay`` reads it).
CONFIG_NAME = "run_config.json"
#: Settings a replay takes from the original run (the rest -- where and how fast it runs,
#: logging -- come from the replay's own command line).
REPLAYED = ("method", "traits", "problems", "time_limit", "seed", "genes", "base_url", "model",
            "role_model", "api_key_env", "temperature", "max_tokens", "extra_body",
            "structured_output", "tool_calls", "prices", "no_planning", "no_reviewer",
            "no_domain_expert", "review_rounds", "step_timeout", "memory_gb", "repeats",
            "max_tokens_per_task", "root", "input_dir", "metadata_dir", "gene_synonyms",
            "task_info", "request_seed")


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        description="Run an automated method from the raw inputs (input/ + metadata/) to a "
                    "prediction tree in <run-dir>/prediction, with a run log and a resource "
                    "report; finished tasks of an earlier run are skipped.",
        epilog="The API key is read from the environment only (never a flag).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--method", choices=method_names(),
                        help="the method to run (required, except with --replay)")
    parser.add_argument("--run-dir", metavar="PATH",
                        help="run folder (default: <root>/runs/<method>)")
    parser.add_argument("--traits", nargs="+", metavar="TRAIT",
                        help="every problem of these traits; " + SELECTION_HELP)
    parser.add_argument("--problems", nargs="+", metavar="TRAIT|CONDITION",
                        help="these problems (their cohorts are preprocessed too); without "
                             "--traits and --problems, every problem of the task info")
    parser.add_argument("--force", action="store_true",
                        help="start the run folder afresh instead of resuming")
    parser.add_argument("--time-limit", type=non_negative_float, default=0.0,
                        metavar="SECONDS",
                        help="wall time per cohort / problem task (default: 0, none)")
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")
    parser.add_argument("--seed", type=int, default=42,
                        help="seed of the random baseline (default: 42)")
    parser.add_argument("--genes", type=positive_int, default=50, metavar="N",
                        help="genes per problem of the data-free baselines (default: 50)")
    scale = parser.add_argument_group("scale: concurrency, cluster, budget, replay, repeats")
    scale.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                       help="tasks at a time (default: 1): threads for the LLM methods (they "
                            "wait on the network), worker processes for rules; a problem "
                            "starts once the cohorts it reads are done")
    scale.add_argument("--scheduler", metavar="ADDRESS",
                       help="run the tasks on a Dask cluster (tcp://HOST:PORT), as regress.py "
                            "does; the workers must see the inputs and the run folder at the "
                            "same paths; -j is then the cluster's")
    scale.add_argument("--max-cost", type=float, default=None, metavar="USD",
                       help="start no new task once the run has spent this much (from the "
                            "price table; every model needs a price); the summary says so")
    scale.add_argument("--max-tokens-per-task", type=int, default=0, metavar="N",
                       help="input + output tokens one task may use; the call going over "
                            "ends the task, its accounting kept (default: no limit)")
    scale.add_argument("--replay", metavar="RUN_DIR",
                       help="reproduce the run in RUN_DIR from its kept exchanges: no "
                            "network, no cost; its settings are the original's (a request "
                            "the original never made stops the run, naming it)")
    scale.add_argument("--repeats", type=int, default=1, metavar="K",
                       help="K independent runs into <run-dir>/repeat-<k>/ (seed + k - 1; "
                            "LLM requests carry that seed); eval.py -p <run-dir> then reports "
                            "mean +- sd (default: 1)")
    llm = parser.add_argument_group("model endpoint (llm-no-data, genoagent)")
    llm.add_argument("--base-url", default=os.environ.get(ENV_BASE_URL),
                     help=f"OpenAI-compatible base URL, e.g. https://api.openai.com/v1 or "
                          f"http://localhost:11434/v1 (env {ENV_BASE_URL})")
    llm.add_argument("--model", default=os.environ.get(ENV_MODEL),
                     help=f"default model name (env {ENV_MODEL})")
    llm.add_argument("--role-model", action="append", default=[], metavar="ROLE=MODEL",
                     help=f"model of one GenoAgent role (repeatable); roles: {', '.join(ROLES)}")
    llm.add_argument("--api-key-env", default=ENV_API_KEY, metavar="VARIABLE",
                     help=f"environment variable holding the API key (default {ENV_API_KEY}, "
                          f"else {FALLBACK_API_KEY}); servers without keys need none")
    llm.add_argument("--request-timeout", type=float, default=300.0, metavar="SECONDS",
                     help="timeout of one model request (default: 300)")
    llm.add_argument("--max-attempts", type=int, default=6,
                     help="attempts per model request, retries on 429/5xx/timeouts (default: 6)")
    llm.add_argument("--temperature", type=float, default=None,
                     help="sampling temperature of every request (default: the server's)")
    llm.add_argument("--max-tokens", type=int, default=None, metavar="N",
                     help="output-token limit of one answer (default: the server's); a "
                          "reply cut at the limit is asked for again, shorter")
    llm.add_argument("--extra-body", metavar="JSON", default=None,
                     help="JSON object merged into every request: server options, e.g. "
                          "'{\"chat_template_kwargs\": {\"enable_thinking\": false}}' (vLLM), "
                          "'{\"top_k\": 20}'; keys the client sets (model, messages, ...) "
                          "are refused")
    llm.add_argument("--structured-output", choices=STRUCTURED_LEVELS, default="json_schema",
                     help="ask for plans, verdicts and gene lists as JSON via response_format "
                          "(json_schema, else json_object); a server that refuses one gets "
                          "the next (default: json_schema)")
    llm.add_argument("--tool-calls", action="store_true",
                     help="native tool calling: GenoAgent's code comes as a call of a "
                          "'python' function (fenced blocks are still read)")
    llm.add_argument("--max-connection-failures", type=int, default=4, metavar="N",
                     help="consecutive failures to connect that stop the run (default: 4)")
    llm.add_argument("--rpm", type=float, default=0.0, metavar="N",
                     help="requests per minute at most, over all concurrent tasks (default: "
                          "no limit); a 429 answer pauses every task for its Retry-After")
    llm.add_argument("--tpm", type=float, default=0.0, metavar="N",
                     help="tokens per minute at most (requests are counted at characters/4 "
                          "+ --max-tokens until answered, then at their usage)")
    llm.add_argument("--prices", metavar="JSON",
                     help="price table in USD per million tokens (default: the shipped "
                          "genotex/methods/prices.json)")
    agent = parser.add_argument_group("GenoAgent (ablations of the paper's Table 2)")
    agent.add_argument("--no-planning", action="store_true",
                       help="fixed step order: no next / skip / go-back decisions")
    agent.add_argument("--no-reviewer", action="store_true", help="no Code Reviewer")
    agent.add_argument("--no-domain-expert", action="store_true",
                       help="the programming agents answer the inference-heavy steps")
    agent.add_argument("--domain-hints", action=argparse.BooleanOptionalAction, default=True,
                       help="give the clinical step the rule-based proposal (rows, "
                            "confidences, evidence) to check (default: on; "
                            "--no-domain-hints for the paper's ablations)")
    agent.add_argument("--review-rounds", type=int, default=2, choices=(0, 1, 2, 3),
                       help="reviews per step at most (default: 2)")
    agent.add_argument("--step-timeout", type=float, default=600.0, metavar="SECONDS",
                       help="seconds one executed step may run (default: 600)")
    agent.add_argument("--memory-gb", type=float, default=8.0,
                       help="address-space limit of the code kernel (default: 8)")
    agent.add_argument("--no-kernel-reuse", action="store_true",
                       help="a new kernel for every task (by default a kernel is reused by a "
                            "later task after a clean reset)")
    add_path_arguments(parser, ("root", "input", "metadata", "gene_synonyms", "task_info"))
    add_verbosity_argument(parser)
    return parser


class _RedactingFilter(logging.Filter):
    """Removes secrets from every log record's message."""

    def __init__(self, secrets: Sequence[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message, self.secrets)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def api_key_source(variable: str, environ: Optional[Mapping[str, str]] = None
                   ) -> Tuple[str, str]:
    """``(variable, key)``: the key from ``variable`` (the default variable falls back to
    ``OPENAI_API_KEY``) and the variable it was found in."""
    environ = os.environ if environ is None else environ
    value = environ.get(variable, "")
    if not value and variable == ENV_API_KEY and environ.get(FALLBACK_API_KEY, ""):
        return FALLBACK_API_KEY, environ[FALLBACK_API_KEY]
    return variable, value


def api_key(variable: str, environ: Optional[Dict[str, str]] = None) -> str:
    """The key from ``variable`` (the default variable falls back to ``OPENAI_API_KEY``)."""
    return api_key_source(variable, environ)[1]


def role_models(pairs: Sequence[str]) -> Dict[str, str]:
    """``{role: model}`` from ``ROLE=MODEL`` arguments (roles case-insensitive)."""
    by_name = {role.lower(): role for role in ROLES}
    models = {}
    for pair in pairs:
        role, sep, model = pair.partition("=")
        if not sep or role.strip().lower() not in by_name or not model.strip():
            raise UsageError(f"--role-model {pair!r}: expected ROLE=MODEL with ROLE one of "
                             f"{', '.join(ROLES)}")
        models[by_name[role.strip().lower()]] = model.strip()
    return models


def extra_body(text: Optional[str]) -> Dict[str, object]:
    """The ``--extra-body`` object (empty when not given)."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"--extra-body is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise UsageError("--extra-body must be a JSON object")
    reserved = sorted(RESERVED_KEYS & set(value))
    if reserved:
        raise UsageError(f"--extra-body may not set {', '.join(reserved)} (the client does)")
    return value


def _chat_client(args: argparse.Namespace, key: str, variable: str, limiter: RateLimiter,
                 seed: Optional[int]) -> Optional[ChatClient]:
    if not method_class(args.method).needs_llm:
        return None
    if not args.base_url or not args.model:
        raise UsageError(f"--method {args.method} needs --base-url and --model "
                         f"(or {ENV_BASE_URL} / {ENV_MODEL})")
    retry = RetryPolicy(max_attempts=max(1, args.max_attempts), backoff_base=2.0,
                        backoff_max=60.0, max_retry_after=120.0, timeout=args.request_timeout)
    offline = bool(args.replay)
    return ChatClient(EndpointSettings(
        args.base_url, args.model, retry, args.temperature, args.max_tokens,
        extra_body=extra_body(args.extra_body), structured=args.structured_output,
        max_connection_failures=args.max_connection_failures, code_tool=args.tool_calls,
        seed=seed), "" if offline else key, limiter=limiter, key_variable=variable,
        offline=offline)


def _warn_unpriced(args: argparse.Namespace, prices: Mapping[str, object]) -> None:
    if not method_class(args.method).needs_llm:
        return
    models = [args.model] + list(role_models(args.role_model).values())
    from genotex.methods.resources import unpriced
    missing = unpriced(models, prices)
    if missing and args.max_cost is not None and not args.replay:
        raise UsageError(f"--max-cost needs a price for every model; none for "
                         f"{', '.join(missing)} (add them with --prices)")
    for model in missing:
        logger.warning("no price for model %s in the price table: its cost is reported as "
                       "n/a (add it with --prices)", model)


def _agent_settings(args: argparse.Namespace) -> AgentSettings:
    return AgentSettings(planning=not args.no_planning, reviewer=not args.no_reviewer,
                         domain_expert=not args.no_domain_expert,
                         domain_hints=args.domain_hints,
                         review_rounds=args.review_rounds, step_timeout=args.step_timeout,
                         memory_bytes=int(args.memory_gb * GIB),
                         role_models=role_models(args.role_model),
                         reuse_kernels=not args.no_kernel_reuse)


def check_scale_arguments(args: argparse.Namespace) -> None:
    """Refuse values of the scale flags that cannot work (a UsageError naming the flag)."""
    if args.jobs < 1:
        raise UsageError("-j/--jobs must be at least 1")
    if args.repeats < 1:
        raise UsageError("--repeats must be at least 1")
    if args.max_cost is not None and (math.isnan(args.max_cost) or args.max_cost < 0):
        raise UsageError("--max-cost must be a non-negative number of US dollars")
    if args.max_tokens_per_task < 0 or args.rpm < 0 or args.tpm < 0:
        raise UsageError("--max-tokens-per-task, --rpm and --tpm must not be negative")


def with_replayed_settings(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` with the original run's settings (``--replay``; see :data:`REPLAYED`).

    Raises
    ------
    InputFileError
        The folder keeps no settings (not a run folder of this program).
    """
    source = Path(args.replay)
    stored = read_json(source / CONFIG_NAME)
    replayed = argparse.Namespace(**vars(args))
    for name in REPLAYED:
        if name in stored:
            setattr(replayed, name, stored[name])
    return replayed


def _write_config(run_dir: Path, args: argparse.Namespace, **changes: Any) -> None:
    """Keep the settings a replay of ``run_dir`` needs (``run_config.json``)."""
    settings = {name: getattr(args, name, None) for name in REPLAYED}
    settings.update(changes)
    if args.replay:
        settings["replayed_from"] = str(Path(args.replay).resolve())
    atomic_write_json(run_dir / CONFIG_NAME, settings)  # creates run_dir, or says why not


def _run_repeats(args: argparse.Namespace, paths: Any, problems: Sequence[Any], key: str,
                 variable: str, options: RunOptions) -> List[RunSummary]:
    """Build the method and run it once, or once per repeat (budget shared)."""
    from genotex.evaluation.repeats import repeat_folder
    from genotex.methods.base import MethodConfig
    from genotex.methods.resources import load_price_table
    from genotex.methods.runner import run_method
    prices = load_price_table(Path(args.prices) if args.prices else None)
    _warn_unpriced(args, prices)
    limiter = RateLimiter(RateLimits(args.rpm, args.tpm))
    summaries: List[RunSummary] = []
    spent = 0.0
    for k in range(1, args.repeats + 1):
        seed = args.seed + k - 1
        # a repeat's requests carry its seed; a single run's only when it was a repeat
        request_seed = seed if args.repeats > 1 else getattr(args, "request_seed", None)
        config = MethodConfig(paths=paths, seed=seed, n_genes=args.genes,
                              chat=_chat_client(args, key, variable, limiter, request_seed),
                              prices=prices, agent=_agent_settings(args))
        method = build_method(args.method, config)
        if args.repeats == 1:
            run_options = options
        else:
            run_options = replace(
                options, run_dir=repeat_folder(options.run_dir, k),
                replay=repeat_folder(Path(args.replay), k) if args.replay else None,
                max_cost=None if options.max_cost is None else max(0.0, options.max_cost - spent))
            _write_config(run_options.run_dir, args, seed=seed, repeats=1,
                          request_seed=request_seed)
        summary = run_method(method, paths, problems, run_options)
        summaries.append(summary)
        spent += summary.budget.spent_usd if summary.budget else 0.0
        if summary.aborted:
            break
    return summaries


def _print_summary(summary: RunSummary, key: str) -> None:
    from genotex.methods.resources import format_summary
    if summary.aborted:
        print(f"run_agent.py: error: the run stopped: {redact(summary.aborted, [key])}",
              file=sys.stderr)
    print(format_summary(summary.report))
    if summary.budget is not None and summary.budget.stopped:
        print(summary.budget.message())
    if summary.resumed:
        print(f"{len(summary.resumed)} task(s) finished in an earlier run were kept")
    for failure in summary.failures():
        print(f"failed {failure.kind} {failure.key}: {redact(failure.reason, [key])}")
    print(f"prediction tree: {summary.tree}\nrun log and resource report: {summary.run_dir}")


@in_utf8_mode
@exits_quietly_on_interrupt
def main(argv: Optional[List[str]] = None) -> int:
    """Entry point; 0 when every task finished, 1 when some failed or the budget left some
    unstarted, 2 on bad usage or when the run stopped (the model endpoint cannot be used,
    a replay departed from its original)."""
    args = build_parser().parse_args(argv)
    from genotex.methods.cluster import SchedulerError
    from genotex.methods.runner import TREE_NAME, RunOptions
    from utils.problems import enumerate_problems, load_task_info, select_problems

    configure_logging(args.verbose)
    try:
        check_scale_arguments(args)
        if args.replay:
            args = with_replayed_settings(args)
        if not args.method:
            raise UsageError("--method is required (unless --replay gives it)")
    except (InputFileError, UsageError, FileNotFoundError) as exc:
        print(f"run_agent.py: error: {exc}", file=sys.stderr)
        return 2
    variable, key = api_key_source(args.api_key_env)
    key = "" if args.replay else key
    for handler in logging.getLogger().handlers:
        handler.addFilter(_RedactingFilter([key]))
    try:
        paths = paths_from_args(args)
        problems = select_problems(enumerate_problems(load_task_info(paths.task_info)),
                                   args.traits, args.problems)
        method_class(args.method)
        role_models(args.role_model)  # a bad role is a usage error before anything is written
        run_dir = Path(args.run_dir) if args.run_dir else paths.root / "runs" / args.method
        if args.replay and run_dir.resolve() == Path(args.replay).resolve():
            raise UsageError("--run-dir must differ from the --replay folder")
        options = RunOptions(run_dir=run_dir, force=args.force, time_limit=args.time_limit,
                             progress=not args.no_progress, secrets=[key] if key else [],
                             jobs=args.jobs, scheduler=args.scheduler, max_cost=args.max_cost,
                             max_tokens_per_task=args.max_tokens_per_task,
                             replay=Path(args.replay) if args.replay else None)
        _write_config(run_dir, args)
        summaries = _run_repeats(args, paths, problems, key, variable, options)
    except (InputFileError, UsageError, ValueError, FileNotFoundError, SchedulerError) as exc:
        print(f"run_agent.py: error: {redact(str(exc), [key])}", file=sys.stderr)
        return 2
    for summary in summaries:
        _print_summary(summary, key)
    target = run_dir if args.repeats > 1 else run_dir / TREE_NAME
    print(f"score it: python eval.py -p {target}")
    if any(s.aborted for s in summaries):
        return 2
    incomplete = any(s.failures() or (s.budget and s.budget.stopped) for s in summaries)
    return 1 if incomplete or len(summaries) < args.repeats else 0


if __name__ == "__main__":
    sys.exit(main())
