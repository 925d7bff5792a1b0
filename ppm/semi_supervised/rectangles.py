"""Axis-aligned rectangles over ``{0..T-1}^d`` and their exact exponential mechanism (BNS15 §4).

BNS15 (Beimel-Nissim-Stemmer, SODA 2015), the example after Theorem 4.14 and Corollary 4.17:
the class ``RECTANGLE_T^d`` of axis-aligned (hyper)rectangles over the discrete domain
``X_T^d = {0..T-1}^d``, VC dimension ``2d`` (docs/rectangles.md).

**The class of outputs** (:data:`EMPTY` and the tuples below). A rectangle is
``((a_1, b_1), ..., (a_d, b_d))`` with ``0 <= a_i <= b_i <= T-1``; it labels ``x`` 1 iff
``a_i <= x_i <= b_i`` on every axis. BNS15 writes ``c_{a,b}`` for every pair of corners; the pairs
with some ``a_i > b_i`` all define the empty concept, which we keep once (:data:`EMPTY`, the
all-zeros rule). So the class has ``(T (T+1) / 2)^d + 1`` members (:func:`log_class_size`).

**The base learner** (:class:`GridRectangleMechanism`): the exponential mechanism over this whole
class with the score ``-mistakes`` on the sample (sensitivity 1; Kasiviswanathan et al.'s
generic learner, BNS15 §3; McSherry-Talwar), ``P[c] ∝ exp(-epsilon m(c) / 2)``: pure
epsilon-DP w.r.t. every example, proper, labelled sample complexity
``O((d log T + log(1/beta)) / (alpha epsilon))``. It is a **substitute** for the learner BNS15
applies its wrapper to (Beimel-Nissim-Stemmer, APPROX 2013, ``~8^(log* T)`` samples): that
learner is an approximate-DP recursion over "choosing mechanisms" whose constants make it
unusable at any size we can run, so it is not built here (docs/rectangles.md says why).

**Exact for any T, never looping over the domain.** On axis ``i`` let ``v_0 < ... < v_{u-1}`` be
the distinct sample coordinates (``v_{-1} = -1``, ``v_u = T``). An interval ``[a, b]`` contains
exactly the coordinates ``v_lo..v_hi`` iff ``a`` lies in the cell ``A_lo = (v_{lo-1}, v_lo]`` and
``b`` in ``B_hi = [v_hi, v_{hi+1})``, ``lo <= hi``; the other intervals (``a, b`` inside one open
gap between consecutive coordinates) contain no sample coordinate. So the rectangles fall into
groups of equal score: one group per choice of ``(lo_i, hi_i)`` on every axis (size
``prod_i |A_lo_i| |B_hi_i|``) and one group of the rectangles that contain no sample point
through an empty axis, together with :data:`EMPTY` (size: the exact integer
``1 + prod_i N_i - prod_i (N_i - E_i)``, ``N_i = T (T+1)/2``, ``E_i`` the axis' empty-on-sample
intervals). A group is drawn with probability ``∝ |g| exp(-epsilon m_g / 2)``, then a member
uniformly (:func:`ppm.mechanisms.uniform_below`, exact big integers). Group sizes are exact
Python integers and enter as ``math.log`` (exact to rounding); the weights are normalised by
log-sum-exp in float64 (:func:`ppm.mechanisms.draw_index`). So every rectangle is output with its
exponential-mechanism probability, up to float64 rounding of the group probabilities only.

The group draw itself is factorised by the chain rule, not approximated: with the ranges of the
first ``d - 1`` axes fixed (a *slab*), the score is ``n_1 + C(hi_d) - C(lo_d - 1)`` for the
prefix sums ``C`` of ``w = 1 - 2y`` over the slab along the last axis, so the slab's total weight
``sum_{lo <= hi} |A_lo| |B_hi| exp(-t(n_1 + C(hi) - C(lo-1)))`` is a cumulative log-sum-exp in
``O(u_d)``: draw a slab (:func:`slab_log_weights`, the empty group last), then ``hi_d`` given the
slab, then ``lo_d`` given ``hi_d`` (:func:`last_axis_log_weights`). Cost ``O(n^(2d-1))`` per fit
(``n`` the sample size): ``O(n)`` for intervals, ``O(n^3)`` for rectangles in the plane.
A sample whose worst-case cost, ``(n (n+1) / 2)^(d-1) n`` (a function of ``n`` and ``d`` only,
never of the data), exceeds ``max_work`` is refused with a one-line error before any work.

**Points of a huge line** (``d = 1``): besides integer arrays, ``X`` may be a
:class:`~.big_points.BigPoints` (an exact Python-int origin plus ``int64`` offsets, as C14's
learners take them), so that the millions of points of BNS15's wrapper at ``T = 2^8192`` sort as
``int64``. The mechanism reads its input only through the sorted distinct coordinates and each
point's index among them (:func:`sample_axes`), which both forms give identically: the same
seed gives the same draws (tests/test_rectangles_big.py). The domain is given as ``T`` or as
``b`` (``T = 2^b``; a config cannot hold ``2^8192``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils.validation import check_is_fitted

from ppm import mechanisms
from ppm._sklearn import BinaryLabelsMixin
from ppm.mechanisms import em_temperature, uniform_below
from ppm.registry import configurable
from ppm.audit_spec import PrivacyAudit
from ppm.sklearn_checks import GRID_BOXES
from ppm.validation import EPSILON, RANDOM_STATE, Number, check_random_state
from .big_points import BigPoints

EMPTY = None  # the empty rectangle (all zeros): the class's one member with no point inside
T_DOMAIN = [None, Number(Integral, 2, None, closed="left")]  # {0..T-1}, T >= 2 (None: use b)
B_DOMAIN = [None, Number(Integral, 1, None, closed="left")]  # {0..2^b - 1} (None: use T)
MAX_WORK = 2 * 10**8  # default refusal size of the exact mechanism (docs/rectangles.md: ~1 min)
WORK_LIMIT = [Number(Integral, 1, None, closed="left")]


def domain_size(T, b) -> int:
    """The domain size from the learners' ``T`` / ``b`` parameters (exactly one of them set)."""
    if (T is None) == (b is None):
        raise ValueError(f"give the domain as T or as b (T = 2^b), exactly one of them; got T={T!r}"
                         f", b={b!r}")
    return int(T) if b is None else 1 << int(b)


def check_grid_points(X, T: int, name: str = "X", n_features: int | None = None):
    """``X`` as integer points of ``{0..T-1}^d`` (2-D; int64, or Python ints when ``T > 2^62``),
    or a :class:`~.big_points.BigPoints` (``d = 1``), checked to lie in the grid.

    One-line ``ValueError`` for anything else (floats, 1-D input, coordinates outside the grid).
    """
    if isinstance(X, BigPoints):
        if n_features is not None and n_features != 1:
            raise ValueError(f"{name} has 1 features, expected {n_features}")
        if len(X) and (X.min_value() < 0 or X.max_value() > T - 1):
            top = f"2^{T.bit_length() - 1} - 1" if T & (T - 1) == 0 else f"{T - 1}"
            raise ValueError(f"{name} has coordinates outside {{0..{top}}}")
        return X
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array of points of {{0..T-1}}^d, got {arr.ndim}-D "
                         f"(reshape a single feature with X.reshape(-1, 1))")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one feature, got 0")
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(f"{name} has {arr.shape[1]} features, expected {n_features}")
    if arr.dtype.kind in "iu":
        ints = arr.astype(object) if T > 2**62 else arr.astype(np.int64)
    elif arr.dtype.kind == "O" and all(isinstance(v, Integral) and not isinstance(v, bool)
                                       for v in arr.ravel()):
        ints = arr.astype(object) if T > 2**62 else arr.astype(np.int64)
    else:
        raise ValueError(f"{name} must hold integer points of {{0..T-1}}^d, got dtype {arr.dtype}")
    if ints.size and (ints.min() < 0 or ints.max() > T - 1):
        raise ValueError(f"{name} has coordinates outside {{0..{T - 1}}}")
    return ints


def log_class_size(T: int, d: int) -> float:
    """``ln((T (T+1)/2)^d + 1)``: the size of the class of outputs (module docstring)."""
    return math.log((T * (T + 1) // 2) ** d + 1)


def worst_case_work(n: int, d: int) -> int:
    """The mechanism's cost bound ``(n (n+1)/2)^(d-1) n`` (slabs times the last axis)."""
    return (n * (n + 1) // 2) ** (d - 1) * n


@dataclass
class AxisCells:
    """One axis of the grouping: distinct coordinates and the cells between them."""

    values: list          # v_0 < ... < v_{u-1} (Python ints)
    inverse: np.ndarray   # each example's index into values
    log_a: np.ndarray     # ln |A_lo|, A_lo = (v_{lo-1}, v_lo]
    log_b: np.ndarray     # ln |B_hi|, B_hi = [v_hi, v_{hi+1})
    n_all: int            # T (T+1)/2 intervals [a, b]
    n_empty: int          # intervals containing no sample coordinate (a, b in one open gap)
    T: int

    @property
    def u(self) -> int:
        return len(self.values)

    def a_size(self, lo: int) -> int:
        return self.values[lo] - (self.values[lo - 1] if lo else -1)

    def b_size(self, hi: int) -> int:
        return (self.values[hi + 1] if hi + 1 < self.u else self.T) - self.values[hi]


def axis_cells(column: np.ndarray, T: int) -> AxisCells:
    """The cells of one axis (module docstring)."""
    values, inverse = np.unique(column, return_inverse=True)
    return _axis_cells([int(v) for v in values], np.asarray(inverse).ravel(), T)


def _axis_cells(vals: list, inverse: np.ndarray, T: int) -> AxisCells:
    """:class:`AxisCells` from sorted distinct Python-int coordinates and each point's index."""
    u = len(vals)
    a = [vals[j] - (vals[j - 1] if j else -1) for j in range(u)]
    b = [(vals[j + 1] if j + 1 < u else T) - vals[j] for j in range(u)]
    edges = [-1, *vals, T]
    gaps = [edges[k + 1] - edges[k] - 1 for k in range(u + 1)]
    return AxisCells(vals, inverse, np.array([math.log(s) for s in a]),
                     np.array([math.log(s) for s in b]), T * (T + 1) // 2,
                     sum(g * (g + 1) // 2 for g in gaps), T)


def empty_group_size(axes: list) -> int:
    """Rectangles containing no sample coordinate on some axis, plus :data:`EMPTY` (exact)."""
    return 1 + math.prod(ax.n_all for ax in axes) - math.prod(ax.n_all - ax.n_empty
                                                              for ax in axes)


def _slab_pairs(axes: list):
    """``(lo, hi)`` index arrays of every slab of the first ``d - 1`` axes (mixed radix)."""
    pairs = [np.triu_indices(ax.u) for ax in axes[:-1]]
    shape = tuple(p[0].size for p in pairs)
    return pairs, shape


def _slab_rows(W_cum: np.ndarray, pairs, shape, idx: np.ndarray) -> np.ndarray:
    """The last-axis vectors ``sum_{slab} w`` of the slabs ``idx`` (inclusion-exclusion)."""
    d1 = len(pairs)
    if d1 == 0:
        return W_cum[None, :]
    sub = np.unravel_index(idx, shape)
    lo = [pairs[i][0][sub[i]] for i in range(d1)]
    hi = [pairs[i][1][sub[i]] + 1 for i in range(d1)]
    out = np.zeros((idx.size, W_cum.shape[-1]))
    for corner in range(1 << d1):
        pick = [hi[i] if corner >> i & 1 else lo[i] for i in range(d1)]
        sign = (-1) ** (d1 - bin(corner).count("1"))
        out += sign * W_cum[tuple(pick)]
    return out


def sample_axes(X, T: int) -> list:
    """The :class:`AxisCells` of every axis of ``X`` (an integer array or a BigPoints)."""
    if isinstance(X, BigPoints):
        values, inverse = X.distinct()
        return [_axis_cells(values, inverse, T)]
    return [axis_cells(X[:, i], T) for i in range(X.shape[1])]


def _prepare(X, y: np.ndarray, T: int):
    """Axes, the cumulative weight tensor and the number of positives."""
    axes = sample_axes(X, T)
    w = 1.0 - 2.0 * y.astype(float)  # a negative inside costs 1, a positive inside saves 1
    W = np.zeros(tuple(ax.u for ax in axes))
    np.add.at(W, tuple(ax.inverse for ax in axes), w)
    for i in range(len(axes) - 1):  # cumulative along the slab axes, zero-padded in front
        W = np.concatenate([np.zeros_like(W.take([0], axis=i)), np.cumsum(W, axis=i)], axis=i)
    return axes, W, int(y.sum())


def last_axis_log_weights(row: np.ndarray, ax: AxisCells, t: float):
    """For one slab (``row`` = its ``w`` per last-axis coordinate): ``(log_hi, log_lo_given)``.

    ``log_hi[hi]`` = ``ln sum_{lo <= hi} |A_lo| |B_hi| exp(-t (C(hi) - C(lo-1)))`` (without the
    slab's own factors and ``-t n_1``), ``log_lo_given(hi)`` the conditional log-weights of ``lo``.
    """
    C = np.cumsum(row)
    C_prev = np.concatenate([[0.0], C[:-1]])
    lo_terms = ax.log_a + t * C_prev
    log_hi = ax.log_b - t * C + np.logaddexp.accumulate(lo_terms)
    return log_hi, lambda hi: lo_terms[: hi + 1]


def slab_log_weights(X, y, T: int, epsilon: float, chunk: int = 1 << 16):
    """Unnormalised log-weights of every slab of the first ``d - 1`` axes, then of the empty group.

    Returns ``(log_w, state)``; ``state`` holds what the conditional draws need.
    """
    t = em_temperature(epsilon)
    axes, W_cum, n1 = _prepare(X, y, T)
    pairs, shape = _slab_pairs(axes)
    n_slabs = math.prod(shape)
    last = axes[-1]
    out = np.empty(n_slabs + 1)
    for start in range(0, n_slabs, chunk):
        idx = np.arange(start, min(start + chunk, n_slabs))
        rows = _slab_rows(W_cum, pairs, shape, idx)
        C = np.cumsum(rows, axis=1)
        C_prev = np.concatenate([np.zeros((idx.size, 1)), C[:, :-1]], axis=1)
        inner = last.log_b - t * C + np.logaddexp.accumulate(last.log_a + t * C_prev, axis=1)
        own = np.zeros(idx.size)
        sub = np.unravel_index(idx, shape) if pairs else ()
        for i, p in enumerate(pairs):
            own += axes[i].log_a[p[0][sub[i]]] + axes[i].log_b[p[1][sub[i]]]
        out[idx] = own - t * n1 + logsumexp(inner, axis=1)
    out[-1] = math.log(empty_group_size(axes)) - t * n1
    return out, (axes, W_cum, pairs, shape, t)


def _decode_pair(r: int, start: int) -> tuple[int, int]:
    """The ``r``-th pair ``p <= q`` (ordered by ``q`` then ``p``) shifted by ``start``."""
    q = (math.isqrt(8 * r + 1) - 1) // 2
    return start + r - q * (q + 1) // 2, start + q


def _uniform_interval(ax: AxisCells, kind: str, r: int) -> tuple[int, int]:
    """The ``r``-th interval of the axis among all (``"all"``), those containing a sample
    coordinate (``"hit"``) or none (``"miss"``): exact integer decoding."""
    if kind == "all":
        return _decode_pair(r, 0)
    v, T = ax.values, ax.T
    if kind == "miss":
        edges = [-1, *v, T]
        for k in range(ax.u + 1):
            g = edges[k + 1] - edges[k] - 1
            if r < g * (g + 1) // 2:
                return _decode_pair(r, edges[k] + 1)
            r -= g * (g + 1) // 2
    else:  # a in A_lo and b in [v_lo, T-1]: |A_lo| (T - v_lo) intervals per lo
        for lo in range(ax.u):
            width = T - v[lo]
            if r < ax.a_size(lo) * width:
                off_a, off_b = divmod(r, width)
                return (v[lo - 1] if lo else -1) + 1 + off_a, v[lo] + off_b
            r -= ax.a_size(lo) * width
    raise AssertionError("interval index out of range")  # pragma: no cover


def _draw_empty_group(axes: list, rng) -> tuple | None:
    """A uniform member of the empty group (:data:`EMPTY` or a rectangle missing the sample on
    some axis): rank ``r``, decoded by the first axis whose interval misses the sample."""
    r = uniform_below(empty_group_size(axes), rng)
    if r == 0:
        return EMPTY
    r -= 1
    d = len(axes)
    for i in range(d):
        kinds = ["hit"] * i + ["miss"] + ["all"] * (d - i - 1)
        sizes = [ax.n_all - ax.n_empty if k == "hit" else ax.n_empty if k == "miss" else ax.n_all
                 for ax, k in zip(axes, kinds)]
        block = math.prod(sizes)
        if r < block:
            out = []
            for ax, k, s in zip(axes, kinds, sizes):
                r, q = divmod(r, s)
                out.append(_uniform_interval(ax, k, q))
            return tuple(out)
        r -= block
    raise AssertionError("empty-group rank out of range")  # pragma: no cover


def rectangle_em(X, y, T: int, epsilon: float, rng) -> tuple | None:
    """One exact draw of the mechanism (module docstring): a rectangle or :data:`EMPTY`."""
    log_w, (axes, W_cum, pairs, shape, t) = slab_log_weights(X, y, T, epsilon)
    g = mechanisms.draw_index(log_w, rng)
    if g == log_w.size - 1:
        return _draw_empty_group(axes, rng)
    row = _slab_rows(W_cum, pairs, shape, np.array([g]))[0]
    log_hi, log_lo = last_axis_log_weights(row, axes[-1], t)
    hi_d = mechanisms.draw_index(log_hi, rng)
    lo_d = mechanisms.draw_index(log_lo(hi_d), rng)
    sub = np.unravel_index(g, shape) if pairs else ()
    ranges = [(int(p[0][sub[i]]), int(p[1][sub[i]])) for i, p in enumerate(pairs)]
    ranges.append((lo_d, hi_d))
    out = []
    for ax, (lo, hi) in zip(axes, ranges):
        a = (ax.values[lo - 1] if lo else -1) + 1 + uniform_below(ax.a_size(lo), rng)
        out.append((a, ax.values[hi] + uniform_below(ax.b_size(hi), rng)))
    return tuple(out)


def predict_rectangle(rect, X: np.ndarray) -> np.ndarray:
    """0/1 labels (int64) of a rectangle (or :data:`EMPTY`) on integer points ``X`` (an array
    or a BigPoints: exact comparisons either way)."""
    if rect is EMPTY:
        return np.zeros(X.shape[0], dtype=np.int64)
    if isinstance(X, BigPoints):
        (a, b), = rect
        return (X.at_least(a) & ~X.at_least(b + 1)).astype(np.int64)
    inside = np.ones(X.shape[0], dtype=bool)
    for i, (a, b) in enumerate(rect):
        inside &= np.asarray((X[:, i] >= a) & (X[:, i] <= b), dtype=bool)
    return inside.astype(np.int64)


def check_work(n: int, d: int, max_work: int, who: str) -> None:
    """Refuse, before any work, a size whose exact computation exceeds ``max_work``."""
    work = worst_case_work(n, d)
    if work > max_work:
        raise ValueError(f"{who}: n = {n} points at d = {d} need (n(n+1)/2)^(d-1) n = {work:.3g} "
                         f"> max_work = {max_work:.3g} exact steps (docs/rectangles.md: sizes)")


@configurable("learner", "grid_rectangle",
              stable_name="ppm.semi_supervised.GridRectangleMechanism",
              target="ppm.semi_supervised.GridRectangleMechanism")
class GridRectangleMechanism(BinaryLabelsMixin, ClassifierMixin, BaseEstimator):
    """Pure epsilon-DP exponential mechanism over the rectangles of ``{0..T-1}^d`` (exact).

    The base learner of BNS15's wrapper over rectangles (a substitute for Beimel-Nissim-Stemmer
    APPROX 2013; module docstring). ``d`` is the number of features of ``X``. All examples are
    private; ``public`` is accepted and ignored.

    Parameters
    ----------
    epsilon : float > 0
    T : int >= 2 or None
        Domain ``{0..T-1}^d`` (any size: coordinates beyond ``2^62`` as Python ints).
    b : int >= 1 or None
        Domain ``{0..2^b - 1}^d`` instead (set exactly one of ``T`` and ``b``).
    max_work : int
        Refuse (before work) a sample of ``n`` points at dimension ``d`` when
        ``(n (n+1)/2)^(d-1) n`` exceeds it (execution only: never changes a draw).
    random_state : None, int, SeedSequence or Generator

    Attributes
    ----------
    rectangle_ : tuple of (a_i, b_i) or None
        The released rectangle (``None``: the empty rectangle).
    log_n_hypotheses_ : float
        ``ln((T (T+1)/2)^d + 1)``.
    """

    _parameter_constraints = {"epsilon": EPSILON, "T": T_DOMAIN, "b": B_DOMAIN,
                              "max_work": WORK_LIMIT, "random_state": RANDOM_STATE}
    _param_roles = {"max_work": "execution"}

    # scikit-learn's check suite runs on this (ppm.sklearn_checks.check_instances)
    _check_params = {"epsilon": 5.0, "T": 16}

    # declared once (ppm.audit_spec): the released state, the checks failed by design, the audit
    _released = ("rectangle_",)
    _expected_failed_checks = GRID_BOXES

    @classmethod
    def _privacy_audits(cls):
        """Exact, in the test suite (tests/test_rectangles_audit.py); recorded, not rerun."""
        return (PrivacyAudit(
            kind="exact", index=10, row=12, paper="exponential mechanism over rectangles "
            "(BNS15 Cor. 4.17's base learner, a substitute)",
            setting="d = 1, T = 5 and d = 2, T = 3, every sample of the grid; asserted: worst "
                    "loss <= epsilon, and at twice the temperature (the 2x control) it exceeds it",
            neighbours="replace one example (point and label), every example private",
            verdict="in the test suite", source="tests/test_rectangles_audit.py"),)

    @classmethod
    def _temperature_cases(cls):
        """Its rectangle selection at ``eps`` on every point of ``{0..5}^2``, labelled by one
        rectangle (ppm.audit_spec)."""
        def rectangles(eps, seed=0):
            X = np.indices((6, 6)).reshape(2, -1).T
            y = ((X[:, 0] >= 1) & (X[:, 0] <= 3) & (X[:, 1] >= 2)).astype(int)
            f = cls(epsilon=eps, T=6, random_state=seed).fit(X, y)
            return eps, np.array([repr(f.rectangle_)])

        return {"rectangles": rectangles}

    def __init__(self, *, epsilon=1.0, T=1024, b=None, max_work=MAX_WORK, random_state=None):
        self.epsilon = epsilon
        self.T = T
        self.b = b
        self.max_work = max_work
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, public=None):
        """Run the mechanism on every example (all private)."""
        T = domain_size(self.T, self.b)
        X = check_grid_points(X, T)
        if X.shape[0] == 0:
            raise ValueError("X must contain at least one example, got 0")
        y = self._encode_y(y, X.shape[0])
        check_work(X.shape[0], X.shape[1], int(self.max_work), type(self).__name__)
        self.rectangle_ = rectangle_em(X, y, T, float(self.epsilon),
                                       check_random_state(self.random_state))
        self.log_n_hypotheses_ = log_class_size(T, X.shape[1])
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X) -> np.ndarray:
        """Labels of the released rectangle (int64 0/1 for a 0/1-labelled sample)."""
        check_is_fitted(self, "rectangle_")
        X = check_grid_points(X, domain_size(self.T, self.b), n_features=self.n_features_in_)
        return self._decode_y(predict_rectangle(self.rectangle_, X))
