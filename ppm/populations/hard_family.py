"""A margin-indexed hard family for the agnostic rate (claim C2; docs/model.md §§1 and 4, Theorem 4.10).

The ``1/alpha^2`` term of Theorem 4.10 is a minimax statement: it shows on a FAMILY of
populations indexed by the target ``alpha``, not on one smooth population (where the measured
slope is the faster cube-root regime). :class:`MarginFamily` is that family in the PPM model.

Population ``D_o`` (``o = orientation`` in {+1, -1}), d = 1, ``w_pub = 1/2``, label-determined
privacy (``y = 1`` iff private):

* ``x`` is uniform on [-1, 1) (density 1/2);
* ``eta(x) = P[private | x] = P[y = 1 | x] = 1/2 + o * gamma * sigma(x)``, ``sigma(x) = -1`` for
  ``x < 0`` and ``+1`` for ``x >= 0``, with ``gamma = c * alpha_target`` in (0, 1/2).

Equivalently the public density (label 0) is ``1/2 + o gamma`` on [-1, 0) and ``1/2 - o gamma``
on [0, 1), the private density (label 1) the mirror image, and ``P[public] = 1/2``.

Errors are EXACT (no test sample). The Bayes rule ``h_o`` is ``1[x >= 0]`` for ``o = +1``
(``1[x < 0]`` for ``o = -1``), a halfspace, so ``OPT = 1/2 - gamma``, and for any rule ``h``

    err(h) - OPT = int p(x) |2 eta(x) - 1| 1[h(x) != h_o(x)] dx = gamma * Leb({h != h_o}),

e.g. ``gamma |t|`` for a threshold at ``t``: the excess is ``<= alpha_target`` iff the learner
places its threshold within ``1/c`` of 0 (1/4 for ``c = 4``), at every ``alpha_target``.

Two-point argument for ``Omega(1/alpha^2)`` (Le Cam). Take ``D_+`` and ``D_-`` with the same
``gamma = c alpha``, ``c > 1``. Their Bayes rules disagree on all of [-1, 1], so for every
``h``, ``exc_+(h) + exc_-(h) = gamma (Leb{h != h_+} + Leb{h != h_-}) >= 2 gamma`` and ``h`` has
excess ``>= gamma > alpha`` under at least one of them. An ``(alpha, beta)`` learner therefore
yields a test "exc_+(h) <= alpha" that is right with probability ``>= 1 - beta`` under both,
so ``TV(D_+^n, D_-^n) >= 1 - 2 beta``. The two share the ``x`` marginal and the privacy bit is
the label, so per example ``KL(D_+ || D_-) = E_x KL(Bern(1/2 + gamma) || Bern(1/2 - gamma)) =
2 gamma ln((1 + 2 gamma)/(1 - 2 gamma)) <= 8 gamma^2 / (1 - 2 gamma)``, and Pinsker gives
``TV <= sqrt(n KL / 2) <= 2 gamma sqrt(n / (1 - 2 gamma))``. Hence every learner, private or
not, needs ``n >= (1 - 2 beta)^2 (1 - 2 gamma) / (4 c^2 alpha^2) = Omega(1/alpha^2)``. The PPM
learner (Theorem 4.10) pays this plus its privacy term ``~ ln|G| / (epsilon alpha)``. The
experiments run ``D_+`` only: the PPM learner and ERM are equivariant under ``x -> -x``.

Exact error of an arbitrary ``predict`` (:meth:`MarginFamily.true_error`): ``predict`` is
evaluated on a grid of ``2^16 + 1`` points of [-1, 1] (containing 0), and every switch of the
prediction between neighbouring grid points is located by bisection to the resolution of
float64; the error is then integrated exactly over the resulting piecewise-constant rule.
This is exact (to float64 rounding) for every rule whose switch points are more than one grid
step (``2^-15``) apart, which includes every threshold, ray and interval (the outputs of the
PPM learner at d = 1, "0 on [l, r] ∩ Aff", and of ERM). Rules that expose their zero set as
intervals can use :meth:`MarginFamily.error_of_zero_set` instead (closed form, no ``predict``).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from ppm.populations.base import PopulationBase
from ppm.registry import configurable
from ppm.validation import (OPEN_UNIT, Choice, Number, check_positive_int, check_random_state,
                            check_X)

# Grid for locating switch points of a rule: 2^16 cells of [-1, 1], 0 is a grid point.
_GRID_CELLS = 1 << 16
# Bisection steps: each halves a cell of width 2^-15; 64 steps reach adjacent float64 values.
_BISECT_STEPS = 64


def _check_gamma(alpha_target, c) -> tuple[float, float, float]:
    """``gamma = c * alpha_target`` in (0, 1/2) (validated parameters: the rule across them)."""
    alpha = float(alpha_target)
    gamma = float(c) * alpha
    if not 0.0 < gamma < 0.5:
        raise ValueError(f"gamma = c * alpha_target = {c!r} * {alpha_target!r} = {gamma!r} "
                         "must lie in (0, 1/2)")
    return alpha, float(c), gamma


@configurable("population", "margin_family", stable_name="ppm.hard_family.MarginFamily",
              target="ppm.populations.MarginFamily")
class MarginFamily(PopulationBase):
    """The hard family of claim C2: ``P[private | x] = 1/2 -+ gamma`` on either side of 0.

    See the module docstring for the construction, the exact excess error and the two-point
    lower bound.

    Parameters
    ----------
    alpha_target : float in (0, 1)
        The target excess error this member of the family is built for; the analysis reads
        ``n_hat`` at this alpha (one population per alpha).
    c : float > 0
        ``gamma = c * alpha_target`` must lie in (0, 1/2). The lower bound needs ``c > 1``;
        a threshold succeeds (excess ``<= alpha_target``) iff it lies within ``1/c`` of 0.
    orientation : {+1, -1}
        ``+1``: private more likely for ``x >= 0`` (``D_+``); ``-1``: the mirror ``D_-``.
    w_pub : float
        Must be 0.5 (the construction has a uniform ``x`` marginal); a parameter only so that
        configs and CSV columns read it like the other populations.
    """

    d = 1
    realizable = False
    synthetic = True  # drawn from a model, not records: ppm.populations.is_synthetic

    _parameter_constraints = {
        "alpha_target": OPEN_UNIT,
        "c": [Number(Real, 0, None, closed="neither")],
        "orientation": [Choice(Integral, {1, -1})],
        "w_pub": [Choice(Real, {0.5})],  # the construction's uniform x marginal
    }

    def __init__(self, *, alpha_target=0.01, c=4.0, orientation=1, w_pub=0.5):
        _, _, self._gamma = _check_gamma(alpha_target, c)

    @property
    def gamma(self) -> float:
        """``|P[private | x] - 1/2|``, the margin of the label noise."""
        return self._gamma

    def label_probabilities(self) -> tuple[float, float]:
        """``(P[y=0], P[y=1]) = (1/2, 1/2)``."""
        return 0.5, 0.5

    # ------------------------------------------------------------------ sampling
    def sample(self, n, random_state=None):
        """Draw ``n`` i.i.d. triples.

        Generative order (fixed, so a seed reproduces a sample): ``public = U_1 < 1/2``
        (privacy bit first, docs/model.md §8) and ``y = 1 - public``; the side ``x >= 0`` with
        ``P = 1/2 + o gamma`` for private and ``1/2 - o gamma`` for public examples (``U_2``);
        then ``x`` uniform on that side, ``[0, 1)`` or ``[-1, 0)`` (``U_3``).

        Returns ``X`` float64 (n, 1), ``y`` int64 (n,), ``public`` bool (n,).
        """
        n = check_positive_int(n, "n", minimum=0)
        rng = check_random_state(random_state)
        public = rng.random(n) < 0.5
        og = self._params["orientation"] * self._gamma
        positive = rng.random(n) < np.where(public, 0.5 - og, 0.5 + og)
        u = rng.random(n)
        x = np.where(positive, u, u - 1.0)
        return x.reshape(-1, 1), (~public).astype(np.int64), public

    # ------------------------------------------------------------------ exact errors
    def opt(self) -> float:
        """``OPT = 1/2 - gamma`` (the Bayes rule is a threshold at 0, a halfspace)."""
        return 0.5 - self._gamma

    def opt_predict(self, X) -> np.ndarray:
        """The Bayes rule: ``1[x >= 0]`` for ``orientation = +1``, ``1[x < 0]`` for ``-1``."""
        X = check_X(X, n_features=1)
        pos = X[:, 0] >= 0
        return (pos if self._params["orientation"] == 1 else ~pos).astype(np.int64)

    def _error_from_zero_measure(self, zero_neg: float, zero_pos: float) -> float:
        """Error from ``Leb({h = 0} ∩ [-1, 0))`` and ``Leb({h = 0} ∩ [0, 1))``.

        Density of (x, y = 1) is ``eta(x) / 2``, of (x, y = 0) ``(1 - eta(x)) / 2``; ``h`` errs on
        label 1 where it predicts 0 and on label 0 where it predicts 1.
        """
        og = self._params["orientation"] * self._gamma
        eta_neg, eta_pos = 0.5 - og, 0.5 + og
        return 0.5 * (zero_neg * eta_neg + (1.0 - zero_neg) * (1.0 - eta_neg)
                      + zero_pos * eta_pos + (1.0 - zero_pos) * (1.0 - eta_pos))

    def error_of_zero_set(self, intervals) -> float:
        """Exact ``err(h)`` of the rule predicting 0 on a union of intervals, 1 elsewhere.

        ``intervals``: iterable of ``(l, r)`` with ``l <= r`` (open or closed ends alike: the
        density has no atoms); overlapping intervals are merged. Closed form, no ``predict``.
        """
        iv = sorted((float(lo), float(hi)) for lo, hi in intervals)
        merged: list[list[float]] = []
        for lo, hi in iv:
            if math.isnan(lo) or math.isnan(hi) or hi < lo:
                raise ValueError(f"intervals need l <= r, got {(lo, hi)!r}")
            if merged and lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        zero_neg = sum(max(0.0, min(hi, 0.0) - max(lo, -1.0)) for lo, hi in merged)
        zero_pos = sum(max(0.0, min(hi, 1.0) - max(lo, 0.0)) for lo, hi in merged)
        return self._error_from_zero_measure(zero_neg, zero_pos)

    def true_error(self, predict, n_test=None, random_state=None):
        """EXACT ``err(h; D)`` of ``predict`` (module docstring: grid plus bisection).

        Returns ``(error, 0.0)``; ``n_test`` and ``random_state`` are accepted for interface
        uniformity and IGNORED (nothing is sampled).
        """
        if not callable(predict):
            raise ValueError(f"predict must be callable, got {predict!r}")
        grid = np.linspace(-1.0, 1.0, _GRID_CELLS + 1)
        vals = _predict01(predict, grid)
        cells = np.flatnonzero(vals[:-1] != vals[1:])
        # Bisection on every cell where the prediction switches: lo keeps vals[k], hi vals[k+1].
        lo, hi = grid[cells].copy(), grid[cells + 1].copy()
        left = vals[cells]
        for _ in range(_BISECT_STEPS):
            mid = lo + 0.5 * (hi - lo)
            if not np.any((mid > lo) & (mid < hi)):
                break
            same = _predict01(predict, mid) == left
            lo, hi = np.where(same, mid, lo), np.where(same, hi, mid)
        # The rule is vals[0] on [-1, s_1), then alternates at each switch point s_i = hi_i.
        bounds = np.concatenate([[-1.0], hi, [1.0]])
        seg_vals = np.concatenate([[vals[0]], vals[cells + 1]])
        zero_neg = zero_pos = 0.0
        for a, b, v in zip(bounds[:-1], bounds[1:], seg_vals):
            if v == 0:
                zero_neg += max(0.0, min(b, 0.0) - a)
                zero_pos += max(0.0, b - max(a, 0.0))
        return float(self._error_from_zero_measure(zero_neg, zero_pos)), 0.0


def _predict01(predict, x: np.ndarray) -> np.ndarray:
    pred = np.asarray(predict(x.reshape(-1, 1)))
    if pred.shape != (x.size,):
        raise ValueError(f"predict returned shape {pred.shape}, expected ({x.size},)")
    if not np.all(np.isin(pred, (0, 1))):
        raise ValueError("predict must return labels in {0, 1}")
    return pred.astype(np.int8)
