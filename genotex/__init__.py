"""Applications built on the library: programs that run many problems, score, generate.

Holds the ``regress`` runner, the ``evaluation`` of prediction trees, the
``synthetic`` cohort generator, the bundled ``demo`` and its build, the automated
``methods`` (baselines, the rules agent, GenoAgent), ``recompress``, ``croissant``,
the fixtures the tests and benchmarks share (``testing``) and the command lines
(``cli``, the top of the package: nothing else in it imports ``genotex.cli``).

May import: ``utils`` and ``tools``; never ``download`` (the data builders, a
sibling floor: see ``docs/architecture.md``), never ``tests`` or ``benchmarks``.
"""

import utils  # noqa: E402,F401  (first: refuses an interpreter older than the project needs)
