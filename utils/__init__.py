"""The ground floor: what every other package agrees on, importing nothing above it.

Holds where files live (``paths``), all file input and output (``io``, a
package), what a reader checks before trusting a file (``input_safety``), errors
that name the file (``errors``), the file formats (``schemas``), the problem list
(``problems``), the cohort-selection rule ``regress.py`` and ``eval.py`` share
(``selection``), the domain rules written once (``columns``), gene-symbol maps
(``symbols``), the committed TCGA cohort table (``tcga_cohorts``), pure metrics
(``metrics``), logging and progress bars (``logs``), seeds, cores and worker
lifetime (``runtime``), written precision (``precision``), and the compatibility
shims of the original project (``utils.utils``, ``notebook_namespace``).

May import: the standard library and third-party packages only; never ``tools``,
``download`` or ``genotex``. Within it, ``utils.io`` imports only ``errors``,
``input_safety`` and ``paths`` (``tests/project/test_architecture.py``).
"""
