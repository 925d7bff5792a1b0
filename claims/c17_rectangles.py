"""C17 (BNS15 Corollary 4.17, Theorem 4.14): LabelBoost over a private learner for rectangles
needs a number of labelled examples independent of the domain size ``T``.

At ``d = 1`` (intervals of ``{0..2^b - 1}``; at ``d >= 2`` no round of the wrapper is reachable,
docs/rectangles.md). Population (fixed in its config before any trial): the interval target of
:class:`ppm.semi_supervised.big_interval.BigGridInterval`, mass on the 4 points either side of
each end, exact errors in steps of 1/16.

``c17_rectangles`` (a reference): the wrapper (BNS15 Algorithm 3 over LabelBoost for intervals,
base learner the exact exponential mechanism over the ``T (T+1)/2 + 1`` intervals at epsilon
1, ``m`` = its bound) at ``b`` in {1024, .., 8192}, where ``m(b)`` exceeds ``min_labelled`` =
26,856 so every cell runs rounds. Statistic: the least-squares slope of ``log n_hat``
(labelled) against ``log b`` (:data:`STAT_SLOPE`); prediction 0 (Theorem 4.14: independent of
``T``); alternative the base learner's rate, ``n ∝ ln|C| = ln(T (T+1)/2 + 1) + ln(1/beta)``
(slope ~1 against ``log b``). On this noiseless support the wrapper's errors are 1/2 while
Step 2b fails (below ``min_labelled``, decided by sizes) and 0 once it boosts, so ``n_hat`` sits
at the size schedule's step at every ``b``: flat by construction, a reference
(:func:`by_construction`), not evidence.

``c17_rectangles_fixed_n`` (counted): C14's counted design on intervals. A noisy, spread-out
interval target (:class:`ppm.semi_supervised.big_interval.NoisyBigGridInterval`, eta 0.1), the
labelled ``n`` fixed at ``min_labelled`` (the same at every ``b``), ``b`` in {1024, .., 8192}
(x8); the wrapper and, on the same draws, its base learner alone (the foil). Statistic: the
slope of the success rate (excess error <= alpha) against ``log2 b``
(:func:`claims.rules.success_rate.success_slope`, :data:`STAT_FIXED`); prediction 0; alternative
any unit step from success to failure inside the ``b`` range (the design alone,
:func:`claims.rules.success_rate.design_fall`); inconclusive if the base learner's rate does not
fall (:func:`claims.rules.success_rate.fixed_n_verdict`). Both alphas read the same trials: one
joint row (:func:`claims.rules.accounting.one_per_trial_set`).

``c17_base_alone`` (check): the base learner alone on the same population, ``b`` in {64, ..,
4096}: its ``n_hat`` grows like ``ln|C|`` by construction (an exponential mechanism over
``|C|`` intervals), so its row is a check (:func:`base_check`), not evidence.
"""

from __future__ import annotations

import math

import numpy as np

from analysis.aggregate import ERROR_COL
from analysis.sample_complexity import (crossing_signature, empirical_sample_complexity,
                                        loglog_slope, success_curve)
from analysis.slopes import sample_complexity_slope_against
from claims.reporting import plotting
from claims.rules.accounting import as_check
from claims.base import Claim, VerdictRow, alphas_of, beta_of, row_settings, trial_set
from claims.rules.predictions import rate_verdict, theory_with_alternative
from claims.rules.success_rate import FIXED_NAMES, design_fall, fixed_n_verdict, success_slope
from claims.rules.verdicts import check_verdict, fmt_slope, mark_same_measurement
from ppm import bounds
from experiments.columns import B, ETA
from ppm.semi_supervised.label_boost import min_labelled
from ppm.semi_supervised.rectangles import log_class_size

STATEMENT = ("LabelBoost over a private learner for rectangles (d = 1: intervals): labelled "
             "sample complexity independent of T")
WRAPPER_EXP, BASE_EXP, FIXED_N = "c17_rectangles", "c17_base_alone", "c17_rectangles_fixed_n"
EXPERIMENTS = (WRAPPER_EXP, BASE_EXP, FIXED_N)
WRAPPER, BASE = "RectangleLabelBoostLearner", "GridRectangleMechanism"
# VerdictRow.statistic: the slope of log n_hat (labelled) against log b
STAT_SLOPE = "loglog_slope_b"
STAT_FIXED = "slope_success_rate_log2b"  # at a fixed labelled n (C14's statistic)
NAMES = ("independent of T (Theorem 4.14)", "the base learner's ln|C|, ~2 b ln 2")
BASE_CHECK = ("construction, not evidence: the base learner is an exponential mechanism over "
              "the T(T+1)/2 + 1 intervals, whose cost grows like ln|C| by construction")
STYLE = {WRAPPER: dict(color="C4", marker="o", label="LabelBoost wrapper (Alg. 3)"),
         BASE: dict(color="C3", marker="D", label="base learner alone (interval EM)")}
NEED = min_labelled(10**6, 0.1, 0.1, vc=2)  # 26,856: Claim 4.2's sizes, alpha0 = beta0 = 0.1


def base_shape(bs, beta: float) -> np.ndarray:
    """The base learner's EM shape ``ln|C| + ln(1/beta)``, ``|C| = T(T+1)/2 + 1``, ``T = 2^b``
    (``ln|C|`` exact through :func:`ppm.semi_supervised.rectangles.log_class_size`)."""
    return np.array([log_class_size(1 << int(b), 1) + math.log(1 / beta) for b in bs])


def base_range(bs, beta: float) -> tuple[float, float]:
    """The alternative's slope against ``log b`` over the grid ``bs``: the base learner's shape
    (:func:`base_shape`) and its limit 1, as an ordered range (design only, no measured value)."""
    return tuple(sorted((loglog_slope(np.asarray(bs, float), base_shape(bs, beta))[0], 1.0)))


def by_construction(v: str) -> str:
    """The wrapper's n_hat row on the noiseless support: a reference (module docstring)."""
    return ("reference (flat by construction: errors 1/2 below min_labelled, 0 from it on, at "
            f"every b; the counted design is {FIXED_N}): {v}")


def base_check(v: str) -> str:
    """The base learner's own slope: fixed by its construction (:data:`BASE_CHECK`)."""
    return as_check(BASE_CHECK, v.startswith("holds"), v)


def _nhat_text(by) -> str:
    return ", ".join(f"b={int(r[B])}: {r.n_hat:.0f}" if not r.censored
                     else f"b={int(r[B])}: {r.censored}-censored"
                     for _, r in by.sort_values(B).iterrows())


def _rows(results, exp: str, learner: str) -> list[VerdictRow]:
    data = results.load(exp)
    if data is None:
        return []
    trials, nhat = data
    sub = trials[trials.learner == learner]
    beta = beta_of(nhat)
    bs = np.sort(sub[B].unique())
    at = row_settings(sub)
    rows = []
    for alpha in alphas_of(nhat):
        fit = sample_complexity_slope_against(sub, B, alpha, beta, error_col=ERROR_COL,
                                              n_boot=results.n_boot)
        by = empirical_sample_complexity(sub, [alpha], beta, by=[B], error_col=ERROR_COL)
        setting = (f"{'wrapper' if learner == WRAPPER else 'base learner alone'}, d=1, "
                   f"b={int(bs.min())}..{int(bs.max())}, epsilon={at['epsilon']:g}, "
                   f"alpha={alpha:g}")
        alt = base_range(bs, beta)
        if learner == WRAPPER:
            n_unl = int(sub["n_unlabelled"].iloc[0])
            rows.append(VerdictRow(
                claim="C17", figure="c17_rectangles",
                setting=f"{setting}, n_unlabelled={n_unl}",
                paper="labelled sample complexity of the wrapper over rectangles independent "
                      "of T (BNS15 Thm 4.14, Cor 4.17)",
                measured=f"slope of log n_hat vs log b = {fmt_slope(fit, 3)}; n_hat "
                         f"{_nhat_text(by)} (min_labelled = {NEED}: the size schedule's step)",
                theory=theory_with_alternative((0.0, 0.0), alt, NAMES),
                verdict=by_construction(rate_verdict(fit, (0.0, 0.0), alt, NAMES)),
                statistic=STAT_SLOPE, trials=trial_set(exp),
                slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
                **at, alpha=float(alpha), extra="wrapper"))
        else:
            rows.append(VerdictRow(
                claim="C17", figure="c17_rectangles", setting=setting,
                paper="the base learner's labelled cost grows like ln|C| = ln(T(T+1)/2 + 1) "
                      "(pure-DP EM over the intervals)",
                measured=f"slope of log n_hat vs log b = {fmt_slope(fit, 3)}; n_hat "
                         f"{_nhat_text(by)}",
                theory=theory_with_alternative(alt, (0.0, 0.0),
                                               ("ln|C|", "flat in b, like the wrapper"))
                + f" (n ~ ln|C| + ln 1/beta: {alt[0]:.2f})",
                verdict=base_check(rate_verdict(fit, alt, (0.0, 0.0),
                                                ("the base learner's ln|C|", "flat in b"))),
                statistic=STAT_SLOPE, trials=trial_set(exp),
                slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
                **at, alpha=float(alpha), extra="base learner alone"))
    return rows


def _signature(results, row):
    """The grid brackets of every n_hat the row reads (errors 0 or >= 1/4 make both alphas
    one measurement when their brackets coincide)."""
    exp, learner = ((WRAPPER_EXP, WRAPPER) if row.extra == "wrapper" else (BASE_EXP, BASE))
    trials, nhat = results.load(exp)
    return (row.extra, crossing_signature(trials[trials.learner == learner], row.alpha,
                                          beta_of(nhat), by=[B], error_col=ERROR_COL))


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
    eta = float(wrap[ETA].iloc[0])
    n = int(wrap["n"].iloc[0])
    at_w, at_b = row_settings(wrap), row_settings(base)
    fall = design_fall(bs)

    def setting(who: str, at: dict) -> str:
        return (f"{who}, d=1, noisy spread-out support (eta={eta:g}), n={n} labelled, "
                f"b={int(bs.min())}..{int(bs.max())}, epsilon={at['epsilon']:g}")
    rows = []
    for alpha in alphas_of(nhat):
        fw, fb = success_slope(wrap, alpha), success_slope(base, alpha)
        ends = fw["curve"]["frac"].to_numpy()
        rows.append(VerdictRow(
            claim="C17", figure="c17_rectangles",
            setting=f"{setting('wrapper', at_w)}, alpha={alpha:g} (excess error)",
            paper="labelled sample complexity of the wrapper over rectangles independent of T "
                  "(BNS15 Thm 4.14, Cor 4.17): at n = min_labelled its success rate does not "
                  "move with b",
            measured=f"slope of the success rate vs log2 b = {fmt_slope(fw, 3)} per doubling "
                     f"(largest - smallest b: {ends[-1] - ends[0]:+.3f}); success rate "
                     f"{_rates(fw['curve'])}; base learner alone, same draws: slope "
                     f"{fmt_slope(fb, 3)} (min_labelled: {NEED})",
            theory=(theory_with_alternative((0.0, 0.0), fall, FIXED_NAMES,
                                            tol=abs(fall[1]) / 2, digits=3)
                    + " (bands from the design: any unit step from success to failure inside "
                      f"b = {int(bs.min())}..{int(bs.max())} has a least-squares slope in "
                      f"[{fall[0]:.2f}, {fall[1]:.2f}] per doubling; no measured value enters "
                      "them)" if np.isfinite(fall[1]) else "independent of T [0.000, 0.000]"),
            verdict=fixed_n_verdict(fw, fb, fall), statistic=STAT_FIXED,
            trials=trial_set(FIXED_N), slope=fw["slope"], slope_lo=fw["lo"], slope_hi=fw["hi"],
            **at_w, alpha=float(alpha), extra="wrapper fixed n"))
        rows.append(VerdictRow(
            claim="C17", figure="c17_rectangles",
            setting=f"{setting('base learner alone', at_b)}, alpha={alpha:g} (excess error)",
            paper="the foil: the base learner's cost grows like ln|C| ~ 2 b ln 2, so at a fixed "
                  "n its success rate falls with b",
            measured=f"slope of the success rate vs log2 b = {fmt_slope(fb, 3)} per doubling; "
                     f"success rate {_rates(fb['curve'])}",
            theory="falls: slope interval below 0",
            verdict=check_verdict(bool(np.isfinite(fb["hi"]) and fb["hi"] < 0),
                                  f"slope interval {fmt_slope(fb, 3)} does not lie below 0"),
            statistic=STAT_FIXED, trials=trial_set(FIXED_N),
            slope=fb["slope"], slope_lo=fb["lo"], slope_hi=fb["hi"],
            **at_b, alpha=float(alpha), extra="base learner fixed n"))
    return rows


def analyse(results) -> list[VerdictRow]:
    rows = _rows(results, WRAPPER_EXP, WRAPPER) + _rows(results, BASE_EXP, BASE)
    mark_same_measurement(rows, lambda r: _signature(results, r),
                          lambda r: f"alpha = {r.alpha:g}")
    return rows + fixed_n_rows(results)


def _curves(results, exp: str, learner: str, alphas):
    """Per alpha, the n_hat rows of one learner; alphas whose n_hat equal the first's are
    dropped (errors of 0 or >= 1/4 make them one measurement) and named in the label."""
    data = results.load(exp)
    if data is None:
        return [], 1.0, 0.1
    trials, nhat = data
    beta = beta_of(nhat)
    out = []
    for alpha in alphas:
        sub = empirical_sample_complexity(trials[trials.learner == learner], [alpha], beta,
                                          by=[B], error_col=ERROR_COL).sort_values(B)
        same = [a for a, s in out if np.allclose(s["n_hat"].to_numpy(), sub["n_hat"].to_numpy(),
                                                 equal_nan=True)]
        if same:
            continue
        out.append((alpha, sub))
    return out, float(trials["n"].max()), beta


def _fixed_n_panel(ax, results, rows) -> None:
    trials, nhat = results.load(FIXED_N)
    for i, alpha in enumerate(alphas_of(nhat)):
        for learner, ls, color in ((WRAPPER, "-", f"C{i}"), (BASE, "--", f"C{i + 2}")):
            c = success_curve(trials[trials.learner == learner], alpha, n_col=B,
                              error_col=ERROR_COL)
            s = dict(STYLE[learner])
            label = s.pop("label") + f", excess error <= {alpha:g}"
            s.update(color=color, ls=ls)
            ax.errorbar(c["n"] * (1 + 0.03 * (i - 0.5)), c["frac"],
                        yerr=[c["frac"] - c["cp_lo"], c["cp_hi"] - c["frac"]], capsize=3,
                        label=label, **s)
    ticks = np.sort(trials[B].unique())
    ax.set_xscale("log", base=2)
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(int(v)) for v in ticks])
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel("b = log2 T")
    ax.set_ylabel(f"success rate at n = {int(trials['n'].iloc[0]):,} labelled (95% CP)")
    ax.set_title("noisy spread-out support, fixed n = min_labelled (counted)\n"
                 + "\n".join(f"{r.extra}, alpha={r.alpha:g}: slope {r.slope:.3f} "
                             f"[{r.slope_lo:.3f}, {r.slope_hi:.3f}] per doubling "
                             f"({r.verdict.split(':')[0]})" if r.extra.endswith("fixed n")
                             else f"counted, both alphas jointly: {r.verdict}" for r in rows),
                 fontsize=8)
    plotting.legend_below(ax, 1)


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    fixed = results.load(FIXED_N) is not None
    fig, axes = plotting.panels(1 + fixed, 7.4, 6.4)
    if fixed:  # the rows of the fixed-n sweep, the accounting's joint row (if any) last
        _fixed_n_panel(axes[1], results, [r for r in rows if r.extra in ("wrapper fixed n",
                                                                          "base learner fixed n")]
                       + [r for r in rows if r.trials == FIXED_N
                          and str(r.statistic).startswith("every(")])
    rows = [r for r in rows if r.extra in ("wrapper", "base learner alone")]
    ax = axes[0]
    alphas = sorted({r.alpha for r in rows})
    b_all, beta = [], 0.1
    for exp, learner, ls, shift in ((WRAPPER_EXP, WRAPPER, "-", 0), (BASE_EXP, BASE, "--", 2)):
        curves, top, beta = _curves(results, exp, learner, alphas)
        for i, (alpha, sub) in enumerate(curves):
            b_all += list(sub[B])
            s = dict(STYLE[learner])
            tied = [f"{a:g}" for a in alphas if a != alpha] if len(curves) == 1 else []
            label = (s.pop("label") + f", excess error <= {alpha:g}"
                     + (f" (= at {', '.join(tied)}: same trials)" if tied else ""))
            s.update(color=f"C{i + shift}", ls=ls)
            plotting.draw_nhat(ax, sub[B], sub, top, s, label)
            if learner == BASE and i == 0 and plotting.uncensored(sub).any():
                ok = plotting.uncensored(sub)
                c = bounds.fit_shape_constant(sub["n_hat"].to_numpy()[ok],
                                              base_shape(sub[B].to_numpy()[ok], beta))
                grid = np.geomspace(float(sub[B].min()), 8192.0, 50)
                ax.plot(grid, c * base_shape(grid, beta), color=f"C{shift}", ls=":", lw=1,
                        label=f"fitted {c:.2f} (ln|C| + ln 1/beta), |C| = T(T+1)/2 + 1")
    ax.axhline(NEED, color="0.4", lw=0.8, ls="-.",
               label=f"min_labelled = {NEED:,} (Claim 4.2 sizes, alpha0 = beta0 = 0.1)")
    plotting.log_axes(ax, np.unique(b_all) if b_all else None, "b = log2 T",
                      plotting.nhat_label(beta, " (labelled)"), base=2)
    ax.set_title("noiseless support: n_hat (reference: flat by construction)\n"
                 + "\n".join(f"{r.extra}, alpha={r.alpha:g}: slope {r.slope:.3f} "
                             f"[{r.slope_lo:.3f}, {r.slope_hi:.3f}] ({r.verdict.split(':')[0]})"
                             for r in rows if not r.verdict.startswith("same measurement")),
                 fontsize=8)
    plotting.legend_below(ax, 1)
    plotting.save(fig, out_dir, "c17_rectangles",
                  "C17: LabelBoost over intervals (BNS15 Cor. 4.17) vs its base learner")


CLAIM = Claim(id="C17", name="c17_rectangles", statement=STATEMENT, experiments=EXPERIMENTS,
              analyse=analyse, plot=plot, headline={"alpha": 0.05},
              # ~4.5, ~1 and ~4.5 CPU-min on one core: restored by make reproduce
              # (RECOMPUTE=1 reruns them)
              committed=EXPERIMENTS)
