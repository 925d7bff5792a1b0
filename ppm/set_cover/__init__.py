"""Seed 004 (Kaplan-Mansour-Matias-Stemmer, ICML 2019): the private Set Cover Learner.

:class:`SetCoverLearner` (section 3, SPEC 9.1) over a base class: literals
(:mod:`.literals`, conjunctions over ``{0,1}^D``) or halfplanes of the grid ``{0..T}^2``
(``.halfplanes``, exact Select Halfplane of section 4). :class:`GreedySetCover` is the
non-private classical learner; :class:`PlantedConjunction` the population of claim C11.
"""

from .base import BaseClassSelector, Hypothesis, implied_privacy
from .greedy import GreedySetCover
from .learner import SetCoverLearner
from .literals import Literal, LiteralSelector
from .populations import PlantedConjunction

__all__ = [
    "BaseClassSelector",
    "GreedySetCover",
    "Hypothesis",
    "Literal",
    "LiteralSelector",
    "PlantedConjunction",
    "SetCoverLearner",
    "implied_privacy",
]
