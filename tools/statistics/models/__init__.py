"""Statistical models of the engine: a registry, one module per model.

``regress.py --model NAME`` (:class:`~tools.statistics.inputs.AnalysisConfig`
``model``) picks a registered model; ``"auto"`` (the default) is SPEC 5.3's
rule: ``"lmm"`` when a batch effect is detected, else ``"lasso"``. The
compatibility names of :mod:`tools.statistics` reach the same models through
their constructors (:func:`model_for_constructor`).

Adding a model: one module in this package,

.. code-block:: python

    from tools.statistics.models.base import StatisticalModel
    from tools.statistics.models.registry import register_model

    @register_model("ridge")
    class RidgeModel(StatisticalModel):
        label = "Ridge"              # analysis.model of its results
        compat_constructor = Ridge   # a scikit-learn-style estimator class
        penalty_name = "alpha"       # tuned over AnalysisConfig.penalties

and nothing else: the registry imports every module of the package. The
protocol and its defaults are described in :mod:`tools.statistics.models.base`.

Built in: :mod:`~tools.statistics.models.lasso` (``"lasso"``) and
:mod:`~tools.statistics.models.lmm` (``"lmm"``).

May import: ``utils`` and ``tools.statistics``.
"""

from tools.statistics.inputs import AUTO
from tools.statistics.models.base import (EstimatorFit, EstimatorModel, FittedModel, LinearFit,
                                          StatisticalModel)
from tools.statistics.models.registry import (get_model, model_for_constructor, model_names,
                                              register_model, resolve_model, unregister_model)

__all__ = ["AUTO", "EstimatorFit", "EstimatorModel", "FittedModel", "LinearFit",
           "StatisticalModel", "get_model", "model_for_constructor", "model_names",
           "register_model", "resolve_model", "unregister_model"]
