"""BNS15 (Beimel-Nissim-Stemmer, SODA 2015): private semi-supervised and active learners
(docs/model.md §§9.3-9.5): GenericLearner, the LabelBoost wrapper (thresholds and rectangles), the private active learner."""

from .active import PrivateActiveLearner
from .big_grid import BigGridThresholds, NoisyBigGridThresholds
from .big_interval import BigGridInterval, NoisyBigGridInterval
from .big_points import BigPoints
from .generic import GenericLearner
from .label_boost import LabelBoostLearner
from .plateau_grid import PlateauGridThresholds
from .rectangle_boost import RectangleLabelBoostLearner
from .rectangles import GridRectangleMechanism
from .threshold_em import GapThresholdMechanism

__all__ = ["BigGridInterval", "BigGridThresholds", "NoisyBigGridInterval", "NoisyBigGridThresholds", "BigPoints", "GapThresholdMechanism", "GenericLearner",
           "GridRectangleMechanism", "LabelBoostLearner", "PlateauGridThresholds",
           "PrivateActiveLearner", "RectangleLabelBoostLearner"]
