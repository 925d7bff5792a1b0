"""Exponential mechanism over all thresholds of a huge grid, grouped by gaps (docs/model.md §9.4).

The base learner ``A`` of BNS15's boosting wrapper for claim C14: the generic pure-DP learner
(exponential mechanism over a finite class, Kasiviswanathan et al.; BNS15 section 3) for
thresholds on ``{0..T - 1}``, ``T = 2^b``, with ``b`` up to 4096 and beyond.

The class (both orientations, the same ``2T`` members as
:class:`ppm.baselines.fully_private.GridExponentialMechanism`, so C13/C14 compare like with like):
``("ge", k)``, ``k = 0..T-1``: 1 iff ``x >= k`` (``k = 0`` is all-ones); ``("zeros", None)``;
``("lt", k)``, ``k = 1..T-1``: 1 iff ``x < k``. Score: ``m(h)`` = mistakes on the sample
(sensitivity 1); ``P[h] ∝ exp(-epsilon m(h) / 2)``, epsilon-DP w.r.t. every example.

Exact in ``O(n log n)`` for any ``b``, never looping over the domain: with ``v_0 < ... < v_{u-1}``
the distinct sample points, every threshold ``k`` in one gap ``(v_{j-1}, v_j]`` (``v_{-1} = -1``,
last gap ``(v_{u-1}, T-1]``) labels the sample identically, so the ``2T`` members fall into at
most ``2u + 3`` groups of equal score. Group ``g`` (size ``|g|`` a Python int, up to ``2^b``) gets
log-weight ``ln|g| - epsilon m_g / 2`` (``math.log`` is exact-to-rounding on big ints; the
log-weights are :func:`ppm.mechanisms.em_log_weights` of the loss ``m_g`` over the base measure
``|g|``); one group is drawn by :func:`ppm.mechanisms.draw_index` (inverse CDF on float64
normalised weights, log-sum-exp), then a threshold uniformly inside it by :func:`ppm.mechanisms.uniform_below`, an exact
uniform big integer (63-bit limbs from the numpy Generator, rejection: no float rounding). Each
member is thus output with probability ``p_g / |g|`` = its exponential-mechanism probability
(up to float64 rounding of the group probabilities only).

Points are :class:`~.big_points.BigPoints` (module docstring there); thresholds are Python ints.
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils.validation import check_is_fitted

from ppm._sklearn import BinaryLabelsMixin
# uniform_below: re-exported
from ppm.mechanisms import draw_index, em_log_weights, uniform_below  # noqa: F401
from ppm.registry import configurable
from ppm.audit_spec import EVERY, PrivacyAudit, neighbour_pairs
from ppm.sklearn_checks import BIG_LINE
from ppm.validation import (EPSILON, RANDOM_STATE, Number, check_epsilon, check_labels,
                            check_positive_int, check_random_state)
from .big_points import BigPoints, as_big_points


def threshold_groups(x: BigPoints, y: np.ndarray, T: int):
    """The equal-score groups of the ``2T`` grid thresholds on the sample ``(x, y)``.

    Returns ``(kinds, lows, sizes, mistakes)``: group ``g`` holds the members
    ``(kinds[g], lows[g] + r)``, ``r = 0..sizes[g] - 1`` (Python ints), all with ``mistakes[g]``
    mistakes on the sample. Empty groups are dropped. ``O(n log n)``.
    """
    values, inverse = x.distinct()
    u = len(values)
    n1_at = np.bincount(inverse, weights=(y == 1), minlength=u).astype(np.int64)
    n0_at = np.bincount(inverse, weights=(y == 0), minlength=u).astype(np.int64)
    n, n1 = int(y.size), int(n1_at.sum())
    n0 = n - n1
    cum1 = np.concatenate([[0], np.cumsum(n1_at)])
    cum0 = np.concatenate([[0], np.cumsum(n0_at)])
    # ge gap j (j = 0..u): thresholds in (v_{j-1}, v_j], predicts 1 exactly on v_j..v_{u-1}.
    ge_mistakes = cum1 + (n0 - cum0)
    edges = [-1, *values, T - 1]
    kinds, lows, sizes, mistakes = [], [], [], []
    for j in range(u + 1):
        lo, hi = edges[j] + 1, edges[j + 1]
        if hi >= lo:
            kinds.append("ge"), lows.append(lo), sizes.append(hi - lo + 1)
            mistakes.append(int(ge_mistakes[j]))
    kinds.append("zeros"), lows.append(None), sizes.append(1), mistakes.append(n1)
    for j in range(u + 1):
        lo, hi = max(edges[j] + 1, 1), edges[j + 1]  # lt_k needs k >= 1
        if hi >= lo:
            kinds.append("lt"), lows.append(lo), sizes.append(hi - lo + 1)
            mistakes.append(n - int(ge_mistakes[j]))
    return kinds, lows, sizes, np.asarray(mistakes, dtype=np.int64)


def group_log_probabilities(sizes, mistakes, epsilon: float) -> np.ndarray:
    """``log P[group]`` of the exponential mechanism: ``ln|g| - epsilon m_g / 2``, normalised."""
    logw = em_log_weights(mistakes.astype(float), epsilon,
                          log_base=np.array([math.log(s) for s in sizes]), loss=True)
    return logw - logsumexp(logw)


B_BITS = [Number(Integral, 1, None, closed="left")]  # b's constraint


def check_b(b) -> int:
    """Bits of the domain ``{0..2^b - 1}``: an int >= 1."""
    return check_positive_int(b, "b")


def gap_threshold_em(X, y, *, epsilon: float, b: int, rng) -> tuple[str, int | None]:
    """One draw of the mechanism on ``(X, y)``: ``(kind, k)`` (module docstring)."""
    epsilon, b = check_epsilon(epsilon), check_b(b)
    x = as_big_points(X, b=b)
    if len(x) == 0:
        raise ValueError("X must contain at least one example, got 0")
    y = check_labels(y, len(x))
    rng = check_random_state(rng)
    kinds, lows, sizes, mistakes = threshold_groups(x, y, 1 << b)
    g = draw_index(group_log_probabilities(sizes, mistakes, epsilon), rng)
    if kinds[g] == "zeros":
        return "zeros", None
    return kinds[g], lows[g] + uniform_below(sizes[g], rng)


def predict_threshold(hypothesis, X) -> np.ndarray:
    """0/1 labels (int64) of ``("ge", k)``, ``("zeros", None)`` or ``("lt", k)`` on points X."""
    x = as_big_points(X)
    kind, k = hypothesis
    if kind == "zeros":
        return np.zeros(len(x), dtype=np.int64)
    ge = x.at_least(k)
    return (ge if kind == "ge" else ~ge).astype(np.int64)


@configurable("learner", "gap_threshold",
              stable_name="ppm.semi_supervised.GapThresholdMechanism",
              target="ppm.semi_supervised.GapThresholdMechanism")
class GapThresholdMechanism(BinaryLabelsMixin, ClassifierMixin, BaseEstimator):
    """Pure epsilon-DP exponential mechanism over the ``2 * 2^b`` thresholds of ``{0..2^b-1}``.

    See the module docstring (class, gap grouping, exactness). All examples are private;
    ``public`` is accepted and ignored.

    Parameters
    ----------
    epsilon : float > 0
    b : int >= 1
        Domain ``{0..2^b - 1}``.
    random_state : None, int, SeedSequence or Generator

    Attributes
    ----------
    hypothesis_ : tuple
        ``("ge", k)``, ``("zeros", None)`` or ``("lt", k)``, ``k`` a Python int.
    threshold_ : int or None
    log_n_hypotheses_ : float
        ``ln(2^(b+1))`` (the class size itself overflows float64 for large ``b``).
    """

    _parameter_constraints = {"epsilon": EPSILON, "b": B_BITS, "random_state": RANDOM_STATE}

    # scikit-learn's check suite runs on this (ppm.sklearn_checks.check_instances)
    _check_params = {"epsilon": 5.0, "b": 4}

    # declared once (ppm.audit_spec): the released state, the checks failed by design, the audit
    _released = ("hypothesis_", "threshold_")
    _expected_failed_checks = BIG_LINE

    @classmethod
    def _privacy_audits(cls):
        """Statistical: b = 2 (domain {0..3}); probes: the 4 domain points."""
        def leak(m):
            def run(data, rs):
                X, y = data
                return cls(epsilon=1.0 * m, b=2, random_state=rs).fit(X, y).predict(np.arange(4))
            return run
        base = {"X": np.array([0, 1, 2, 3]), "y": [0, 0, 1, 1]}
        return (PrivacyAudit(
            kind="statistical", index=1, row=5, paper="BNS15 (LabelBoost's base learner)",
            leak=leak, n_select=1000, n_eval=3000, neighbours=EVERY,
            setting="b=2 (domain {0..3}), n=4; probes: the 4 domain points",
            pairs=lambda: neighbour_pairs(base, [{"y": (3, 0)}, {"X": (0, 3), "y": (0, 0)},
                                                 {"y": (1, 1)}])),)

    @classmethod
    def _temperature_cases(cls):
        """Its threshold selection at ``eps`` on 30 points of ``{0..2^10 - 1}``
        (ppm.audit_spec)."""
        def gap_threshold(eps, seed=0):
            x = np.random.default_rng(3).integers(0, 1 << 10, 30)
            y = (x > 300).astype(int)
            f = cls(epsilon=eps, b=10, random_state=seed).fit(x, y)
            return eps, np.array([repr(f.hypothesis_)])

        return {"gap_threshold": gap_threshold}

    def __init__(self, *, epsilon=1.0, b=64, random_state=None):
        self.epsilon = epsilon
        self.b = b
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, public=None):
        """Run the mechanism on every example (all private)."""
        epsilon, b = float(self.epsilon), int(self.b)
        X = as_big_points(X, b=b)
        y = self._encode_y(y, len(X))
        self.hypothesis_ = gap_threshold_em(X, y, epsilon=epsilon, b=b,
                                            rng=check_random_state(self.random_state))
        self.threshold_ = self.hypothesis_[1]
        self.log_n_hypotheses_ = (b + 1) * math.log(2.0)
        self.n_features_in_ = 1
        return self

    def predict(self, X) -> np.ndarray:
        """Labels of the released threshold (int64 0/1 for a 0/1-labelled sample)."""
        check_is_fitted(self, "hypothesis_")
        return self._decode_y(predict_threshold(self.hypothesis_, X))
