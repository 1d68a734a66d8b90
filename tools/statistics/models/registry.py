"""The registry of statistical models: names -> ``"module:Class"`` of model classes.

:data:`MODELS` lists the built-in models in the project's one registry style
(:class:`utils.registry.Registry`, shared with ``run_agent.py``'s methods): a
new model is a module of this package with a :class:`StatisticalModel`
subclass (its ``name`` the registered name) and one line here. The modules
are imported on first use. Code outside the package (a plug-in, a test)
registers its models with :func:`register_model` before the registry is asked
for them.
"""

from __future__ import annotations

from typing import Any, Callable, List, Mapping, Optional, Type, Union

from tools.statistics.inputs import AUTO, AnalysisConfig
from tools.statistics.models.base import EstimatorModel, StatisticalModel
from utils.registry import Registry

#: ``regress.py --model`` name -> ``module:Class``.
MODELS = Registry("statistical model", {
    "lasso": "tools.statistics.models.lasso:LassoModel",
    "lmm": "tools.statistics.models.lmm:LinearMixedModel",
}, base="tools.statistics.models.base:StatisticalModel")


def register_model(name: str, model: Union[str, Type[StatisticalModel]]) -> None:
    """Make a :class:`StatisticalModel` available as ``name``.

    ``name`` is what ``regress.py --model`` and :class:`AnalysisConfig.model`
    take (lower case, no spaces, not ``"auto"``); ``model`` is the class or
    its ``"module:Class"``, whose ``name`` attribute is ``name``.

    Raises
    ------
    ValueError
        When ``name`` is ``"auto"``, malformed, or taken by another class.
    TypeError
        When ``model`` is not a StatisticalModel subclass.
    """
    if name == AUTO:
        raise ValueError(f"invalid statistical model name {name!r}")
    MODELS.register(name, model)


def unregister_model(name: str) -> None:
    """Remove a registered model (tests that register a model of their own)."""
    MODELS.unregister(name)


def model_names() -> List[str]:
    """Registered model names, sorted."""
    return sorted(MODELS)


def get_model(name: str, config: AnalysisConfig = AnalysisConfig(),
              params: Optional[Mapping[str, Any]] = None) -> StatisticalModel:
    """An instance of the model registered as ``name``.

    Raises
    ------
    KeyError
        Naming the registered models when ``name`` is not one of them.
    """
    return MODELS.load(name)(config, params)


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
    for cls in map(MODELS.load, MODELS):
        if cls.compat_constructor is not None and cls.compat_constructor is constructor:
            return cls(config, params)
    return EstimatorModel(config, params, constructor=constructor)
