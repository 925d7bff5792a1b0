"""Non-private baseline: the classical greedy set-cover learner for conjunctions.

KMMS19, section 1.1 (Kearns-Vazirani 1994): (1) *elimination*: keep every literal consistent
with all positive examples (a literal is deleted when it labels some positive 0); the target's
literals always survive. (2) *greedy set cover* of the negatives: each surviving literal
"covers" the negatives it labels 0; repeatedly take the literal covering the most uncovered
negatives (ties: lowest canonical index, see :mod:`ppm.set_cover.literals`) until every negative
is covered or no surviving literal covers another one. Output: the conjunction of the chosen
literals (the empty conjunction predicts 1 everywhere). On a realizable sample the result is
consistent with every example and has at most ``k ln(n_0) + 1`` literals.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils.validation import check_is_fitted

from ppm._sklearn import BinaryLabelsMixin
from ppm.registry import configurable
from ppm.sklearn_checks import BINARY_CUBE
from .literals import check_binary_X


@configurable("baseline", stable_name="ppm.set_cover.GreedySetCover")
class GreedySetCover(BinaryLabelsMixin, ClassifierMixin, BaseEstimator):
    """Elimination + greedy set cover over the ``2D`` literals (non-private; module docstring).

    ``fit(X, y, public=None)`` ignores ``public``. Attributes: ``hypotheses_`` (chosen literals
    as ``(variable, sign)`` in the order chosen), ``classes_``, ``pos_label_``,
    ``n_features_in_``. ``pos_label``: the label the conjunction predicts where it holds
    (``None``: 1, for a 0/1-labelled sample; required for any other labels).
    """

    _label_param, _label_code = "pos_label", 1
    _label_role = "the conjunction's positive label (1 in KMMS19)"
    _parameter_constraints = {"pos_label": "no_validation"}  # any label (ppm._sklearn)
    _param_roles = {"pos_label": "encoding"}

    _expected_failed_checks = BINARY_CUBE  # (ppm.sklearn_checks)

    def __init__(self, *, pos_label=None):
        self.pos_label = pos_label

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, public=None):
        """Fit on all examples (``public`` is accepted for the pipeline's call and ignored)."""
        self._check_names(X, reset=True)
        X = check_binary_X(X)
        n, D = X.shape
        if n == 0:
            raise ValueError("X is empty (0 examples)")
        y = self._encode_y(y, n)
        pos = X[y == 1]
        # (1) elimination: x_i survives iff no positive has x_i = 0, NOT x_i iff none has x_i = 1
        ones = pos.sum(axis=0, dtype=np.int64)
        alive = np.concatenate([ones == pos.shape[0], ones == 0])
        # (2) greedy cover; cover matrix columns: [x_i labels 0] = 1 - x_i, [NOT x_i] = x_i
        neg = X[y == 0].astype(bool)
        cover = np.concatenate([~neg, neg], axis=1)[:, alive]
        candidates = np.flatnonzero(alive)
        uncovered = np.ones(neg.shape[0], dtype=bool)
        chosen = []
        while uncovered.any() and candidates.size:
            gains = cover[uncovered].sum(axis=0)
            best = int(np.argmax(gains))
            if gains[best] == 0:
                break
            j = int(candidates[best])
            chosen.append((j % D, 1 if j < D else 0))
            uncovered &= ~cover[:, best]
        self.hypotheses_ = chosen
        self.n_features_in_ = D
        return self

    def predict(self, X) -> np.ndarray:
        check_is_fitted(self, "hypotheses_")
        self._check_names(X, reset=False)
        X = check_binary_X(X, n_features=self.n_features_in_)
        if not self.hypotheses_:
            return self._decode_y(np.ones(X.shape[0], dtype=np.int64))
        lits = np.array(self.hypotheses_, dtype=np.int64)
        return self._decode_y(np.all(X[:, lits[:, 0]] == lits[:, 1], axis=1).astype(np.int64))
