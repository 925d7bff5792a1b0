"""Thresholds on a grid where almost every threshold is *nearly* good (claim C13).

What it is for. Claim C13 contrasts GenericLearner (BNS15, Theorem 3.3), whose labelled cost
does not depend on the domain size ``T = 2^b``, with the fully private exponential mechanism
over the ``2T`` grid thresholds (:class:`ppm.baselines.GridExponentialMechanism`), whose cost
should grow like ``ln T``. That growth comes from the mechanism's union over bad thresholds:
it outputs a bad one with probability about ``#bad x exp(-epsilon n gap / 2)``, where ``gap``
is the error a bad threshold must pay on the sample. On
:class:`ppm.populations.GridThresholds` with ``support = 4`` the bad thresholds the mechanism
has to beat at a small ``alpha`` are the few next to the cut (errors ``0.125, 0.25, ...``),
whose number does not grow with ``T``, while the ``~T`` far ones err by ``0.5`` and are cheap
to rule out: there the mechanism's cost barely depends on ``T`` and the contrast cannot show.

Why this population. Here every threshold but the target errs by the SAME small amount: mass
``plateau`` sits on each of the two grid points beside the cut and mass ``1/2 - plateau`` on
each end of the grid, so

* ``1[x >= g_k]`` errs by ``1/2`` at ``k = 0`` (every negative), by ``plateau`` for
  ``1 <= k < T_0`` and for ``T_0 < k <= T - 1`` (one near point on the wrong side), and by 0
  at ``k = T_0`` (the target);
* the constant 0 errs by ``1/2``, and ``1[x < g_k] = 1 - 1[x >= g_k]`` by ``1 -`` those.

So for any ``alpha < plateau`` exactly one of the ``2T`` thresholds is good and ``T - 2`` are
nearly good (error ``plateau``, just above ``alpha``), a constant fraction of the class: the
mechanism's failure term is ``~(T - 2) exp(-epsilon n plateau / 2)`` and its labelled cost
``~2 (ln T + ln(1/beta)) / (epsilon plateau)``, linear in ``b``. GenericLearner only sees the
points of its sanitized unlabelled sample, which lie on (or near) the four atoms whatever
``T``, so its class, and its labelled cost, stay the same size.

Model: ``T_0 = #{k : g_k < cut}`` negative grid points ``g_k = k / (T - 1)`` (the grid of
:class:`ppm.populations.GridThresholds`, bit for bit; ``T_0`` computed the same way); the
four atoms ``g_0``, ``g_{T_0 - 1}`` (label 0) and ``g_{T_0}``, ``g_{T - 1}`` (label 1) with
masses ``1/2 - plateau, plateau, plateau, 1/2 - plateau``. Label-determined privacy as in
``GridThresholds`` with ``w_pub = 1/2``: ``public`` iff ``y = 0`` (the C13 learners treat
every example as private and ignore the mask). Realizable (``OPT = 0``); :meth:`true_error` is
EXACT (``predict`` is evaluated on the four atoms).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from ppm.populations.base import PopulationBase
from ppm.populations.grid_thresholds import GridThresholds
from ppm.registry import configurable
from ppm.validation import OPEN_UNIT, Number, check_positive_int, check_random_state, check_X


@configurable("population", "plateau_grid_thresholds",
              stable_name="ppm.semi_supervised.PlateauGridThresholds",
              target="ppm.semi_supervised.PlateauGridThresholds")
class PlateauGridThresholds(PopulationBase):
    """Population of the module docstring: one good threshold, ``T - 2`` at error ``plateau``.

    Parameters
    ----------
    T : int >= 4
        Number of grid points ``g_k = k / (T - 1)``.
    plateau : float in (0, 1/2)
        Mass of each of the two grid points beside the cut, i.e. the error of every threshold
        except the target, the constant 0 and the all-ones ``1[x >= g_0]``.
    cut : float in (0, 1)
        Target ``y = 1[x >= cut]``; at least two grid points must lie on each side of it.
    """

    realizable = True
    synthetic = True  # drawn from a model, not records: ppm.populations.is_synthetic
    d = 1

    _parameter_constraints = {
        "T": [Number(Integral, 4, None, closed="left")],
        "plateau": [Number(Real, 0, 0.5, closed="neither")],
        "cut": OPEN_UNIT,
    }

    def __init__(self, *, T=64, plateau=0.15, cut=0.5):
        n_neg = GridThresholds(T=T, cut=cut).n_negative
        if not 2 <= n_neg <= T - 2:
            raise ValueError(f"cut={cut!r} with T={T} leaves {n_neg} of {T} grid points below "
                             "it; need at least 2 on each side")
        self._n_neg = n_neg
        # the four atoms (grid indices), their labels and masses
        self._atoms = np.array([0, n_neg - 1, n_neg, T - 1], dtype=np.int64)
        self._labels = np.array([0, 0, 1, 1], dtype=np.int64)
        self._masses = np.array([0.5 - plateau, plateau, plateau, 0.5 - plateau])

    @property
    def n_negative(self) -> int:
        """``T_0``: the number of grid points below ``cut``."""
        return self._n_neg

    def atoms(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(X, y, mass)`` of the four atoms: (4, 1) grid points, labels, probabilities."""
        X = (self._atoms / (self._params["T"] - 1)).reshape(-1, 1)
        return X, self._labels.copy(), self._masses.copy()

    def opt(self) -> float:
        """``OPT = 0``: the target threshold errs nowhere."""
        return 0.0

    def target_predict(self, X) -> np.ndarray:
        """The target rule ``1[x >= cut]``."""
        X = check_X(X, n_features=1)
        return (X[:, 0] >= self._params["cut"]).astype(np.int64)

    def class_errors(self) -> np.ndarray:
        """Exact errors of the ``2T`` thresholds of
        :class:`ppm.baselines.GridExponentialMechanism`, in its canonical order
        (``1[x >= g_k]`` for ``k = 0..T-1``, the constant 0, ``1[x < g_k]`` for
        ``k = 1..T-1``), from the closed form of the module docstring."""
        T, n_neg, p = self._params["T"], self._n_neg, self._params["plateau"]
        ge = np.full(T, p)
        ge[0], ge[n_neg] = 0.5, 0.0
        return np.concatenate([ge, [0.5], 1.0 - ge[1:]])

    def sample(self, n, random_state=None):
        """``n`` i.i.d. examples: atom ``j`` with probability ``mass_j`` (one uniform per
        example, inverted through the cumulative masses).

        Returns ``X`` (n, 1) float64 grid points, ``y`` int64 labels, ``public`` = ``y == 0``.
        """
        n = check_positive_int(n, "n", minimum=0)
        rng = check_random_state(random_state)
        cum = np.cumsum(self._masses)
        j = np.minimum(np.searchsorted(cum, rng.random(n), side="right"), 3)
        X = (self._atoms[j] / (self._params["T"] - 1)).reshape(-1, 1)
        y = self._labels[j]
        return X, y, y == 0

    def true_error(self, predict, n_test=None, random_state=None):
        """EXACT ``(err(h), 0.0)``: the mass of the atoms ``predict`` gets wrong (``n_test`` and
        ``random_state`` are accepted for interface uniformity and ignored)."""
        if not callable(predict):
            raise ValueError(f"predict must be callable, got {predict!r}")
        X, y, mass = self.atoms()
        pred = np.asarray(predict(X))
        if pred.shape != (4,):
            raise ValueError(f"predict returned shape {pred.shape}, expected (4,)")
        if not np.all(np.isin(pred, (0, 1))):
            raise ValueError("predict must return labels in {0, 1}")
        return float(mass[pred != y].sum()), 0.0
