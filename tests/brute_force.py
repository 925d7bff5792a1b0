"""Independent ground truth for tests: ERM over halfspaces by enumerating dichotomies; point in
the convex hull of grid points by Caratheodory."""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import linprog


def strictly_separable(X: np.ndarray, labels: np.ndarray) -> bool:
    """Is there (w, c) with (2 l_i - 1)(<w, x_i> + c) >= 1 for all i? (an LP feasibility check)."""
    n, d = X.shape
    if n == 0 or labels.min() == labels.max():
        return True
    s = 2.0 * labels - 1.0
    A_ub = -s[:, None] * np.hstack([X, np.ones((n, 1))])
    res = linprog(np.zeros(d + 1), A_ub=A_ub, b_ub=-np.ones(n), bounds=[(None, None)] * (d + 1),
                  method="highs")
    return res.status == 0


def erm_halfspace_errors(X: np.ndarray, y: np.ndarray) -> int:
    """Minimum number of training mistakes of any halfspace classifier (either orientation).

    Visits labelings in increasing Hamming distance from ``y``; the first strictly separable
    one gives the ERM error. Exponential: tiny samples only.
    """
    n = len(y)
    for k in range(n + 1):
        for flip in itertools.combinations(range(n), k):
            labels = y.copy()
            labels[list(flip)] = 1 - labels[list(flip)]
            if strictly_separable(X, labels):
                return k
    raise AssertionError("unreachable: a constant labeling is always separable")


def label_determined_instance(seed: int, d: int, n: int, w_pub: float = 0.5,
                              degenerate: str = ""):
    """A small random PPM sample (private <=> label 1), optionally degenerate: duplicate,
    collinear or integer-grid points."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    public = rng.random(n) < w_pub
    if degenerate == "duplicates" and n > 2:
        X[1] = X[0]
        X[2] = X[0]
    elif degenerate == "collinear" and d >= 2:
        X[:, 1] = 0.5 * X[:, 0] + 1.0
    elif degenerate == "grid":
        X = rng.integers(-2, 3, size=(n, d)).astype(float)
    y = (~public).astype(int)
    return X, y, public


def orient(a, b, c) -> int:
    """Twice the signed area of the triangle (a, b, c) of integer points (exact)."""
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def in_closed_hull(p, S) -> bool:
    """Exact: p in the closed convex hull of the grid points S (Caratheodory: a point, a segment
    or a triangle of S contains it)."""
    if any(tuple(a) == tuple(p) for a in S):
        return True
    for a, b in itertools.combinations(S, 2):
        if orient(a, b, p) == 0 and min(a[0], b[0]) <= p[0] <= max(a[0], b[0]) \
                and min(a[1], b[1]) <= p[1] <= max(a[1], b[1]):
            return True
    for a, b, c in itertools.combinations(S, 3):
        o = (orient(a, b, p), orient(b, c, p), orient(c, a, p))
        if orient(a, b, c) != 0 and (min(o) >= 0 or max(o) <= 0):
            return True
    return False
