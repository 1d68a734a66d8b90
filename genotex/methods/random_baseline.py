"""The ``random`` baseline: a seeded random gene list per problem, no data read.

Like the paper's random baseline, it shows the score of knowing nothing. The
gene pool is every official symbol of the synonym map (``gene_synonym.json``
values); each problem draws ``n_genes`` of them without replacement from a
generator seeded by ``(seed, problem)``, so a run is reproducible and the
problems are independent of each other and of the order they run in.
"""

from __future__ import annotations

import random
from typing import List

from genotex.methods.base import DONE, PROBLEM, Method, MethodConfig, RunContext, TaskOutcome
from genotex.methods.results import ranked_gene_document, write_result
from utils.problems import Problem
from utils.symbols import load_synonym_map


class RandomGenes(Method):
    """Random ranked gene lists (see module docstring)."""

    name = "random"

    def __init__(self, gene_pool: List[str], n_genes: int = 50, seed: int = 42) -> None:
        self.gene_pool = sorted(set(gene_pool))
        self.n_genes = n_genes
        self.seed = seed

    @classmethod
    def from_config(cls, config: MethodConfig) -> "RandomGenes":
        """Pool from the run's synonym map."""
        return cls(list(load_synonym_map(config.paths.gene_synonyms).values()),
                   config.n_genes, config.seed)

    def genes_for(self, problem: Problem) -> List[str]:
        """The problem's list (same seed and problem -> same list)."""
        rng = random.Random(f"{self.seed}|{problem}")
        return rng.sample(self.gene_pool, min(self.n_genes, len(self.gene_pool)))

    def answer_problem(self, problem: Problem, ctx: RunContext) -> TaskOutcome:
        """Write the random list as the problem's result."""
        genes = self.genes_for(problem)
        write_result(ctx.regress_root, problem,
                     ranked_gene_document(genes, self.name, {"seed": self.seed}))
        return TaskOutcome(PROBLEM, str(problem), DONE)
