"""An interval target on ``{0..2^b - 1}`` with the mass next to its two ends (claim C17).

BNS15 (Beimel-Nissim-Stemmer, SODA 2015), Corollary 4.17 at ``d = 1``: the rectangles of
``X_T = {0..T-1}`` are the intervals, and the wrapper's labelled cost should not grow with
``T = 2^b``. This population is the interval analogue of C14's
:class:`~.big_grid.BigGridThresholds` (docs/rectangles.md, "C17"): target ``[c_lo, c_hi]``
with ``c_lo = c - 2^(width_bits - 1)``, ``c_hi = c + 2^(width_bits - 1) - 1``, ``c = floor(cut
* 2^b)``; the ``4 support`` points ``c_lo - support .. c_lo + support - 1`` and ``c_hi - support
+ 1 .. c_hi + support`` carry mass ``1 / (4 support)`` each; label ``y = 1`` iff ``c_lo <= x <=
c_hi`` (realizable, ``OPT = 0``). Every example is private (BNS15's model).

An interval errs nowhere only if its left end is ``c_lo`` and its right end ``c_hi`` exactly,
while the two outer gaps hold ``~2^(b-1)`` ends each: a fully private learner's labelled cost
grows like ``ln T^2 = 2 b ln 2`` (the exponential mechanism over the ``T (T+1)/2 + 1``
intervals), the wrapper's should not. The interval is ``2^width_bits`` wide (default ``2^32``)
rather than ``T/2`` so that every support point lies within ``2^62`` of the others: the points
are :class:`~.big_points.BigPoints` (an exact Python-int origin plus ``int64`` offsets), which
makes sorting the millions of unlabelled points the wrapper consumes an ``int64`` sort.
:meth:`BigGridInterval.true_error` is EXACT (the support is finite).
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Integral, Real

import numpy as np

from ppm.populations.base import PopulationBase
from ppm.registry import configurable
from ppm.validation import OPEN_UNIT, Number, check_positive_int, check_random_state
from .big_points import BigPoints, as_big_points


@configurable("population", "big_grid_interval",
              stable_name="ppm.semi_supervised.big_interval.BigGridInterval",
              target="ppm.semi_supervised.big_interval.BigGridInterval")
class BigGridInterval(PopulationBase):
    """Population of the module docstring (``d = 1``).

    Parameters
    ----------
    b : int >= 2
        Domain ``{0..2^b - 1}``.
    support : int >= 1
        Points with mass on each side of each end.
    cut : float in (0, 1)
        Centre ``c = floor(cut * 2^b)`` of the target.
    width_bits : int in [1, 60]
        The target has ``2^width_bits`` points; it and its support must fit in the domain.
    """

    realizable = True
    synthetic = True  # drawn from a model, not records: ppm.populations.is_synthetic
    d = 1

    _parameter_constraints = {
        "b": [Number(Integral, 2, None, closed="left")],
        "support": [Number(Integral, 1, None, closed="left")],
        "cut": OPEN_UNIT,
        "width_bits": [Number(Integral, 1, 60, closed="both")],
    }

    def __init__(self, *, b=64, support=4, cut=0.5, width_bits=32):
        s, w = support, width_bits
        if 2 * s > (1 << w):
            raise ValueError(f"support={s} points inside each end do not fit in an interval of "
                             f"2^{w} points")
        c = math.floor(Fraction(cut) * (1 << b))
        lo, hi = c - (1 << (w - 1)), c + (1 << (w - 1)) - 1
        if lo - s < 0 or hi + s > (1 << b) - 1:
            raise ValueError(f"the interval [{lo}, {hi}] and support={s} points outside it do not "
                             f"fit in {{0..2^{b} - 1}}")
        self._lo, self._hi = lo, hi
        inner = np.arange(2 * s, dtype=np.int64)  # offsets from c_lo - s
        self._offsets = np.concatenate([inner, inner + np.int64(hi - lo + 1)])  # 4 s points

    @property
    def T(self) -> int:
        return 1 << self._params["b"]

    @property
    def interval(self) -> tuple[int, int]:
        """The target ``(c_lo, c_hi)``: ``y = 1`` iff ``c_lo <= x <= c_hi``."""
        return self._lo, self._hi

    def support_points(self) -> BigPoints:
        """The ``4 support`` points with mass, in increasing order."""
        return BigPoints(self._lo - self._params["support"], self._offsets)

    def _truth(self) -> np.ndarray:
        """Labels of :meth:`support_points` (inside: the middle ``2 support``)."""
        s = self._params["support"]
        k = np.arange(4 * s)
        return ((k >= s) & (k < 3 * s)).astype(np.int64)

    def opt(self) -> float:
        return 0.0

    def target_predict(self, X) -> np.ndarray:
        pts = as_big_points(X)
        return (pts.at_least(self._lo) & ~pts.at_least(self._hi + 1)).astype(np.int64)

    opt_predict = target_predict

    def sample(self, n, random_state=None):
        """``n`` i.i.d. examples: ``(X BigPoints, y int64, public all False)``."""
        n = check_positive_int(n, "n", minimum=0)
        rng = check_random_state(random_state)
        k = rng.integers(0, 4 * self._params["support"], size=n, dtype=np.int64)
        return (BigPoints(self._lo - self._params["support"], self._offsets[k]),
                self._truth()[k], np.zeros(n, dtype=bool))

    def true_error(self, predict, n_test=None, random_state=None):
        """EXACT error: mean over the ``4 support`` equally likely points; se 0.

        ``n_test`` and ``random_state`` are accepted for interface uniformity and ignored.
        """
        if not callable(predict):
            raise ValueError(f"predict must be callable, got {predict!r}")
        pts = self.support_points()
        pred = np.asarray(predict(pts))
        if pred.shape != (len(pts),) or not np.all(np.isin(pred, (0, 1))):
            raise ValueError(f"predict must return {len(pts)} labels in {{0, 1}}")
        return float(np.mean(pred != self._truth())), 0.0


@configurable("population", "noisy_big_grid_interval",
              stable_name="ppm.semi_supervised.big_interval.NoisyBigGridInterval",
              target="ppm.semi_supervised.big_interval.NoisyBigGridInterval")
class NoisyBigGridInterval(BigGridInterval):
    """The interval target with spread-out support and label noise (claim C17's counted design).

    As :class:`BigGridInterval`, but the ``2 support`` points at each end lie ``g =
    2^spacing_bits`` apart (``c_lo + g j`` and ``c_hi - g j``, ``j = -support .. support - 1``:
    each end is a support point), and every label is ``1[c_lo <= x <= c_hi]`` flipped with probability
    ``eta`` (independently), as C14's :class:`~.big_grid.NoisyBigGridThresholds`. The Bayes
    classifier is the target, ``opt() = eta``; an interval that puts ``r`` support points on the
    wrong side has error ``eta + (1 - 2 eta) r / (4 support)`` (exact, :meth:`true_error`), so
    the excess error falls in steps of ``(1 - 2 eta) / (4 support)`` and LabelBoost's
    exponential mechanism on noisy labels has something to get wrong. Every example is private.

    Parameters
    ----------
    b, support, cut, width_bits :
        As in :class:`BigGridInterval`; the target needs ``2^width_bits >= 2 g support``.
    eta : float in [0, 1/2)
        Label noise rate.
    spacing_bits : int in [0, 40]
        ``g = 2^spacing_bits`` between consecutive support points.
    """

    realizable = False

    _parameter_constraints = {
        **BigGridInterval._parameter_constraints,
        "eta": [Number(Real, 0, 0.5, closed="left")],
        "spacing_bits": [Number(Integral, 0, 40, closed="both")],
    }

    def __init__(self, *, b=64, support=8, cut=0.5, width_bits=32, eta=0.1, spacing_bits=16):
        super().__init__(b=b, support=support, cut=cut, width_bits=width_bits)
        s, g, w = support, 1 << spacing_bits, width_bits
        lo, hi = self._lo, self._hi
        if 2 * g * s > (1 << w) or lo - g * s < 0 or hi + g * s > (1 << b) - 1:
            raise ValueError(f"support={s} points 2^{spacing_bits} apart at each end do not fit "
                             f"in the interval of 2^{w} points or in {{0..2^{b} - 1}}")
        j = np.arange(2 * s, dtype=np.int64)
        origin = lo - g * s
        left = g * j                                      # c_lo - g s + g j: inside iff j >= s
        right = np.int64(hi - g * (s - 1) - origin) + g * j  # c_hi - g (s-1) + g j: iff j < s
        self._offsets = np.concatenate([left, right])
        self._origin = origin

    def support_points(self) -> BigPoints:
        return BigPoints(self._origin, self._offsets)

    def opt(self) -> float:
        return self._params["eta"]

    def sample(self, n, random_state=None):
        """``n`` i.i.d. examples: ``(X BigPoints, y int64, public all False)``."""
        n = check_positive_int(n, "n", minimum=0)
        rng = check_random_state(random_state)
        k = rng.integers(0, 4 * self._params["support"], size=n, dtype=np.int64)
        flip = rng.random(n) < self._params["eta"]
        y = (self._truth()[k].astype(bool) ^ flip).astype(np.int64)
        return BigPoints(self._origin, self._offsets[k]), y, np.zeros(n, dtype=bool)

    def true_error(self, predict, n_test=None, random_state=None):
        """EXACT error ``eta + (1 - 2 eta) (wrong side) / (4 support)``; se 0."""
        err, _ = super().true_error(predict)
        eta = self._params["eta"]
        return float(eta + (1 - 2 * eta) * err), 0.0
