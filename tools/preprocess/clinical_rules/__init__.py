"""The clinical step of a GEO series, answered by rules (no model, no randomness).

The GenoTEX notebooks ask a person (or an LLM) three questions per GEO series
(SPEC 4.5): which characteristics row holds the trait, the age and the sex,
and how each raw cell (``"disease state: rheumatoid arthritis"``, ``"age:
49"``, ``"Sex: F"``) converts to a number. This package answers them with
readable rules -- word lists (:mod:`.words`), a trait lexicon written from
general biomedical knowledge for every GenoTEX trait (:mod:`.knowledge`, data
file ``trait_lexicon.toml``), a handful of regular expressions, the curators'
conventions (:mod:`.values`), and for the trait row a ranking of named
features whose generic weights were fitted to real curators' decisions
(:mod:`.ranker`, data file ``row_model.json``) -- so the same input always
gives the same answer, with a confidence and its evidence (:mod:`.decisions`).
The ``rules`` method (:mod:`genotex.methods.rules`) plays the curator with it;
GenoAgent's Domain Expert reads its proposal as a hint; notebooks, agents'
code and tests can call it too.

Functions
---------
* :func:`infer_clinical_rows` -- rows for trait, age and gender from the
  "unique values by row" dictionary of the characteristics table.
* :func:`infer_clinical_values` -- one converted value per raw cell for
  ``"trait"`` (1 case / 0 control / None, or a float for continuous traits),
  ``"age"`` (years) and ``"gender"`` (0 female / 1 male).
* :func:`infer_clinical_rows_with_sample_lines` -- also searches titles,
  source names, descriptions and ``_ch2`` characteristics, and says which
  ``prefixes_b`` to re-read the table with; :func:`sample_lines_from_matrix`
  builds its input, :func:`convert_sample_line` converts such a line.
* :func:`decide_clinical_rows` -- the three rows with a confidence, the
  evidence and the conversion of each trait value (:class:`ClinicalDecisions`).
* :func:`classify_trait_cell`, :func:`explain_value` -- one cell's decision and
  the evidence behind it.
* :func:`trait_knowledge` -- the lexicon entry of a trait.

Measured accuracy and known failure modes: ``docs/preprocessing_clinical.md``
and ``benchmarks/bench_rules_clinical.py``.

May import: ``utils`` and ``tools.preprocess``.
"""

from tools.preprocess.clinical_rules.decisions import (ClinicalDecisions, RowDecision,
                                                       decide_clinical_rows)
from tools.preprocess.clinical_rules.evidence import classify_trait_cell, explain_value
from tools.preprocess.clinical_rules.knowledge import (TraitKnowledge, lexicon_sources,
                                                       trait_knowledge)
from tools.preprocess.clinical_rules.lexicon import TraitLexicon, trait_lexicon
from tools.preprocess.clinical_rules.quantities import parse_age, parse_number
from tools.preprocess.clinical_rules.rows import infer_clinical_rows
from tools.preprocess.clinical_rules.sample_lines import (convert_sample_line,
                                                          infer_clinical_rows_with_sample_lines,
                                                          sample_lines_from_matrix)
from tools.preprocess.clinical_rules.values import (ValueDecision, infer_clinical_values,
                                                    row_conversions)

__all__ = [
    "infer_clinical_rows",
    "infer_clinical_values",
    "decide_clinical_rows",
    "ClinicalDecisions",
    "RowDecision",
    "row_conversions",
    "ValueDecision",
    "trait_knowledge",
    "TraitKnowledge",
    "lexicon_sources",
    "infer_clinical_rows_with_sample_lines",
    "sample_lines_from_matrix",
    "convert_sample_line",
    "classify_trait_cell",
    "explain_value",
    "parse_age",
    "parse_number",
    "trait_lexicon",
    "TraitLexicon",
]
