"""Grid polygon population for claim C12 (KMMS19 Theorem 4.7; docs/model.md §9.6), PPM privacy model.

Domain: the grid ``{0..T}^2`` (KMMS19's ``X_d^2``). Target: a convex k-gon scaled with ``T``
(``k = 1``: a halfplane through the grid centre; ``k >= 3``: a near-regular k-gon of
circumradius ``0.45 T`` around the centre), written with INTEGER edge normals so that
labels are exact and the target is exactly in ``HALFPLANE^{∧k}``:
``y = 1 iff n_i . (2p - T 1) <= R_i`` for every edge ``i``. Privacy bit = label (docs/model.md §1,
label-determined model): public = label 0, private = label 1, ``P[public] = w_pub``.

``support`` (default 32): the population lives on at most ``support`` lattice points per label,
each the lattice point of its side nearest to one of ``support`` positions spread evenly along
the boundary. Every point is within about one grid unit of the boundary, so the halfplanes (in
the dual box of Observation 4.1) consistent with the support occupy a vanishing fraction of the
dual as ``T`` grows: a fully private learner must locate the boundary among ``~T^2`` scales of
resolution and pays ``log T`` (the C9 phenomenon of ``GridThresholds(support=...)``), while PPM
(which sees the label-0 points in public) should not. With finite support :meth:`true_error` is
EXACT. ``support=None``: uniform over each side's grid points (rejection sampling); the error is
then exact when ``(T + 1)^2 <= 2^22`` and a Monte Carlo estimate with its standard error above.
"""

from __future__ import annotations

import math

from numbers import Integral

import numpy as np

from ppm.populations.base import PopulationBase
from ppm.registry import configurable
from ppm.validation import (CLOSED_UNIT, OPEN_UNIT, Choice, Number, check_positive_int,
                            check_random_state)

_SCALE = 4096  # integer normals: directions to ~1e-4 rad, products stay far below 2^53
_EXACT_GRID = 2 ** 22


@configurable("population", "grid_polygon", stable_name="ppm.set_cover.GridPolygon",
              target="ppm.set_cover.GridPolygon")
class GridPolygon(PopulationBase):
    """Convex ``k``-gon (``k = 1``: halfplane) on ``{0..T}^2`` with label-determined privacy.

    Parameters
    ----------
    T : int in [4, 2^20]
        Grid ``{0..T}^2`` (KMMS19's ``d``).
    k : int, 1 or >= 3
        Number of edges of the target (1: a halfplane through the grid centre).
    w_pub : float in [0, 1]
        ``P[public] = P[y = 0]``.
    support : int >= 1 or None
        Boundary positions (at most that many support points per label); None: uniform.
    geometry_seed : int >= 0
        Seed of the target's orientation.
    """

    realizable = True
    synthetic = True  # drawn from a model, not records: ppm.populations.is_synthetic
    d = 2

    _parameter_constraints = {
        "T": [Number(Integral, 4, 2**20, closed="both")],
        "k": [Choice(Integral, {1}), Number(Integral, 3, None, closed="left")],  # 1: halfplane
        "w_pub": CLOSED_UNIT,
        "support": [None, Number(Integral, 1, None, closed="left")],  # None: uniform
        "geometry_seed": [Number(Integral, 0, None, closed="left")],
    }

    def __init__(self, *, T=1024, k=1, w_pub=0.5, support: int | None = 32,
                 geometry_seed=0):
        rng = np.random.default_rng(geometry_seed)
        phi0 = rng.uniform(0.0, 2.0 * math.pi)
        m = 1 if k == 1 else k
        phis = phi0 + 2.0 * math.pi * np.arange(m) / m
        self._normals = np.column_stack([np.round(_SCALE * np.cos(phis)),
                                         np.round(_SCALE * np.sin(phis))]).astype(np.int64)
        # k >= 3: circumradius 0.45 T around the centre, so the k-gon lies inside the grid
        # (offsets in units of 2p - T: n . (2p - T) <= 2 r |n|, r the inradius)
        norms = np.hypot(self._normals[:, 0], self._normals[:, 1])
        inradius = 0.45 * T * math.cos(math.pi / max(k, 3))
        self._offsets = (np.zeros(1, dtype=np.int64) if k == 1
                         else np.floor(2 * inradius * norms).astype(np.int64))
        self._neg_p = None  # probabilities of the negative support points (None: uniform)
        if support is not None:
            self._pos, self._neg = self._support_points(support)

    @property
    def support(self):
        return self._params["support"]

    def opt(self) -> float:
        """``OPT = 0``: the target is a convex k-gon (an intersection of k halfplanes)."""
        return 0.0

    @staticmethod
    def _grid_points(X) -> np.ndarray:
        """``X`` as (n, 2) int64 grid points (a one-line ``ValueError`` otherwise)."""
        P = np.asarray(X)
        if P.ndim != 2 or P.shape[1] != 2:
            raise ValueError(f"X must have shape (n, 2), got shape {P.shape}")
        if P.dtype.kind == "f" and not np.all(np.isfinite(P) & (P == np.round(P))):
            raise ValueError("X must hold integer grid coordinates")
        return P.astype(np.int64)

    def target_predict(self, X) -> np.ndarray:
        """Exact target labels of grid points (integer arithmetic)."""
        c = 2 * self._grid_points(X) - self.T
        return np.all(c @ self._normals.T <= self._offsets, axis=1).astype(np.int64)

    def _boundary_positions(self, M: int) -> np.ndarray:
        T = self.T
        centre = np.array([T / 2.0, T / 2.0])
        if self.k == 1:
            n = self._normals[0] / np.hypot(*self._normals[0])
            t = np.linspace(-0.35 * T, 0.35 * T, M)
            return centre + t[:, None] * np.array([-n[1], n[0]])
        # vertices: intersections of consecutive edge lines n_i . (2p - T) = R_i
        V = []
        for i in range(self.k):
            A = np.vstack([self._normals[i], self._normals[(i + 1) % self.k]]) * 2.0
            rhs = np.array([self._offsets[i], self._offsets[(i + 1) % self.k]]) + A @ centre
            V.append(np.linalg.solve(A, rhs))
        V = np.array(V + [V[0]])
        seg = np.hypot(*np.diff(V, axis=0).T)
        s = (np.arange(M) + 0.5) / M * seg.sum()
        idx = np.minimum(np.searchsorted(np.cumsum(seg), s, side="right"), self.k - 1)
        frac = (s - np.concatenate([[0.0], np.cumsum(seg)])[idx]) / seg[idx]
        return V[idx] + frac[:, None] * (V[idx + 1] - V[idx])

    def _support_points(self, M: int):
        """Per position: the nearest lattice point of each label in a 5x5 window."""
        off = np.array([(i, j) for i in range(-2, 3) for j in range(-2, 3)])
        pos, neg = [], []
        for q in self._boundary_positions(M):
            W = np.clip(np.round(q).astype(np.int64) + off, 0, self.T)
            lab = self.target_predict(W)
            dist = np.hypot(*(W - q).T)
            for side, out in ((1, pos), (0, neg)):
                if np.any(lab == side):
                    out.append(W[lab == side][np.argmin(dist[lab == side])])
        if not pos or not neg:
            raise ValueError(f"T={self.T} is too small for a support on both sides")
        return np.unique(np.array(pos), axis=0), np.unique(np.array(neg), axis=0)

    def support_points(self) -> tuple[np.ndarray, np.ndarray]:
        """``(positives, negatives)``: copies of the support points ((m, 2) int64 each)."""
        if self.support is None:
            raise ValueError("support_points needs a finite support (support=None here)")
        return self._pos.copy(), self._neg.copy()

    def label_probabilities(self) -> tuple[float, float]:
        """``(P[y=0], P[y=1]) = (w_pub, 1 - w_pub)``."""
        return self.w_pub, 1.0 - self.w_pub

    def _uniform_side(self, side: int, size: int, rng) -> np.ndarray:
        out = np.empty((0, 2), dtype=np.int64)
        while out.shape[0] < size:  # rejection sampling; each side has >= ~25% of the grid
            cand = rng.integers(0, self.T + 1, size=(2 * (size - out.shape[0]) + 16, 2))
            out = np.vstack([out, cand[self.target_predict(cand) == side]])
        return out[:size]

    def sample(self, n, random_state=None):
        """``n`` i.i.d. triples: ``public = U < w_pub`` first, then ``x`` given the label.

        Returns X (float64 (n, 2) integer coordinates), y (int64, 1 = private), public (bool).
        """
        n = check_positive_int(n, "n", minimum=0)
        rng = check_random_state(random_state)
        public = rng.random(n) < self.w_pub
        X = np.empty((n, 2), dtype=np.int64)
        n_pub = int(public.sum())
        if self.support is None:
            X[public] = self._uniform_side(0, n_pub, rng)
            X[~public] = self._uniform_side(1, n - n_pub, rng)
        else:
            X[public] = (self._neg[rng.integers(0, len(self._neg), size=n_pub)]
                         if self._neg_p is None else
                         self._neg[rng.choice(len(self._neg), size=n_pub, p=self._neg_p)])
            X[~public] = self._pos[rng.integers(0, len(self._pos), size=n - n_pub)]
        return X.astype(float), (~public).astype(np.int64), public

    def true_error(self, predict, n_test=100_000, random_state=None):
        """``err(h) = w_pub P[h = 1 | y = 0] + (1 - w_pub) P[h = 0 | y = 1]`` as ``(err, se)``.

        Exact (se = 0) with finite support or when ``(T + 1)^2 <= 2^22`` (every grid point is
        evaluated); otherwise Monte Carlo with ``n_test`` uniform points per side."""
        if not callable(predict):
            raise ValueError(f"predict must be callable, got {predict!r}")
        w = self.w_pub
        if self.support is not None:
            fp = np.average(self._pred(predict, self._neg) == 1, weights=self._neg_p)
            fn = np.mean(self._pred(predict, self._pos) == 0)
            return float(w * fp + (1 - w) * fn), 0.0
        if (self.T + 1) ** 2 <= _EXACT_GRID:
            g = np.arange(self.T + 1)
            G = np.column_stack([np.repeat(g, self.T + 1), np.tile(g, self.T + 1)])
            lab, pred = self.target_predict(G), self._pred(predict, G)
            return float(w * np.mean(pred[lab == 0] == 1)
                         + (1 - w) * np.mean(pred[lab == 1] == 0)), 0.0
        n_test = check_positive_int(n_test, "n_test")
        rng = check_random_state(random_state)
        e0 = self._pred(predict, self._uniform_side(0, n_test, rng)) == 1
        e1 = self._pred(predict, self._uniform_side(1, n_test, rng)) == 0
        err = w * e0.mean() + (1 - w) * e1.mean()
        se = math.sqrt(w * w * e0.var() / n_test + (1 - w) ** 2 * e1.var() / n_test)
        return float(err), float(se)

    @staticmethod
    def _pred(predict, P):
        out = np.asarray(predict(P.astype(float)))
        if out.shape != (P.shape[0],) or not np.all(np.isin(out, (0, 1))):
            raise ValueError(f"predict must return {P.shape[0]} labels in {{0, 1}}")
        return out


def GridHalfplane(*, T=1024, w_pub=0.5, support=32, geometry_seed=0) -> GridPolygon:
    """The ``k = 1`` case of :class:`GridPolygon` (C12's main population)."""
    return GridPolygon(T=T, k=1, w_pub=w_pub, support=support, geometry_seed=geometry_seed)


@configurable("population", "grid_triangles",
              stable_name="ppm.set_cover.polygon_population.GridTriangles",
              target="ppm.set_cover.GridTriangles")
class GridTriangles(GridPolygon):
    """Union of two disjoint triangles on ``{0..T}^2`` (KMMS19 Theorem 5.1's class
    ``(HALFPLANE^{∧3})^{∨2}``; not convex), label-determined privacy as :class:`GridPolygon`.

    Target: ``y = 1`` iff the point lies in the closed triangle ``A`` with vertices
    ``(a, a), (c, a), (a, c)`` or in ``B``, its mirror image through the grid centre
    (``p -> T 1 - p``), with ``a = round(0.1 T)``, ``c = floor(0.45 T)``: exact integer
    orientation tests. The grid centre ``(T // 2, T // 2)`` has label 0 and lies in the convex
    hull of the two triangles, so no convex set is consistent with the target. With finite
    support the centre is one of the negative support points (besides the points next to the
    boundary, as :class:`GridPolygon`) and carries the share ``centre_mass`` of the negative
    mass, so that the non-convexity carries mass at every ``T``: a convex set holding
    positives of both triangles errs on the centre (``w_pub * centre_mass``) or drops one
    triangle's positives (about ``(1 - w_pub) / 2``); the least convex error is computed
    exactly by :meth:`best_convex_error` (1/4 at ``w_pub = centre_mass = 1/2``, support 8,
    every ``T = 2^b``, b = 6..20).

    Parameters
    ----------
    T : int in [16, 2^20]
    w_pub : float in [0, 1]
        ``P[public] = P[y = 0]``.
    support : int >= 2 or None
        Boundary positions (at most that many support points per label, half along each
        triangle's perimeter, as :class:`GridPolygon`, and the centre as one more negative);
        None: uniform over each side. The union learner's cost grows with the number ``m <= 2
        support + 1`` of distinct points (:mod:`ppm.set_cover.unions`: ``L^3`` cell triples
        per round, ``L = O(m^2)``), hence the small default.
    centre_mass : float in (0, 1)
        Finite support only: the share of the negative mass on the grid centre (the rest is
        spread evenly over the boundary negatives). Unused with ``support=None``.
    """

    _parameter_constraints = {
        "T": [Number(Integral, 16, 2**20, closed="both")],
        "w_pub": CLOSED_UNIT,
        "support": [None, Number(Integral, 2, None, closed="left")],  # None: uniform
        "centre_mass": OPEN_UNIT,
    }

    def __init__(self, *, T=1024, w_pub=0.5, support: int | None = 8, centre_mass=0.5):
        a, c = round(0.1 * T), math.floor(0.45 * T)
        A = np.array([(a, a), (c, a), (a, c)], dtype=np.int64)  # counter-clockwise
        self._triangles = (A, T - A)  # the point reflection keeps the orientation
        self._neg_p = None
        if support is not None:
            self._pos, neg = self._support_points(support)
            centre = np.array([[T // 2, T // 2]], dtype=np.int64)
            neg = neg[np.any(neg != centre, axis=1)]
            self._neg = np.vstack([neg, centre])  # the centre last
            self._neg_p = np.append(np.full(len(neg), (1.0 - centre_mass) / len(neg)),
                                    centre_mass)

    @property
    def k(self) -> int:
        """Number of triangles of the target (the union learner's ``k``)."""
        return 2

    @property
    def triangles(self) -> tuple:
        """The two triangles' integer vertices, each (3, 2), counter-clockwise."""
        return tuple(t.copy() for t in self._triangles)

    def opt(self) -> float:
        """``OPT = 0``: the target is a union of two triangles."""
        return 0.0

    def target_predict(self, X) -> np.ndarray:
        """Exact target labels of grid points (integer orientation tests, closed triangles)."""
        P = self._grid_points(X)
        out = np.zeros(P.shape[0], dtype=bool)
        for V in self._triangles:
            inside = np.ones(P.shape[0], dtype=bool)
            for i in range(3):
                u, v = V[i], V[(i + 1) % 3]
                inside &= ((v[0] - u[0]) * (P[:, 1] - u[1])
                           - (v[1] - u[1]) * (P[:, 0] - u[0])) >= 0
            out |= inside
        return out.astype(np.int64)

    def best_convex_error(self) -> float:
        """The least error of any convex set, EXACT (finite support only).

        A convex ``K`` errs on the negatives inside it and the positives outside it. With
        ``S = K ∩ positives``, ``conv(S) ⊆ K`` contains no more negatives and at least ``S``, so
        the least error is the minimum over the subsets ``S`` of the positive support points
        of the error of ``conv(S)`` (closed hull; exact integer orientation tests). ``2^|S|``
        hulls: refused beyond :data:`MAX_CONVEX_SUBSETS` positive support points. Every
        intersection of halfplanes is convex, so no convex learner (e.g. the Set Cover Learner
        over halfplanes) can err less on this population."""
        if self.support is None:
            raise ValueError("best_convex_error needs a finite support (support=None here)")
        pos, neg = self._pos, self._neg
        if len(pos) > MAX_CONVEX_SUBSETS:
            raise ValueError(f"best_convex_error enumerates 2^{len(pos)} subsets of positive "
                             f"support points; the limit is 2^{MAX_CONVEX_SUBSETS}")
        w = self.w_pub
        best = 1.0 - w  # the empty set: every positive wrong
        for mask in range(1, 1 << len(pos)):
            hull = _convex_hull(pos[[i for i in range(len(pos)) if mask >> i & 1]])
            fp = np.average(_in_hull(hull, neg), weights=self._neg_p)
            fn = np.count_nonzero(~_in_hull(hull, pos)) / len(pos)
            best = min(best, w * fp + (1 - w) * fn)
        return float(best)

    def _boundary_positions(self, M: int) -> np.ndarray:
        out = []
        for t, V in enumerate(self._triangles):
            Mt = (M + 1 - t) // 2  # ceil(M/2) on A, floor(M/2) on B
            W = np.vstack([V, V[:1]]).astype(float)
            seg = np.hypot(*np.diff(W, axis=0).T)
            s = (np.arange(Mt) + 0.5) / Mt * seg.sum()
            idx = np.minimum(np.searchsorted(np.cumsum(seg), s, side="right"), 2)
            frac = (s - np.concatenate([[0.0], np.cumsum(seg)])[idx]) / seg[idx]
            out.append(W[idx] + frac[:, None] * (W[idx + 1] - W[idx]))
        return np.vstack(out)


#: :meth:`GridTriangles.best_convex_error` enumerates the subsets of at most this many
#: positive support points (2^16 closed hulls)
MAX_CONVEX_SUBSETS = 16


def _cross(o, a, b) -> int:
    return int((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def _convex_hull(P: np.ndarray) -> list:
    """Vertices of the closed convex hull of integer points, counter-clockwise, collinear
    points dropped (Andrew's monotone chain, exact integer arithmetic)."""
    pts = sorted({(int(x), int(y)) for x, y in P})
    if len(pts) <= 2:
        return pts
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def _in_hull(hull: list, Q: np.ndarray) -> np.ndarray:
    """Whether each integer point of ``Q`` lies in the closed hull (a point, a segment or a
    counter-clockwise polygon from :func:`_convex_hull`)."""
    out = np.empty(len(Q), dtype=bool)
    for j, q in enumerate(Q):
        q = (int(q[0]), int(q[1]))
        if len(hull) == 1:
            out[j] = q == hull[0]
        elif len(hull) == 2:
            a, b = hull
            out[j] = (_cross(a, b, q) == 0 and min(a[0], b[0]) <= q[0] <= max(a[0], b[0])
                      and min(a[1], b[1]) <= q[1] <= max(a[1], b[1]))
        else:
            out[j] = all(_cross(hull[i], hull[(i + 1) % len(hull)], q) >= 0
                         for i in range(len(hull)))
    return out


__all__ = ["GridPolygon", "GridHalfplane", "GridTriangles"]
