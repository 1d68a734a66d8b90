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
:mod:`utils.notebook_namespace`). These names are loaded on first use (a module
``__getattr__``, PEP 562), so importing an engine module (``import
tools.statistics.engine``) does not load the compatibility surface.

May import: ``utils`` and this package; never ``tools.preprocess``, ``download``
or ``genotex``.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any, Dict, List, Optional

_SURFACE = ("tools.statistics.compat", "utils.notebook_namespace")
_names: Optional[Dict[str, Any]] = None


def _public_names() -> Dict[str, Any]:
    """The compatibility names and the leaked notebook names (imported once)."""
    global _names
    if _names is None:
        names: Dict[str, Any] = {}
        for module in map(importlib.import_module, _SURFACE):
            names.update((name, getattr(module, name)) for name in module.__all__)
        _names = names
    return _names


def __getattr__(name: str) -> Any:
    """``__all__`` and the compatibility names, loaded on first access."""
    if name == "__all__":
        return list(_public_names())
    if name.startswith("__") or importlib.util.find_spec(f"{__name__}.{name}") is not None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    names = _public_names()
    if name in names:
        return names[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(_public_names()))
