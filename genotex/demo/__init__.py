"""The bundled offline demo: its plan, notebooks, build, baseline and planted-gene recovery.

Modules
-------
plan
    The demo's synthetic plan (``plan.json``, shipped with the package).
cohorts
    The curator's decisions for each demo cohort (rows, converters, scale,
    mapping columns) and the prose that explains them.
notebooks
    Writes ``code/<Trait>/<cohort>.ipynb`` from those decisions (nbformat) and
    executes notebooks with nbclient, keeping the stored files deterministic.
baseline
    The deliberately naive prediction tree ``examples/baseline_prediction``
    (``examples/make_baseline.py`` is its command line).
recovery
    AUROC of ``output/regress`` against the planted genes of the synthetic truth,
    per problem category (``python -m genotex.cli.recovery``).
build
    Rebuilds the whole demo from scratch as library calls
    (``python -m genotex.cli.demo``).

See ``docs/demo.md``.

May import: ``utils``, ``tools``, ``genotex.synthetic``, ``genotex.regress`` and
``genotex.croissant``; the gene maps of the build come from the ``download``
builder run as a command, since ``genotex`` does not import ``download``.
"""
