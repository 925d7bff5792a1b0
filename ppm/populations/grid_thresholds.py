"""The d = 1 grid domain of claim C9 (docs/model.md §§4 and 8): :class:`GridThresholds`.

Thresholds over ``T`` equally spaced points of [0, 1], the setting where fully private learning
pays ``Omega(log T)`` and the PPM learner pays nothing for the domain size. Its true error is
exact. Immutable after construction (safe to share between reused joblib workers).
"""

from __future__ import annotations

import math
from numbers import Integral

import numpy as np

from ppm.populations.base import PopulationBase
from ppm.registry import configurable
from ppm.validation import (CLOSED_UNIT, OPEN_UNIT, Number, check_positive_int,
                            check_random_state, check_X)

# Grid points evaluated per ``predict`` call in :meth:`GridThresholds.true_error` (bounds memory).
_GRID_CHUNK = 1 << 20


@configurable("population", "grid_thresholds", stable_name="ppm.populations.GridThresholds",
              target="ppm.populations.GridThresholds")
class GridThresholds(PopulationBase):
    """Thresholds on a one-dimensional grid, label-determined privacy (docs/model.md §§1, 4 and 8; claim C9).

    Domain: the ``T`` grid points ``g_k = k / (T - 1)``, ``k = 0..T-1`` (so ``g_0 = 0`` and
    ``g_{T-1} = 1``), as 1-column feature arrays. Target: ``y = 1`` iff ``x >= cut``. Write
    ``T_0`` for the number of grid points below ``cut`` ("negative" points) and ``T - T_0``
    for the others.

    Generative order for one example (label-determined privacy model, docs/model.md §1; privacy bit first,
    docs/model.md §8):

    1. ``public = U < w_pub`` (one uniform per example, for all examples first);
    2. public examples: ``y = 0`` and ``x`` uniform over the ``T_0`` negative grid points;
       private examples: ``y = 1`` and ``x`` uniform over the ``T - T_0`` positive grid points
       (the indices are drawn with ``Generator.integers``, public rows first, then private rows).

    So the population is realizable by the threshold ``1[x >= cut]`` (``opt() = 0``), and
    ``err(h) = w_pub * P_{x ~ U(neg)}[h(x) = 1] + (1 - w_pub) * P_{x ~ U(pos)}[h(x) = 0]``,
    which :meth:`true_error` computes EXACTLY by evaluating ``h`` on all ``T`` grid points.

    Parameters
    ----------
    T : int >= 2
        Number of grid points (the domain size of docs/model.md §4; ``T`` up to ``2^22`` and beyond work,
        :meth:`true_error` evaluates in chunks of ``2^20`` points).
    w_pub : float in [0, 1]
        Mixture weight ``P[public]``.
    cut : float in (0, 1)
        Threshold of the target. Both sides must contain a grid point; since ``g_0 = 0 < cut``
        and ``g_{T-1} = 1 >= cut`` this holds for every ``cut`` in (0, 1) (checked anyway).
    support : int >= 1 or None
        If given, only the ``support`` grid points nearest to the cut on each side carry mass
        (fewer if a side has fewer points): the population lives on ``<= 2 support`` points of
        a domain of ``T``, the kind of instance behind the ``Omega(log T)`` lower bound for
        fully private learning (docs/model.md §4). A fully private learner must find the cut among all
        ``~T`` candidates, while only ``O(support)`` of them are good. ``None`` (default):
        uniform over every grid point of each side. On that population even the fully private
        exponential mechanism does NOT pay ``log T``, because the fraction of good thresholds
        stays fixed as ``T`` grows (measured; see docs/results.md, C9).
    """

    realizable = True
    synthetic = True  # drawn from a model, not records: ppm.populations.is_synthetic

    _parameter_constraints = {
        "T": [Number(Integral, 2, None, closed="left")],
        "w_pub": CLOSED_UNIT,
        "cut": OPEN_UNIT,
        "support": [None, Number(Integral, 1, None, closed="left")],  # None: uniform
    }

    def __init__(self, *, T=64, w_pub=0.5, cut=0.5, support: int | None = None):
        # T_0 = #{k : k / (T - 1) < cut}, with the same float division as the grid itself.
        n_neg = min(max(math.ceil(cut * (T - 1)), 0), T)
        while n_neg > 0 and (n_neg - 1) / (T - 1) >= cut:
            n_neg -= 1
        while n_neg < T and n_neg / (T - 1) < cut:
            n_neg += 1
        if not 0 < n_neg < T:
            raise ValueError(
                f"cut={cut!r} with T={T} leaves no grid point on one side of the cut "
                f"({n_neg} of {T} grid points below it)"
            )
        self._n_neg = n_neg
        # grid indices carrying mass: [lo, n_neg) are label 0, [n_neg, hi) label 1
        self._lo = 0 if support is None else max(0, n_neg - support)
        self._hi = T if support is None else min(T, n_neg + support)

    d = 1

    @property
    def n_negative(self) -> int:
        """``T_0``: the number of grid points below ``cut`` (label 0)."""
        return self._n_neg

    def grid(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Grid points ``g_k``, ``start <= k < stop`` (default: all), as a (m, 1) float64 array."""
        T = self._params["T"]
        stop = T if stop is None else stop
        if not 0 <= start <= stop <= T:
            raise ValueError(f"need 0 <= start <= stop <= T={T}, got start={start!r}, "
                             f"stop={stop!r}")
        return (np.arange(start, stop, dtype=np.int64) / (T - 1)).reshape(-1, 1)

    def label_probabilities(self) -> tuple[float, float]:
        """Marginal label probabilities ``(P[y=0], P[y=1]) = (w_pub, 1 - w_pub)``."""
        w = self._params["w_pub"]
        return w, 1.0 - w

    def opt(self) -> float:
        """``OPT = 0``: the target threshold is a halfspace with zero error."""
        return 0.0

    def target_predict(self, X) -> np.ndarray:
        """The target rule ``1[x >= cut]`` (zero error)."""
        X = check_X(X, n_features=1)
        return (X[:, 0] >= self._params["cut"]).astype(np.int64)

    def sample(self, n, random_state=None):
        """Draw ``n`` i.i.d. triples (generative order in the class docstring).

        Returns
        -------
        X : float64 array (n, 1), grid points
        y : int64 array (n,), ``y = 1`` iff private
        public : bool array (n,), True = public example
        """
        n = check_positive_int(n, "n", minimum=0)
        rng = check_random_state(random_state)
        T, n_neg = self._params["T"], self._n_neg
        public = rng.random(n) < self._params["w_pub"]
        k = np.empty(n, dtype=np.int64)
        k[public] = rng.integers(self._lo, n_neg, size=int(public.sum()))
        k[~public] = rng.integers(n_neg, self._hi, size=int((~public).sum()))
        X = (k / (T - 1)).reshape(-1, 1)
        return X, (~public).astype(np.int64), public

    def true_error(self, predict, n_test=None, random_state=None):
        """EXACT ``err(h; D)`` (docs/model.md §§1 and 5): ``predict`` is evaluated on every grid point.

        Returns ``(w_pub * mean_{k < T_0} [h(g_k) = 1] + (1 - w_pub) * mean_{k >= T_0}
        [h(g_k) = 0], 0.0)`` (means over the grid points that carry mass; all of them unless
        ``support`` is set): the standard error is 0 because nothing is estimated. ``n_test``
        and ``random_state`` are accepted for interface uniformity and IGNORED. ``predict`` is
        called on consecutive chunks of at most ``2^20`` grid points (each a (m, 1) array).
        """
        if not callable(predict):
            raise ValueError(f"predict must be callable, got {predict!r}")
        n_neg, w = self._n_neg, self._params["w_pub"]

        def count_ones(start, stop):
            ones = 0
            for lo in range(start, stop, _GRID_CHUNK):
                hi = min(lo + _GRID_CHUNK, stop)
                pred = np.asarray(predict(self.grid(lo, hi)))
                if pred.shape != (hi - lo,):
                    raise ValueError(f"predict returned shape {pred.shape}, expected ({hi - lo},)")
                if not np.all(np.isin(pred, (0, 1))):
                    raise ValueError("predict must return labels in {0, 1}")
                ones += int(np.count_nonzero(pred))
            return ones

        lo, hi = self._lo, self._hi
        false_pos = count_ones(lo, n_neg) / (n_neg - lo)
        false_neg = 1.0 - count_ones(n_neg, hi) / (hi - n_neg)
        return float(w * false_pos + (1.0 - w) * false_neg), 0.0
