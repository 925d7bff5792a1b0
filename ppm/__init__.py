"""ppm: differentially private learning from mixtures of private and public populations.

Reference implementation of Bassily, Moran, Nandi (NeurIPS 2020): Algorithm 1 (``ConstrHalf``,
:func:`construct_halfspaces`) and Algorithm 2 (``LearnHalf``, :class:`PPMHalfspaceLearner`).
"""

from ppm.core.halfspaces import PublicHalfspaces, construct_halfspaces
from ppm.core.learner import PPMHalfspaceLearner, learn_halfspace
from ppm._sklearn import for_sklearn_checks

__all__ = [
    "PPMHalfspaceLearner",
    "PublicHalfspaces",
    "construct_halfspaces",
    "for_sklearn_checks",
    "learn_halfspace",
]
__version__ = "0.1.0"
