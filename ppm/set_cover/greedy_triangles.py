"""Non-private baseline for unions of polygons: greedy set cover by triangles.

The classical (non-private) learner for disjunctions (KMMS19 section 1.1, Kearns-Vazirani
1994), with triangles ``HALFPLANE^{∧3}`` of the grid ``{0..T}^2`` as the disjuncts (the class
of KMMS19 Theorem 5.1, ``k-UNION-GON ⊆ (HALFPLANE^{∧3})^{∨k}``): (1) *elimination*: keep only
the triangles with no negative example inside; (2) *greedy set cover* of the positives: take
the kept triangle that contains the most still-uncovered positive examples (counted with
multiplicity), until every positive is covered or no kept triangle covers another one. Output:
the union of the chosen triangles (the empty union predicts the negative label everywhere).
On a sample labelled by a union of ``k`` triangles the result is consistent with every example
and has at most ``k ln(n_1) + 1`` triangles.

Exact over the whole class: two triangles whose three halfplanes lie in the same cells of the
dual arrangement of the sample (:class:`~ppm.set_cover.unions.TriangleComplementSelector`'s
merged cells) contain the same examples, so step (2) scans the unordered triples of cells
(``O(L^3)``, ``L = O(m^2)`` cells for ``m`` distinct points; ties: the first triple in
lexicographic order) and releases a point of each chosen cell (a uniform one, from
``random_state``: which point does not change the fit on the sample, only where the triangle's
edges fall between sample points). The same limit as the private selector refuses larger
samples before any triple is scored.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from numba import njit
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils.validation import check_is_fitted

from ppm._sklearn import BinaryLabelsMixin
from ppm.registry import configurable
from ppm.sklearn_checks import GRID_PLANE
from ppm.validation import RANDOM_STATE, Number, check_random_state
from .halfplanes import T_MAX
from . import _triple_kernels as TK
from .unions import MAX_TRIPLES, Triangle, TriangleComplementSelector


@njit(cache=True)
def best_triple(bits, tab_neg, tab_pos):
    """The unordered cell triple ``a <= b <= c`` with no negative inside and the most
    uncovered positives inside (multiplicity tables ``tab_neg``/``tab_pos`` as
    :func:`ppm.set_cover._triple_kernels.pack`); ``(gain, a, b, c)``, gain 0 if none covers."""
    L, W = bits.shape
    best, ba, bb, bc = 0, -1, -1, -1
    x = np.empty(W, dtype=np.uint64)
    for a in range(L):
        for b in range(a, L):
            pos_ab = 0
            for w in range(W):
                x[w] = bits[a, w] & bits[b, w]
                pos_ab += TK.byte_counts(x[w], w, tab_neg, tab_pos)[1]
            if pos_ab <= best:  # a third halfplane only removes points: cannot beat best
                continue
            for c in range(b, L):
                n_neg, n_pos = TK.triple_counts(x, bits[c], tab_neg, tab_pos)
                if n_neg == 0 and n_pos > best:
                    best, ba, bb, bc = n_pos, a, b, c
    return best, ba, bb, bc


@configurable("learner", "greedy_triangles",
              stable_name="ppm.set_cover.greedy_triangles.GreedyTriangleCover",
              target="ppm.set_cover.GreedyTriangleCover")
class GreedyTriangleCover(BinaryLabelsMixin, ClassifierMixin, BaseEstimator):
    """Elimination + greedy set cover over the triangles of ``{0..T}^2`` (non-private; module
    docstring).

    Parameters
    ----------
    T : int
        Grid size: examples are points of ``{0..T}^2``.
    max_triples : float
        Refuse a sample whose merged cells give more than this many ordered cell triples
        (:data:`ppm.set_cover.unions.MAX_TRIPLES`), before any work.
    random_state : None, int, SeedSequence or Generator
        Draws the released point of each chosen cell.
    pos_label : None or a label
        The label the union predicts inside a chosen triangle (``None``: 1, for a 0/1 sample).

    Attributes: ``triangles_`` (the chosen :class:`~ppm.set_cover.unions.Triangle` in the order
    chosen), ``classes_``, ``pos_label_``, ``n_features_in_``. ``fit(X, y, public=None)``
    ignores ``public``.
    """

    _label_param, _label_code = "pos_label", 1
    _label_role = "the union's positive label (1 in KMMS19)"
    _parameter_constraints = {
        "T": [Number(Integral, 1, T_MAX, closed="both")],  # required: None is refused
        # an int stays an int (the configs' values enter the cache keys unconverted)
        "max_triples": [None, Number(Integral, 1, None, closed="left"),
                        Number(Real, 1, None, closed="left", finite=False)],
        "random_state": RANDOM_STATE,
        "pos_label": "no_validation",  # any label (ppm._sklearn)
    }
    _param_roles = {"pos_label": "encoding"}  # the experiments' labels are 0/1

    # scikit-learn's check suite runs on this (ppm.sklearn_checks.check_instances)
    _check_params = {"T": 8}

    _expected_failed_checks = GRID_PLANE  # (ppm.sklearn_checks)

    def __init__(self, *, T=None, max_triples=MAX_TRIPLES, random_state=None, pos_label=None):
        self.T = T
        self.max_triples = max_triples
        self.random_state = random_state
        self.pos_label = pos_label

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, public=None):
        """Greedy cover of the positives by triangles with no negative inside."""
        selector = TriangleComplementSelector(T=self.T, max_triples=self.max_triples)
        self._check_names(X, reset=True)
        X = selector.check_X(X)
        if X.shape[0] == 0:
            raise ValueError("X is empty (0 examples)")
        y = self._encode_y(y, X.shape[0])
        rng = check_random_state(self.random_state)
        cells = selector.cells(X, y)  # c1 = positives, c0 = negatives per distinct point
        neg = cells.c0.astype(np.int64)
        uncovered = cells.c1.astype(np.int64)
        chosen = []
        while uncovered.sum() > 0:
            bits, tab_neg, tab_pos = TK.pack(cells.labels, neg, uncovered)
            gain, a, b, c = best_triple(bits, tab_neg, tab_pos)
            if gain == 0:
                break
            inside = cells.labels[a] & cells.labels[b] & cells.labels[c]
            uncovered = np.where(inside == 1, 0, uncovered)
            chosen.append(Triangle(selector._point(cells, j, rng) for j in (a, b, c)))
        self.triangles_ = chosen
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X) -> np.ndarray:
        """The union of the chosen triangles: ``pos_label_`` inside one, else the other."""
        check_is_fitted(self, "triangles_")
        self._check_names(X, reset=False)
        X = TriangleComplementSelector(T=self.T).check_X(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features but the estimator was fitted with "
                             f"{self.n_features_in_}")
        out = np.zeros(X.shape[0], dtype=np.int64)
        for t in self.triangles_:
            out |= t.predict(X)
        return self._decode_y(out)
