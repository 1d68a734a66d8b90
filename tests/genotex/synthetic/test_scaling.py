"""The generator's set-up is linear in the size of the gene catalog (counted, not timed).

The work of building the catalog, the platform designs and the shared biology is
counted as the Python lines executed in ``genotex/synthetic`` plus the elements fed
to every ``set(...)`` built there (rebuilding a set inside a loop, the issue 27
defect, is invisible to a line count: it runs in C). Quadrupling the catalog must
not multiply that work by more than about four (a quadratic step gives 16).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import genotex.synthetic.genes as genes_module
import genotex.synthetic.model as model_module
import genotex.synthetic.platform as platform_module
from genotex.synthetic.generate import design_platforms
from genotex.synthetic.genes import build_catalog
from genotex.synthetic.model import build_biology
from genotex.synthetic.spec import plan_from_mapping

PACKAGE = str(Path(genes_module.__file__).parent)


class CountingSet(set):
    """A ``set`` that counts the elements it is built from."""

    consumed = 0

    def __init__(self, iterable=()):
        items = list(iterable)
        CountingSet.consumed += len(items)
        super().__init__(items)


def catalog_inputs(n: int):
    """A synonym map of ``n`` official symbols (two aliases each), task info, GeneIDs, plan."""
    official = [f"G{k:06d}" for k in range(n)]
    synonyms = {g: g for g in official}
    for k, g in enumerate(official):
        synonyms[f"A{k:06d}X"] = g
        synonyms[f"B{k:06d}Y"] = g
    traits = {f"Trait_{t:02d}": {"related_genes": official[t * n // 40:(t + 1) * n // 40],
                                 "conditions": ["Age"]} for t in range(10)}
    entrez = {str(1000 + k): g for k, g in enumerate(official)}
    plan = plan_from_mapping({
        "seed": 3,
        "genes": {"known_per_trait": n, "random_background": n // 2},
        "traits": {t: {"n_known": 3, "n_novel": 2} for t in traits},
        "platforms": {"GPL91001": {"style": "affymetrix", "coverage": 0.9},
                      "GPL91002": {"style": "illumina", "coverage": 0.6,
                                   "probes_per_gene": 1.7}},
        "cohorts": [{"id": "GSE9100001", "trait": "Trait_00", "platform": "GPL91001"},
                    {"id": "GSE9100002", "trait": "Trait_01", "platform": "GPL91002"}]})
    return plan, synonyms, traits, entrez


def counted_work(n: int, monkeypatch) -> int:
    """Lines run in genotex/synthetic + set elements built there, for a catalog of ``n``."""
    plan, synonyms, traits, entrez = catalog_inputs(n)
    for module in (genes_module, model_module, platform_module):
        monkeypatch.setattr(module, "set", CountingSet, raising=False)
    CountingSet.consumed = 0
    lines = 0

    def local(frame, event, arg):
        nonlocal lines
        if event == "line":
            lines += 1
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename.startswith(PACKAGE) else None

    sys.settrace(tracer)
    try:
        catalog = build_catalog(plan, synonyms, traits, entrez)
        biology = build_biology(plan, catalog)
        designs = design_platforms(plan, catalog, biology)
    finally:
        sys.settrace(None)
    assert len(catalog.universe) > n // 2 and len(designs) == 2
    return lines + CountingSet.consumed


@pytest.mark.slow
def test_catalog_platforms_and_biology_are_linear(monkeypatch):
    small = counted_work(2000, monkeypatch)
    large = counted_work(8000, monkeypatch)
    assert large <= 4.6 * small, (small, large)


def test_a_set_rebuilt_in_a_loop_is_counted(monkeypatch):
    """The counter sees the defect this test guards against (a set built per element)."""
    monkeypatch.setattr(genes_module, "set", CountingSet, raising=False)

    def work(n):
        universe = [str(k) for k in range(n)]
        CountingSet.consumed = 0
        exec("[g for g in universe if g in set(universe)]",
             {"set": genes_module.set, "universe": universe})
        return CountingSet.consumed

    assert work(400) == 16 * work(100)
