"""KMMS19 (Kaplan-Mansour-Matias-Stemmer, ICML 2019): the private Set Cover Learner.

:class:`SetCoverLearner` (section 3, docs/model.md §9.1) over a base class: literals
(:mod:`.literals`, conjunctions over ``{0,1}^D``) or halfplanes of the grid ``{0..T}^2``
(:mod:`.halfplanes`, exact Select Halfplane of section 4). :class:`GreedySetCover` is the
non-private classical learner; :class:`PlantedConjunction` and :class:`DecoyConjunction` the populations of claim C11,
:class:`GridPolygon` / :func:`GridHalfplane` the grid populations of claim C12.
"""

from .base import BaseClassSelector, Hypothesis, implied_privacy
from .greedy import GreedySetCover
from .halfplanes import Halfplane, HalfplaneSelector
from .learner import SetCoverLearner
from .literals import Literal, LiteralSelector
from .polygon_population import GridHalfplane, GridPolygon
from .populations import DecoyConjunction, PlantedConjunction

__all__ = [
    "BaseClassSelector",
    "DecoyConjunction",
    "GreedySetCover",
    "GridHalfplane",
    "GridPolygon",
    "Halfplane",
    "HalfplaneSelector",
    "Hypothesis",
    "Literal",
    "LiteralSelector",
    "PlantedConjunction",
    "SetCoverLearner",
    "implied_privacy",
]
