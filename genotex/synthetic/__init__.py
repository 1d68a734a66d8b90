"""Synthetic GenoTEX cohorts: format-faithful GEO / Xena files with a planted truth.

Modules
-------
spec
    The declarative plan (genes, traits, platforms, cohorts) and its loader.
genes
    The gene universe, aliases and GeneIDs, taken from the project's metadata.
model
    The planted statistical model (trait liability, covariates, batch, missing).
platform
    Probe designs of synthetic GEO platforms.
text
    Sample annotations in varied spellings.
ids
    GSM accessions and TCGA barcodes.
rng, files
    Named random streams; reproducible gzip and number formatting.
geo_writer, xena_writer
    File renderers; ``cohorts`` writes one cohort; ``generate`` a whole tree.

options
    The choices of the plan's fields (sources, scales, ...), light to import.

Use :func:`generate` (or the ``generate_synthetic.py`` CLI). The names below are
imported on first use, so that importing a light module of the package (``options``,
for a command line's ``--help``) does not load the generator and NumPy.

May import: ``utils`` and, for the reference tree of ``--preset`` only
(``reference``), the linking, bias and record steps of ``tools.preprocess``; the
files themselves are written without the ``tools`` readers, so a reader's mistake
cannot hide in the generator. Nothing else of ``genotex``.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {"Sources": "generate", "demo_task_info": "generate", "generate": "generate",
            "Plan": "spec", "PlanError": "spec", "load_plan": "spec",
            "plan_from_mapping": "spec", "read_sources": "generate"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import the submodule defining ``name`` and bind all its exported names here.

    Binding them all at once matters for ``generate``: importing the submodule of that
    name sets the package attribute ``generate`` to the module, which the function
    then replaces.
    """
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    source = _EXPORTS[name]
    module = importlib.import_module(f"{__name__}.{source}")
    for export, where in _EXPORTS.items():
        if where == source:
            globals()[export] = getattr(module, export)
    return globals()[name]
