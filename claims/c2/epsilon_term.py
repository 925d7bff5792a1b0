"""C2's privacy term counted across epsilon (BMN20 Theorem 4.10: ``n ~ A/alpha^2 + B/(epsilon
alpha)``): part of the C2 claim (:mod:`claims.c2.agnostic`), kept apart for its size.

On the hard family at alpha_target 0.01..0.08, PPM runs at five epsilons on the same samples
(``c2_epsilon_term``, ``c2_epsilon_term_small_alpha``: one trial set, its own seed). Per
alpha, ``n_hat = u(alpha) + v(alpha)/epsilon`` is fitted across epsilon and the counted
statistic is the growth of the privacy coefficient, the slope of ``log v`` against
``log(1/alpha)`` (:func:`analysis.epsilon_term.epsilon_term_growth`). Prediction: 1 plus the
local slope of the theorem's log factor (:func:`predicted_range`); alternative: a
multiplicative ``1/(epsilon alpha^2)``, slope 2; the bands and the rule are
:func:`claims.rules.predictions.rate_verdict`'s. Model check: the u-free reading ``v2`` (the two
smallest epsilons) gives the same slope, else ``v2``'s slope is counted instead
(:func:`growth_verdict`). ``v > 0`` at every alpha is a check row. docs/claims/c2_agnostic.md
states the design and the rule, fixed before the trials were run.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis.aggregate import ERROR_COL
from analysis.epsilon_term import epsilon_term_growth
from claims.reporting import plotting
from claims.base import VerdictRow, beta_of, setting_value, trial_set
from claims.rules.outcomes import fit_defect, inconclusive, interval_defect
from claims.rules.predictions import rate_verdict, theory_with_alternative
from claims.rules.verdicts import check_verdict, fmt_slope
from experiments.columns import ALPHA_TARGET, C, D, EPSILON, PPM, W_PUB
from ppm import bounds

EXPERIMENTS = ("c2_epsilon_term", "c2_epsilon_term_small_alpha")
STATISTIC = "epsilon_term_growth_inv_alpha"
CHECK_STATISTIC = "epsilon_term_positive"
ALTERNATIVE = (2.0, 2.0)
NAMES = ("Thm 4.10's 1/(epsilon alpha) term", "a multiplicative 1/(epsilon alpha^2)")


def predicted_range(alphas, eps_values, beta: float, d: int) -> tuple[float, float]:
    """``(1, s)``: the rate's slope 1 and the largest local slope, over the design's alphas,
    of Theorem 4.10's privacy term ``(d^2 L + ln(1/beta)) / (epsilon alpha)`` in ``1/alpha``
    at any of its epsilons (``L = ln(max(e, d/(epsilon alpha)))``: the factor of
    :func:`ppm.bounds.agnostic_shape`)."""
    a = np.sort(np.asarray(alphas, dtype=float))
    if a.size < 2:
        raise ValueError(f"need at least two alphas, got {list(a)}")
    slopes = []
    for eps in eps_values:
        factor = bounds.agnostic_shape(a, beta, eps, d) / np.maximum(1 / a**2, 1 / (eps * a))
        slopes.append(np.polyfit(np.log(1 / a), np.log(factor / a), 1)[0])
    return 1.0, float(max(1.0, max(slopes)))


def growth_verdict(res: dict, predicted: tuple) -> tuple[str, dict, str]:
    """The counted row's rule (docs/claims/c2_agnostic.md): ``(verdict, the fit it weighs,
    which reading)``. The model check: the interval of ``v2``'s slope minus ``v``'s contains 0;
    if it does not, ``v2``'s slope is weighed instead. Replicates with some ``v <= 0`` have no
    slope: more than the interval's tail (2.5%) of them makes the row inconclusive."""
    counted, which = dict(res), "v (u + v/epsilon fit)"
    mis = res["misfit"]
    if np.isfinite(mis["lo"]) and not mis["lo"] <= 0.0 <= mis["hi"]:
        counted = dict(res, **res["secondary"])
        which = "v2 (two smallest epsilons; the model check failed)"
    defect = fit_defect(res) or interval_defect(counted["lo"], counted["hi"], counted["slope"],
                                                res.get("n_points"))
    if defect:
        return defect, counted, which
    if res["nonpositive_frac"] > 0.025:
        return (inconclusive(f"v <= 0 at some alpha in {res['nonpositive_frac']:.1%} of the "
                             "bootstrap replicates"), counted, which)
    return rate_verdict(counted, predicted, ALTERNATIVE, NAMES), counted, which


def load(results):
    """PPM's trials of the epsilon-term sweeps that have been run (``None`` if none)."""
    parts = [r[0] for r in map(results.load, EXPERIMENTS) if r is not None]
    if not parts:
        return None
    nhat = next(r[1] for r in map(results.load, EXPERIMENTS) if r is not None)
    trials = pd.concat(parts, ignore_index=True)
    return trials, trials[trials.learner == PPM], beta_of(nhat)


def _fit(results, n_boot=None):
    data = load(results)
    if data is None:
        return None
    trials, ppm, beta = data
    res = epsilon_term_growth(ppm, ALPHA_TARGET, EPSILON, beta, error_col=ERROR_COL,
                              n_boot=results.n_boot if n_boot is None else n_boot)
    return trials, ppm, beta, res


def rows(results) -> list[VerdictRow]:
    """The counted row and the check row (none if the sweeps have not been run)."""
    fitted = _fit(results)
    if fitted is None:
        return []
    trials, ppm, beta, res = fitted
    d = setting_value(trials, D, default=1, cast=int)
    w_pub, c = setting_value(trials, W_PUB), setting_value(trials, C)
    eps_values = np.sort(ppm[EPSILON].unique())
    predicted = predicted_range(res["alphas"], eps_values, beta, d)
    verdict, counted, which = growth_verdict(res, predicted)
    cells = trial_set(*[e for e in EXPERIMENTS if results.load(e) is not None])
    setting = (f"hard family (margin 1/2 -+ {c:g} alpha, one population per alpha), d={d}, "
               f"w_pub={w_pub:g}, alpha {res['alphas'].min():g}..{res['alphas'].max():g}, "
               f"epsilon {', '.join(f'{e:g}' for e in eps_values)}")
    vs = ", ".join(f"{v:.3g} [{lo:.3g}, {hi:.3g}] (alpha={a:g})" for a, v, lo, hi in
                   zip(res["alphas"], res["v"], res["v_lo"], res["v_hi"]))
    us = ", ".join(f"{u:.3g}" for u in res["u"])
    v2 = ", ".join(f"{v:.3g}" for v in res["v2"])
    cens = res.get("censored_frac", math.nan)
    measured = (f"per alpha n_hat = u + v/epsilon over {eps_values.size} epsilons: v = {vs}; "
                f"u = {us}; slope of log v vs log(1/alpha) = {fmt_slope(res)}; u-free v2 = "
                f"{v2}, its slope {fmt_slope(res['secondary'])}, minus v's "
                f"{fmt_slope(res['misfit'])}; counted: {which}"
                + (f"; censored in {cens:.1%} of bootstrap cells (at the grid's edge)"
                   if cens > 0 else ""))
    base = dict(claim="C2", figure="c2_agnostic", d=d, w_pub=w_pub, trials=cells)
    theory = (theory_with_alternative(predicted, ALTERNATIVE, NAMES)
              + " (1 plus the local slope of the theorem's log factor)")
    counted_row = VerdictRow(
        setting=setting + ", epsilon term",
        paper="n ~ A/alpha^2 + B/(epsilon alpha) (Thm 4.10): the privacy term's coefficient "
              "of 1/epsilon grows like 1/alpha",
        measured=measured, theory=theory, verdict=verdict, statistic=STATISTIC,
        slope=counted["slope"], slope_lo=counted["lo"], slope_hi=counted["hi"],
        extra="hard family, epsilon term", **base)
    positive = bool(np.all(np.isfinite(res["v_lo"]) & (res["v_lo"] > 0)))
    check_row = VerdictRow(
        setting=setting + ", v > 0",
        paper="a privacy term is present at every alpha (v > 0)",
        measured=f"v lower 2.5% points: {', '.join(f'{x:.3g}' for x in res['v_lo'])}",
        theory="v > 0 at every alpha",
        verdict=check_verdict(positive, "some v interval reaches 0"),
        statistic=CHECK_STATISTIC, extra="hard family, epsilon term, v > 0", **base)
    return [counted_row, check_row]


def panel(ax, results, row_list) -> None:
    """``n_hat`` against ``1/epsilon`` per alpha, with each alpha's fitted ``u + v/epsilon``;
    the title carries ``v(alpha)`` and the counted slope."""
    fitted = _fit(results, n_boot=0)
    if fitted is None:
        return
    _, _, beta, res = fitted
    x = np.geomspace(res["inv_eps"].min(), res["inv_eps"].max(), 40)
    for i, (a, u, v) in enumerate(zip(res["alphas"], res["u"], res["v"])):
        sel = res["cell_alpha"] == a
        color = f"C{i}"
        ax.plot(res["inv_eps"][sel], res["n_hat"][sel], "o", color=color,
                label=f"alpha = {a:g}: n_hat")
        ax.plot(x, u + v * x, "-", color=color, lw=1,
                label=f"u + v/epsilon: u = {u:.3g}, v = {v:.3g}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$1/\epsilon$")
    ax.set_ylabel(plotting.nhat_label(beta))
    mine = [r for r in row_list if r.statistic == STATISTIC]
    ax.set_title("hard family, epsilon term: slope of log v vs log(1/alpha)"
                 + "".join(f"\n{fmt_slope(dict(slope=r.slope, lo=r.slope_lo, hi=r.slope_hi))}"
                           f" ({r.verdict})" for r in mine), fontsize=7)
    plotting.legend_below(ax)
