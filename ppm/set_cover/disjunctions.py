"""Disjunctions and unions of polygons by De Morgan (KMMS19 Theorem 1.3, Theorem 5.1;
docs/model.md §9.1, §9.2).

:class:`DisjunctionLearner` learns ``C ⊆ H^{∨k}`` (``H`` closed under complement, or given as
the complements of a class) with the Set Cover Learner: ``g_1 ∨ ... ∨ g_k = ¬(¬g_1 ∧ ... ∧
¬g_k)``, so it fits the conjunction learner (:class:`~ppm.set_cover.SetCoverLearner`, same
parameters, same random stream) on ``(X, 1 - y)`` over the base class ``¬H`` and predicts the
negation of the fitted conjunction.

* ``hypotheses="literals"``: disjunctions of literals over ``{0,1}^D`` (KMMS19 Theorem 1.3;
  the complement of a literal is a literal, so ``¬H = H``);
* ``"halfplanes"``: unions of halfplanes of ``{0..T}^2`` (the complement of a grid halfplane
  is a grid halfplane, Observation 4.1);
* ``"triangles"``: unions of intersections of 3 halfplanes, ``(HALFPLANE^{∧3})^{∨k}``, which
  contains ``k``-UNION-GON (a simple polygon with ``k`` edges is a union of at most ``k``
  triangles): KMMS19 Theorem 5.1. The conjunction side's base class is
  ``¬(HALFPLANE^{∧3})``, selected exactly by
  :class:`~ppm.set_cover.unions.TriangleComplementSelector`.

Privacy: replacing one example ``(x, y)`` of the sample by ``(x', y')`` replaces one example
``(x, 1 - y)`` of the flipped sample by ``(x', 1 - y')``, so neighbours stay neighbours and the
conjunction learner's ``(epsilon, delta)``-DP guarantee (KMMS19 Claim 3.4, whose proof does not
depend on the base class) holds for the flipped run; negating its output is post-processing.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import StrOptions

from ppm.registry import configurable
from ppm.sklearn_checks import BINARY_CUBE

from .learner import SetCoverLearner, audit_instance

DISJUNCTION_HYPOTHESES = ("literals", "halfplanes", "triangles")
_CONJUNCTION_SIDE = {"literals": "literals", "halfplanes": "halfplanes",
                     "triangles": "triangle_complements"}


@configurable("learner", "disjunction", stable_name="ppm.set_cover.disjunctions.DisjunctionLearner",
              target="ppm.set_cover.DisjunctionLearner")
class DisjunctionLearner(SetCoverLearner):
    """Private learner for disjunctions ``g_1 ∨ ... ∨ g_k`` (module docstring).

    Parameters as :class:`~ppm.set_cover.SetCoverLearner`, except ``hypotheses`` in
    ``"literals" | "halfplanes" | "triangles"`` (the class of the disjuncts) and ``pos_label``:
    the label the disjunction predicts where some disjunct holds (1 in KMMS19). ``k`` is the
    number of disjuncts (for ``"triangles"``: triangles; a union of polygons with ``k`` edges
    in all needs at most ``k``). ``device`` ("cpu" | "cuda" | "auto") chooses where the exact
    triangle selection runs (``"triangles"`` only; the same mechanism on every device, see
    :class:`~ppm.set_cover.SetCoverLearner`).

    Attributes as :class:`~ppm.set_cover.SetCoverLearner`; ``hypotheses_`` are the conjunction
    side's released hypotheses ``h_1..h_R`` (literals as ``(variable, sign)`` tuples, grid
    halfplanes, or :class:`~ppm.set_cover.unions.TriangleComplement`), and the output is
    ``¬(h_1 ∧ ... ∧ h_R)``: for ``"triangles"`` the union of the triangles
    ``h_j.triangle`` (``triangles_``)."""

    _parameter_constraints = {**SetCoverLearner._parameter_constraints,
                              "hypotheses": [StrOptions(set(DISJUNCTION_HYPOTHESES))]}
    _label_role = "the disjunction's positive label (1 in KMMS19)"

    # scikit-learn's check suite runs on this (ppm.sklearn_checks.check_instances)
    _check_variants = {"literals": {"k": 1, "epsilon": 0.9, "hypotheses": "literals"}}

    # declared once (ppm.audit_spec): the released state, the checks failed by design, the audit
    _released = ("hypotheses_",)
    _expected_failed_checks = {"literals": BINARY_CUBE}

    @classmethod
    def _privacy_audits(cls):
        """Statistical, over literals (the Set Cover Learner's instance, labels flipped)."""
        return (audit_instance(cls, "literals", index=6, row=11, exact="set_cover_literals",
                               paper="KMMS19 Theorem 1.3 (De Morgan)", labels=(0, 1, 1, 1),
                               what="disjunctions of literals over {0,1}^2"),)

    @classmethod
    def _temperature_cases(cls):
        """One round (k = 1) over triangles at ``epsilon_hat = eps`` on 8 points of
        ``{0..8}^2``; the round's epsilon is ``epsilon_round_`` (ppm.audit_spec)."""
        def triangles(eps, seed=0):
            r = np.random.default_rng(6)
            pts = r.integers(0, 9, (5, 2))
            X = np.concatenate([pts, pts[:3]])
            y = r.integers(0, 2, 8)
            f = cls(k=1, hypotheses="triangles", T=8, epsilon=0.9, epsilon_hat=eps,
                    random_state=seed).fit(X, y)
            return f.epsilon_round_, f.predict(np.random.default_rng(7).integers(0, 9, (100, 2)))

        return {"triangles": triangles}

    def _base_class(self) -> str:
        return _CONJUNCTION_SIDE[self.hypotheses]

    @staticmethod
    def _round_labels(y):
        return 1 - y  # flipped labels: replace-one neighbours stay neighbours

    @_fit_context(prefer_skip_nested_validation=True)  # validated once: super().fit skips it
    def fit(self, X, y, public=None):
        """Fit the conjunction learner on ``(X, 1 - y)`` (all examples private)."""
        super().fit(X, y, public)
        if self.hypotheses == "triangles":
            self.triangles_ = [h.triangle for h in self.hypotheses_]
        return self

    def predict(self, X):
        """``¬(h_1 ∧ ... ∧ h_R)``: ``pos_label_`` where some disjunct holds."""
        return self._decode_y(1 - self._conjunction(X))
