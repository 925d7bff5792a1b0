"""Baselines: the learners the PPM learner is compared with (docs/model.md §7).

- :mod:`~ppm.baselines.linear`: the non-private ERM halfspace and the public-only rule;
- :mod:`~ppm.baselines.logistic`: logistic regression, non-private and differentially private
  (diffprivlib), scaled on public data only;
- :mod:`~ppm.baselines.dp_logistic_public`: objective-perturbation DP logistic regression that
  spends epsilon on the private rows only (the public rows' loss in its regularizer);
- :mod:`~ppm.baselines.fully_private`: the exponential mechanism with every example private;
- :mod:`~ppm.baselines.semi_private`: a semi-private learner (public examples unlabelled).
"""

from ppm.baselines.dp_logistic_public import PublicAwareDPLogisticRegression
from ppm.baselines.fully_private import GridExponentialMechanism
from ppm.baselines.linear import ERMHalfspace, LinearRule, PublicOnly
from ppm.baselines.logistic import DPLogisticRegression, LogisticRegressionBaseline, public_scaling
from ppm.baselines.semi_private import SemiPrivateHalfspaceLearner

__all__ = ["DPLogisticRegression", "ERMHalfspace", "GridExponentialMechanism", "LinearRule",
           "LogisticRegressionBaseline", "PublicAwareDPLogisticRegression", "PublicOnly",
           "SemiPrivateHalfspaceLearner",
           "public_scaling"]
