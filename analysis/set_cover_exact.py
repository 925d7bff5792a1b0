"""The exact output law of the Set Cover Learner over literals (KMMS19, section 3) on a tiny
sample, and its exact privacy loss: what the statistical audit's stated bound (basic
composition, ``R epsilon_hat + eps'``) is compared with (docs/privacy_audits.md, "Loose
bounds").

Each round ``j`` draws ``w_j ~ Lap(R / eps')``, sets the threshold ``b_j = n_0 + w_j - Delta``
and draws a literal from the exponential mechanism at ``epsilon_hat`` (the learner's own
:meth:`~ppm.set_cover.literals.LiteralSelector.distribution_from_counts`); the examples the
literal labels 0 are deleted. Given the surviving examples the round's law is the integral of
the mechanism's law against the Laplace density, a one-dimensional integral of a smooth
function between known kinks (``scipy.integrate.quad``, absolute error ``< 1e-12``); the
rounds chain by the surviving set. The output is the released conjunction's predictions on
the whole cube ``{0,1}^D`` (or, for :class:`~ppm.set_cover.DisjunctionLearner`, their
negation: the conjunction learner on the flipped labels), i.e. the hypothesis as a function.
The learner's constants (rounds, scale, margin) come from its own ``_budget()``.

Over grid halfplanes (KMMS19, section 4: Select Halfplane) the same chain runs on the dual
arrangement of the WHOLE grid ``{0..T}^2`` (:func:`ppm.set_cover.halfplanes.dual_trapezoids`):
the selector draws a cell of the sample's arrangement ``∝ area * exp(eps_hat q / 2)`` and a
uniform point in it, so a trapezoid of the finer grid arrangement (which fixes the released
halfplane's labels on every grid point, ties having measure zero) is drawn ``∝ its area *
exp(eps_hat q / 2)``, ``q`` read from the labels of the sample's points. Trapezoids of equal
grid labelling are merged (their area summed); the round's law is then the same Laplace
integral over the labellings, and the output is the conjunction's labels on the grid (row-major
``(i, j)``, the order of ``[[i, j] for i in range(T + 1) for j in range(T + 1)]``).
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np
from scipy import integrate
from scipy.special import logsumexp

from ppm.mechanisms import em_log_weights
from ppm.set_cover import DisjunctionLearner
from ppm.set_cover.halfplanes import check_grid_points, check_grid_size, dual_trapezoids
from ppm.set_cover.literals import LiteralSelector, column_counts, literal_of

TAIL = 45.0  # the Laplace mass beyond 45 scales, e^-45, is below every tolerance used
MAX_T = 4  # grid halfplanes: (T + 1)^2 <= 25 dual lines, the enumeration stays a few seconds


def _round_law(X, y, alive, p) -> np.ndarray:
    """``P[literal]`` of one round on the surviving rows ``alive`` (canonical order)."""
    n0, n1, c0, c1 = column_counts(X[alive], y[alive])
    scale, margin, eps = p["scale"], p["margin"], p["eps_hat"]
    zeros_neg = np.concatenate([n0 - c0, c0])
    zeros_pos = np.concatenate([n1 - c1, c1])
    # q(h) = min(zeros_neg - b, -zeros_pos): kinks where b = zeros_neg + zeros_pos
    kinks = sorted({float(v) - n0 + margin for v in zeros_neg + zeros_pos} | {0.0})
    lo, hi = -TAIL * scale, TAIL * scale
    pts = [k for k in kinks if lo < k < hi]
    edges = [lo] + pts + [hi]

    def f(w):
        dist = LiteralSelector.distribution_from_counts(
            n0, n1, c0, c1, (n0 + w - margin) / p["k"], eps)
        return dist * math.exp(-abs(w) / scale) / (2 * scale)
    law = sum(integrate.quad_vec(f, a, b, epsabs=1e-13, epsrel=1e-11, limit=400)[0]
              for a, b in zip(edges[:-1], edges[1:]))
    return law


def literal_law(X, y, budget: dict) -> dict:
    """``{tuple of released literals (round order): probability}`` for the literal rounds
    of :meth:`SetCoverLearner._literal_rounds` with constants ``budget`` (its ``_budget()``)."""
    X, y = np.asarray(X, dtype=np.uint8), np.asarray(y, dtype=np.int64)
    D = X.shape[1]
    out = defaultdict(float)

    def walk(alive, chosen, prob, r):
        if r == budget["rounds"]:
            out[tuple(chosen)] += prob
            return
        law = _round_law(X, y, alive, budget)
        for j, pj in enumerate(law):
            lit = literal_of(j, D)
            keep = alive & (X[:, lit.variable] == lit.sign)
            walk(keep, chosen + [lit.as_tuple()], prob * pj, r + 1)

    walk(np.ones(len(y), dtype=bool), [], 1.0, 0)
    return dict(out)


def _laplace_integral(f, kinks, scale):
    """``integral f(w) Lap(w; scale) dw`` of a vector ``f`` smooth between ``kinks``."""
    lo, hi = -TAIL * scale, TAIL * scale
    edges = [lo] + sorted({k for k in kinks if lo < k < hi} | {0.0}) + [hi]

    def g(w):
        return f(w) * math.exp(-abs(w) / scale) / (2 * scale)
    return sum(integrate.quad_vec(g, a, b, epsabs=1e-13, epsrel=1e-11, limit=400)[0]
               for a, b in zip(edges[:-1], edges[1:]))


def grid_labellings(T: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(grid, labels, area)``: the points of ``{0..T}^2`` (row-major), the distinct labellings
    of them by the halfplanes of the dual box (both boxes of Observation 4.1; ``(L, (T+1)^2)``
    int64) and the dual area of each (summed over its sweep trapezoids; total ``2 (4T^2)^2``)."""
    T = check_grid_size(T)
    if T > MAX_T:
        raise ValueError(f"grid_labellings: T <= {MAX_T} (an exhaustive enumeration), got {T}")
    grid = np.array([[i, j] for i in range(T + 1) for j in range(T + 1)], dtype=np.int64)
    dual = dual_trapezoids(grid, T)
    # dual.points is sorted by (x, y), which is the row-major order of grid
    if not np.array_equal(dual.points, grid):
        raise AssertionError("the dual arrangement lists the grid in another order")
    labs = np.vstack([dual.labelling(1), dual.labelling(2)]).astype(np.int64)
    area = np.concatenate([dual.area, dual.area])
    uniq, inv = np.unique(labs, axis=0, return_inverse=True)
    return grid, uniq, np.bincount(np.asarray(inv).reshape(-1), weights=area)


def labelling_law(labs, log_base, index, y, budget: dict) -> dict:
    """The chained rounds over a finite class given as labellings of a domain: ``labs`` (L,
    domain size) 0/1, ``log_base`` the log base measure of each (the exponential mechanism's
    ``log_base``), ``index[i]`` the domain point of example ``i``, labels ``y``; each round
    draws a labelling ``∝ exp(log_base + eps_hat q / 2)`` at the Laplace threshold, integrated
    as in the literal case, and deletes the examples it labels 0. Returns ``{conjunction of the
    R labellings on the domain (bytes of int64): probability}``."""
    labs = np.asarray(labs, dtype=np.int64)
    log_base = np.asarray(log_base, dtype=float)
    y = np.asarray(y, dtype=np.int64)
    at = labs[:, np.asarray(index, dtype=np.int64)]  # (L, n): the labellings on the sample
    k, scale, margin, eps = budget["k"], budget["scale"], budget["margin"], budget["eps_hat"]
    laws = {}

    def round_law(alive):
        key = alive.tobytes()
        if key not in laws:
            n0 = int(np.count_nonzero(alive & (y == 0)))
            z0 = np.count_nonzero((at == 0) & (alive & (y == 0)), axis=1)
            z1 = np.count_nonzero((at == 0) & (alive & (y == 1)), axis=1)

            def f(w):  # q = min(z0 - b / k, -z1), b = n0 + w - margin (step 1c)
                q = np.minimum(z0 - (n0 + w - margin) / k, -z1)
                logw = em_log_weights(q, eps, log_base=log_base)
                return np.exp(logw - logsumexp(logw))
            kinks = [float(k * v - n0 + margin) for v in set((z0 + z1).tolist())]
            laws[key] = _laplace_integral(f, kinks, scale)
        return laws[key]

    out = defaultdict(float)

    def walk(alive, conj, prob, r):
        if r == budget["rounds"]:
            out[conj.tobytes()] += prob
            return
        for j, pj in enumerate(round_law(alive)):
            walk(alive & (at[j] == 1), conj & labs[j], prob * pj, r + 1)

    walk(np.ones(y.size, dtype=bool), np.ones(labs.shape[1], dtype=np.int64), 1.0, 0)
    return dict(out)


def halfplane_law(X, y, T: int, budget: dict) -> dict:
    """``{grid labels of the released conjunction (bytes of int64): probability}`` for
    :meth:`SetCoverLearner._rounds` with :class:`~ppm.set_cover.HalfplaneSelector` on the grid
    ``{0..T}^2``, constants ``budget`` (its ``_budget()``); module docstring."""
    _, labs, area = grid_labellings(T)
    X = check_grid_points(X, T)
    return labelling_law(labs, np.log(area), X[:, 0] * (T + 1) + X[:, 1], y, budget)


def prediction_law(learner, X, y) -> dict:
    """``{prediction vector (bytes of int64): probability}`` of ``learner`` (its parameters as
    set) fitted on ``(X, y)``: a :class:`~ppm.set_cover.SetCoverLearner` or
    ``DisjunctionLearner`` over literals (predictions on the cube ``{0,1}^D``), or a
    ``SetCoverLearner`` over halfplanes (predictions on the grid ``{0..T}^2``, row-major,
    ``T <= MAX_T``)."""
    if learner.hypotheses == "halfplanes" and not isinstance(learner, DisjunctionLearner):
        return halfplane_law(X, y, learner.T, learner._budget())
    if learner.hypotheses != "literals":
        raise ValueError(f"prediction_law: literals, or halfplanes for SetCoverLearner; got "
                         f"{learner.hypotheses!r} for {type(learner).__name__}")
    flip = isinstance(learner, DisjunctionLearner)  # the conjunction learner on 1 - y, negated
    yy = 1 - np.asarray(y) if flip else np.asarray(y)
    D = np.asarray(X).shape[1]
    cube = np.array(list(itertools.product((0, 1), repeat=D)), dtype=np.int64)
    out = defaultdict(float)
    for lits, p in literal_law(X, yy, learner._budget()).items():
        conj = np.all(np.stack([cube[:, v] == s for v, s in lits]), axis=0).astype(np.int64)
        out[(1 - conj if flip else conj).tobytes()] += p
    return dict(out)


def pair_loss(first: dict, second: dict, p_min: float = 0.0) -> float:
    """The largest ``ln(P[E] / P'[E])`` over events ``E`` with ``P[E] >= p_min``, both
    directions, for two exact laws (``p_min = 0``: the pure-DP loss, the largest log-ratio of
    one outcome)."""
    best = 0.0
    for a, b in ((first, second), (second, first)):
        keys = sorted(a, key=lambda o: -a[o] / max(b.get(o, 0.0), 1e-300))
        p1 = p2 = 0.0
        for o in keys:
            p1, p2 = p1 + a[o], p2 + b.get(o, 0.0)
            if p1 >= p_min:
                best = max(best, math.inf if p2 <= 0 else math.log(p1 / p2))
    return best
