"""Statistical models of the engine: a registry, one module per model.

``regress.py --model NAME`` (:class:`~tools.statistics.inputs.AnalysisConfig`
``model``) picks a registered model; ``"auto"`` (the default) is SPEC 5.3's
rule: ``"lmm"`` when a batch effect is detected, else ``"lasso"``. The
compatibility names of :mod:`tools.statistics` reach the same models through
their constructors (:func:`model_for_constructor`).

Adding a model: one module in this package,

.. code-block:: python

    from tools.statistics.models.base import StatisticalModel

    class RidgeModel(StatisticalModel):
        name = "ridge"               # regress.py --model ridge
        label = "Ridge"              # analysis.model of its results
        compat_constructor = Ridge   # a scikit-learn-style estimator class
        penalty_name = "alpha"       # tuned over AnalysisConfig.penalties

and one line in :data:`~tools.statistics.models.registry.MODELS` (``"ridge":
"tools.statistics.models.ridge:RidgeModel"``): the registry imports a model's
module on first use, in the project's one registry style
(:class:`utils.registry.Registry`, the same as ``run_agent.py``'s methods).
Code outside the package calls :func:`register_model` (``register_model("ridge",
RidgeModel)``). The protocol and its defaults are described in
:mod:`tools.statistics.models.base`.

Built in: :mod:`~tools.statistics.models.lasso` (``"lasso"``) and
:mod:`~tools.statistics.models.lmm` (``"lmm"``).

May import: ``utils`` and ``tools.statistics``.
"""

from tools.statistics.inputs import AUTO
from tools.statistics.models.base import (EstimatorFit, EstimatorModel, FittedModel, LinearFit,
                                          StatisticalModel)
from tools.statistics.models.registry import (MODELS, get_model, model_for_constructor,
                                              model_names, register_model, resolve_model,
                                              unregister_model)

__all__ = ["AUTO", "MODELS", "EstimatorFit", "EstimatorModel", "FittedModel", "LinearFit",
           "StatisticalModel", "get_model", "model_for_constructor", "model_names",
           "register_model", "resolve_model", "unregister_model"]
