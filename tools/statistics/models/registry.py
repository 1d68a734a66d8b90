"""The registry of statistical models: names -> model classes.

A model is one module of this package whose class is decorated with
:func:`register_model`; the modules are imported on first use of the registry,
so a new file here is all it takes. Code outside the package (a plug-in, a
test) registers its models the same way, before the registry is asked for them.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Callable, Dict, List, Mapping, Optional, Type, TypeVar

from tools.statistics.inputs import AUTO, AnalysisConfig
from tools.statistics.models.base import EstimatorModel, StatisticalModel

NOT_MODELS = frozenset({"base", "registry"})
ModelClass = TypeVar("ModelClass", bound=Type[StatisticalModel])

_MODELS: Dict[str, Type[StatisticalModel]] = {}
_discovered = False


def register_model(name: str) -> Callable[[ModelClass], ModelClass]:
    """Class decorator: make a :class:`StatisticalModel` available as ``name``.

    ``name`` is what ``regress.py --model`` and :class:`AnalysisConfig.model`
    take (lower case, no spaces).

    Raises
    ------
    ValueError
        When ``name`` is ``"auto"``, malformed, or taken by another class.
    """
    if name == AUTO or not name or name != name.strip().lower() or " " in name:
        raise ValueError(f"invalid model name {name!r}")

    def register(cls: ModelClass) -> ModelClass:
        if not (isinstance(cls, type) and issubclass(cls, StatisticalModel)):
            raise TypeError(f"{cls!r} is not a StatisticalModel subclass")
        known = _MODELS.get(name)
        if known is not None and known.__qualname__ != cls.__qualname__:
            raise ValueError(f"model name {name!r} is already registered by {known!r}")
        cls.name = name
        _MODELS[name] = cls
        return cls

    return register


def unregister_model(name: str) -> None:
    """Remove a registered model (tests that register a model of their own)."""
    _MODELS.pop(name, None)


def _discover() -> None:
    """Import every model module of this package once (their decorators register them)."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    package = importlib.import_module("tools.statistics.models")
    for module in sorted(m.name for m in pkgutil.iter_modules(package.__path__)):
        if module not in NOT_MODELS:
            importlib.import_module(f"tools.statistics.models.{module}")


def model_names() -> List[str]:
    """Registered model names, sorted."""
    _discover()
    return sorted(_MODELS)


def get_model(name: str, config: AnalysisConfig = AnalysisConfig(),
              params: Optional[Mapping[str, Any]] = None) -> StatisticalModel:
    """An instance of the model registered as ``name``.

    Raises
    ------
    KeyError
        Naming the registered models when ``name`` is not one of them.
    """
    _discover()
    if name not in _MODELS:
        raise KeyError(f"no statistical model named {name!r} (registered: "
                       f"{', '.join(sorted(_MODELS))})")
    return _MODELS[name](config, params)


def resolve_model(config: AnalysisConfig, batch_effect: bool) -> StatisticalModel:
    """The model of a problem: ``config.model``, or SPEC 5.3's rule when it is ``"auto"``.

    ``"auto"``: a batch effect selects ``"lmm"``, otherwise ``"lasso"``.
    """
    name = config.model
    if name == AUTO:
        name = "lmm" if batch_effect else "lasso"
    return get_model(name, config)


def model_for_constructor(constructor: Callable[..., Any],
                          params: Optional[Mapping[str, Any]] = None,
                          config: AnalysisConfig = AnalysisConfig()) -> StatisticalModel:
    """The model behind a compatibility-API constructor (``Lasso``, ``LMM``, ...).

    The registered model that declares ``constructor`` as its
    ``compat_constructor``; any other scikit-learn-style constructor gets the
    generic :class:`~tools.statistics.models.base.EstimatorModel`.
    """
    _discover()
    for cls in _MODELS.values():
        if cls.compat_constructor is not None and cls.compat_constructor is constructor:
            return cls(config, params)
    return EstimatorModel(config, params, constructor=constructor)
