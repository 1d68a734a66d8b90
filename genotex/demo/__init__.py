"""The bundled offline demo: its notebooks, its build and its planted-gene recovery.

Modules
-------
cohorts
    The curator's decisions for each demo cohort (rows, converters, scale,
    mapping columns) and the prose that explains them.
notebooks
    Writes ``code/<Trait>/<cohort>.ipynb`` from those decisions (nbformat) and
    executes notebooks with nbclient, keeping the stored files deterministic.
recovery
    AUROC of ``output/regress`` against the planted genes of the synthetic truth,
    per problem category (``python -m genotex.cli.recovery``).
build
    Rebuilds the whole demo from scratch (``python -m genotex.cli.demo``).

See ``docs/demo.md``.
"""
