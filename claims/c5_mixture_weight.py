"""C5 (Theorem 4.9): only the total n matters, not the mixture weight ``w_pub``.

``c5_mixture_weight`` (d = 1, w_pub 0.05 .. 0.95) and ``c5_mixture_weight_d2`` (d = 2,
w_pub 0.25 .. 0.75). At d = 1 ``|G| = 2 n_pub + 1`` hardly matters; at d = 2
``ln|G| ~ 4 ln n_pub`` moves with ``w_pub`` at fixed n (the measured ``ln|G|`` per w_pub is in
the row), so d = 2 is where the claim is at stake.

"Only the total n matters" is an equivalence claim, judged by an equivalence test
(:func:`equivalence_verdict`; docs/claims/c5_mixture_weight.md). Per alpha the statistic
(``log_ratio_over_w_pub_range``) is the log change of ``n_hat`` across the swept range that the
fitted log-log slope implies, ``log_ratio = slope * ln(w_max / w_min)``, its bootstrap interval
scaled the same way. The margin is fixed in the claim's own unit, before the data:
:data:`EQUIVALENCE_FACTOR` = 1.25, ``n_hat`` changes by at most 25% over the whole range
(``|log_ratio| <= ln 1.25 = 0.223``). Why 1.25: the alternative, a fixed number of private
examples, changes ``n_hat`` by ``1/(1 - w_pub)``, about 19x over 0.05..0.95 at d = 1 (3x over
0.25..0.75 at d = 2), far outside the margin; and the per-point log error of ``n_hat`` is about
8%, so the margin is about three per-point errors: wide enough that a flat ``n_hat`` can be
shown inside it with the trials we have, narrow against the alternative. The
explicit form of the theorem evaluated with ``|G|`` at ``n_pub = w_pub n``
(``bounds.realizable_sample_complexity``) moves by well under the margin (log ratio < 0.1).

Two one-sided tests (TOST) read off the existing 95% two-sided bootstrap interval: each
one-sided test is then at level 2.5%, more conservative than the 5% of the textbook TOST (which
uses the 90% interval). holds (equivalent): the interval lies within ``[-ln 1.25, ln 1.25]``;
does not hold: it lies entirely outside; inconclusive otherwise, with the interval. Censored
cells (``direction``) make the estimate a bound: it can then only show "does not hold" on the
side it bounds. The fitted slope stays in the slope columns (for the figure) and in
``measured``, beside the max/min ``n_hat`` over ``w_pub`` (context only: the largest over the
smallest of several noisy estimates is biased upward).

All alphas of one experiment are read off the same trials: their rows are counted once, as one
joint row per experiment (:func:`claims.rules.accounting.one_per_trial_set`).
"""

from __future__ import annotations

import math

import numpy as np

from claims.reporting import plotting
from claims.base import Claim, VerdictRow, alphas_of, beta_of, first, trial_set
from claims.rules.outcomes import FAILS, HOLDS, fit_defect, inconclusive, interval_defect
from claims.rules.verdicts import fmt_slope
from ppm import bounds
from analysis.sample_complexity import loglog_slope
from analysis.slopes import sample_complexity_slope_against
from analysis.aggregate import ERROR_COL
from experiments.columns import D, EPSILON, ERM, PPM, W_PUB

STATEMENT = "only the total n matters, not w_pub"
EXPERIMENTS = ("c5_mixture_weight", "c5_mixture_weight_d2")
# The equivalence margin in the claim's own unit (module docstring): n_hat changes by at most
# this factor over the whole swept w_pub range.
EQUIVALENCE_FACTOR = 1.25
STATISTIC = "log_ratio_over_w_pub_range"


def _log_g_text(ppm, n_ref: int) -> str:
    """Median ln|G| per w_pub at the grid n nearest ``n_ref`` (where the learners are)."""
    ns = np.sort(ppm["n"].unique())
    n = int(ns[np.argmin(np.abs(ns - n_ref))])
    lg = ppm[ppm["n"] == n].groupby(W_PUB)["log_n_hypotheses"].median()
    return f"ln|G| at n={n}: " + ", ".join(f"{v:.1f}" for v in lg.to_numpy()) + \
        f" (w_pub {', '.join(f'{w:g}' for w in lg.index)})"


def log_ratio(fit: dict, w_min: float, w_max: float) -> dict:
    """The log change of ``n_hat`` over ``w_pub`` ``w_min..w_max`` implied by the fitted slope,
    ``slope * ln(w_max / w_min)``, and its interval scaled the same way (``fit``'s other keys
    kept)."""
    scale = math.log(w_max / w_min)
    if not scale > 0:
        raise ValueError(f"need w_min < w_max, got {w_min!r}..{w_max!r}")
    return {**fit, "slope": fit["slope"] * scale, "lo": fit["lo"] * scale,
            "hi": fit["hi"] * scale, "scale": scale}


def equivalence_verdict(fit: dict, w_min: float, w_max: float,
                        factor: float = EQUIVALENCE_FACTOR) -> str:
    """The equivalence rule (module docstring): the log ratio's 95% interval (:func:`log_ratio`
    of the slope fit ``fit``) within ``[-ln factor, ln factor]``: holds; entirely outside:
    does not hold; otherwise inconclusive. An interval that cannot be weighed
    (:func:`claims.rules.outcomes.interval_defect`, a lack of fit) is inconclusive; censored cells
    (``fit["direction"]``) make it a bound that can only show "does not hold"."""
    n_points = fit.get("n_uncensored", fit.get("n_points"))
    defect = fit_defect(fit) or interval_defect(fit["lo"], fit["hi"], fit["slope"], n_points)
    if defect:
        return defect
    r = log_ratio(fit, w_min, w_max)
    lo, hi, m = r["lo"], r["hi"], math.log(factor)
    rng = f"w_pub {w_min:g}..{w_max:g}"
    interval = f"log ratio {r['slope']:.3f} [{lo:.3f}, {hi:.3f}]"
    direction = fit.get("direction", "") or ""
    # a lower bound can only show the log ratio above the margin, an upper bound only below
    above = lo > m and direction in ("", "lower bound")
    below = hi < -m and direction in ("", "upper bound")
    if above or below:
        return (f"{FAILS} (n_hat changes by more than a factor {factor:g} over {rng}: "
                f"{interval} lies outside [{-m:.3f}, {m:.3f}]"
                + (f", {direction}" if direction else "") + ")")
    if direction:
        return inconclusive(f"censored cells make the {interval} over {rng} a "
                            f"{direction}: it cannot show equivalence within a factor "
                            f"{factor:g} ([{-m:.3f}, {m:.3f}])")
    if -m <= lo and hi <= m:
        return f"{HOLDS} (n_hat changes by at most a factor {factor:g} over {rng}: equivalent)"
    # the slope half-width that would decide it (scripts.refine sizes the trials from it): an
    # interval about the estimate inside the margin, or clear of it
    half = (fit["hi"] - fit["lo"]) / 2
    need = abs(m - abs(r["slope"])) / r["scale"]
    sizing = f"; slope half-width {half:.3g}, needs < {need:.3g}" if need > 0 else ""
    return inconclusive(f"{interval} over {rng} crosses the equivalence margin "
                        f"[{-m:.3f}, {m:.3f}] (a factor {factor:g}){sizing}")


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
    w_min, w_max = float(ws.min()), float(ws.max())
    scale = math.log(w_max / w_min)
    margin = math.log(EQUIVALENCE_FACTOR)
    fixed_private = math.log((1.0 - w_min) / (1.0 - w_max))  # log ratio of n ~ 1/(1 - w_pub)
    w_range = f"w_pub {w_min:g}..{w_max:g}"
    n_ref = int(np.median(vals)) if vals.size else int(ppm["n"].max())
    # one w_pub value (an override fixed the axis): no range, nothing to scale (not measured)
    r = (log_ratio(fit, w_min, w_max) if w_max > w_min else
         {**fit, "slope": math.nan, "lo": math.nan, "hi": math.nan, "scale": math.nan})
    return VerdictRow(
        claim="C5", figure="c5_mixture_weight",
        setting=f"d={d}, epsilon={eps:g}, alpha={alpha:g}, {w_range} ({exp})",
        paper="only the total n matters, not the mixture weight",
        measured=f"log change of n_hat over {w_range} = slope x ln({w_max:g}/{w_min:g}) = "
                 f"{fmt_slope(r, 3)} (a factor {math.exp(r['slope']):.2f})"
                 + f"; slope of log n_hat vs log w_pub = {fmt_slope(fit)}; "
                 f"max/min n_hat = {spread:.2f} (context: the largest over the smallest of "
                 f"{int(ok.sum())} noisy estimates, biased upward); PPM n_hat = "
                 + ", ".join(f"{v:.0f}" if k else "censored" for v, k in
                             zip(sub["n_hat"].to_numpy(), ok))
                 + f"; {_log_g_text(ppm, n_ref)}",
        theory=(f"equivalent: n_hat changes by at most a factor {EQUIVALENCE_FACTOR:g} over "
                f"{w_range}, log ratio within [{-margin:.3f}, {margin:.3f}] (Thm 4.9 in the "
                f"total n: 0; explicit formula with |G| at n_pub = w_pub n: "
                f"{explicit * scale:.3f}); alternative: a fixed number of private examples, "
                f"n ~ 1/(1 - w_pub): log ratio {fixed_private:.2f} (a factor "
                f"{math.exp(fixed_private):.1f})"),
        looseness=float(np.median(loose)) if loose else math.nan,
        verdict=equivalence_verdict(fit, w_min, w_max),
        statistic=STATISTIC, trials=trial_set(exp),
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
    import matplotlib.ticker
    from scipy import special

    beta, d = beta_of(nhat), first(trials, D, int)
    eps = first(trials[trials.learner == PPM], EPSILON)
    for i, alpha in enumerate(alphas_of(nhat)):
        for learner, ls in ((PPM, "-"), (ERM, "-.")):
            sub = nhat[(nhat.learner == learner) & (nhat.alpha == alpha)].sort_values(W_PUB)
            style, label = plotting.style_and_label(learner, f", alpha = {alpha:g}",
                                                    color=f"C{i}", ls=ls)
            plotting.draw_nhat(ax, sub[W_PUB], sub, float(trials["n"].max()), style, label)
    ws = np.sort(trials[W_PUB].unique())
    plotting.log_axes(ax, ws, r"mixture weight $w_{pub}$ (logit scale)",
                      plotting.nhat_label(beta, " (total n)"))
    # logit: w_pub near 0 and near 1 spread alike (on a log axis 0.75, 0.9, 0.95 collide)
    ax.set_xscale("logit")
    ax.set_xticks(ws, [f"{w:g}" for w in ws])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    pad = 0.25 * float(np.min(np.diff(special.logit(ws))) if len(ws) > 1 else 1.0)
    ax.set_xlim(special.expit(special.logit(ws[0]) - pad), special.expit(special.logit(ws[-1])
                                                                         + pad))
    ax.set_title(f"d = {d}, epsilon = {eps:g}\nslopes: " + plotting.fmt_values(
        [(f"alpha={r.alpha:g}", r.slope) for r in rows
         if r.d == d and r.statistic == STATISTIC]), fontsize=9)
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
