"""C5 (Theorem 4.9): only the total n matters, not the mixture weight ``w_pub``.

``c5_mixture_weight`` (d = 1, w_pub 0.05 .. 0.95) and ``c5_mixture_weight_d2`` (d = 2,
w_pub 0.25 .. 0.75): per alpha, the slope of ``log n_hat`` against ``log w_pub`` is compared
with 0; the spread max/min ``n_hat`` over w_pub is reported. At d = 1 ``|G| = 2 n_pub + 1``
hardly matters; at d = 2 ``ln|G| ~ 4 ln n_pub`` moves with ``w_pub`` at fixed n (the measured
``ln|G|`` per w_pub is in the row), so d = 2 is where the claim is at stake. The theorem states
the bound in the total n; its explicit form evaluated with ``|G|`` at ``n_pub = w_pub n``
(``bounds.realizable_sample_complexity``) does move with ``w_pub``: the theory range spans 0
and that formula's local slope, and the theory column names both.
"""

from __future__ import annotations

import math

import numpy as np

from claims import plotting
from claims.base import Claim, VerdictRow, alphas_of, beta_of, first
from claims.predictions import rate_verdict, theory_with_alternative
from claims.verdicts import fmt_slope
from ppm import bounds
from analysis.sample_complexity import loglog_slope
from analysis.slopes import sample_complexity_slope_against
from analysis.aggregate import ERROR_COL
from experiments.columns import D, EPSILON, ERM, PPM, W_PUB

STATEMENT = "only the total n matters, not w_pub"
EXPERIMENTS = ("c5_mixture_weight", "c5_mixture_weight_d2")


def _log_g_text(ppm, n_ref: int) -> str:
    """Median ln|G| per w_pub at the grid n nearest ``n_ref`` (where the learners are)."""
    ns = np.sort(ppm["n"].unique())
    n = int(ns[np.argmin(np.abs(ns - n_ref))])
    lg = ppm[ppm["n"] == n].groupby(W_PUB)["log_n_hypotheses"].median()
    return f"ln|G| at n={n}: " + ", ".join(f"{v:.1f}" for v in lg.to_numpy()) + \
        f" (w_pub {', '.join(f'{w:g}' for w in lg.index)})"


NAMES = ("0 (total n only)", "a fixed private count")


def _row(trials, nhat, alpha, exp, n_boot) -> VerdictRow:
    beta, d = beta_of(nhat), first(trials, D, int)
    ppm = trials[trials.learner == PPM]
    eps = first(ppm, EPSILON)
    sub = nhat[(nhat.learner == PPM) & (nhat.alpha == alpha)].sort_values(W_PUB)
    fit = sample_complexity_slope_against(ppm, W_PUB, alpha, beta, error_col=ERROR_COL,
                                          n_boot=n_boot)
    ok = plotting.uncensored(sub)
    vals = sub["n_hat"].to_numpy()[ok]
    spread = float(vals.max() / vals.min()) if vals.size else math.nan
    ws = np.sort(ppm[W_PUB].unique())
    explicit_n = np.array([bounds.realizable_sample_complexity(alpha, beta, eps, d, w_pub=w)
                           for w in ws], dtype=float)
    explicit = loglog_slope(ws, explicit_n)[0]
    loose = [e / v for e, v, k in zip(explicit_n, sub["n_hat"].to_numpy(), ok) if k]
    pred = (min(0.0, explicit), max(0.0, explicit))
    fixed_private = loglog_slope(ws, 1.0 / (1.0 - ws))[0]
    alt = (fixed_private, fixed_private)
    w_range = f"w_pub {ws.min():g}..{ws.max():g}"
    n_ref = int(np.median(vals)) if vals.size else int(ppm["n"].max())
    return VerdictRow(
        claim="C5", figure="c5_mixture_weight",
        setting=f"d={d}, epsilon={eps:g}, alpha={alpha:g}, {w_range} ({exp})",
        paper="only the total n matters, not the mixture weight",
        measured="PPM n_hat = " + ", ".join(f"{v:.0f}" if k else "censored" for v, k in
                                           zip(sub["n_hat"].to_numpy(), ok))
                 + f"; slope of log n_hat vs log w_pub = {fmt_slope(fit)}; "
                 f"max/min n_hat = {spread:.2f}; {_log_g_text(ppm, n_ref)}",
        theory=(theory_with_alternative(pred, alt, NAMES)
                + f" (0: Thm 4.9 in the total n; explicit formula with |G| at n_pub = w_pub n: "
                f"{explicit:.2f}; alternative: a fixed number of private examples, n ~ "
                "1/(1 - w_pub))"),
        looseness=float(np.median(loose)) if loose else math.nan,
        verdict=rate_verdict(fit, pred, alt, NAMES),
        slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
        d=d, epsilon=eps, alpha=float(alpha), extra=w_range)


def analyse(results) -> list[VerdictRow]:
    rows = []
    for exp in EXPERIMENTS:
        data = results.load(exp)
        if data is not None:
            rows += [_row(*data, float(a), exp, results.n_boot) for a in alphas_of(data[1])]
    return rows


def _panel(ax, trials, nhat, rows) -> None:
    beta, d = beta_of(nhat), first(trials, D, int)
    eps = first(trials[trials.learner == PPM], EPSILON)
    for i, alpha in enumerate(alphas_of(nhat)):
        for learner, ls in ((PPM, "-"), (ERM, "-.")):
            sub = nhat[(nhat.learner == learner) & (nhat.alpha == alpha)].sort_values(W_PUB)
            style, label = plotting.style_and_label(learner, f", alpha = {alpha:g}",
                                                    color=f"C{i}", ls=ls)
            plotting.draw_nhat(ax, sub[W_PUB], sub, float(trials["n"].max()), style, label)
    plotting.log_axes(ax, np.sort(trials[W_PUB].unique()), r"mixture weight $w_{pub}$",
                      plotting.nhat_label(beta, " (total n)"))
    ax.set_title(f"d = {d}, epsilon = {eps:g}\nslopes: " + plotting.fmt_values(
        [(f"alpha={r.alpha:g}", r.slope) for r in rows if r.d == d]), fontsize=9)
    plotting.legend_below(ax)


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    present = [results.load(e) for e in EXPERIMENTS if results.load(e) is not None]
    fig, axes = plotting.panels(len(present), 7.0, 6.2)
    for ax, (trials, nhat) in zip(axes, present):
        _panel(ax, trials, nhat, rows)
    plotting.save(fig, out_dir, "c5_mixture_weight", "C5: sample complexity vs mixture weight")


CLAIM = Claim(id="C5", name="c5_mixture_weight", statement=STATEMENT, experiments=EXPERIMENTS,
              analyse=analyse, plot=plot, headline={"d": 2, "alpha": 0.1},
              long=("c5_mixture_weight_d2",))  # ~18 min: committed trials seed the cache
