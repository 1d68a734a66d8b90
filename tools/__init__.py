"""GenoTEX analysis library: preprocessing (``tools.preprocess``) and statistics
(``tools.statistics``) used by notebooks, agents and scripts.

Holds two sibling packages that never import each other: ``preprocess`` (raw GEO
and TCGA files to gene, clinical and linked tables; the clinical rules) and
``statistics`` (the engine ``regress.py`` runs). Each ``__init__`` is the original
star-import surface of GenoTEX (SPEC Appendix A).

May import: ``utils`` and third-party packages; never ``download`` or ``genotex``
(``tests/project/test_architecture.py``).
"""

import utils  # noqa: E402,F401  (first: refuses an interpreter older than the project needs)
