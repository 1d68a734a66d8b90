"""The choices of a synthetic plan's fields (docs/synthetic.md), in one light module.

:mod:`genotex.synthetic.spec` validates plans against them; the command line offers them
in ``--help`` without importing the generator.
"""

SOURCES = ("geo", "tcga")
TRAIT_KINDS = ("binary", "continuous")
PLATFORM_STYLES = ("affymetrix", "illumina", "agilent", "rnaseq")
SCALES = ("log2", "linear", "counts")
TRAIT_FIELDS = ("characteristics", "source_name", "title")
COUNT_IDS = ("entrez", "symbol")
#: The planted truth's file name (kept beside the metadata, never in a tree under test).
TRUTH_NAME = "synthetic_truth.json"
#: The names of the whole-benchmark presets (``--preset``; defined in
#: :mod:`genotex.synthetic.presets`, which checks it holds exactly these).
PRESET_NAMES = ("full-size",)
