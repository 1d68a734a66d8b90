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
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence

from download.fetch import RetryPolicy
from genotex.cli.regress import SELECTION_HELP, UsageError
from genotex.methods import method_class, method_names
from genotex.methods.genoagent.settings import GIB, ROLES, AgentSettings
from genotex.methods.llm.client import (RESERVED_KEYS, STRUCTURED_LEVELS, ChatClient,
                                        EndpointSettings, redact)
from utils.logs import add_verbosity_argument, configure_logging
from utils.paths import add_path_arguments, paths_from_args

# The methods, their runner and the problem list (numpy, pandas) are imported in
# main(), after the arguments are parsed, so that --help comes back at once.

logger = logging.getLogger("run_agent")

ENV_BASE_URL = "GENOTEX_LLM_BASE_URL"
ENV_MODEL = "GENOTEX_LLM_MODEL"
ENV_API_KEY = "GENOTEX_LLM_API_KEY"
FALLBACK_API_KEY = "OPENAI_API_KEY"


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        description="Run an automated method from the raw inputs (input/ + metadata/) to a "
                    "prediction tree in <run-dir>/prediction, with a run log and a resource "
                    "report; finished tasks of an earlier run are skipped.",
        epilog="The API key is read from the environment only (never a flag).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--method", required=True, choices=method_names())
    parser.add_argument("--run-dir", metavar="PATH",
                        help="run folder (default: <root>/runs/<method>)")
    parser.add_argument("--traits", nargs="+", metavar="TRAIT",
                        help="every problem of these traits; " + SELECTION_HELP)
    parser.add_argument("--problems", nargs="+", metavar="TRAIT|CONDITION",
                        help="these problems (their cohorts are preprocessed too); without "
                             "--traits and --problems, every problem of the task info")
    parser.add_argument("--force", action="store_true",
                        help="start the run folder afresh instead of resuming")
    parser.add_argument("--time-limit", type=float, default=0.0, metavar="SECONDS",
                        help="wall time per cohort / problem task (default: none)")
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")
    parser.add_argument("--seed", type=int, default=42, help="seed of the random baseline")
    parser.add_argument("--genes", type=int, default=50, metavar="N",
                        help="genes per problem of the data-free baselines (default: 50)")
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
    llm.add_argument("--temperature", type=float, default=None)
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


def api_key(variable: str, environ: Optional[Dict[str, str]] = None) -> str:
    """The key from ``variable`` (the default variable falls back to ``OPENAI_API_KEY``)."""
    environ = os.environ if environ is None else environ
    value = environ.get(variable, "")
    if not value and variable == ENV_API_KEY:
        value = environ.get(FALLBACK_API_KEY, "")
    return value


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


def _chat_client(args: argparse.Namespace, key: str) -> Optional[ChatClient]:
    if not method_class(args.method).needs_llm:
        return None
    if not args.base_url or not args.model:
        raise UsageError(f"--method {args.method} needs --base-url and --model "
                         f"(or {ENV_BASE_URL} / {ENV_MODEL})")
    retry = RetryPolicy(max_attempts=max(1, args.max_attempts), backoff_base=2.0,
                        backoff_max=60.0, max_retry_after=120.0, timeout=args.request_timeout)
    return ChatClient(EndpointSettings(
        args.base_url, args.model, retry, args.temperature, args.max_tokens,
        extra_body=extra_body(args.extra_body), structured=args.structured_output,
        max_connection_failures=args.max_connection_failures, code_tool=args.tool_calls), key)


def _warn_unpriced(args: argparse.Namespace, prices: Mapping[str, object]) -> None:
    if not method_class(args.method).needs_llm:
        return
    models = [args.model] + list(role_models(args.role_model).values())
    from genotex.methods.resources import unpriced
    for model in unpriced(models, prices):
        logger.warning("no price for model %s in the price table: its cost is reported as "
                       "n/a (add it with --prices)", model)


def _agent_settings(args: argparse.Namespace) -> AgentSettings:
    return AgentSettings(planning=not args.no_planning, reviewer=not args.no_reviewer,
                         domain_expert=not args.no_domain_expert,
                         domain_hints=args.domain_hints,
                         review_rounds=args.review_rounds, step_timeout=args.step_timeout,
                         memory_bytes=int(args.memory_gb * GIB),
                         role_models=role_models(args.role_model))


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point; 0 when every task finished, 1 when some failed, 2 on bad usage or when
    the run stopped (the model endpoint cannot be used)."""
    args = build_parser().parse_args(argv)
    from genotex.methods.base import MethodConfig
    from genotex.methods.resources import format_summary, load_price_table
    from genotex.methods.runner import TREE_NAME, RunOptions, run_method
    from utils.errors import InputFileError
    from utils.problems import enumerate_problems, load_task_info, select_problems

    key = api_key(args.api_key_env)
    configure_logging(args.verbose)
    for handler in logging.getLogger().handlers:
        handler.addFilter(_RedactingFilter([key]))
    try:
        paths = paths_from_args(args)
        problems = select_problems(enumerate_problems(load_task_info(paths.task_info)),
                                   args.traits, args.problems)
        prices = load_price_table(Path(args.prices) if args.prices else None)
        config = MethodConfig(paths=paths, seed=args.seed, n_genes=args.genes,
                              chat=_chat_client(args, key), prices=prices,
                              agent=_agent_settings(args))
        _warn_unpriced(args, prices)
        method = method_class(args.method).from_config(config)
    except (InputFileError, UsageError, ValueError) as exc:
        print(f"run_agent.py: error: {redact(str(exc), [key])}", file=sys.stderr)
        return 2
    run_dir = Path(args.run_dir) if args.run_dir else paths.root / "runs" / args.method
    options = RunOptions(run_dir=run_dir, force=args.force, time_limit=args.time_limit,
                         progress=not args.no_progress, secrets=[key] if key else [])
    try:
        summary = run_method(method, paths, problems, options)
    except InputFileError as exc:
        print(f"run_agent.py: error: {redact(str(exc), [key])}", file=sys.stderr)
        return 2
    if summary.aborted:
        print(f"run_agent.py: error: the run stopped: {redact(summary.aborted, [key])}",
              file=sys.stderr)
    print(format_summary(summary.report))
    if summary.resumed:
        print(f"{len(summary.resumed)} task(s) finished in an earlier run were kept")
    for failure in summary.failures():
        print(f"failed {failure.kind} {failure.key}: {redact(failure.reason, [key])}")
    print(f"prediction tree: {summary.tree}\nrun log and resource report: {summary.run_dir}\n"
          f"score it: python eval.py -p {summary.run_dir / TREE_NAME}")
    if summary.aborted:
        return 2
    return 1 if summary.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
