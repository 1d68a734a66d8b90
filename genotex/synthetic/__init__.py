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

Use :func:`generate` (or the ``generate_synthetic.py`` CLI).
"""

from genotex.synthetic.generate import Sources, demo_task_info, generate
from genotex.synthetic.spec import Plan, PlanError, load_plan, plan_from_mapping

__all__ = ["Plan", "PlanError", "Sources", "demo_task_info", "generate", "load_plan",
           "plan_from_mapping"]
