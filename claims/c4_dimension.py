"""C4 (Theorem 4.9): the private cost grows like ``d^2 log(d/(epsilon alpha))``, ERM's like d.

Left panel, epsilon = 1: d = 1 and 2 are the C1 sweeps (same population, epsilon, w_pub),
d = 3 is ``c4_dimension_d3`` (n <= 40, what the exact mechanism allows), with ``n_hat``
recomputed from the trials at the alphas of ``c4_dimension_d3``. Right panel, epsilon = 10:
``c4_dimension_eps10`` (d = 1, 2, 3 at n <= 40), where d = 3 is measurable. Per alpha, the
slope of ``log n_hat`` against ``log d`` is compared (as an upper bound) with 2 and the
O-form's local slope; ``ln|G|`` at a common n shows the ``d^2 ln n_pub`` of the bound directly.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from claims import plotting
from claims.base import Claim, VerdictRow, alphas_of, beta_of, first
from claims.verdicts import fmt_slope, upper_bound_verdict
from ppm import bounds
from ppm.sample_complexity import (empirical_sample_complexity, loglog_slope,
                                   sample_complexity_slope_against)
from scripts.aggregate import ERROR_COL

STATEMENT = "private cost d^2 log vs non-private d"
C1_SWEEPS = ("c1_realizable_d1", "c1_realizable_d2")
KEEP = ["learner", "d", "n", "trial", ERROR_COL, "epsilon", "w_pub", "log_n_hypotheses"]
SHORT = {"population.d": "d", "learner.epsilon": "epsilon", "population.w_pub": "w_pub"}


def _panels(results) -> list[tuple]:
    """(trials, n_hat by (learner, d), alphas, beta, source) per panel that has results."""
    panels = []
    d3 = results.load("c4_dimension_d3")
    if d3 is not None:
        parts = [results.load(e) for e in C1_SWEEPS]
        trials = pd.concat([p[0] for p in parts if p is not None] + [d3[0]],
                           ignore_index=True).rename(columns=SHORT)[KEEP]
        panels.append((trials, d3[1], "C1 sweeps + c4_dimension_d3"))
    e10 = results.load("c4_dimension_eps10")
    if e10 is not None:
        panels.append((e10[0].rename(columns=SHORT)[KEEP], e10[1], "c4_dimension_eps10"))
    out = []
    for trials, nhat, source in panels:
        alphas, beta = alphas_of(nhat), beta_of(nhat)
        by_d = empirical_sample_complexity(trials, alphas, beta, by=["learner", "d"],
                                           error_col=ERROR_COL)
        out.append((trials, by_d, alphas, beta, source))
    return out


def _log_g_text(trials) -> tuple[int, str]:
    """ln|G| at the largest n every d reached: the d^2 ln(n_pub) of the bound, measured."""
    common = set.intersection(*(set(g["n"]) for _, g in trials.groupby("d")))
    n_common = int(max(common)) if common else int(min(trials.groupby("d")["n"].max()))
    lg = (trials[(trials.learner == "ppm") & (trials.n == n_common)]
          .groupby("d")["log_n_hypotheses"].median())
    return n_common, ", ".join(f"d={int(d)}: {v:.1f}" for d, v in lg.items())


def _row(trials, nhat, alpha, beta, source, n_boot) -> VerdictRow:
    w_pub = first(trials, "w_pub")
    eps = first(trials[trials.learner == "ppm"], "epsilon")
    ds = np.sort(trials["d"].unique())
    top_d = trials.groupby("d")["n"].max()
    n_common, lg_text = _log_g_text(trials)
    fits = {learner: sample_complexity_slope_against(
        trials[trials.learner == learner], "d", alpha, beta, error_col=ERROR_COL, n_boot=n_boot)
        for learner in ("ppm", "erm")}
    sub = nhat[(nhat.learner == "ppm") & (nhat.alpha == alpha)].sort_values("d")
    ok = plotting.uncensored(sub)
    x, nh = sub["d"].to_numpy(dtype=float), sub["n_hat"].to_numpy(dtype=float)
    censored_d = [int(d) for d in x[plotting.right_censored(sub)]]
    th = loglog_slope(ds, np.array([bounds.realizable_shape(alpha, beta, eps, int(d))
                                    for d in ds]))[0]
    loose = [bounds.realizable_sample_complexity(alpha, beta, eps, int(d), w_pub=w_pub) / v
             for d, v in zip(x[ok], nh[ok])]
    note = (f"; n_hat > {int(top_d[censored_d[0]])} at d = {censored_d[0]} "
            "(censored: beyond the exact mechanism's reach)") if censored_d else ""
    fit = fits["ppm"]
    return VerdictRow(
        claim="C4", figure="c4_dimension",
        setting=f"d={','.join(str(int(d)) for d in ds)}, w_pub={w_pub:g}, "
                f"epsilon={eps:g}, alpha={alpha:g} ({source})",
        paper="private cost d^2 log(d/(epsilon alpha)) vs non-private d",
        measured=f"PPM slope of log n_hat vs log d = {fmt_slope(fit)} "
                 f"({fit['n_points']} uncensored d){note}; ln|G| at n={n_common}: {lg_text}"
                 f"; ERM slope = {fmt_slope(fits['erm'])}",
        theory=f"2 (with log factor {th:.2f}); ERM "
               f"{loglog_slope(ds, ds + math.log(1 / beta))[0]:.2f}",
        looseness=float(np.median(loose)) if loose else math.nan,
        verdict=upper_bound_verdict(fit, 2.0, max(2.0, th), all(v >= 1 for v in loose)),
        slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
        epsilon=eps, alpha=float(alpha), w_pub=w_pub, extra=source)


def analyse(results) -> list[VerdictRow]:
    return [_row(trials, nhat, alpha, beta, source, results.n_boot)
            for trials, nhat, alphas, beta, source in _panels(results) for alpha in alphas]


def _panel(ax, trials, nhat, alphas, beta, rows) -> None:
    eps = first(trials[trials.learner == "ppm"], "epsilon")
    ds = np.sort(trials["d"].unique())
    top_d = trials.groupby("d")["n"].max()
    for i, alpha in enumerate(alphas):
        for learner, ls in (("ppm", "-"), ("erm", "-.")):
            sub = nhat[(nhat.learner == learner) & (nhat.alpha == alpha)].sort_values("d")
            style, label = plotting.style_and_label(learner, f", alpha = {alpha:g}",
                                                    color=f"C{i}", ls=ls)
            # right-censored d are drawn at the largest n of their own d
            plotting.draw_nhat(ax, sub["d"], sub, top_d[sub["d"]].to_numpy(float), style, label)
            ok = plotting.uncensored(sub)
            if learner == "ppm" and ok.any():
                shape = np.array([bounds.realizable_shape(alpha, beta, eps, int(d)) for d in ds])
                c = bounds.fit_shape_constant(sub["n_hat"].to_numpy()[ok],
                                              shape[np.isin(ds, sub["d"].to_numpy()[ok])])
                ax.plot(ds, c * shape, color=f"C{i}", ls=":", lw=1,
                        label="d^2 log O-shape, fitted constant (dotted)" if i == 0 else None)
    plotting.log_axes(ax, ds, "dimension d", plotting.nhat_label(beta))
    ax.set_title(f"epsilon = {eps:g}, w_pub = {first(trials, 'w_pub'):g}; largest n: "
                 + ", ".join(f"d={int(d)}: {int(top_d[d])}" for d in ds) + "\nPPM slopes: "
                 + ", ".join(f"{r.slope:.2f}" for r in rows if r.epsilon == eps)
                 + f" (alphas {', '.join(f'{a:g}' for a in alphas)})", fontsize=9)
    plotting.legend_below(ax)


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    panels = _panels(results)
    fig, axes = plotting.panels(len(panels), 6.6, 6.4)
    for ax, (trials, nhat, alphas, beta, source) in zip(axes, panels):
        _panel(ax, trials, nhat, alphas, beta, [r for r in rows if r.extra == source])
    plotting.save(fig, out_dir, "c4_dimension", "C4: sample complexity vs dimension")


CLAIM = Claim(id="C4", name="c4_dimension", statement=STATEMENT,
              experiments=("c4_dimension_d3", "c4_dimension_eps10"), analyse=analyse, plot=plot,
              headline={"epsilon": 10.0, "alpha": 0.3}, long=("c4_dimension_d3",))
