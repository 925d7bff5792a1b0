"""C16's ``d n_hat / d ln T`` (the samples one more unit of ``ln T`` costs the union learner;
``statistic`` ``samples_per_unit_ln_t``, a check, not counted), and what it is weighed against:
the exponential mechanism's ``ln T`` coefficient (KMMS19 Theorem 3.2 x BMN20 Lemma 4.6 on a
triangle's three dual coordinates), the check that the measurement lies below it (a check, not
evidence: the coefficient sits far above any plausible measurement), and the mechanism's own
exponent on the population (the base measure of the target triangle's cell triples).
``claims.c16.union_polygons`` (its module docstring gives the derivation) builds the rows from
these."""

from __future__ import annotations

import math

import numpy as np

from claims.rules.accounting import as_check
from ppm.set_cover import GridTriangles
from ppm.set_cover.unions import TriangleComplementSelector


def mechanism_ln_t_coefficient(k: int, alpha: float, epsilon_hat: float) -> float:
    """The exponential mechanism's ``ln T`` coefficient in samples (module docstring): Theorem
    3.2's ``k ln(1/alpha) / alpha`` samples per unit of loss times the loss per unit of ``ln T``
    of one triangle selection, ``3 x 8 / eps_s`` with ``eps_s = epsilon_hat / 2`` (Lemma 4.6 on
    each of the three dual coordinates). Constant 1: an upper bound."""
    return k * math.log(1 / alpha) / alpha * 3 * 8 / (epsilon_hat / 2)


def target_triple_measure(T_: int, w_pub: float, support: int, triangle: int = 0) -> float:
    """The base measure (normalised, ordered triples) of the cell triples whose intersection
    holds exactly the positive support points of target triangle ``triangle``, from the exact
    cells of :class:`ppm.set_cover.unions.TriangleComplementSelector` on the population's
    support points (module docstring)."""
    pop = GridTriangles(T=int(T_), w_pub=w_pub, support=support)
    pos, neg = pop.support_points()
    X = np.vstack([pos, neg])
    y = np.r_[np.zeros(len(pos)), np.ones(len(neg))].astype(np.int64)  # flipped labels
    cells = TriangleComplementSelector(T=int(T_)).cells(X, y)
    pts = cells.trap.points  # the distinct points, in the order of the labellings' columns
    A = pop.triangles[triangle]  # counter-clockwise: inside (closed), every cross >= 0
    cross = [(A[(i + 1) % 3, 0] - A[i, 0]) * (pts[:, 1] - A[i, 1])
             - (A[(i + 1) % 3, 1] - A[i, 1]) * (pts[:, 0] - A[i, 0]) for i in range(3)]
    inside_A = np.all(np.array(cross) >= 0, axis=0)
    weights = 1 << np.arange(pts.shape[0], dtype=np.int64)
    bits = (cells.labels.astype(bool) * weights).sum(axis=1)
    target = int((inside_A * weights).sum())
    mass = cells.mass / cells.mass.sum()
    total = 0.0
    for i in range(bits.size):
        hit = ((bits[i] & bits)[:, None] & bits[None, :]) == target
        total += mass[i] * float((mass[:, None] * mass[None, :])[hit].sum())
    return total


def target_triple_exponent(Ts, w_pub: float, support: int) -> tuple[float, dict]:
    """``gamma``: the least-squares slope of ``ln(1 / measure)`` on ``ln T`` of
    :func:`target_triple_measure` over ``Ts``, and the measures."""
    meas = {int(t): target_triple_measure(int(t), w_pub, support) for t in sorted(set(Ts))}
    if len(meas) < 2 or min(meas.values()) <= 0:
        return math.nan, meas
    x = np.log(np.array(list(meas), dtype=float))
    return float(np.polyfit(x, -np.log(np.array(list(meas.values()))), 1)[0]), meas


LN_T_NAMES = ("the mechanism's ln T cost", "a T-free cost")


def ln_t_verdict(fit: dict, coef: float, tol: float = 0.0) -> str:
    """The rule of ``d n_hat / d ln T`` (module docstring): a built-in check, not evidence.
    The prediction ``0 < d n_hat / d ln T <= C`` has an upper edge ``C`` (the mechanism's
    coefficient, constant 1) that no plausible measurement reaches (about 160x the measured
    value: :func:`claims.rules.accounting.vacuous_edge`), so the row cannot fail there; it checks
    that the interval lies below ``C`` ("check (...): passed", or a loud "check: FAILED" when
    T costs more than the mechanism explains). No margin is derived from the data. Whether
    ``T`` costs samples at all is the counted slope row's question, whose bands come from
    theory. ``tol`` is ignored (kept for callers)."""
    est, lo, hi = fit.get("slope", math.nan), fit.get("lo", math.nan), fit.get("hi", math.nan)
    if not (np.isfinite(est) and np.isfinite(hi) and np.isfinite(coef)):
        return "check: not measured"
    ratio = coef / est if est > 0 else math.inf
    return as_check(f"the mechanism's ln T coefficient C = {coef:.3g} lies {ratio:.0f}x above "
                    f"the measured {est:.0f}: a band the measurement cannot miss is a check, "
                    "not evidence", bool(hi <= coef),
                    "" if hi <= coef else f"interval [{lo:.0f}, {hi:.0f}] above C")


def counted_alpha(fits: dict) -> float:
    """The alpha of an experiment's counted row: the most uncensored ``T`` (the fits'
    ``n_points``), the smaller alpha on a tie. The alphas read the same trials: one counts."""
    return min(fits, key=lambda a: (-fits[a]["n_points"], a))
