"""Thresholds on ``{0..2^b - 1}`` with the mass next to the cut, all examples private (C13/C14).

docs/model.md §9.6, claims C13/C14: the hard instance of the ``Omega(log T)`` lower bound for pure-DP
learning of thresholds (Feldman-Xiao 2014) on a domain of ``T = 2^b`` points, ``b`` up to 4096
and beyond. Cut ``c = floor(cut * 2^b)`` (exact rational arithmetic); the ``2 * support`` points
``c - support .. c + support - 1`` carry mass ``1 / (2 support)`` each; label ``y = 1`` iff
``x >= c`` (realizable, ``OPT = 0``). Every example is private (BNS15's model): ``public`` is
all False. A threshold must land in the gap ``(c - 1, c]`` (one grid point) to err nowhere,
while the two outer gaps hold ``~2^(b-1)`` thresholds each: a fully private learner pays
``~ b ln 2`` (linear in ``b``), the LabelBoost wrapper's labelled cost does not.

Points are :class:`~.big_points.BigPoints` with ``origin = c - support`` and offsets
``0 .. 2 support - 1``. :meth:`BigGridThresholds.true_error` is EXACT (the support is finite).
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Integral, Real

import numpy as np

from ppm.populations.base import PopulationBase
from ppm.registry import configurable
from ppm.validation import OPEN_UNIT, Number, check_positive_int, check_random_state
from .big_points import BigPoints


@configurable("population", "big_grid_thresholds", stable_name="ppm.semi_supervised.BigGridThresholds",
              target="ppm.semi_supervised.BigGridThresholds")
class BigGridThresholds(PopulationBase):
    """Population of the module docstring.

    Parameters
    ----------
    b : int >= 2
        Domain ``{0..2^b - 1}``.
    support : int >= 1
        Points with mass on each side of the cut.
    cut : float in (0, 1)
        ``c = floor(cut * 2^b)``; ``support <= c`` and ``c + support <= 2^b`` are required.
    """

    realizable = True
    synthetic = True  # drawn from a model, not records: ppm.populations.is_synthetic
    d = 1

    _parameter_constraints = {
        "b": [Number(Integral, 2, None, closed="left")],
        "support": [Number(Integral, 1, None, closed="left")],
        "cut": OPEN_UNIT,
    }

    def __init__(self, *, b=64, support=5, cut=0.5):
        c = math.floor(Fraction(cut) * (1 << b))
        if c < support or c + support > (1 << b):
            raise ValueError(f"support={support} points on each side of the cut {c} do not fit "
                             f"in {{0..2^{b} - 1}}")
        self._c = c

    @property
    def cut_point(self) -> int:
        """The integer cut ``c``: ``y = 1`` iff ``x >= c``."""
        return self._c

    def support_points(self) -> BigPoints:
        """The ``2 support`` points with mass, in increasing order."""
        s = self._params["support"]
        return BigPoints(self._c - s, np.arange(2 * s, dtype=np.int64))

    def opt(self) -> float:
        return 0.0

    def target_predict(self, X) -> np.ndarray:
        from .big_points import as_big_points
        return as_big_points(X).at_least(self._c).astype(np.int64)

    opt_predict = target_predict

    def sample(self, n, random_state=None):
        """``n`` i.i.d. examples: ``(X BigPoints, y int64, public all False)``."""
        n = check_positive_int(n, "n", minimum=0)
        rng = check_random_state(random_state)
        s = self._params["support"]
        k = rng.integers(0, 2 * s, size=n, dtype=np.int64)
        return BigPoints(self._c - s, k), (k >= s).astype(np.int64), np.zeros(n, dtype=bool)

    def true_error(self, predict, n_test=None, random_state=None):
        """EXACT error: mean over the ``2 support`` equally likely points; se 0.

        ``n_test`` and ``random_state`` are accepted for interface uniformity and ignored.
        """
        if not callable(predict):
            raise ValueError(f"predict must be callable, got {predict!r}")
        pts = self.support_points()
        pred = np.asarray(predict(pts))
        if pred.shape != (len(pts),) or not np.all(np.isin(pred, (0, 1))):
            raise ValueError(f"predict must return {len(pts)} labels in {{0, 1}}")
        truth = (pts.offsets >= self._params["support"]).astype(np.int64)
        return float(np.mean(pred != truth)), 0.0


@configurable("population", "noisy_big_grid_thresholds",
              stable_name="ppm.semi_supervised.big_grid.NoisyBigGridThresholds",
              target="ppm.semi_supervised.big_grid.NoisyBigGridThresholds")
class NoisyBigGridThresholds(BigGridThresholds):
    """Thresholds on ``{0..2^b - 1}`` with spread-out support and label noise (claim C14).

    :class:`BigGridThresholds` puts its mass on ``2 support`` adjacent points and labels them
    without noise, so after one LabelBoost round every trial is exactly right (errors 0 or 1/2:
    ``n_hat`` is the size at which the wrapper stops failing, whatever ``b``). Here the
    ``2 support`` points ``c + g j``, ``j = -support .. support - 1``, ``g = 2^spacing_bits``,
    carry mass ``1 / (2 support)`` each, and every label is ``1[x >= c]`` flipped with
    probability ``eta`` (independently). The Bayes classifier is the cut, ``opt() = eta``; a
    threshold that puts ``r`` support points on the wrong side has error ``eta + (1 - 2 eta) r
    / (2 support)`` (exact, :meth:`true_error`), so the excess error falls in steps of ``(1 - 2
    eta) / (2 support)`` as the learners improve, and LabelBoost's exponential mechanism on
    noisy labels has something to get wrong. Every example is private.

    Parameters
    ----------
    b, support, cut :
        As in :class:`BigGridThresholds` (the points must fit: ``c - g support >= 0`` and
        ``c + g support <= 2^b``).
    eta : float in [0, 1/2)
        Label noise rate.
    spacing_bits : int in [0, 40]
        ``g = 2^spacing_bits`` between consecutive support points.
    """

    realizable = False

    _parameter_constraints = {
        **BigGridThresholds._parameter_constraints,
        "eta": [Number(Real, 0, 0.5, closed="left")],
        "spacing_bits": [Number(Integral, 0, 40, closed="both")],
    }

    def __init__(self, *, b=64, support=25, cut=0.5, eta=0.1, spacing_bits=16):
        super().__init__(b=b, support=support, cut=cut)
        s, g = support, 1 << spacing_bits
        if self._c < g * s or self._c + g * s > (1 << self._params["b"]):
            raise ValueError(f"support={s} points {g} apart on each side of the cut do not fit "
                             f"in {{0..2^{self._params['b']} - 1}}")
        self._g = g

    def support_points(self) -> BigPoints:
        s = self._params["support"]
        return BigPoints(self._c - self._g * s, self._g * np.arange(2 * s, dtype=np.int64))

    def opt(self) -> float:
        return self._params["eta"]

    def sample(self, n, random_state=None):
        """``n`` i.i.d. examples: ``(X BigPoints, y int64, public all False)``."""
        n = check_positive_int(n, "n", minimum=0)
        rng = check_random_state(random_state)
        s = self._params["support"]
        k = rng.integers(0, 2 * s, size=n, dtype=np.int64)
        flip = rng.random(n) < self._params["eta"]
        y = ((k >= s) ^ flip).astype(np.int64)
        return BigPoints(self._c - self._g * s, self._g * k), y, np.zeros(n, dtype=bool)

    def true_error(self, predict, n_test=None, random_state=None):
        """EXACT error ``eta + (1 - 2 eta) (wrong side) / (2 support)``; se 0."""
        if not callable(predict):
            raise ValueError(f"predict must be callable, got {predict!r}")
        pts = self.support_points()
        pred = np.asarray(predict(pts))
        if pred.shape != (len(pts),) or not np.all(np.isin(pred, (0, 1))):
            raise ValueError(f"predict must return {len(pts)} labels in {{0, 1}}")
        truth = np.arange(len(pts)) >= self._params["support"]
        eta = self._params["eta"]
        return float(eta + (1 - 2 * eta) * np.mean(pred != truth)), 0.0
