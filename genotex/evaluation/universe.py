"""Gene universes of the analysis task: reference table genes as masks over one vocabulary.

A problem's universe U is the union of the canonical gene columns of the reference
linked table(s) it was analysed on (SPEC 6.3). Encoding every reference table once
over a shared :class:`GeneVocabulary` makes each union one boolean mask instead of a
set of ~18k strings per problem.
"""

from __future__ import annotations

from itertools import chain
from typing import Dict, Iterable, List, Sequence

import numpy as np
import pandas as pd


class GeneVocabulary:
    """Integer ids of labels (the canonical gene symbols of the reference tables, or
    the raw column labels of linked-table headers); ``labels[i]`` is id ``i``'s label."""

    def __init__(self) -> None:
        self.ids: Dict[str, int] = {}
        self.labels: List[str] = []

    def encode_many(self, tables: Sequence[Sequence[str]]) -> List[np.ndarray]:
        """Ids of the genes of several tables (one vectorized factorization)."""
        if not tables:
            return []
        sizes = [len(table) for table in tables]
        flat = np.fromiter(chain.from_iterable(tables), dtype=object, count=sum(sizes))
        codes, uniques = pd.factorize(flat)
        ids, labels = self.ids, self.labels
        fresh = [gene for gene in uniques if gene not in ids]
        ids.update(zip(fresh, range(len(labels), len(labels) + len(fresh))))
        labels.extend(fresh)
        global_ids = np.fromiter((ids[gene] for gene in uniques), dtype=np.intp,
                                 count=len(uniques))
        return np.split(global_ids[codes], np.cumsum(sizes)[:-1])


class GeneUniverse:
    """The genes of one or more reference tables, as a mask over a vocabulary.

    Supports ``len()``, ``in`` and ``intersection``, which is all
    :func:`utils.metrics.gene_list_metrics` needs.
    """

    def __init__(self, vocabulary: GeneVocabulary, parts: Sequence[np.ndarray]) -> None:
        self._ids = vocabulary.ids
        self._mask = np.zeros(len(self._ids), dtype=bool)
        for part in parts:
            self._mask[part] = True
        self._size = int(np.count_nonzero(self._mask))

    def __len__(self) -> int:
        return self._size

    def __contains__(self, gene: object) -> bool:
        index = self._ids.get(gene)  # type: ignore[arg-type]
        return index is not None and index < self._mask.size and bool(self._mask[index])

    def intersection(self, genes: Iterable[str]) -> set:
        """The ``genes`` that belong to the universe."""
        return {gene for gene in genes if gene in self}
