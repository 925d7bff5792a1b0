"""Exact Select Halfplane: the exponential mechanism over halfplanes on the grid ``{0..T}^2``.

KMMS19 (Kaplan, Mansour, Matias, Stemmer, ICML 2019), section 4; docs/model.md §9.2.

* Observation 4.1: every halfplane restricted to ``{0..T}^2`` equals some
  ``f_{a_hat, b}(x, y) = 1 iff z y >= z (a x + b)`` with ``(a_hat, b)`` in the dual box
  ``[-2T^2, 6T^2] x [-2T^2, 2T^2]``, ``z = +1`` if ``a_hat <= 2T^2`` else ``-1`` and
  ``a = a_hat - 4T^2 1{a_hat > 2T^2}``. Both halves of the box are copies of ``D^2``,
  ``D = [-2T^2, 2T^2]`` (box 1: ``z = +1``; box 2: ``z = -1``, shifted by ``4T^2``).
* Step 2: an example ``(x, y)`` is the dual line ``b = y - x a``. In box 1 the point ``(a, b)``
  labels it 0 iff it lies strictly ABOVE that line; in box 2 iff strictly BELOW (ties: label 1,
  since ``f`` uses ``>=``; lines have measure zero, so ties never change a probability).
* Observation 4.4: the score is constant on each region of the arrangement (in each box).
* Step 6: the output density is ``exp(eps_s q(f_{a_hat,b})) / N`` over the whole dual box,
  implemented as: pick a region with probability ``∝ area * exp(eps_s q)``, then a uniform point
  in it. The seed proves this ``2 eps_s``-DP for a score of sensitivity 1.

Reading of the privacy parameter (checked against the seed, section 4 "Privacy analysis"):
:meth:`HalfplaneSelector.select` takes the per-call budget ``epsilon`` (the Set Cover Learner's
``eps_hat``) and uses the density ``∝ exp(epsilon q / 2)``, i.e. KMMS19's ``eps_s =
epsilon / 2`` (docs/model.md §9.2 [P]); the call is then ``epsilon``-DP (replace-one neighbours, since
``q`` has sensitivity 1 under replacement too).

Exactness (docs/model.md §9.2): the regions are cut into the trapezoids of a vertical sweep
(``_arrangement_kernels.sweep``) with exact rational abscissae; areas are float64 computed from
exact integer numerators; the normaliser is a log-sum-exp over score buckets. The released
point is an exact rational inside the chosen trapezoid (local coordinates drawn as float64
uniforms, converted exactly), so the released halfplane labels the sample exactly as its cell
does, and :meth:`Halfplane.predict` is an exact integer predicate (float filter + exact
fallback). ``T <= 2^20`` keeps every integer of the sweep below ``2^63``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from numbers import Integral, Real

import numpy as np
import pandas as pd

from ppm.mechanisms import draw_index, em_log_weights, em_temperature
from ppm.validation import check_labels
from . import _arrangement_kernels as K

#: largest grid size for which the int64 sweep is exact (see the kernel module docstring)
T_MAX = 2**20


def _check_T(T) -> int:
    if isinstance(T, bool) or not isinstance(T, Integral) or not 1 <= int(T) <= T_MAX:
        raise ValueError(f"T must be an integer in [1, 2^20] (grid {{0..T}}^2), got {T!r}")
    return int(T)


def check_grid_size(T) -> int:
    """``T`` as an int in ``[1, 2^20]`` (``ValueError`` naming the value otherwise)."""
    return _check_T(T)


def check_grid_points(X, T: int, name: str = "X") -> np.ndarray:
    """``X`` as an (n, 2) int64 array of points of ``{0..T}^2``; errors name the bad value."""
    arr = np.asarray(X)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n, 2), got shape {arr.shape}")
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must hold integer grid coordinates, got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise ValueError(f"{name} contains NaN or infinity at row {r}, column {c}: "
                             f"{arr[r, c]!r}")
        bad = arr != np.round(arr)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise ValueError(f"{name} must hold integers, got {arr[r, c]!r} at row {r}, "
                             f"column {c}")
    bad = (arr < 0) | (arr > T)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ValueError(f"{name} has a point off the grid {{0..{T}}}^2: {arr[r, c]!r} at row "
                         f"{r}, column {c}")
    return arr.astype(np.int64)


def check_real(value, name: str, positive: bool = False) -> float:
    """``value`` as a finite float (``positive``: > 0), or a one-line ``ValueError`` naming it."""
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) \
            or (positive and value <= 0):
        kind = "a positive finite number" if positive else "a finite number"
        raise ValueError(f"{name} must be {kind}, got {value!r}")
    return float(value)


class Halfplane:
    """``f(x, y) = 1 iff z y >= z (a x + b)`` (Observation 4.1), exact rational parameters.

    ``a_hat``, ``b`` are :class:`fractions.Fraction` (the released dual point); ``z`` and ``a``
    are derived as in Observation 4.1 for the grid size ``T``."""

    def __init__(self, a_hat, b, T: int):
        self.T = _check_T(T)
        self.a_hat, self.b = Fraction(a_hat), Fraction(b)
        B = 2 * self.T ** 2
        if not (-B <= self.a_hat <= 3 * B and -B <= self.b <= B):
            raise ValueError(f"(a_hat, b) = ({self.a_hat}, {self.b}) is outside the dual box "
                             f"[-2T^2, 6T^2] x [-2T^2, 2T^2] for T={self.T}")
        self.z = 1 if self.a_hat <= B else -1
        self.a = self.a_hat - (2 * B if self.z == -1 else 0)

    def __repr__(self) -> str:
        return f"Halfplane(a_hat={float(self.a_hat)!r}, b={float(self.b)!r}, T={self.T})"

    def predict(self, X) -> np.ndarray:
        """Labels in {0, 1} of the points of ``{0..T}^2`` (exact; ties on the line give 1)."""
        X = check_grid_points(X, self.T)
        x, y = X[:, 0].astype(float), X[:, 1].astype(float)
        af, bf = float(self.a), float(self.b)
        margin = y - (af * x + bf)
        # float filter: |computed - exact| <= 8 ulp-units of the magnitudes involved
        err = 8.0 * np.finfo(float).eps * (np.abs(af) * x + abs(bf) + y) + 1e-300
        out = np.where(self.z * margin >= 0, 1, 0).astype(np.int64)
        unsure = np.flatnonzero(np.abs(margin) <= err)
        if unsure.size:
            pa, qa = self.a.numerator, self.a.denominator
            pb, qb = self.b.numerator, self.b.denominator
            for k in unsure:
                xi, yi = int(X[k, 0]), int(X[k, 1])
                exact = yi * qa * qb - pa * qb * xi - pb * qa  # (y - a x - b) * qa * qb
                out[k] = 1 if self.z * exact >= 0 else 0
        return out


@dataclass
class _Arrangement:
    """Distinct dual lines (sorted by (x, y)), multiplicities and the exact event list."""
    xs: np.ndarray
    ys: np.ndarray
    c0: np.ndarray
    c1: np.ndarray
    B: int
    ev_P: np.ndarray
    ev_Q: np.ndarray
    ev_i: np.ndarray
    ev_j: np.ndarray
    grp: np.ndarray
    rep: np.ndarray  # one sample index per distinct line


def _build_arrangement(X: np.ndarray, y: np.ndarray, T: int) -> _Arrangement:
    """Identical points give identical lines: merge them, with label multiplicities."""
    B = 2 * T * T
    # One int64 key per point, x (T + 1) + y: sorting the keys sorts by (x, y), and a 1-D
    # unique is far faster than np.unique(axis=0) on large samples of few distinct points.
    key = X[:, 0] * (T + 1) + X[:, 1]
    ukey, rep, inverse = np.unique(key, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    m = ukey.size
    c1 = np.bincount(inverse, weights=y, minlength=m).astype(np.int64)
    c0 = np.bincount(inverse, minlength=m).astype(np.int64) - c1
    xs, ys = ukey // (T + 1), ukey % (T + 1)  # sorted by (x, y)
    P, Q, ev_i, ev_j = K.build_events(xs, ys, B)
    idx = np.argsort(P / Q)
    P, Q, ev_i, ev_j, grp = K.exact_event_order(P, Q, ev_i, ev_j, idx)
    return _Arrangement(xs, ys, c0, c1, B, P, Q, ev_i, ev_j, grp, rep)


class HalfplaneSelector:
    """Select Halfplane (KMMS19, section 4) as the base class ``H`` of the Set Cover Learner.

    ``H`` = halfplanes on ``{0..T}^2`` in the dual representation of Observation 4.1.
    :meth:`select` is the exponential mechanism with the dual box's area as base measure and
    density ``∝ exp(epsilon q / 2)`` (``epsilon``-DP per call: the caller passes the per-round
    budget ``eps_hat``; KMMS19's ``eps_s`` is ``epsilon / 2``, docs/model.md §9.2)."""

    def __init__(self, T: int):
        self.T = _check_T(T)

    def check_X(self, X) -> np.ndarray:
        """Points of ``{0..T}^2`` as an (n, 2) int64 array (clear errors naming the value)."""
        return check_grid_points(X, self.T)

    def _prepare(self, X, y, threshold, epsilon):
        X = self.check_X(X)
        y = check_labels(y, X.shape[0])
        threshold = check_real(threshold, "threshold")
        epsilon = check_real(epsilon, "epsilon", positive=True)
        return _build_arrangement(X, y, self.T), X, y, threshold, epsilon

    def _bucket_scores(self, arr: _Arrangement, threshold: float) -> np.ndarray:
        N0, N1 = int(arr.c0.sum()), int(arr.c1.sum())
        one = np.concatenate([np.arange(N0 + 1) - threshold, -np.arange(N1 + 1.0)])
        return np.concatenate([one, one])

    @staticmethod
    def _run(arr, mode, threshold, bucket_area, bucket_count, tb, rec_int, rec_area):
        r = K.sweep(mode, arr.xs, arr.ys, arr.c0, arr.c1, arr.B, arr.ev_P, arr.ev_Q,
                    arr.ev_i, arr.ev_j, arr.grp, threshold, bucket_area, bucket_count, tb,
                    rec_int, rec_area)
        if r == -2:
            raise RuntimeError("exactness check failed: concurrent lines not adjacent")
        return r

    def bucket_distribution(self, X, y, threshold, epsilon):
        """Per score bucket: (box, q, area, probability); the exact EM marginal over ``q``."""
        arr, X, y, threshold, epsilon = self._prepare(X, y, threshold, epsilon)
        area, _, q, logp = self._buckets(arr, threshold, epsilon)
        nb = area.size // 2
        return pd.DataFrame({"box": np.repeat([1, 2], nb), "q": q, "area": area,
                             "probability": np.exp(logp)})

    def _buckets(self, arr, threshold, epsilon):
        """Per score bucket: area, number of trapezoids, score ``q``, log-probability."""
        nb = 2 * (int(arr.c0.sum()) + int(arr.c1.sum()) + 2)
        area, count = np.zeros(nb), np.zeros(nb, dtype=np.int64)
        self._run(arr, 0, threshold, area, count, -1, np.zeros((1, 8), dtype=np.int64),
                  np.zeros(1))
        q = self._bucket_scores(arr, threshold)
        with np.errstate(divide="ignore"):
            log_area = np.log(area)
        logw = em_log_weights(q, epsilon, log_base=log_area)  # log-sum-exp in float64
        top = logw.max()
        logp = logw - (top + np.log(np.exp(logw - top).sum()))
        return area, count, q, logp

    def select(self, X, y, threshold: float, epsilon: float,
               rng: np.random.Generator) -> Halfplane:
        """Exponential mechanism, density ``∝ exp(epsilon q / 2)`` over the dual box, with
        ``q(h) = min(#h_0(S_0) - threshold, -#h_0(S_1))`` (S_0 / S_1: points with y = 0 / 1).

        A score bucket is drawn with probability ``∝ its area * exp(epsilon q / 2)``, then a
        trapezoid of that bucket ``∝`` its area (the second sweep lists the bucket's
        trapezoids), then a uniform point in it: together exactly a cell ``∝ area * exp(epsilon
        q / 2)`` and a uniform point in it. Both picks are :func:`ppm.mechanisms.draw_index`."""
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"rng must be a numpy Generator, got {rng!r}")
        arr, X, y, threshold, epsilon = self._prepare(X, y, threshold, epsilon)
        area, count, q, logp = self._buckets(arr, threshold, epsilon)
        tb = draw_index(logp, rng)
        rec_i, rec_a = np.zeros((count[tb], 8), dtype=np.int64), np.zeros(count[tb])
        if self._run(arr, 1, threshold, np.zeros(1), np.zeros(1, dtype=np.int64), tb,
                     rec_i, rec_a) != count[tb]:
            raise RuntimeError("the second sweep listed another number of trapezoids")
        out = rec_i[draw_index(np.log(rec_a), rng), :6]  # areas > 0: the sweep skips empty ones
        box = tb // (area.size // 2)
        a, b = self._uniform_point(arr, out, rng)
        return Halfplane(a + (2 * arr.B if box == 1 else 0), b, self.T)

    @staticmethod
    def _uniform_point(arr, out, rng):
        """Exact rational point, uniform in the trapezoid ``out`` (inverse CDF along ``a`` of
        the affine width density, then ``b`` uniform between the clipped lines)."""
        a0, a1 = Fraction(int(out[0]), int(out[1])), Fraction(int(out[2]), int(out[3]))
        lo, hi = int(out[4]), int(out[5])
        lo_f = _clipped_line(arr, lo, -1)
        hi_f = _clipped_line(arr, hi, +1)
        w0, w1 = float(hi_f(a0) - lo_f(a0)), float(hi_f(a1) - lo_f(a1))
        u = rng.random()
        # F(t) = (w0 t + (w1 - w0) t^2 / 2) / ((w0 + w1) / 2) = u, rationalised (stable) root
        t = u * (w0 + w1) / (w0 + math.sqrt(w0 * w0 + u * (w1 * w1 - w0 * w0)))
        t = Fraction(min(max(t, 0.0), 1.0))
        a = a0 + t * (a1 - a0)
        s = Fraction(rng.random())
        return a, lo_f(a) + s * (hi_f(a) - lo_f(a))

    def cell_distribution(self, X, y, threshold, epsilon, max_n: int = 300):
        """Exact cells for tests and audits: ``(trapezoids, cells)`` DataFrames.

        ``trapezoids``: one row per (box, sweep trapezoid) of positive area, with exact
        abscissae ``a0``/``a1`` (Fractions, box-1 coordinates), the bounding sample indices
        ``lo``/``hi`` (-1: box edge), ``area``, the sweep's ``q``, ``probability`` and the
        ``labelling`` of the sample (a '0'/'1' string) by the halfplane at an interior point,
        computed independently by :meth:`Halfplane.predict`. ``cells``: the trapezoids merged
        per (box, labelling), which are exactly the arrangement's cells (a face of a line
        arrangement is determined by its sign vector)."""
        arr, X, y, threshold, epsilon = self._prepare(X, y, threshold, epsilon)
        if X.shape[0] > max_n:
            raise ValueError(f"cell_distribution is for small samples: n={X.shape[0]} > "
                             f"max_n={max_n}")
        area_b, _, q_b, logp_b = self._buckets(arr, threshold, epsilon)
        b0 = int(np.flatnonzero(area_b > 0)[0])  # log N from any bucket of positive area
        temp = em_temperature(epsilon)
        log_norm = math.log(area_b[b0]) + temp * q_b[b0] - logp_b[b0]
        cap = K.count_records(arr.ev_P.size, arr.xs.size)
        rec_i, rec_a = np.zeros((cap, 8), dtype=np.int64), np.zeros(cap)
        n_rec = self._run(arr, 2, threshold, np.zeros(1), np.zeros(1, dtype=np.int64), -1,
                          rec_i, rec_a)
        rows = []
        N0, N1 = int(arr.c0.sum()), int(arr.c1.sum())
        for r in range(n_rec):
            P0, Q0, P1, Q1, lo, hi, n0, n1 = (int(v) for v in rec_i[r])
            a0, a1 = Fraction(P0, Q0), Fraction(P1, Q1)
            am = (a0 + a1) / 2
            bm = (_clipped_line(arr, lo, -1)(am) + _clipped_line(arr, hi, +1)(am)) / 2
            for box, (c0, c1) in ((1, (n0, n1)), (2, (N0 - n0, N1 - n1))):
                q = min(c0 - threshold, -c1)
                hp = Halfplane(am + (2 * arr.B if box == 2 else 0), bm, self.T)
                lab = "".join(map(str, hp.predict(X))) if X.shape[0] else ""
                rows.append({"box": box, "a0": a0, "a1": a1,
                             "lo": int(arr.rep[lo]) if lo >= 0 else -1,
                             "hi": int(arr.rep[hi]) if hi >= 0 else -1,
                             "area": rec_a[r], "q": q, "labelling": lab,
                             "probability": math.exp(math.log(rec_a[r]) + temp * q
                                                     - log_norm)})
        traps = pd.DataFrame(rows)
        cells = (traps.groupby(["box", "labelling"], as_index=False)
                 .agg(area=("area", "sum"), q=("q", "first"), q_max=("q", "max"),
                      q_min=("q", "min"), probability=("probability", "sum"),
                      n_trapezoids=("area", "size")))
        return traps, cells


def _clipped_line(arr: _Arrangement, line: int, side: int):
    """Exact clipped height ``a -> clip(y - x a, -B, B)`` of a distinct line (or box edge)."""
    B = arr.B
    if line < 0:
        return lambda a: Fraction(side * B)
    x, yv = int(arr.xs[line]), int(arr.ys[line])
    return lambda a: min(max(yv - x * a, Fraction(-B)), Fraction(B))


@dataclass
class DualTrapezoids:
    """The sweep's trapezoids of the dual arrangement of distinct grid points (both boxes).

    For the exponential mechanisms over several halfplanes at once (the triangle selector of
    :mod:`ppm.set_cover.unions`). ``points``: the ``m`` distinct points, sorted by ``(x, y)``;
    ``rec``: one row ``(P0, Q0, P1, Q1, lo, hi)`` per box-1 trapezoid of positive area (exact
    abscissae ``P/Q``, bounding distinct lines, -1 = box edge); ``area``: float64 areas;
    ``below``: (n_trapezoids, m) bool, line ``i`` strictly below the trapezoid (exact integer
    test at the trapezoid's centre; no line crosses a trapezoid's interior). A box-1 trapezoid
    labels point ``i`` with ``0`` iff ``below[t, i]``; its box-2 copy (shifted by ``4T^2``)
    labels ``i`` with ``0`` iff not ``below[t, i]`` (Observation 4.1)."""

    arr: _Arrangement
    T: int
    points: np.ndarray
    rec: np.ndarray
    area: np.ndarray
    below: np.ndarray

    def labelling(self, box: int) -> np.ndarray:
        """(n_trapezoids, m) int8 labels of the distinct points by the trapezoids of ``box``
        (1 or 2)."""
        lab = ~self.below if box == 1 else self.below
        return lab.astype(np.int8)

    def halfplane(self, t: int, box: int, rng: np.random.Generator) -> Halfplane:
        """A uniform (exact rational) point of trapezoid ``t`` of ``box`` as a halfplane."""
        a, b = HalfplaneSelector._uniform_point(self.arr, self.rec[t], rng)
        return Halfplane(a + (2 * self.arr.B if box == 2 else 0), b, self.T)


def dual_trapezoids(X, T: int) -> DualTrapezoids:
    """:class:`DualTrapezoids` of the distinct points of ``X`` (points of ``{0..T}^2``)."""
    T = _check_T(T)
    X = check_grid_points(X, T)
    arr = _build_arrangement(X, np.zeros(X.shape[0], dtype=np.int64), T)
    m = arr.xs.size
    cap = K.count_records(arr.ev_P.size, m)
    rec_i, rec_a = np.zeros((cap, 8), dtype=np.int64), np.zeros(cap)
    n_rec = HalfplaneSelector._run(arr, 2, 0.0, np.zeros(1), np.zeros(1, dtype=np.int64), -1,
                                   rec_i, rec_a)
    rec, area = rec_i[:n_rec, :6].copy(), rec_a[:n_rec].copy()
    # exact centre: a_m = NA / DA, b_m = (lo(a_m) + hi(a_m)) / 2; line i is strictly below iff
    # 2 (y_i DA - x_i NA) < lo_num + hi_num (numerators over DA > 0; Python integers)
    B = arr.B
    P0, Q0, P1, Q1 = (rec[:, c].astype(object) for c in range(4))
    NA, DA = P0 * Q1 + P1 * Q0, 2 * Q0 * Q1
    xs, ys = arr.xs.astype(object), arr.ys.astype(object)

    def clipped(line, side):
        out = np.empty(n_rec, dtype=object)
        edge = line < 0
        out[edge] = side * B * DA[edge]
        li = line[~edge]
        v = ys[li] * DA[~edge] - xs[li] * NA[~edge]
        lim = B * DA[~edge]
        out[~edge] = np.minimum(np.maximum(v, -lim), lim)
        return out

    mid2 = clipped(rec[:, 4], -1) + clipped(rec[:, 5], 1)
    below = (2 * (ys[None, :] * DA[:, None] - xs[None, :] * NA[:, None])
             < mid2[:, None]).astype(bool)
    points = np.stack([arr.xs, arr.ys], axis=1)
    return DualTrapezoids(arr, T, points, rec, area, below)
