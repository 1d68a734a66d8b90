"""Automated methods: raw inputs (``input/`` + ``metadata/``) -> a prediction tree.

The registry maps each ``run_agent.py --method`` name to its class (imported
only when chosen, so the rules agent never loads Jupyter):

==============  ===========================================================
``random``      data-free: a seeded random gene list per problem
``llm-no-data`` data-free: a model is asked for each problem's genes
``rules``       offline, deterministic: every role played by rules
``genoagent``   the paper's multi-agent LLM method in a sandboxed kernel
==============  ===========================================================

Add a method: a module here with a :class:`~genotex.methods.base.Method`
subclass (its ``name`` the registered name) and one line in :data:`METHODS`, the
project's one registry style (:class:`utils.registry.Registry`, shared with the
statistical models). :func:`build_method` builds one from a
:class:`~genotex.methods.base.MethodConfig` (and keeps the config, so worker
processes can build it again).

May import: ``utils``, ``tools``, ``genotex.regress`` (the statistics run as
``regress.py`` runs them) and ``genotex.demo.notebooks`` (notebooks stored like the
demo's); never ``download``, save the retry policy of ``download.fetch`` that the
LLM client still takes until the HTTP client moves to ``utils`` (issue 26).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Type

from utils.registry import Registry

if TYPE_CHECKING:  # the registry stays light: run_agent.py --help lists the names
    from genotex.methods.base import Method, MethodConfig

#: ``--method`` name -> ``module:Class`` (imported when chosen).
METHODS = Registry("method", {
    "random": "genotex.methods.random_baseline:RandomGenes",
    "llm-no-data": "genotex.methods.llm_no_data:LLMWithoutData",
    "rules": "genotex.methods.rules.method:RulesAgent",
    "genoagent": "genotex.methods.genoagent.method:GenoAgent",
}, base="genotex.methods.base:Method")


def method_names() -> List[str]:
    """The registered method names, in registry order."""
    return METHODS.names()


def method_class(name: str) -> Type["Method"]:
    """The class of a registered method.

    Raises
    ------
    KeyError
        For an unknown name (the message lists the known ones).
    """
    return METHODS.load(name)


def build_method(name: str, config: "MethodConfig") -> "Method":
    """The method ``name`` built from ``config`` (kept as ``method.config``)."""
    method = method_class(name).from_config(config)
    method.config = config
    return method
