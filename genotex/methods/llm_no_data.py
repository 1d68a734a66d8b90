"""The ``llm-no-data`` baseline: a model names each problem's genes without any data.

The paper's "o1 without data" baseline: one request per problem, asking for the
official symbols of the genes most associated with the trait (accounting for
the condition), strongest first, as a JSON array. The reply's symbols are
mapped through the synonym map (unknown symbols dropped, duplicates removed)
and written as the problem's ranked list. No input cohort is read.
"""

from __future__ import annotations

import time
from typing import Mapping

from genotex.methods.base import (DONE, FAILED, PROBLEM, Method, MethodConfig, RunContext,
                                  TaskOutcome, failed_outcome)
from genotex.methods.llm.client import ChatClient, ChatReply, ChatRequest
from genotex.methods.llm.exchange import Exchange, Reading
from genotex.methods.llm.genelists import GeneReading, as_json, read_gene_list
from genotex.methods.llm.reading import answer_text
from genotex.methods.resources import Price
from genotex.methods.results import ranked_gene_document, write_result
from utils.problems import Problem
from utils.symbols import load_synonym_map


ROLE = "Geneticist"
SYSTEM_PROMPT = ("You are an expert in human genetics. You answer from your knowledge of "
                 "the literature only; you have no dataset.")
#: Asks for the list again when an answer names no known symbol (or was cut off).
GENE_RETRIES = 1
GENES_SCHEMA = {
    "name": "genes",
    "schema": {"type": "object", "properties": {
        "genes": {"type": "array", "items": {"type": "string"}}}, "required": ["genes"]},
    "example": {"genes": ["TNF", "IL6"]},
}


def readable(name: str) -> str:
    """A trait folder name as words (``Crohns_Disease`` -> ``Crohns Disease``)."""
    return name.replace("_", " ")


def _header(problem: Problem) -> str:
    return f"REQUEST: genes\nTASK: {problem}\n\n"


def gene_question(problem: Problem, n_genes: int) -> str:
    """The request for one problem (machine-readable header lines first)."""
    if problem.condition is None:
        subject = f"the trait '{readable(problem.trait)}'"
    else:
        subject = (f"the trait '{readable(problem.trait)}' when accounting for the condition "
                   f"'{readable(problem.condition)}' (genes associated with the trait beyond "
                   "what the condition explains)")
    return (_header(problem) +
            f"Which human genes are most significantly associated with {subject} in gene "
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

    def prepare(self, ctx: RunContext) -> None:
        """Probe the endpoint before the first problem (a dead one stops the run)."""
        ctx.log.write("probe", endpoint="not contacted (replaying a run)" if ctx.replaying
                      else self.chat.probe())

    def _read(self, reply: ChatReply) -> Reading[GeneReading]:
        reading = read_gene_list(answer_text(reply.text), self.synonyms)
        return Reading(reading if reading.symbols else None,
                       f"the answer named no known gene symbol ({reading.listed} listed)")

    def answer_problem(self, problem: Problem, ctx: RunContext) -> TaskOutcome:
        """One request (asked again once when unusable); the listed genes become the result."""
        start = time.monotonic()
        exchange = Exchange.for_task(ctx, self.chat, str(problem), self.prices,
                                     ctx.deadline(start))
        request = ChatRequest([{"role": "system", "content": SYSTEM_PROMPT},
                               {"role": "user", "content": gene_question(problem, self.n_genes)}],
                              schema=GENES_SCHEMA)
        try:
            reading, reply = exchange.ask_until(
                ROLE, request, self._read,
                lambda note: f"{_header(problem)}Your previous answer could not be used: "
                             f"{note}. Answer with a JSON array of official HGNC symbols only.",
                GENE_RETRIES)
        except Exception as exc:  # noqa: BLE001 - keep the accounting of a failed problem
            return failed_outcome(PROBLEM, str(problem), exc, time.monotonic() - start,
                                  exchange.usage)
        genes = reading.value
        if genes is not None:
            ctx.log.write("genes", task=str(problem), **as_json(genes))
        if genes is None:
            return TaskOutcome(PROBLEM, str(problem), FAILED,
                               f"{reading.problem} (asked {GENE_RETRIES + 1} times)",
                               time.monotonic() - start, exchange.usage)
        symbols = genes.symbols[:self.n_genes]
        write_result(ctx.regress_root, problem,
                     ranked_gene_document(symbols, self.name, {"model": reply.model,
                                                               "listed": genes.listed,
                                                               "rejected": len(genes.rejected)}))
        return TaskOutcome(PROBLEM, str(problem), DONE, seconds=time.monotonic() - start,
                           usage=exchange.usage)
