"""KMMS19 (Kaplan-Mansour-Matias-Stemmer, ICML 2019): the private Set Cover Learner.

:class:`SetCoverLearner` (section 3, docs/model.md §9.1) over a base class: literals
(:mod:`.literals`, conjunctions over ``{0,1}^D``) or halfplanes of the grid ``{0..T}^2``
(:mod:`.halfplanes`, exact Select Halfplane of section 4); :class:`DisjunctionLearner` for
disjunctions (Theorem 1.3) and unions of polygons (section 5, Theorem 5.1, exact triangle
selection in :mod:`.unions`) by De Morgan. :class:`GreedySetCover` is the non-private
classical learner (:class:`GreedyTriangleCover` its union-of-triangles form);
:class:`PlantedConjunction` and :class:`DecoyConjunction` the populations of claim C11,
:class:`GridPolygon` / :func:`GridHalfplane` the grid populations of claim C12,
:class:`GridTriangles` a union of two triangles (Theorem 5.1).
"""

from .base import BaseClassSelector, Hypothesis, implied_privacy
from .disjunctions import DisjunctionLearner
from .greedy import GreedySetCover
from .greedy_triangles import GreedyTriangleCover
from .halfplanes import Halfplane, HalfplaneSelector
from .learner import SetCoverLearner
from .literals import Literal, LiteralSelector
from .polygon_population import GridHalfplane, GridPolygon, GridTriangles
from .populations import DecoyConjunction, PlantedConjunction
from .unions import Triangle, TriangleComplement, TriangleComplementSelector

__all__ = [
    "BaseClassSelector",
    "DecoyConjunction",
    "DisjunctionLearner",
    "GreedySetCover",
    "GreedyTriangleCover",
    "GridHalfplane",
    "GridPolygon",
    "GridTriangles",
    "Halfplane",
    "HalfplaneSelector",
    "Hypothesis",
    "Literal",
    "LiteralSelector",
    "PlantedConjunction",
    "SetCoverLearner",
    "Triangle",
    "TriangleComplement",
    "TriangleComplementSelector",
    "implied_privacy",
]
