"""C3 (Theorem 4.9): ``n ~ 1/epsilon`` while privacy dominates, then the non-private cost.

``c3_epsilon_d1``, ``c3_epsilon_d2``, per alpha (those of the experiment's ``analysis.alphas``):

* counted: the model is ``n ~ A/epsilon + B``, whose epsilon-free floor ``B`` pulls the plain
  log-log slope toward 0. The statistic is the floor-subtracted slope
  (:func:`analysis.floor_slope.floor_subtracted_slope_paired`): the slope of
  ``log(n_hat(eps) - n_hat(eps_max))`` against ``log eps_eff``, ``eps_eff = 1/(1/eps -
  1/eps_max)``, over the epsilons <= 1 (the regime where privacy dominates), the floor read at
  the sweep's largest epsilon. Under the model it is -1 whatever ``B``. Band: the rate -1 +-
  ``SLOPE_TOL``; alternative: no epsilon dependence (slope 0)
  (:func:`claims.rules.predictions.rate_verdict`, slower = steeper = "below"). A replicate in which
  some ``n_hat(eps) <= n_hat(eps_max)`` has no logarithm: its statistic is 0, the
  alternative's value (what an epsilon-free ``n_hat`` gives), and the fraction of such
  replicates is reported. The O-shape (about -1.1 to -1.3) and Theorem 4.9's explicit bound
  (-0.56 at d = 1, -0.34 at d = 2) are printed, not the band.
* breakdown (not counted): the plain slope of ``log n_hat`` over epsilon <= 1, the slope over
  epsilon >= 1 and ``n_hat`` at the largest epsilon over ERM's (the flattening toward the
  non-private cost).

Every epsilon of a trial runs on the same sample (the data seed is ``(n, trial)``), so both
bootstraps resample trial indices jointly across the epsilons. A cell censored in the point
estimate or in a replicate enters at the edge of the grid (right-censored: the largest n, a
lower bound on its n_hat); ``direction`` says which way such cells bound the statistic.
docs/claims/c3_epsilon.md states the rule.

Provenance: every alpha of one experiment is read off the same trials (``trials`` = the
experiment), so the per-alpha floor-subtracted rows (``floor_slope``) of one d are counted
once, as one joint row (:func:`claims.rules.accounting.one_per_trial_set`), the per-alpha rows being
its breakdowns; the plain slopes are ``loglog_slope_epsilon``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import yaml

from claims.reporting import plotting
from claims.base import (Claim, VerdictRow, alphas_of, beta_of, row_settings, setting_value,
                         trial_set)
from claims.rules.outcomes import inconclusive
from claims.rules.predictions import rate_verdict, theory_with_alternative
from claims.rules.verdicts import explicit_bound_note, fmt_slope
from ppm import bounds
from analysis.sample_complexity import loglog_slope
from analysis.floor_slope import NON_POSITIVE_VALUE, floor_subtracted_slope_paired
from analysis.slopes import sample_complexity_slope_paired
from analysis.aggregate import ERROR_COL
from experiments.columns import D, EPSILON, ERM, PPM, W_PUB

EXPERIMENTS = ("c3_epsilon_d1", "c3_epsilon_d2")
STATEMENT = "n ~ 1/epsilon while privacy dominates, then the non-private cost"
PRIVACY_DOMINATES = 1.0  # epsilon <= this: the 1/epsilon regime
# The band is the rate -1 +- SLOPE_TOL (the O-shape's and the explicit bound's flatter local
# slopes are shown, not admitted: with them a near-flat -0.31 passed); the alternative is no
# measurable price of privacy, a slope of 0 (n_hat at the non-private cost).
RATE = (-1.0, -1.0)
ALTERNATIVE = (0.0, 0.0)
NAMES = ("1/epsilon", "no epsilon dependence")
PLAIN_NOTE = "breakdown (the plain slope: biased toward 0 by the floor, not counted)"
# What each row computes (VerdictRow.statistic); every alpha of one experiment is read off the
# same trials, so its per-alpha counted rows are counted once, jointly
# (claims.rules.accounting.one_per_trial_set).
FLOOR_STAT = "floor_slope"
PLAIN_STAT = "loglog_slope_epsilon"
CONFIGS = Path(__file__).resolve().parent.parent / "configs" / "experiment"


def _theory(alpha, beta, eps, d, w_pub) -> dict:
    """Local slopes against log epsilon of the rate, the O-shape and the explicit bound."""
    explicit = [bounds.realizable_sample_complexity(alpha, beta, e, d, w_pub=w_pub) for e in eps]
    return {"rate": -1.0,
            "O-shape": loglog_slope(eps, bounds.realizable_shape(alpha, beta, eps, d))[0],
            "explicit": loglog_slope(eps, explicit)[0]}


def _setting(trials):
    """``(d, w_pub)`` of the trials. A swept-epsilon row's ``epsilon`` is NaN (it judges several:
    their range is its ``setting`` and ``extra``); a row of one epsilon reports it."""
    return setting_value(trials, D, cast=int), setting_value(trials, W_PUB)


def _too_few_epsilons(trials, nhat, alpha, exp="") -> VerdictRow:
    """The row of a root whose sweep holds fewer than two epsilons <= 1 (an override such as
    ``ARGS="learner.epsilon=0.5"`` fixed the axis C3 compares): what was measured, no slope,
    and a verdict that says why, instead of an internal error from an empty selection."""
    d, w_pub = _setting(trials)
    sub = nhat[(nhat.learner == PPM) & (nhat.alpha == alpha)].sort_values(EPSILON)
    held = ", ".join(f"{e:g}" for e in np.sort(trials.loc[trials.learner == PPM,
                                                          EPSILON].unique()))
    measured = "; ".join(f"n_hat(eps={e:g}) = {v:.4g}" + ("" if ok else " (censored)")
                         for e, v, ok in zip(sub[EPSILON], sub["n_hat"],
                                             plotting.uncensored(sub))) or "no n_hat"
    return VerdictRow(
        claim="C3", figure="c3_epsilon",
        setting=f"d={d}, w_pub={w_pub:g}, alpha={alpha:g}, epsilon {held}",
        paper="n ~ 1/epsilon while privacy dominates, flattening toward the "
              "non-private cost (Thm 4.9)",
        measured=measured,
        theory=theory_with_alternative(RATE, ALTERNATIVE, NAMES),
        verdict=inconclusive(f"this results root holds epsilon {held} only: C3 compares at "
                             f"least two epsilons <= {PRIVACY_DOMINATES:g} (an override that "
                             f"fixes learner.epsilon leaves one)"),
        # the epsilon the trials judged hold (NaN when they hold several, e.g. 0.5 and 10)
        statistic=FLOOR_STAT, trials=trial_set(exp) if exp else "",
        d=d, epsilon=row_settings(trials[trials.learner == PPM])["epsilon"],
        alpha=float(alpha), w_pub=w_pub, extra=f"epsilon {held}")


def _plain_row(trials, nhat, alpha, n_boot, low, fit_hi, ratio, loose, th,
               exp="") -> VerdictRow:
    """The plain log-log slope over epsilon <= 1: shown, not counted (the floor B of
    ``n ~ A/epsilon + B`` pulls it toward 0)."""
    d, w_pub = _setting(trials)
    fit = sample_complexity_slope_paired(low, EPSILON, alpha, beta_of(nhat),
                                         error_col=ERROR_COL, n_boot=n_boot)
    low_eps = np.sort(low[EPSILON].unique())
    cens = (f"; censored in {fit['censored_frac']:.1%} of bootstrap cells (entered at the "
            "grid's edge)" if fit["censored_frac"] > 0 else "")
    eps_max = trials.loc[trials.learner == PPM, EPSILON].max()
    return VerdictRow(
        claim="C3", figure="c3_epsilon",
        setting=f"d={d}, w_pub={w_pub:g}, alpha={alpha:g}, epsilon {low_eps.min():g}..1, "
                "plain log-log slope",
        paper="n ~ 1/epsilon while privacy dominates, flattening toward the "
              "non-private cost (Thm 4.9)",
        measured=(f"slope vs epsilon (eps<=1) = {fmt_slope(fit)} "
                  f"({fit['n_points']} uncensored epsilons{cens}); "
                  + (f"slope for eps>=1 = {fmt_slope(fit_hi)}; " if fit_hi is not None
                     else "slope for eps>=1 not measured (fewer than 2 epsilons >= 1); ")
                  + f"n_hat(eps={eps_max:g}) / n_hat(ERM) = {ratio:.2g}"),
        theory=(theory_with_alternative(RATE, ALTERNATIVE, NAMES)
                + f" (O-shape {th['O-shape']:.2f}, explicit bound {th['explicit']:.2f}, "
                "shown, not the band); flattening as eps grows"),
        looseness=float(np.median(loose)) if loose else math.nan,
        verdict=f"{PLAIN_NOTE}: "
                + rate_verdict(fit, RATE, ALTERNATIVE, NAMES, worse="below"),
        statistic=PLAIN_STAT, trials=trial_set(exp) if exp else "",
        slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
        d=d, alpha=float(alpha), w_pub=w_pub, extra=f"epsilon {low_eps.min():g}..1, plain slope")


def _floor_text(fit, sub) -> str:
    """The counted row's measured column."""
    if not np.isfinite(fit["slope"]):
        return (f"floor-subtracted slope not measured: fewer than 2 epsilons <= "
                f"{PRIVACY_DOMINATES:g} below the floor's epsilon {fit['x_floor']:g}")
    floor = sub[sub[EPSILON] == fit["x_floor"]]
    floor_nh = (f"{float(floor['n_hat'].iloc[0]):.4g}" if len(floor)
                and plotting.uncensored(floor).all() else "censored")
    notes = [f"{fit['n_points']} uncensored epsilons",
             f"floor n_hat(eps={fit['x_floor']:g}) = {floor_nh}"
             + (f", {fit['floor_censored']}-censored" if fit["floor_censored"] else "")]
    frac = fit["non_positive_frac"]
    if fit["non_positive"] or (np.isfinite(frac) and frac > 0):
        notes.append(f"n_hat(eps) <= floor in {frac:.1%} of replicates"
                     + (" and in the point estimate" if fit["non_positive"] else "")
                     + f" (entered as slope {NON_POSITIVE_VALUE:g})")
    if fit["censored_frac"] > 0:
        notes.append(f"censored in {fit['censored_frac']:.1%} of bootstrap cells (entered "
                     "at the grid's edge)")
    return (f"floor-subtracted slope of log(n_hat(eps) - n_hat(eps={fit['x_floor']:g})) vs "
            f"log eps_eff = {fmt_slope(fit)} (" + "; ".join(notes) + ")")


def _rows(trials, nhat, alpha, n_boot, exp="") -> list[VerdictRow]:
    """The counted floor-subtracted row of one alpha and its plain-slope breakdown; ``exp``:
    the experiment the trials come from (the rows' ``trials``)."""
    beta, (d, w_pub) = beta_of(nhat), _setting(trials)
    ppm = trials[trials.learner == PPM]
    eps = np.sort(ppm[EPSILON].unique())
    sub = nhat[(nhat.learner == PPM) & (nhat.alpha == alpha)].sort_values(EPSILON)
    erm = nhat[(nhat.learner == ERM) & (nhat.alpha == alpha)]
    low = ppm[ppm[EPSILON] <= PRIVACY_DOMINATES]
    if low[EPSILON].nunique() < 2:
        return [_too_few_epsilons(trials, nhat, alpha, exp)]
    fit = floor_subtracted_slope_paired(ppm, EPSILON, alpha, beta, fit_max=PRIVACY_DOMINATES,
                                        error_col=ERROR_COL, n_boot=n_boot)
    fit["n_uncensored"] = fit["n_points"]
    low_eps = np.sort(low[EPSILON].unique())
    th = _theory(alpha, beta, low_eps, d, w_pub)
    high = ppm[ppm[EPSILON] >= PRIVACY_DOMINATES]
    # an override can leave fewer than two epsilons >= 1: that slope is then not measured
    fit_hi = (sample_complexity_slope_paired(high, EPSILON, alpha, beta, error_col=ERROR_COL,
                                             n_boot=n_boot)
              if high[EPSILON].nunique() >= 2 else None)
    erm_nh = float(erm["n_hat"].iloc[0]) if len(erm) else math.nan
    best = sub[sub[EPSILON] == eps.max()]
    ratio = (float(best["n_hat"].iloc[0]) / erm_nh
             if len(best) and plotting.uncensored(best).all() and np.isfinite(erm_nh)
             else math.nan)
    ok = plotting.uncensored(sub) & (sub[EPSILON] <= PRIVACY_DOMINATES).to_numpy()
    loose = [bounds.realizable_sample_complexity(alpha, beta, r[EPSILON], d, w_pub=w_pub)
             / r["n_hat"] for _, r in sub[ok].iterrows()]
    verdict = (rate_verdict(fit, RATE, ALTERNATIVE, NAMES, worse="below")
               if np.isfinite(fit["slope"]) else
               inconclusive(f"no floor-subtracted slope: fewer than 2 epsilons <= "
                            f"{PRIVACY_DOMINATES:g} below the floor's epsilon "
                            f"{fit['x_floor']:g}"))
    counted_row = VerdictRow(
        claim="C3", figure="c3_epsilon",
        setting=f"d={d}, w_pub={w_pub:g}, alpha={alpha:g}, epsilon {low_eps.min():g}..1, "
                f"floor at epsilon {fit['x_floor']:g}",
        paper="n ~ A/epsilon + B: the privacy term A/epsilon while privacy dominates, over "
              "the epsilon-free cost B (Thm 4.9)",
        measured=_floor_text(fit, sub),
        theory=(theory_with_alternative(RATE, ALTERNATIVE, NAMES)
                + "; the floor-subtracted slope is -1 under n = A/epsilon + B whatever B"),
        looseness=float(np.median(loose)) if loose else math.nan,
        verdict=explicit_bound_note(verdict, all(v >= 1 for v in loose)),
        statistic=FLOOR_STAT, trials=trial_set(exp) if exp else "",
        slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
        d=d, alpha=float(alpha), w_pub=w_pub,
        extra=f"epsilon {low_eps.min():g}..1, floor-subtracted")
    return [counted_row, _plain_row(trials, nhat, alpha, n_boot, low, fit_hi, ratio, loose, th,
                                    exp)]


def _alphas(exp, nhat) -> np.ndarray:
    """The alphas of the n_hat table that the experiment's config still analyses
    (``analysis.alphas`` of ``configs/experiment/<exp>.yaml``: alpha = 0.3 was dropped at
    d = 2, where the all-one rule's error 0.25 is already below it)."""
    alphas = alphas_of(nhat)
    path = CONFIGS / f"{exp}.yaml"
    if not path.is_file():
        return alphas
    listed = ((yaml.safe_load(path.read_text()) or {}).get("analysis") or {}).get("alphas")
    if not listed:
        return alphas
    return np.array([a for a in alphas if np.any(np.isclose(a, listed))])


def analyse(results) -> list[VerdictRow]:
    rows = []
    for exp in EXPERIMENTS:
        data = results.load(exp)
        if data is not None:
            for alpha in _alphas(exp, data[1]):
                rows += _rows(*data, alpha, results.n_boot, exp)
    return rows


def _panel(ax, exp, trials, nhat, rows) -> None:
    beta, (d, w_pub) = beta_of(nhat), _setting(trials)
    alphas = _alphas(exp, nhat)
    eps = np.sort(trials.loc[trials.learner == PPM, EPSILON].unique())
    grid = np.geomspace(eps.min(), eps.max(), 40)
    for i, alpha in enumerate(alphas):
        color, once = f"C{i}", (lambda text: text if i == 0 else None)
        sub = nhat[(nhat.learner == PPM) & (nhat.alpha == alpha)].sort_values(EPSILON)
        plotting.draw_nhat(ax, sub[EPSILON], sub, float(trials["n"].max()),
                           dict(color=color, marker="o"), f"PPM, alpha = {alpha:g}")
        erm = nhat[(nhat.learner == ERM) & (nhat.alpha == alpha)]
        if len(erm) and plotting.uncensored(erm).all():
            ax.axhline(float(erm["n_hat"].iloc[0]), color=color, ls="-.", lw=1,
                       label=once("non-private ERM (dash-dot)"))
        ax.plot(grid, [bounds.realizable_sample_complexity(alpha, beta, e, d, w_pub=w_pub)
                       for e in grid], color=color, ls="--", lw=1,
                label=once("Thm 4.9 explicit, |G| at n_pub = w_pub n (dashed)"))
        ok = plotting.uncensored(sub)
        if ok.any():
            shape = bounds.realizable_shape(alpha, beta, sub[EPSILON].to_numpy(), d)
            c = bounds.fit_shape_constant(sub["n_hat"].to_numpy()[ok], shape[ok])
            ax.plot(grid, c * bounds.realizable_shape(alpha, beta, grid, d), color=color,
                    ls=":", lw=1, label=once("O-shape, one fitted constant (dotted)"))
    plotting.log_axes(ax, None, r"privacy parameter $\epsilon$", plotting.nhat_label(beta))
    # the per-alpha floor-subtracted rows (breakdowns of the joint row once counted jointly)
    mine = [r for r in rows if r.d == d and r.statistic == FLOOR_STAT]
    ax.set_title(f"d = {d}, w_pub = {w_pub:g}; floor-subtracted slope for eps <= 1: "
                 + plotting.fmt_values([(f"alpha {r.alpha:g}", r.slope) for r in mine]),
                 fontsize=9)
    plotting.legend_below(ax)


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    present = [(e, results.load(e)) for e in EXPERIMENTS if results.load(e) is not None]
    fig, axes = plotting.panels(len(present), 6.4, 6.2)
    for ax, (exp, (trials, nhat)) in zip(axes, present):
        _panel(ax, exp, trials, nhat, rows)
    plotting.save(fig, out_dir, "c3_epsilon",
                  "C3: sample complexity vs epsilon (1/epsilon regime, then non-private cost)")


CLAIM = Claim(id="C3", name="c3_epsilon", statement=STATEMENT, experiments=EXPERIMENTS,
              analyse=analyse, plot=plot, headline={"d": 1, "w_pub": 0.5, "alpha": 0.05},
              committed=("c3_epsilon_d2",))
