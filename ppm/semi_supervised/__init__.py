"""Seed 002 (Beimel-Nissim-Stemmer): private semi-supervised learners (SPEC 9.3-9.5)."""

from .big_grid import BigGridThresholds
from .big_points import BigPoints
from .label_boost import LabelBoostLearner
from .threshold_em import GapThresholdMechanism
