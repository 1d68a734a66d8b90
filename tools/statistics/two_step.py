"""Two-step regression for a condition that is another trait (SPEC 5.6).

Step 1, on the condition's cohort: model the condition from the regressor
genes (the condition's known genes present in both cohorts), each gene
standardized with that cohort's statistics:

* binary condition -> logistic regression (L2, ``C = 1``); L1 (``C = 1``)
  when the regressors outnumber the samples;
* continuous condition -> least squares; a Lasso (``alpha = 0.1``) when the
  regressors outnumber the samples. The condition is modelled on its own
  z-scale (its mean and standard deviation in the condition cohort), so the
  Lasso's fixed penalty means the same whatever the condition's units (on
  raw units it kept 0 regressors of 60 for a condition in hundredths and 39
  for the same condition in thousands); predictions are mapped back to the
  condition's units.

Step 2, on the trait's cohort: the same genes, standardized with the *trait*
cohort's own statistics (the two cohorts usually come from different
platforms, so each is put on its own z-scale), give the predicted condition
(the probability for a binary condition). The regressor genes are then removed
from the trait cohort's genes and the predicted condition becomes the
covariate ``Z`` of the trait analysis.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import numpy as np
from sklearn.linear_model import LogisticRegression

from tools.statistics.lasso import Lasso
from tools.statistics.residualize import fit_covariates
from tools.statistics.standardize import Standardizer
from utils.columns import is_binary
from utils.runtime import SEED

C_LOGISTIC = 1.0
STEP1_LASSO_ALPHA = 0.1


@dataclass(frozen=True)
class ConditionModel:
    """Step-1 model of the condition.

    Attributes
    ----------
    kind : str
        ``logistic-l2``, ``logistic-l1``, ``least-squares`` or ``lasso``.
    intercept : float
    coef : numpy.ndarray
        One coefficient per regressor (standardized scale).
    binary : bool
    center, scale : float
        Continuous condition: its mean and standard deviation in the condition
        cohort (the model predicts ``(condition - center) / scale``).
    """

    kind: str
    intercept: float
    coef: np.ndarray
    binary: bool
    center: float = 0.0
    scale: float = 1.0

    def predict(self, X_std: np.ndarray) -> np.ndarray:
        """Predicted condition (probability when binary, else in the condition's units)."""
        score = np.asarray(X_std, dtype=float) @ self.coef + self.intercept
        if self.binary:
            return 1.0 / (1.0 + np.exp(-score))
        return score * self.scale + self.center

    def describe(self) -> Dict[str, object]:
        """JSON-ready summary."""
        described: Dict[str, object] = {"kind": self.kind, "intercept": float(self.intercept),
                                        "coefficients": [float(c) for c in self.coef]}
        if not self.binary:
            described.update(condition_mean=float(self.center), condition_sd=float(self.scale))
        return described


def fit_condition_model(X: np.ndarray, condition: np.ndarray) -> ConditionModel:
    """Fit step 1 on the condition cohort (raw regressor genes, condition values)."""
    X_std = Standardizer.fit(X).transform(X)
    condition = np.asarray(condition, dtype=float)
    n, r = X_std.shape
    wide = r > n
    if is_binary(condition) and np.unique(condition).size == 2:
        model = LogisticRegression(C=C_LOGISTIC, l1_ratio=1.0 if wide else 0.0,
                                   solver="liblinear" if wide else "lbfgs",
                                   max_iter=1000, random_state=SEED)
        model.fit(X_std, condition.astype(int))
        return ConditionModel("logistic-l1" if wide else "logistic-l2",
                              float(model.intercept_[0]), model.coef_[0].copy(), True)
    center = float(condition.mean())
    spread = float(condition.std())
    scale = spread if spread > 0.0 else 1.0
    standardized = (condition - center) / scale
    if wide:
        lasso = Lasso(alpha=STEP1_LASSO_ALPHA).fit(X_std, standardized)
        return ConditionModel("lasso", lasso.intercept_, lasso.coef_, False, center, scale)
    fit = fit_covariates(standardized, X_std)
    return ConditionModel("least-squares", fit.intercept, fit.coef, False, center, scale)


def predict_condition(model: ConditionModel, X_trait: np.ndarray) -> np.ndarray:
    """Step 2: predicted condition for the trait cohort (its own z-scale)."""
    return model.predict(Standardizer.fit(X_trait).transform(X_trait))


def without_regressors(gene_names: Sequence[str], regressors: Sequence[str]
                       ) -> Tuple[List[str], np.ndarray]:
    """Gene names left after removing the regressors, and their column indices."""
    drop = set(regressors)
    keep = [i for i, name in enumerate(gene_names) if name not in drop]
    return [gene_names[i] for i in keep], np.asarray(keep, dtype=int)
