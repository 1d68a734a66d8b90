"""Statistical analysis (SPEC 5): the engine ``regress.py`` runs, and its public names.

``from tools.statistics import *`` gives the original GenoTEX names (SPEC
Appendix A), which call the same engine as ``regress.py``
(:mod:`tools.statistics.compat`). The engine's modules, one concern each:

* :mod:`~tools.statistics.engine`: one problem end to end, the result document;
* :mod:`~tools.statistics.models`: the registry of statistical models (``lasso``,
  ``lmm``, ...), which the engine and the compatibility names both run;
  :mod:`~tools.statistics.inputs`: what a model receives;
* :mod:`~tools.statistics.batch`, :mod:`~tools.statistics.standardize`,
  :mod:`~tools.statistics.residualize`, :mod:`~tools.statistics.adjust`: data
  preparation, covariates unpenalized, and the path decision;
* :mod:`~tools.statistics.lasso`, :mod:`~tools.statistics.kkt_screen`: certified
  Lasso paths; :mod:`~tools.statistics.lmm`, :mod:`~tools.statistics.reml`,
  :mod:`~tools.statistics.gls`, :mod:`~tools.statistics.fdr`: the mixed model, its
  variance ratio and its tests;
* :mod:`~tools.statistics.ranking`, :mod:`~tools.statistics.crossval`,
  :mod:`~tools.statistics.two_step`, :mod:`~tools.statistics.cohort_cache`.

The star-import also gives the module and typing names the original leaked and
existing notebooks use without importing them (``pd``, ``np``, ``json``, ...;
:mod:`utils.notebook_namespace`).

May import: ``utils`` and this package; never ``tools.preprocess``, ``download``
or ``genotex``.
"""

from tools.statistics.compat import *  # noqa: F401,F403
from tools.statistics.compat import __all__ as COMPAT_NAMES
from utils.notebook_namespace import *  # noqa: F401,F403 - the names the original leaked
from utils.notebook_namespace import NOTEBOOK_NAMES

__all__ = [*COMPAT_NAMES, *NOTEBOOK_NAMES]
