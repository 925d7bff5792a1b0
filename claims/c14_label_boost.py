"""C14 (BNS15, Theorem 4.13): the LabelBoost wrapper's labelled cost does not depend on the
base learner's.

``c14_label_boost``: the wrapper (Algorithm 3; base learner ``A`` = the gap-grouped threshold
EM at epsilon 1, ``m`` = its bound) on thresholds over ``{0..2^b - 1}``, all private; per alpha
the slope of ``log n_hat`` (labelled) against ``log b`` must be 0. ``c14_base_alone``: ``A``
alone, whose ``n_hat`` grows like ``ln(2^(b+1)) + ln(1/beta)``: fixed by its construction (an
EM over ``2^(b+1)`` thresholds), so its row is a check (:func:`base_check`), not evidence. The
crossing ``b*`` (from which the wrapper needs fewer labels): the fitted base line ``c ((b + 1)
ln 2 + ln(1/beta))`` meets the wrapper's median ``n_hat`` (design: ``m(b)`` reaches
:func:`ppm.semi_supervised.label_boost.min_labelled`).

On ``c14_label_boost``'s population (adjacent support, no noise) every trial errs exactly 1/2
below ``min_labelled`` = 26,856 (Step 2b fails, decided by sizes) and 0 above it, and the grid
holds one point either side: the wrapper's flatness is built in, so those rows are references
(:func:`by_construction`). ``c14_label_boost_noisy``: ``alpha0 = 0.2`` (``min_labelled`` =
12,552), label noise 0.1 on a spread-out support (:class:`ppm.semi_supervised.big_grid.
NoisyBigGridThresholds`), ``b`` in {3072, 4096, 6144}, ``n`` 12,400..20,000: the slope of ``log
n_hat`` against ``log b``. Its ``n_hat`` (12,650-13,165) sits on ``min_labelled`` and ``b``
spans only x2, so the slope reads the size schedule: breakdowns of the next rows.

``c14_label_boost_fixed_n`` (counted): the noisy population, ``n`` fixed at ``min_labelled`` =
12,552 (the same at every ``b`` from 2048 on), ``b`` in {2048, .., 16384} (x8), the wrapper and,
on the same draws, its base learner alone (the foil: its cost grows like ``b ln 2``, so at a
fixed ``n`` its success rate falls). Read: the slope of the success rate (excess error <=
alpha) against ``log2 b`` (:func:`claims.rules.success_rate.success_slope`). The wrapper's must
be 0; the alternative is a unit step from success to failure inside the ``b`` range, whose
least-squares slope on this grid lies in [-0.4, -0.3] per doubling
(:func:`claims.rules.success_rate.design_fall`: the design alone sets it); bands: half the
shallowest fall either side of 0 (:func:`claims.rules.success_rate.fixed_n_verdict`). The base
learner's fall is a check (its premise); if it does not fall, inconclusive. Both alphas' wrapper
rows read the same trials: one joint row (:func:`claims.rules.accounting.one_per_trial_set`),
holding if both do.
"""

from __future__ import annotations

import math

import numpy as np

from claims.reporting import plotting
from claims.rules.accounting import as_check
from claims.base import Claim, VerdictRow, alphas_of, beta_of, row_settings, trial_set
from claims.rules.predictions import rate_verdict, theory_with_alternative
from claims.rules.success_rate import FIXED_NAMES, design_fall, fixed_n_verdict, success_slope
from claims.rules.verdicts import check_verdict, counted, fmt_slope, mark_same_measurement
from ppm import bounds
from analysis.sample_complexity import (crossing_signature, empirical_sample_complexity,
                                        loglog_slope, success_curve)
from analysis.slopes import sample_complexity_slope_against
from ppm.semi_supervised.label_boost import base_sample_size, min_labelled
from analysis.aggregate import ERROR_COL
from experiments.columns import ALPHA0, B, ETA, GAP_THRESHOLD, LABEL_BOOST

STATEMENT = "LabelBoost wrapper: labelled cost independent of the base learner's"
NOISY = "c14_label_boost_noisy"
FIXED_N = "c14_label_boost_fixed_n"
EXPERIMENTS = ("c14_label_boost", "c14_base_alone", NOISY, FIXED_N)
# VerdictRow.statistic: the slope of log n_hat against log b; at fixed n, of the success rate
STAT_SLOPE, STAT_FIXED = "loglog_slope_b", "slope_success_rate_log2b"
BASE_CHECK = ("construction, not evidence: the base learner is an exponential mechanism over "
              "2^(b+1) thresholds, whose cost grows like ln 2^(b+1) by construction")


def by_construction(v: str) -> str:
    """A wrapper row on the noiseless adjacent support: shown, not counted (docstring)."""
    return ("reference (flat by construction: errors 1/2 below min_labelled, 0 above, one grid "
            f"point either side; see {NOISY}): {v}")


def base_check(v: str) -> str:
    """The base learner's own slope: fixed by its construction, a check (:data:`BASE_CHECK`)."""
    return as_check(BASE_CHECK, v.startswith("holds"), v)


def at_the_step(v: str, by, grid, need: int) -> str:
    """``v``, or a reference when every ``n_hat`` lies at or below the first grid ``n`` that
    reaches ``min_labelled`` (the success curve jumps there from 0: the size schedule, not the
    learning, sets ``n_hat``, and its flatness is built in)."""
    above = [n for n in grid if n >= need]
    ok = by["censored"].fillna("") == ""
    if above and ok.any() and (by["n_hat"][ok] <= min(above)).all():
        return (f"reference (n_hat <= {min(above)}, the first n of the grid that reaches "
                f"min_labelled = {need}, at every b: the size schedule's step, flat by "
                f"construction): {v}")
    return v


def superseded(v: str) -> str:
    """A slope-of-n_hat row on the noisy population once the fixed-n rows are measured."""
    return (f"breakdown (superseded by {FIXED_N}: the success rate at n = min_labelled over a "
            f"x8 range of b; this slope reads the size schedule's step): {v}")


def noisy_rows(results) -> list[VerdictRow]:
    """The wrapper on the noisy, spread-out population (module docstring)."""
    data = results.load(NOISY)
    if data is None:
        return []
    fixed = results.load(FIXED_N) is not None
    trials, nhat = data
    beta = beta_of(nhat)
    sub = trials[trials.learner == WRAPPER]
    bs = np.sort(sub[B].unique())
    a0, eta = float(sub[ALPHA0].iloc[0]), float(sub[ETA].iloc[0])
    n_unl = int(sub["n_unlabelled"].iloc[0])
    need = min_labelled(10**6, a0, 0.1)
    rows, base_range = [], _base_range(bs.astype(float), beta)
    settings = row_settings(sub)  # d and epsilon of the wrapper rows judged
    for alpha in alphas_of(nhat):
        fit = sample_complexity_slope_against(sub, B, alpha, beta, error_col=ERROR_COL,
                                              n_boot=results.n_boot)
        by = empirical_sample_complexity(sub, [alpha], beta, by=[B], error_col=ERROR_COL)
        vals = ", ".join(f"b={int(r[B])}: {r.n_hat:.0f}" if not r.censored else
                         f"b={int(r[B])}: {r.censored}-censored"
                         for _, r in by.sort_values(B).iterrows())
        rows.append(VerdictRow(
            claim="C14", figure="c14_label_boost",
            setting=f"wrapper, noisy spread-out support (eta={eta:g}), alpha0={a0:g}, "
                    f"b={int(bs.min())}..{int(bs.max())}, epsilon={settings['epsilon']:g}, "
                    f"alpha={alpha:g} (excess error), n_unlabelled={n_unl}",
            paper="labelled cost of the wrapper independent of the base learner's "
                  "(BNS15 Thm 4.13)",
            measured=f"slope of log n_hat vs log b = {fmt_slope(fit, 3)}; n_hat {vals} "
                     f"(min_labelled at alpha0={a0:g}: {need})",
            theory=theory_with_alternative((0.0, 0.0), base_range, NAMES),
            verdict=(superseded if fixed else (lambda v: v))(
                at_the_step(rate_verdict(fit, (0.0, 0.0), base_range, NAMES), by,
                            sub["n"].unique(), need)),
            statistic=STAT_SLOPE, trials=trial_set(NOISY),
            slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
            **settings, alpha=float(alpha), extra="wrapper noisy"))
    return rows
WRAPPER, BASE = LABEL_BOOST, GAP_THRESHOLD
STYLE = {WRAPPER: dict(color="C4", marker="o", label="LabelBoost wrapper (Alg. 3)"),
         BASE: dict(color="C3", marker="D", label="base learner alone (grid EM)")}
# The wrapper's claim is flat in b; the alternative it argues against is the base learner's
# own cost, linear in b (the EM over 2^(b+1) thresholds): its slope against log b.
NAMES = ("the wrapper flat", "the base learner's ln 2^(b+1)")
def _rates(curve) -> str:
    return ", ".join(f"b={int(r.n)}: {r.frac:.3f} ({int(r.successes)}/{int(r.trials)})"
                     for r in curve.itertuples())


def fixed_n_rows(results) -> list[VerdictRow]:
    """The wrapper and its base learner at ``n = min_labelled`` across b (module docstring)."""
    data = results.load(FIXED_N)
    if data is None:
        return []
    trials, nhat = data
    wrap, base = trials[trials.learner == WRAPPER], trials[trials.learner == BASE]
    bs = np.sort(wrap[B].unique())
    a0, eta = float(wrap[ALPHA0].iloc[0]), float(wrap[ETA].iloc[0])
    n = int(wrap["n"].iloc[0])
    need = min_labelled(10**6, a0, 0.1)
    at_w, at_b = row_settings(wrap), row_settings(base)  # each learner's own epsilon

    def setting(who: str, at: dict) -> str:
        return (f"{who}, noisy spread-out support (eta={eta:g}), alpha0={a0:g}, n={n} labelled, "
                f"b={int(bs.min())}..{int(bs.max())}, epsilon={at['epsilon']:g}")
    rows = []
    fall = design_fall(bs)
    for alpha in alphas_of(nhat):
        fw, fb = success_slope(wrap, alpha), success_slope(base, alpha)
        ends = fw["curve"]["frac"].to_numpy()
        rows.append(VerdictRow(
            claim="C14", figure="c14_label_boost",
            setting=f"{setting('wrapper', at_w)}, alpha={alpha:g} (excess error)",
            paper="labelled cost of the wrapper independent of the base learner's "
                  "(BNS15 Thm 4.13): at n = min_labelled its success rate does not move with b",
            measured=f"slope of the success rate vs log2 b = {fmt_slope(fw, 3)} per doubling "
                     f"(largest - smallest b: {ends[-1] - ends[0]:+.3f}); success rate "
                     f"{_rates(fw['curve'])}; base learner alone, same draws: slope "
                     f"{fmt_slope(fb, 3)} (min_labelled at alpha0={a0:g}: {need})",
            theory=(theory_with_alternative((0.0, 0.0), fall, FIXED_NAMES,
                                            tol=abs(fall[1]) / 2, digits=3)
                    + " (bands from the design: any unit step from success to failure inside "
                      f"b = {int(bs.min())}..{int(bs.max())} has a least-squares slope in "
                      f"[{fall[0]:.2f}, {fall[1]:.2f}] per doubling; no measured value enters "
                      "them)" if np.isfinite(fall[1]) else "the wrapper flat [0.000, 0.000]"),
            verdict=fixed_n_verdict(fw, fb, fall), statistic=STAT_FIXED,
            trials=trial_set(FIXED_N),
            slope=fw["slope"], slope_lo=fw["lo"], slope_hi=fw["hi"],
            **at_w, alpha=float(alpha), extra="wrapper fixed n"))
        rows.append(VerdictRow(
            claim="C14", figure="c14_label_boost",
            setting=f"{setting('base learner alone', at_b)}, alpha={alpha:g} (excess error)",
            paper="the foil: the base learner's cost grows like b ln 2, so at a fixed n its "
                  "success rate falls with b",
            measured=f"slope of the success rate vs log2 b = {fmt_slope(fb, 3)} per doubling; "
                     f"success rate {_rates(fb['curve'])}",
            theory="falls: slope interval below 0",
            verdict=check_verdict(bool(np.isfinite(fb["hi"]) and fb["hi"] < 0),
                                  f"slope interval {fmt_slope(fb, 3)} does not lie below 0"),
            statistic=STAT_FIXED, trials=trial_set(FIXED_N),
            slope=fb["slope"], slope_lo=fb["lo"], slope_hi=fb["hi"],
            **at_b, alpha=float(alpha), extra="base learner fixed n"))
    return rows


def _fixed_n_panel(ax, results, rows) -> None:
    trials, nhat = results.load(FIXED_N)
    alphas = alphas_of(nhat)
    curves = {(learner, alpha): success_curve(trials[trials.learner == learner], alpha, n_col=B,
                                              error_col=ERROR_COL)
              for learner in (WRAPPER, BASE) for alpha in alphas}
    # the base learner's errors are 0 or ~0.4: one line when every alpha counts the same trials
    base_once = all(curves[BASE, a]["successes"].equals(curves[BASE, alphas[0]]["successes"])
                    for a in alphas)
    for i, alpha in enumerate(alphas):
        for learner, ls, color in ((WRAPPER, "-", f"C{i}"), (BASE, "--", f"C{i + 2}")):
            if learner == BASE and base_once and i > 0:
                continue
            c = curves[learner, alpha]
            s = dict(STYLE[learner])
            label = s.pop("label") + (
                f", excess error <= {', '.join(f'{a:g}' for a in alphas)} (same trials)"
                if learner == BASE and base_once else f", excess error <= {alpha:g}")
            s.update(color=color, ls=ls)
            ax.errorbar(c["n"] * (1 + 0.03 * (i - 0.5)), c["frac"],
                        yerr=[c["frac"] - c["cp_lo"], c["cp_hi"] - c["frac"]], capsize=3,
                        label=label, **s)
    ticks = np.sort(trials[B].unique())
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(int(v)) for v in ticks])
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("b = log2 |X|")
    ax.set_ylabel(f"success rate at n = {int(trials['n'].iloc[0]):,} labelled (95% CP)")
    base = [r for r in rows if r.extra == "base learner fixed n"]
    ax.set_title("fixed n = min_labelled (counted)\n"
                 + "\n".join(f"alpha={r.alpha:g}: wrapper slope {fmt_slope(_fit_of(r), 3)} "
                             f"per doubling ({r.verdict})"
                             for r in rows if r.extra == "wrapper fixed n")
                 + (f"\nbase learner alone: slope {fmt_slope(_fit_of(base[0]), 3)} "
                    f"({base[0].verdict})" if base else ""),
                 fontsize=8)
    plotting.legend_below(ax, 1)


def _fit_of(row) -> dict:
    return dict(slope=row.slope, lo=row.slope_lo, hi=row.slope_hi)


def _base_range(bs, beta) -> tuple:
    return tuple(sorted((loglog_slope(bs, _shape(bs, beta))[0], 1.0)))


def _shape(bs, beta):
    """The base learner's EM shape ``ln(2^(b+1)) + ln(1/beta)``."""
    return (np.asarray(bs, dtype=float) + 1) * math.log(2) + math.log(1 / beta)


def _design_crossing(alpha0: float = 0.1, beta0: float = 0.1) -> int:
    """Smallest b (power-of-two search, then bisection) with ``m(b) > min_labelled(m(b))``."""
    lo, hi = 1, 2
    while base_sample_size(hi, alpha0, beta0) <= min_labelled(base_sample_size(hi, alpha0, beta0),
                                                             alpha0, beta0):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        m = base_sample_size(mid, alpha0, beta0)
        lo, hi = (mid, hi) if m <= min_labelled(m, alpha0, beta0) else (lo, mid)
    return hi


def _nhat(results, experiment, learner, alpha):
    data = results.load(experiment)
    if data is None:
        return None
    # from the trials: a profile with one b (quick) has no population.b column in n_hat.csv
    trials, beta = data[0], beta_of(data[1])
    nhat = empirical_sample_complexity(trials[trials.learner == learner], [alpha], beta, by=[B],
                                       error_col=ERROR_COL)
    return nhat.assign(learner=learner).sort_values(B)


def _crossing(results, alpha, beta):
    """``(b*, c, wrapper n_hat)``: the fitted base line meets the wrapper's median n_hat."""
    base, wrap = (_nhat(results, "c14_base_alone", BASE, alpha),
                  _nhat(results, "c14_label_boost", WRAPPER, alpha))
    if base is None or wrap is None:
        return math.nan, math.nan, math.nan
    ok_b, ok_w = plotting.uncensored(base), plotting.uncensored(wrap)
    if not ok_b.any() or not ok_w.any():
        return math.nan, math.nan, math.nan
    c = bounds.fit_shape_constant(base["n_hat"].to_numpy()[ok_b],
                                  _shape(base[B].to_numpy()[ok_b], beta))
    n_w = float(np.median(wrap["n_hat"].to_numpy()[ok_w]))
    b_star = (n_w / c - math.log(1 / beta)) / math.log(2) - 1
    return b_star, c, n_w


def analyse(results) -> list[VerdictRow]:
    rows = []
    wrap_data, base_data = results.load("c14_label_boost"), results.load("c14_base_alone")
    design = _design_crossing()
    if wrap_data is not None:
        trials, nhat = wrap_data
        beta = beta_of(nhat)
        bs = np.sort(trials[B].unique())
        n_unl = int(trials["n_unlabelled"].iloc[0])
        at = row_settings(trials[trials.learner == WRAPPER])
        for alpha in alphas_of(nhat):
            fit = sample_complexity_slope_against(trials[trials.learner == WRAPPER], B,
                                                  alpha, beta, error_col=ERROR_COL,
                                                  n_boot=results.n_boot)
            b_star, c, n_w = _crossing(results, alpha, beta)
            rows.append(VerdictRow(
                claim="C14", figure="c14_label_boost",
                setting=f"wrapper, b={int(bs.min())}..{int(bs.max())}, "
                        f"epsilon={at['epsilon']:g}, alpha={alpha:g}, n_unlabelled={n_unl}",
                paper="labelled cost of the wrapper independent of the base learner's "
                      "(BNS15 Thm 4.13)",
                measured=f"slope of log n_hat vs log b = {fmt_slope(fit, 3)}; wrapper n_hat "
                         f"{n_w:.0f}; base learner n_hat ~ {c:.2f} (b+1) ln 2: crossing at "
                         f"b ~ {b_star:.0f} (design: m(b) > {min_labelled(10**6, .1, .1)} from "
                         f"b = {design})",
                theory=theory_with_alternative((0.0, 0.0), _base_range(bs.astype(float), beta),
                                               NAMES),
                verdict=by_construction(rate_verdict(fit, (0.0, 0.0),
                                                     _base_range(bs.astype(float), beta),
                                                     NAMES)),
                statistic=STAT_SLOPE, trials=trial_set("c14_label_boost"),
                slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
                **at, alpha=float(alpha), extra="wrapper"))
    if base_data is not None:
        trials, nhat = base_data
        beta = beta_of(nhat)
        bs = np.sort(trials[B].unique()).astype(float)
        th = loglog_slope(bs, _shape(bs, beta))[0]
        at = row_settings(trials[trials.learner == BASE])
        for alpha in alphas_of(nhat):
            fit = sample_complexity_slope_against(trials[trials.learner == BASE], B, alpha, beta,
                                                  error_col=ERROR_COL, n_boot=results.n_boot)
            rows.append(VerdictRow(
                claim="C14", figure="c14_label_boost",
                setting=f"base learner alone, b={int(bs.min())}..{int(bs.max())}, "
                        f"epsilon={at['epsilon']:g}, alpha={alpha:g}",
                paper="the base learner's labelled cost grows linearly in b (pure-DP EM over "
                      "2^(b+1) thresholds)",
                measured=f"slope of log n_hat vs log b = {fmt_slope(fit, 3)}",
                theory=theory_with_alternative((min(th, 1.0), max(th, 1.0)), (0.0, 0.0),
                                               ("ln 2^(b+1)", "flat in b, like the wrapper"))
                + f" (n ~ ln 2^(b+1) + ln 1/beta: {th:.2f})",
                verdict=base_check(rate_verdict(fit, (min(th, 1.0), max(th, 1.0)), (0.0, 0.0),
                                                ("the base learner's ln 2^(b+1)", "flat in b"))),
                statistic=STAT_SLOPE, trials=trial_set("c14_base_alone"), slope=fit["slope"],
                slope_lo=fit["lo"], slope_hi=fit["hi"],
                **at, alpha=float(alpha), extra="base learner alone"))
    mark_same_measurement(rows, lambda r: _signature(results, r),
                          lambda r: f"alpha = {r.alpha:g}")
    return rows + noisy_rows(results) + fixed_n_rows(results)


def _noisy_panel(ax, results, rows) -> None:
    trials, nhat = results.load(NOISY)
    beta = beta_of(nhat)
    sub = trials[trials.learner == WRAPPER]
    a0 = float(sub[ALPHA0].iloc[0])
    for i, alpha in enumerate(alphas_of(nhat)):
        by = empirical_sample_complexity(sub, [alpha], beta, by=[B], error_col=ERROR_COL)
        by = by.sort_values(B)
        plotting.draw_nhat(ax, by[B], by, float(sub["n"].max()),
                           dict(color=f"C{i}", marker="o", ls="-"),
                           f"LabelBoost wrapper, excess error <= {alpha:g}")
    ax.axhline(min_labelled(10**6, a0, 0.1), color="0.4", lw=0.8, ls="-.",
               label=f"min_labelled = {min_labelled(10**6, a0, 0.1):,} (alpha0 = {a0:g})")
    plotting.log_axes(ax, np.sort(sub[B].unique()), "b = log2 |X|",
                      plotting.nhat_label(beta, " (labelled)"), base=2)
    ax.set_title(f"noisy spread-out support, alpha0 = {a0:g}\n"
                 + "\n".join(f"alpha={r.alpha:g}: slope {r.slope:.3f} [{r.slope_lo:.3f}, "
                             f"{r.slope_hi:.3f}] ("
                             + (r.verdict if counted(r.verdict) else
                                ("breakdown, superseded by the fixed-n panel" if
                                 r.verdict.startswith("breakdown") else
                                 "reference, at the size schedule's step")
                                + ": " + r.verdict.rsplit("): ", 1)[-1]) + ")" for r in rows),
                 fontsize=8)
    plotting.legend_below(ax, 1)


def _signature(results, row):
    """The grid brackets of every n_hat the row reads: the wrapper's errors are 0 or >= 0.3,
    so its alpha = 0.05 and 0.15 rows are one measurement (and the base learner's likewise)."""
    exp, learner = (("c14_label_boost", WRAPPER) if row.extra == "wrapper"
                    else ("c14_base_alone", BASE))
    trials, nhat = results.load(exp)
    return (row.extra, crossing_signature(trials[trials.learner == learner], row.alpha,
                                          beta_of(nhat), by=[B], error_col=ERROR_COL))


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    noisy = results.load(NOISY) is not None
    fixed = results.load(FIXED_N) is not None
    fig, axes = plotting.panels(1 + noisy + fixed, 7.4, 6.4)
    ax = axes[0]
    if noisy:
        _noisy_panel(axes[1], results, [r for r in rows if r.extra == "wrapper noisy"])
    if fixed:
        _fixed_n_panel(axes[-1], results, rows)
    alphas = sorted({r.alpha for r in rows if r.extra in ("wrapper", "base learner alone")})
    beta, b_all = 0.1, []
    for i, alpha in enumerate(alphas):
        for exp, learner, ls in (("c14_label_boost", WRAPPER, "-"),
                                 ("c14_base_alone", BASE, "--")):
            data = results.load(exp)
            sub = _nhat(results, exp, learner, alpha)
            if sub is None or sub.empty:
                continue
            beta = beta_of(data[1])
            b_all += list(sub[B])
            s = dict(STYLE[learner])
            label = s.pop("label") + f", alpha = {alpha:g}"
            s.update(color=f"C{i}" if learner == WRAPPER else f"C{i + 2}", ls=ls)
            plotting.draw_nhat(ax, sub[B], sub, float(data[0]["n"].max()), s, label)
            if learner == BASE and plotting.uncensored(sub).any():
                _, c, _ = _crossing(results, alpha, beta)
                if np.isfinite(c):
                    grid = np.geomspace(min(b_all), 2 * max(b_all), 50)
                    ax.plot(grid, c * _shape(grid, beta), color=f"C{i + 2}", ls=":", lw=1,
                            label=f"fitted {c:.2f} ((b+1) ln 2 + ln 1/beta), alpha = {alpha:g}")
    ax.axhline(min_labelled(10**6, 0.1, 0.1), color="0.4", lw=0.8, ls="-.",
               label="min_labelled = 26,856 (Claim 4.2 sizes, alpha0 = beta0 = 0.1)")
    ticks = np.unique(b_all) if b_all else None
    plotting.log_axes(ax, ticks, "b = log2 |X|", plotting.nhat_label(beta, " (labelled)"),
                      base=2)
    eps = sorted({f"{r.epsilon:g}" for r in rows if r.extra in ("wrapper", "base learner alone")})
    ax.set_title(f"epsilon = {', '.join(eps)} (both alphas coincide: errors are 0 or >= 0.3)\n"
                 + "\n".join(r.measured.split("; ", 1)[1].replace(": crossing", ":\ncrossing")
                             for r in rows[:1] if r.extra == "wrapper"), fontsize=8)
    plotting.legend_below(ax, 1)
    plotting.save(fig, out_dir, "c14_label_boost",
                  "C14: LabelBoost wrapper vs its base learner, thresholds on {0..2^b - 1}")


CLAIM = Claim(id="C14", name="c14_label_boost", statement=STATEMENT, experiments=EXPERIMENTS,
              analyse=analyse, plot=plot, headline={"alpha": 0.05},
              # the noisy sweeps: ~6 and ~9 CPU-min, restored by make reproduce (RECOMPUTE=1
              # reruns them)
              committed=(NOISY, FIXED_N))
