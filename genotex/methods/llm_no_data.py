"""The ``llm-no-data`` baseline: a model names each problem's genes without any data.

The paper's "o1 without data" baseline: one request per problem, asking for the
official symbols of the genes most associated with the trait (accounting for
the condition), strongest first, as a JSON array. The reply's symbols are
mapped through the synonym map (unknown symbols dropped, duplicates removed)
and written as the problem's ranked list. No input cohort is read.
"""

from __future__ import annotations

import time
from typing import List, Mapping

from genotex.methods.base import (DONE, FAILED, PROBLEM, Method, MethodConfig, RunContext,
                                  TaskOutcome)
from genotex.methods.llm.client import ChatClient
from genotex.methods.llm.exchange import ask
from genotex.methods.llm.replies import gene_symbols_from_reply
from genotex.methods.resources import Price
from genotex.methods.results import ranked_gene_document, write_result
from utils.problems import Problem
from utils.symbols import load_synonym_map, normalize_symbols

ROLE = "Geneticist"
SYSTEM_PROMPT = ("You are an expert in human genetics. You answer from your knowledge of "
                 "the literature only; you have no dataset.")


def readable(name: str) -> str:
    """A trait folder name as words (``Crohns_Disease`` -> ``Crohns Disease``)."""
    return name.replace("_", " ")


def gene_question(problem: Problem, n_genes: int) -> str:
    """The request for one problem."""
    if problem.condition is None:
        subject = f"the trait '{readable(problem.trait)}'"
    else:
        subject = (f"the trait '{readable(problem.trait)}' when accounting for the condition "
                   f"'{readable(problem.condition)}' (genes associated with the trait beyond "
                   "what the condition explains)")
    return (f"Which human genes are most significantly associated with {subject} in gene "
            f"expression data? List up to {n_genes} official HGNC gene symbols, the most "
            "strongly associated first. Answer with a JSON array of strings only, e.g. "
            '["TNF", "IL6"].')


class LLMWithoutData(Method):
    """Ask a model for each problem's genes (see module docstring)."""

    name = "llm-no-data"
    needs_llm = True

    def __init__(self, chat: ChatClient, synonyms: Mapping[str, str],
                 prices: Mapping[str, Price], n_genes: int = 50) -> None:
        self.chat = chat
        self.synonyms = synonyms
        self.prices = prices
        self.n_genes = n_genes

    @classmethod
    def from_config(cls, config: MethodConfig) -> "LLMWithoutData":
        """Endpoint, prices and the run's synonym map."""
        return cls(config.require_chat(cls.name),
                   load_synonym_map(config.paths.gene_synonyms), config.prices, config.n_genes)

    def official_symbols(self, symbols: List[str]) -> List[str]:
        """Symbols mapped to official ones, unknown ones dropped, first rank kept."""
        mapped = normalize_symbols(symbols, self.synonyms)
        return list(dict.fromkeys(s for s in mapped if s is not None))[:self.n_genes]

    def answer_problem(self, problem: Problem, ctx: RunContext) -> TaskOutcome:
        """One request; the listed genes become the result."""
        start = time.monotonic()
        messages = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": gene_question(problem, self.n_genes)}]
        reply, usage = ask(self.chat, messages, ctx.log, str(problem), ROLE, self.prices,
                           deadline=ctx.deadline(start))
        listed = gene_symbols_from_reply(reply.text)
        genes = self.official_symbols(listed)
        if not genes:
            return TaskOutcome(PROBLEM, str(problem), FAILED,
                               f"the reply named no known gene symbol ({len(listed)} listed)",
                               usage=usage)
        write_result(ctx.regress_root, problem,
                     ranked_gene_document(genes, self.name, {"model": reply.model,
                                                             "listed": len(listed)}))
        return TaskOutcome(PROBLEM, str(problem), DONE, usage=usage)
