"""Fully private baseline: the exponential mechanism over thresholds on a finite grid (d = 1).

docs/model.md §7, "Fully private" (a): every example is treated as private (the ``public`` mask is
accepted and ignored), and the learner is the generic pure-DP learner of Kasiviswanathan et al.
(exponential mechanism of McSherry-Talwar over a finite class, as in BNS15's discussion
of the generic construction) instantiated with thresholds on the grid domain
``g_k = low + k (high - low) / (T - 1)``, ``k = 0..T-1`` (evaluated as in
:func:`grid_points`, so that the default ``[0, 1]`` grid is ``k / (T - 1)`` exactly).

The class, in its fixed canonical order, has exactly ``2T`` members, pairwise distinct as
functions on the grid (when the grid points are distinct floats):

* ``("ge", k)`` for ``k = 0..T-1``: predict 1 iff ``x >= g_k`` (``k = 0`` is all-ones on the grid);
* ``("zeros", None)``: predict 0 everywhere;
* ``("lt", k)`` for ``k = 1..T-1``: predict 1 iff ``x < g_k``.

Prediction on any real ``x`` uses exactly these inequalities with the same float ``g_k``, so the
training mistakes of :meth:`GridExponentialMechanism.predict` equal the score the mechanism used.

Scores ``m(h)`` (mistakes on all ``n`` examples) of the whole class are computed in
``O(n log T + T)`` without an ``n x T`` matrix: ``c_i = #{k : g_k <= x_i}`` by ``searchsorted``,
so ``x_i >= g_k`` iff ``k < c_i``; then ``m(ge_k) = #{y_i = 1, c_i <= k} + #{y_i = 0, c_i > k}``
by prefix sums of label-wise histograms of ``c``, ``m(lt_k) = n - m(ge_k)`` and
``m(zeros) = n_1``. ``T`` goes up to ``2^20`` in the experiments.

Privacy: the class depends on ``(T, low, high)`` only, never on data; one example changes every
``m(h)`` by at most 1, so sampling exactly ``P[h] ∝ exp(-epsilon m(h) / 2)`` (score histogram +
:func:`ppm.mechanisms.sample_level_and_rank`, the same sampler as the PPM learner) is epsilon-DP
with respect to *every* example, public or private.

Cost of the domain (claim C9; docs/model.md §4, "Fully private is impossible on R"): the
exponential mechanism guarantees ``m(h_hat) <= OPT + 2 (ln(2T) + ln(1/beta)) / epsilon`` with
probability ``1 - beta``, so in the realizable case about ``n ~ 2 (ln(2T) + ln(1/beta)) /
(epsilon alpha)`` examples are needed: the learner pays ``log T`` for the size of the domain.
That is unavoidable for pure DP (thresholds on a grid of size ``T`` need ``Omega(log T)``
samples: Feldman-Xiao 2014; Beimel-Kasiviswanathan-Nissim 2010 for point functions); approximate
DP still needs ``Omega(log* T)`` (Bun-Nissim-Stemmer-Vadhan 2015), and on all of ``R`` no private
learner of thresholds exists (Alon-Livni-Malliaris-Moran 2019). The PPM learner's sample
complexity has no dependence on ``T`` (docs/model.md §4).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils.validation import check_is_fitted

from ppm._sklearn import BinaryLabelsMixin
from ppm.registry import configurable
from ppm.audit_spec import EVERY, GRID4, PrivacyAudit, neighbour_pairs
from ppm.sklearn_checks import FIT1D, LINE_BELOW_BAR, LINE_NO_MULTICLASS, ONE_D_INDEXED
from ppm.validation import (
    EPSILON,
    RANDOM_STATE,
    check_labelled_data,
    check_random_state,
    check_X,
)
from ppm.mechanisms import sample_level_and_rank
from ppm.grid import GRID_CONSTRAINTS, check_grid, check_grid_span, grid_points


def hypothesis_of(index: int, T: int):
    """``(kind, k)`` of class member ``index`` in canonical order (module docstring)."""
    if not 0 <= index < 2 * T:
        raise ValueError(f"index must be in [0, {2 * T}), got {index!r}")
    if index < T:
        return "ge", int(index)
    if index == T:
        return "zeros", None
    return "lt", int(index - T)


def grid_threshold_scores(x, y, grid: np.ndarray) -> np.ndarray:
    """Mistakes of all ``2T`` class members on ``(x, y)``, in canonical order (int64)."""
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y).astype(np.int64).ravel()
    T = grid.size
    n = y.size
    n1 = int(y.sum())
    # c_i = #{k : g_k <= x_i}; the grid is non-decreasing, so {k : x_i >= g_k} = {0..c_i - 1}.
    c = np.searchsorted(grid, x, side="right")
    hist1 = np.bincount(c[y == 1], minlength=T + 1)
    hist0 = np.bincount(c[y == 0], minlength=T + 1)
    ones_missed = np.cumsum(hist1)[:T]                 # y = 1, c_i <= k: predicted 0
    zeros_hit = (n - n1) - np.cumsum(hist0)[:T]        # y = 0, c_i > k: predicted 1
    ge = ones_missed + zeros_hit
    return np.concatenate([ge, [n1], n - ge[1:]]).astype(np.int64)


@configurable("baseline", stable_name="ppm.fully_private.GridExponentialMechanism")
class GridExponentialMechanism(BinaryLabelsMixin, ClassifierMixin, BaseEstimator):
    """Fully private learner: exact exponential mechanism over ``2T`` grid thresholds (d = 1).

    See the module docstring for the class, its canonical order, the privacy argument and the
    ``log T`` sample cost (claim C9).

    Parameters
    ----------
    epsilon : float
        Privacy parameter (> 0); the output is epsilon-DP w.r.t. every example.
    T : int
        Grid size (>= 2).
    low, high : float
        Grid end points, finite, ``low < high``.
    random_state : None, int, SeedSequence or Generator
        Source of the mechanism's two random draws (level, then rank).

    Attributes
    ----------
    hypothesis_ : tuple
        ``(kind, k)``: ``("ge", k)``, ``("zeros", None)`` or ``("lt", k)``.
    threshold_ : float or None
        ``g_k`` of the output (``None`` for ``"zeros"``).
    hypothesis_index_ : int
        Position of the output in the canonical order.
    n_hypotheses_ : int
        ``2T``.
    n_features_in_ : int
        Always 1.

    No score, score histogram or training error is kept (functions of the private data); see
    :mod:`ppm.diagnostics` for the non-private research diagnostics.
    """

    _one_d_input = True
    _parameter_constraints = {"epsilon": EPSILON, **GRID_CONSTRAINTS, "random_state": RANDOM_STATE}

    # scikit-learn's check suite runs on this (ppm.sklearn_checks.check_instances)
    _check_params = {"epsilon": 5.0, "T": 16, "low": -3.0, "high": 3.0}

    # declared once (ppm.audit_spec): the released state, the checks failed by design, the audit
    _released = ("hypothesis_", "hypothesis_index_", "threshold_")
    _expected_failed_checks = FIT1D | LINE_NO_MULTICLASS | LINE_BELOW_BAR | ONE_D_INDEXED

    @classmethod
    def _privacy_audits(cls):
        """Statistical: predictions on the T = 4 grid; leak: the learner at m epsilon."""
        def leak(m):
            def run(data, rs):
                X, y = data
                return cls(epsilon=1.0 * m, T=4, random_state=rs).fit(X, y).predict(GRID4[:, None])
            return run
        base = {"X": GRID4[[0, 1, 2, 3]][:, None], "y": [0, 0, 1, 1]}
        return (PrivacyAudit(
            kind="statistical", index=0, row=1, paper="BMN20 baseline (fully private)",
            leak=leak, n_select=1000, n_eval=3000, neighbours=EVERY,
            setting="T=4 grid of [0, 1], n=4; probes: the 4 grid points",
            pairs=lambda: neighbour_pairs(base, [{"y": (3, 0)}, {"X": (0, GRID4[3]), "y": (0, 0)},
                                                 {"y": (1, 1)}])),)

    @classmethod
    def _temperature_cases(cls):
        """Its grid-threshold selection at ``eps`` on 60 points of [0, 1] (ppm.audit_spec)."""
        def grid_em(eps, seed=0):
            x = np.random.default_rng(1).random(60)
            y = (x > 0.4).astype(int)
            f = cls(epsilon=eps, T=64, random_state=seed).fit(x[:, None], y)
            return eps, np.array([f.hypothesis_index_])

        return {"grid_em": grid_em}

    def __init__(self, *, epsilon=1.0, T=64, low=0.0, high=1.0, random_state=None):
        self.epsilon = epsilon
        self.T = T
        self.low = low
        self.high = high
        self.random_state = random_state

    def _check_cross_params(self) -> None:
        check_grid_span(self.T, self.low, self.high)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, public=None):
        """Fit on all examples as private; ``public`` is accepted and ignored."""
        epsilon, (T, low, high) = float(self.epsilon), check_grid(self.T, self.low, self.high)
        rng = check_random_state(self.random_state)
        self._check_names(X, reset=True)
        X = check_X(X)
        if X.shape[1] != 1:
            raise ValueError(
                f"GridExponentialMechanism needs exactly one feature (d = 1), got X with "
                f"{X.shape[1]} features"
            )
        X, y, _ = check_labelled_data(X, y, None, encode_y=self._encode_y)  # all private
        grid = grid_points(T, low, high)
        scores = grid_threshold_scores(X[:, 0], y, grid)
        counts = np.bincount(scores, minlength=y.size + 1)
        level, rank = sample_level_and_rank(counts, epsilon, rng)
        index = int(np.flatnonzero(scores == level)[rank])

        kind, k = hypothesis_of(index, T)
        self.hypothesis_ = (kind, k)
        self.hypothesis_index_ = index
        self.threshold_ = None if k is None else float(grid[k])
        self.n_hypotheses_ = 2 * T
        self.n_features_in_ = 1
        return self

    def predict(self, X) -> np.ndarray:
        """Labels by the selected inequality (``classes_[1]`` for internal 1; int64 0/1 for a
        0/1-labelled sample)."""
        check_is_fitted(self, "hypothesis_")
        self._check_names(X, reset=False)
        X = check_X(X, n_features=self.n_features_in_)
        x = X[:, 0]
        kind = self.hypothesis_[0]
        if kind == "zeros":
            return self._decode_y(np.zeros(x.size, dtype=np.int64))
        if kind == "ge":
            return self._decode_y((x >= self.threshold_).astype(np.int64))
        return self._decode_y((x < self.threshold_).astype(np.int64))
