"""The ``rules`` method: an offline, deterministic agent that plays every role with rules.

Per cohort it does what a curator's notebook does (SPEC 7), deciding each step
by rule instead of by reading: the clinical rows and converters come from
:mod:`tools.preprocess.clinical_rules`; the expression scale, the probe
annotation columns and the symbol normalization from :mod:`.expression`;
linking, missing values, bias and the cohort record from :mod:`.tables`. The
statistics are then run exactly as ``regress.py`` runs them.

May import: ``utils``, ``tools`` (the preprocess library and its clinical rules)
and ``genotex.methods`` / ``genotex.regress``.
"""
