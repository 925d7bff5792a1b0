"""C3 (Theorem 4.9): ``n ~ 1/epsilon`` while privacy dominates, then the non-private cost.

``c3_epsilon_d1``, ``c3_epsilon_d2``: per alpha, the slope of ``log n_hat`` against
``log epsilon`` over epsilon <= 1 is compared with -1 (the O-form's log factor makes it a bit
steeper); the slope over epsilon >= 1 and ``n_hat`` at the largest epsilon over ERM's show the
flattening toward the non-private cost.
"""

from __future__ import annotations

import math

import numpy as np

from claims import plotting
from claims.base import Claim, VerdictRow, alphas_of, beta_of, first
from claims.verdicts import fmt_slope, verdict
from ppm import bounds
from ppm.sample_complexity import loglog_slope, sample_complexity_slope_against
from scripts.aggregate import ERROR_COL

EXPERIMENTS = ("c3_epsilon_d1", "c3_epsilon_d2")
STATEMENT = "n ~ 1/epsilon while privacy dominates, then the non-private cost"
PRIVACY_DOMINATES = 1.0  # epsilon <= this: the 1/epsilon regime
# working names of the columns read here (experiments/columns.py: each parameter once)
SHORT = {"population.d": "d", "population.w_pub": "w_pub", "learner.epsilon": "epsilon"}


def _row(trials, nhat, alpha, n_boot) -> VerdictRow:
    trials, nhat = trials.rename(columns=SHORT), nhat.rename(columns=SHORT)
    beta, d, w_pub = beta_of(nhat), first(trials, "d", int), first(trials, "w_pub")
    ppm = trials[trials.learner == "ppm"]
    eps = np.sort(ppm["epsilon"].unique())
    sub = nhat[(nhat.learner == "ppm") & (nhat.alpha == alpha)].sort_values("epsilon")
    erm = nhat[(nhat.learner == "erm") & (nhat.alpha == alpha)]
    low = ppm[ppm["epsilon"] <= PRIVACY_DOMINATES]
    fit = sample_complexity_slope_against(low, "epsilon", alpha, beta, error_col=ERROR_COL,
                                          n_boot=n_boot)
    low_eps = np.sort(low["epsilon"].unique())
    th_log = loglog_slope(low_eps, bounds.realizable_shape(alpha, beta, low_eps, d))[0]
    fit_hi = sample_complexity_slope_against(ppm[ppm["epsilon"] >= PRIVACY_DOMINATES], "epsilon",
                                             alpha, beta, error_col=ERROR_COL, n_boot=n_boot)
    erm_nh = float(erm["n_hat"].iloc[0]) if len(erm) else math.nan
    best = sub[sub["epsilon"] == eps.max()]
    ratio = (float(best["n_hat"].iloc[0]) / erm_nh
             if len(best) and plotting.uncensored(best).all() and np.isfinite(erm_nh)
             else math.nan)
    ok = plotting.uncensored(sub)
    loose = [bounds.realizable_sample_complexity(alpha, beta, r["epsilon"], d, w_pub=w_pub)
             / r["n_hat"] for _, r in sub[ok].iterrows()]
    return VerdictRow(
        claim="C3", figure="c3_epsilon",
        setting=f"d={d}, w_pub={w_pub:g}, alpha={alpha:g}, epsilon {low_eps.min():g}..1",
        paper="n ~ 1/epsilon while privacy dominates, flattening toward the "
              "non-private cost (Thm 4.9)",
        measured=(f"slope vs epsilon (eps<=1) = {fmt_slope(fit)}; "
                  f"slope for eps>=1 = {fmt_slope(fit_hi)}; "
                  f"n_hat(eps={eps.max():g}) / n_hat(ERM) = {ratio:.2g}"),
        theory=f"-1 (with log factor {th_log:.2f}); flattening as eps grows",
        looseness=float(np.median(loose)) if loose else math.nan,
        verdict=verdict(fit["lo"], fit["hi"], fit["slope"], min(-1.0, th_log), max(-1.0, th_log),
                        fit["n_points"]),
        slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
        d=d, alpha=float(alpha), w_pub=w_pub, extra=f"epsilon {low_eps.min():g}..1")


def analyse(results) -> list[VerdictRow]:
    rows = []
    for exp in EXPERIMENTS:
        data = results.load(exp)
        if data is not None:
            rows += [_row(*data, alpha, results.n_boot) for alpha in alphas_of(data[1])]
    return rows


def _panel(ax, trials, nhat, rows) -> None:
    trials, nhat = trials.rename(columns=SHORT), nhat.rename(columns=SHORT)
    beta, d, w_pub = beta_of(nhat), first(trials, "d", int), first(trials, "w_pub")
    alphas = alphas_of(nhat)
    eps = np.sort(trials.loc[trials.learner == "ppm", "epsilon"].unique())
    grid = np.geomspace(eps.min(), eps.max(), 40)
    for i, alpha in enumerate(alphas):
        color, once = f"C{i}", (lambda text: text if i == 0 else None)
        sub = nhat[(nhat.learner == "ppm") & (nhat.alpha == alpha)].sort_values("epsilon")
        plotting.draw_nhat(ax, sub["epsilon"], sub, float(trials["n"].max()),
                           dict(color=color, marker="o"), f"PPM, alpha = {alpha:g}")
        erm = nhat[(nhat.learner == "erm") & (nhat.alpha == alpha)]
        if len(erm) and plotting.uncensored(erm).all():
            ax.axhline(float(erm["n_hat"].iloc[0]), color=color, ls="-.", lw=1,
                       label=once("non-private ERM (dash-dot)"))
        ax.plot(grid, [bounds.realizable_sample_complexity(alpha, beta, e, d, w_pub=w_pub)
                       for e in grid], color=color, ls="--", lw=1,
                label=once("Thm 4.9 explicit, |G| at n_pub = w_pub n (dashed)"))
        ok = plotting.uncensored(sub)
        if ok.any():
            shape = bounds.realizable_shape(alpha, beta, sub["epsilon"].to_numpy(), d)
            c = bounds.fit_shape_constant(sub["n_hat"].to_numpy()[ok], shape[ok])
            ax.plot(grid, c * bounds.realizable_shape(alpha, beta, grid, d), color=color,
                    ls=":", lw=1, label=once("O-shape, one fitted constant (dotted)"))
    plotting.log_axes(ax, None, r"privacy parameter $\epsilon$", plotting.nhat_label(beta))
    mine = [r for r in rows if r.d == d]
    ax.set_title(f"d = {d}, w_pub = {w_pub:g}; slope for eps <= 1: "
                 + ", ".join(f"{r.slope:.2f}" for r in mine)
                 + " (alphas " + ", ".join(f"{a:g}" for a in alphas) + ")", fontsize=9)
    plotting.legend_below(ax)


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    present = [results.load(e) for e in EXPERIMENTS if results.load(e) is not None]
    fig, axes = plotting.panels(len(present), 6.4, 6.2)
    for ax, (trials, nhat) in zip(axes, present):
        _panel(ax, trials, nhat, rows)
    plotting.save(fig, out_dir, "c3_epsilon",
                  "C3: sample complexity vs epsilon (1/epsilon regime, then non-private cost)")


CLAIM = Claim(id="C3", name="c3_epsilon", statement=STATEMENT, experiments=EXPERIMENTS,
              analyse=analyse, plot=plot, headline={"d": 1, "w_pub": 0.5, "alpha": 0.05})
