"""C5 (Theorem 4.9): only the total n matters, not the mixture weight ``w_pub``.

``c5_mixture_weight`` (d = 1, w_pub 0.05 .. 0.95): per alpha, the slope of ``log n_hat``
against ``log w_pub`` is compared with 0; the spread max/min ``n_hat`` over w_pub is reported.
"""

from __future__ import annotations

import math

import numpy as np

from claims import plotting
from claims.base import Claim, VerdictRow, alphas_of, beta_of, first
from claims.verdicts import fmt_slope, verdict
from ppm import bounds
from ppm.sample_complexity import sample_complexity_slope_against
from scripts.aggregate import ERROR_COL

STATEMENT = "only the total n matters, not w_pub"
W = "population.w_pub"


def analyse(results) -> list[VerdictRow]:
    data = results.load("c5_mixture_weight")
    if data is None:
        return []
    trials, nhat = data
    beta, d = beta_of(nhat), first(trials, "population.d", int)
    ppm = trials[trials.learner == "ppm"]
    eps = first(ppm, "learner.epsilon")
    rows = []
    for alpha in alphas_of(nhat):
        sub = nhat[(nhat.learner == "ppm") & (nhat.alpha == alpha)].sort_values(W)
        fit = sample_complexity_slope_against(ppm, W, alpha, beta, error_col=ERROR_COL,
                                              n_boot=results.n_boot)
        vals = sub["n_hat"].to_numpy()[plotting.uncensored(sub)]
        spread = float(vals.max() / vals.min()) if vals.size else math.nan
        loose = [bounds.realizable_sample_complexity(alpha, beta, eps, d) / v for v in vals]
        w_range = f"w_pub {sub[W].min():g}..{sub[W].max():g}"
        rows.append(VerdictRow(
            claim="C5", figure="c5_mixture_weight",
            setting=f"d={d}, epsilon={eps:g}, alpha={alpha:g}, {w_range}",
            paper="only the total n matters, not the mixture weight",
            measured=f"slope of log n_hat vs log w_pub = {fmt_slope(fit)}; "
                     f"max/min n_hat = {spread:.2f}",
            theory="0",
            looseness=float(np.median(loose)) if loose else math.nan,
            verdict=verdict(fit["lo"], fit["hi"], fit["slope"], 0.0, 0.0, fit["n_points"]),
            slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
            d=d, epsilon=eps, alpha=float(alpha), extra=w_range))
    return rows


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    trials, nhat = results.load("c5_mixture_weight")
    beta, d = beta_of(nhat), first(trials, "population.d", int)
    eps = first(trials[trials.learner == "ppm"], "learner.epsilon")
    fig, (ax,) = plotting.panels(1, 7.0, 6.2)
    for i, alpha in enumerate(alphas_of(nhat)):
        for learner, ls in (("ppm", "-"), ("erm", "-.")):
            sub = nhat[(nhat.learner == learner) & (nhat.alpha == alpha)].sort_values(W)
            style, label = plotting.style_and_label(learner, f", alpha = {alpha:g}",
                                                    color=f"C{i}", ls=ls)
            plotting.draw_nhat(ax, sub[W], sub, float(trials["n"].max()), style, label)
    plotting.log_axes(ax, np.sort(trials[W].unique()), r"mixture weight $w_{pub}$",
                      plotting.nhat_label(beta, " (total n)"))
    ax.set_title(f"d = {d}, epsilon = {eps:g}\n" + "; ".join(
        f"alpha={r.alpha:g}: slope {r.slope:.2f}" for r in rows), fontsize=9)
    plotting.legend_below(ax)
    plotting.save(fig, out_dir, "c5_mixture_weight", "C5: sample complexity vs mixture weight")


CLAIM = Claim(id="C5", name="c5_mixture_weight", statement=STATEMENT,
              experiments=("c5_mixture_weight",), analyse=analyse, plot=plot,
              headline={"alpha": 0.02})
