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
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np
from scipy import integrate

from ppm.set_cover import DisjunctionLearner
from ppm.set_cover.literals import LiteralSelector, column_counts, literal_of

TAIL = 45.0  # the Laplace mass beyond 45 scales, e^-45, is below every tolerance used


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


def prediction_law(learner, X, y) -> dict:
    """``{prediction vector on the cube (bytes of int64): probability}`` of ``learner`` (a
    :class:`~ppm.set_cover.SetCoverLearner` or ``DisjunctionLearner`` over literals, its
    parameters as set) fitted on ``(X, y)``."""
    if learner.hypotheses != "literals":
        raise ValueError(f"prediction_law: literals only, got {learner.hypotheses!r}")
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
