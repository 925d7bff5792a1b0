"""C13 (BNS15, Theorem 3.3): GenericLearner's labelled cost does not depend on the domain;
its unlabelled cost grows with ``b = log2 |X|``.

``c13_generic_domain``: thresholds on ``X = {0..2^b - 1}`` (``b = log2 T``), all examples
private, a large fixed unlabelled sample; per alpha, the slope of ``log n_hat`` (labelled)
against ``log b`` must be 0 for GenericLearner, while the fully private grid exponential
mechanism on the same labelled samples (all labels, no unlabelled data) grows like
``ln(2T) + ln(1/beta)``, i.e. about linearly in ``b``.
The contrast itself is tested directly (:func:`slope_difference`): the difference
``slope(fully private EM) - slope(GenericLearner)`` with a paired bootstrap (both learners run on
the same labelled samples of each trial, so each replicate draws the trial indices once per
``(b, n)`` for both). Theory: the EM's slope (``ln 2T + ln 1/beta`` against ``log b``) minus 0.
Rule (:func:`difference_verdict`, :func:`claims.rules.predictions.rate_verdict`): prediction the
EM's slope (up to 1), alternative 0 (no contrast); the bands are derived from the two. The flat row
of GenericLearner names the EM's ``ln T`` as its alternative.

``c13_generic_domain_plateau``: the same sweep on
:class:`ppm.semi_supervised.PlateauGridThresholds` (mass 0.15 on each grid point beside the cut,
0.35 on each end), where every threshold but the target errs by 0.15, just above alpha = 0.1. On
``c13_generic_domain``'s population (support 4) the bad thresholds the fully private EM must
beat at alpha 0.1 are the few next to the cut, so its cost barely depends on ``T`` and the
contrast cannot show there; here ``T - 2`` of the ``2T`` thresholds are nearly good, the EM's
failure term is ``(T - 2) exp(-eps n 0.15 / 2)`` and its cost grows like ``ln T``. Same rows
(GenericLearner flat; the contrast, counted), marked "plateau".

``c13_generic_unlabelled``: a large fixed labelled sample, the unlabelled size swept; the slope
of ``log n_hat`` (unlabelled) against ``log b``. The band is BNS15 Theorem 3.3's rate
``n = b VC log(1/alpha) / (alpha^3 eps) + log(1/beta) / (alpha eps)`` (VC 1), i.e. between that
expression's slope (its ``b``-free term flattens it, barely) and 1 (:func:`theorem_3_3_slope`).
Rule (:func:`grows_verdict`), one-sided: the prediction is growth at Theorem 3.3's rate or
faster (``(th, inf)``), the alternative no growth (0); steeper growth, like the substitute
sanitizer's, is still growth. Our sanitizer is a substitute for Blum-Ligett-Roth (dyadic-tree
Laplace quantiles, ``ppm.semi_supervised.sanitizer``) whose prefix counts err by
``O(b^1.5 / eps)``: the growth these rows measure is that construction's (``b^1.5`` at most,
by construction), not BNS15's sanitizer's rate, so they are checks of the construction, not
evidence for Theorem 3.3 (:func:`substitute_check`: "check (...): passed" when the growth
holds and the interval does not lie above 1.5 + SLOPE_TOL, a loud "check: FAILED" otherwise).
Beside each, a reference row weighs the same slope against 1.5 itself.

One fact, one row (:func:`one_fact`): per population and alpha the GenericLearner flat row
counts, the paired contrast on the same trials is a breakdown; the alpha 0.1 rows on the
original population are breakdowns superseded by the plateau rows. The alpha 0.2 row would
need about 3-4x its trials per cell (about 2.5 CPU-hours with the unlabelled sweep) to decide at
both readings of ``n_hat``; it says so. Each row names what it computes (``statistic``) and its
experiment (``trials``): the two counted rows, ``c13_generic_domain`` at alpha 0.2 and
``c13_generic_domain_plateau`` at alpha 0.1, read different trials and count separately.
"""

from __future__ import annotations

import math

import numpy as np

from claims.reporting import plotting
from claims.rules.accounting import as_check, breakdown
from claims.base import Claim, VerdictRow, alphas_of, beta_of, setting_value, trial_set
from claims.rules.outcomes import SLOPE_TOL
from claims.rules.predictions import rate_verdict, theory_with_alternative
from claims.rules.verdicts import counted, fmt_interval, fmt_slope
from analysis.sample_complexity import empirical_sample_complexity, loglog_slope
from analysis.slopes import sample_complexity_slope_against, slope_difference_paired
from analysis.aggregate import ERROR_COL
from experiments.columns import D, EPSILON, FULLY_PRIVATE, GENERIC, PLATEAU, T

STATEMENT = ("GenericLearner: labelled cost independent of |X|, unlabelled cost grows with "
             "log|X|")
PLATEAU_EXP, UNLABELLED = "c13_generic_domain_plateau", "c13_generic_unlabelled"
EXPERIMENTS = ("c13_generic_domain", PLATEAU_EXP, UNLABELLED)
GL, FP = GENERIC, FULLY_PRIVATE
SUBSTITUTE_RATE = 1.5  # the Laplace-tree substitute's prefix-count error ~ b^1.5 (not counted)
# What each row computes (VerdictRow.statistic); its trials are its experiment's (both
# learners: the flat row's verdict also reads the fully private EM's slope).
STAT_FLAT = "loglog_slope_b"  # slope of log n_hat (labelled) against log b
STAT_CONTRAST = "paired_slope_difference_b"  # slope(EM) - slope(GenericLearner), paired
STAT_UNLABELLED = "loglog_slope_b_unlabelled"  # slope of log n_hat (unlabelled) against log b
# The unlabelled rows read our sanitizer, not BNS15's: a check of the construction
SUBSTITUTE_CHECK = ("construction, not BNS15's rate: the unlabelled cost is that of our "
                    "Laplace-tree substitute for the BLR sanitizer, whose prefix counts err by "
                    f"O(b^{SUBSTITUTE_RATE:g} / eps), so it grows with b by construction, at most "
                    f"like b^{SUBSTITUTE_RATE:g}; it passes when the slope interval lies in "
                    f"the growth band and not above {SUBSTITUTE_RATE:g} + {SLOPE_TOL:g}")
STYLE = {GL: dict(color="C4", marker="o", label="GenericLearner (BNS15, Alg. 1)"),
         FP: dict(color="C3", marker="D", label="fully private EM on the grid (all labels)")}


def _with_b(trials):
    return trials.assign(b=np.log2(trials[T].astype(float)).round().astype(int))


def _load(results, experiment):
    data = results.load(experiment)
    return None if data is None else (_with_b(data[0]), data[1])


def _eps(trials) -> float:
    return float(trials.loc[trials.learner == GL, EPSILON].iloc[0])


def theorem_3_3_slope(bs, alpha, beta, vc=1) -> float:
    """Slope against ``log b`` of Theorem 3.3's unlabelled size ``b vc ln(1/alpha)/alpha^3 +
    ln(1/beta)/alpha`` (epsilon cancels in the slope)."""
    bs = np.asarray(bs, dtype=float)
    return loglog_slope(bs, bs * vc * math.log(1 / alpha) / alpha ** 3
                        + math.log(1 / beta) / alpha)[0]


GROWS_NAMES = ("grows with b", "no growth")
DIFF_NAMES = ("the fully private EM's ln T", "no contrast")


def grows_verdict(fit: dict, theory_lo: float) -> str:
    """The unlabelled rule, one-sided: the prediction is growth at least at Theorem 3.3's rate
    (``(theory_lo, inf)``), the alternative no growth (0); a steeper growth (like the substitute
    sanitizer's ``b^1.5``) is still growth (:func:`claims.rules.predictions.rate_verdict`)."""
    return rate_verdict(fit, (theory_lo, math.inf), (0.0, 0.0), GROWS_NAMES)


def difference_verdict(diff: dict, theory: float) -> str:
    """The contrast ``slope(EM) - slope(GenericLearner)``: prediction the EM's ``ln T`` slope
    ``theory`` (up to 1, pure ``b``), alternative 0
    (:func:`claims.rules.predictions.rate_verdict`)."""
    return rate_verdict(diff, (theory, max(theory, 1.0)), (0.0, 0.0), DIFF_NAMES)


def slope_difference(trials, alpha, beta, n_boot, random_state=0, level=0.95) -> dict:
    """``slope(FP) - slope(GL)`` of ``log n_hat`` against ``log b``, paired bootstrap
    (:func:`analysis.slopes.slope_difference_paired`: both learners on the same labelled
    sample of every ``(b, n, trial)``; censored cells as bounds)."""
    return slope_difference_paired(trials, "b", FP, GL, alpha, beta, error_col=ERROR_COL,
                                   n_boot=n_boot, random_state=random_state, level=level)


def _labelled_rows(trials, nhat, n_boot, population="", experiment="c13_generic_domain"
                   ) -> list[VerdictRow]:
    """GenericLearner's flat row and the contrast row per alpha; ``population`` (``""`` for
    ``c13_generic_domain``'s, ``"plateau"``) prefixes the settings and suffixes ``extra``."""
    beta, eps = beta_of(nhat), _eps(trials)
    where = "" if not population else (
        f"{population} population (every threshold but the target errs by "
        f"{float(trials[PLATEAU].iloc[0]):g}), ")
    tag = "" if not population else f" {population}"
    bs = np.sort(trials["b"].unique()).astype(float)
    th_fp = loglog_slope(bs, bs * math.log(2) + math.log(2) + math.log(1 / beta))[0]
    n_unl = int(trials["n_unlabelled"].iloc[0])
    rows = []
    for alpha in alphas_of(nhat):
        gl, fp = (sample_complexity_slope_against(trials[trials.learner == lrn], "b", alpha, beta,
                                                  error_col=ERROR_COL, n_boot=n_boot)
                  for lrn in (GL, FP))
        flat = rate_verdict(gl, (0.0, 0.0), (th_fp, 1.0),
                            ("GenericLearner flat", "the fully private EM's ln T"))
        if flat.startswith("holds") and not (np.isfinite(fp["lo"]) and fp["lo"] > 0):
            # the comparator does not grow on this population: flatness shows no contrast
            flat = ("inconclusive (GenericLearner is flat, but so is the fully private EM "
                    f"here, {fmt_slope(fp, 3)}: this population cannot show the contrast; a "
                    "population whose good thresholds are few must make the EM grow)")
        rows.append(VerdictRow(
            claim="C13", figure="c13_generic",
            setting=f"labelled, {where}b={int(bs.min())}..{int(bs.max())}, epsilon={eps:g}, "
                    f"alpha={alpha:g}, n_unlabelled={n_unl}",
            paper="labelled sample complexity independent of |X| (BNS15 Thm 3.3)",
            measured=f"slope of log n_hat(labelled) vs log b: GenericLearner {fmt_slope(gl, 3)}, "
                     f"fully private EM {fmt_slope(fp, 3)}",
            theory=theory_with_alternative((0.0, 0.0), (th_fp, 1.0),
                                           ("GenericLearner 0", "fully private EM ln 2T")),
            verdict=flat, statistic=STAT_FLAT, trials=trial_set(experiment),
            slope=gl["slope"], slope_lo=gl["lo"], slope_hi=gl["hi"],
            d=setting_value(trials, D, cast=int), epsilon=eps, alpha=float(alpha),
            extra="labelled" + tag))
        dif = slope_difference(trials, alpha, beta, n_boot)
        rows.append(VerdictRow(
            claim="C13", figure="c13_generic",
            setting=f"labelled contrast, {where}b={int(bs.min())}..{int(bs.max())}, "
                    f"epsilon={eps:g}, alpha={alpha:g}, n_unlabelled={n_unl}",
            paper="GenericLearner's labelled cost grows more slowly with |X| than a fully "
                  "private learner's (BNS15 Thm 3.3 vs the ln|X| of pure-DP thresholds)",
            measured=f"slope(fully private EM) - slope(GenericLearner), paired bootstrap = "
                     f"{fmt_interval(dif['slope'], dif['lo'], dif['hi'], 3)}",
            theory=theory_with_alternative((th_fp, max(th_fp, 1.0)), (0.0, 0.0),
                                           ("EM ln 2T - 0", "no contrast 0")),
            verdict=difference_verdict(dif, th_fp),
            statistic=STAT_CONTRAST, trials=trial_set(experiment),
            slope=dif["slope"], slope_lo=dif["lo"], slope_hi=dif["hi"],
            d=setting_value(trials, D, cast=int), epsilon=eps, alpha=float(alpha),
            extra="labelled contrast" + tag))
    return rows


def substitute_check(fit: dict, theory_lo: float) -> str:
    """An unlabelled row: a check of the substitute sanitizer's construction, not evidence for
    Theorem 3.3 (:data:`SUBSTITUTE_CHECK`): passed when :func:`grows_verdict` holds and the
    interval does not lie above the substitute's ``b^1.5`` (a loud "check: FAILED" otherwise)."""
    v = grows_verdict(fit, theory_lo)
    passed = v.startswith("holds") and fit["lo"] <= SUBSTITUTE_RATE + SLOPE_TOL
    return as_check(SUBSTITUTE_CHECK, bool(passed), v)


def substitute_bound_reading(fit: dict) -> str:
    """The substitute sanitizer's ``b^1.5`` is a worst-case (upper) rate, so it is read
    one-sided: an interval at or below ``b^1.5`` (within :data:`SLOPE_TOL`) is within it, never
    "does not hold"; how much slower the measured growth is, is said beside it."""
    lo, hi = fit["lo"], fit["hi"]
    if hi <= SUBSTITUTE_RATE + SLOPE_TOL:
        slower = hi < SUBSTITUTE_RATE - SLOPE_TOL
        return ("within its worst-case rate b^1.5" +
                (f" (the measured growth {fmt_interval(fit['slope'], lo, hi)} is slower)"
                 if slower else ""))
    if lo > SUBSTITUTE_RATE + SLOPE_TOL:
        return f"exceeds its worst-case rate b^1.5: {fmt_interval(fit['slope'], lo, hi)}"
    return (f"inconclusive (the interval {fmt_interval(fit['slope'], lo, hi)} crosses "
            f"b^1.5's upper edge {SUBSTITUTE_RATE + SLOPE_TOL:g})")


def _unlabelled_nhat(trials, alphas, beta):
    sub = trials[trials.learner == GL]
    return empirical_sample_complexity(sub, alphas, beta, by=["b"], n_col="n_unlabelled",
                                       error_col=ERROR_COL)


def _unlabelled_rows(trials, nhat, n_boot) -> list[VerdictRow]:
    beta, eps = beta_of(nhat), _eps(trials)
    bs = np.sort(trials["b"].unique())
    n_lab = int(trials["n"].iloc[0])
    by_b = _unlabelled_nhat(trials, alphas_of(nhat), beta)
    rows = []
    for alpha in alphas_of(nhat):
        fit = sample_complexity_slope_against(trials[trials.learner == GL], "b", alpha, beta,
                                              n_col="n_unlabelled", error_col=ERROR_COL,
                                              n_boot=n_boot)
        th_lo = theorem_3_3_slope(bs, alpha, beta)
        sub = by_b[by_b.alpha == alpha].sort_values("b")
        vals = ", ".join(f"b={int(r.b)}: {r.n_hat:.0f}" if not r.censored else
                         f"b={int(r.b)}: {r.censored}-censored" for r in sub.itertuples())
        rows.append(VerdictRow(
            claim="C13", figure="c13_generic",
            setting=f"unlabelled, b={int(bs.min())}..{int(bs.max())}, epsilon={eps:g}, "
                    f"alpha={alpha:g}, labelled n={n_lab}",
            paper="unlabelled sample complexity grows with log|X| (BNS15 Thm 3.3)",
            measured=f"slope of log n_hat(unlabelled) vs log b = {fmt_slope(fit, 2)}; "
                     f"n_hat(unlabelled): {vals}",
            theory=theory_with_alternative((th_lo, math.inf), (0.0, 0.0),
                                           ("grows at Thm 3.3's rate or faster",
                                            "no growth 0"))
                   + " (Thm 3.3: b VC ln(1/alpha)/alpha^3 + ln(1/beta)/alpha; the substitute "
                   f"sanitizer's own rate {SUBSTITUTE_RATE:g} also grows)",
            verdict=substitute_check(fit, th_lo),
            statistic=STAT_UNLABELLED, trials=trial_set(UNLABELLED),
            slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
            d=setting_value(trials, D, cast=int), epsilon=eps, alpha=float(alpha),
            extra="unlabelled"))
        sub_v = substitute_bound_reading(fit)
        rows.append(VerdictRow(
            claim="C13", figure="c13_generic",
            setting=f"unlabelled vs the substitute sanitizer's rate, b={int(bs.min())}.."
                    f"{int(bs.max())}, epsilon={eps:g}, alpha={alpha:g}",
            paper="(not the paper's: the rate of our Laplace-tree substitute for BLR)",
            measured=f"slope of log n_hat(unlabelled) vs log b = {fmt_slope(fit, 2)}",
            theory=f"at most {SUBSTITUTE_RATE:g} (the substitute's prefix-count error is at "
                   "most ~ b^1.5 / eps: an upper bound, read one-sided)",
            verdict=f"reference (substitute sanitizer, not counted): {sub_v}",
            statistic=STAT_UNLABELLED, trials=trial_set(UNLABELLED),
            slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
            d=setting_value(trials, D, cast=int), epsilon=eps, alpha=float(alpha),
            extra="unlabelled substitute"))
    return rows


def analyse(results) -> list[VerdictRow]:
    rows = []
    dom = _load(results, "c13_generic_domain")
    if dom is not None:
        rows += _labelled_rows(*dom, results.n_boot)
    pla = _load(results, PLATEAU_EXP)
    if pla is not None:
        rows += _labelled_rows(*pla, results.n_boot, population="plateau",
                               experiment=PLATEAU_EXP)
    unl = _load(results, UNLABELLED)
    if unl is not None:
        rows += _unlabelled_rows(*unl, results.n_boot)
    return one_fact(rows)


# alpha 0.2 (original population) and the unlabelled rows: the trials that would make them
# decide at the grid reading too (their intervals are wide there)
MORE_TRIALS = ("to decide at both readings of n_hat this row needs about 3-4x its trials per "
               "cell: with the unlabelled sweep, about 2.5 CPU-hours")


def one_fact(rows: list[VerdictRow]) -> list[VerdictRow]:
    """One fact, one row (:mod:`claims.rules.accounting`): on each population and alpha the labelled
    flat row (the claim: GenericLearner's labelled cost does not depend on T) counts and the
    paired contrast on the same trials is a breakdown; on the original population the alpha 0.1
    rows are superseded by the plateau population's (built to show the contrast at alpha 0.1)
    and are breakdowns. The row still counted at alpha 0.2 names the trials that would make it
    decide at both readings (:data:`MORE_TRIALS`); the unlabelled rows are checks."""
    plateau_alphas = {r.alpha for r in rows if r.extra.endswith("plateau")}
    for r in rows:
        if not counted(r.verdict):
            continue
        if r.extra == "labelled contrast" or r.extra == "labelled contrast plateau":
            r.verdict = breakdown("the labelled flat row on the same trials counts",
                                  r.verdict)
        elif r.extra == "labelled" and r.alpha in plateau_alphas:
            r.verdict = breakdown(f"superseded by the plateau population's rows at alpha = "
                                  f"{r.alpha:g}", r.verdict)
        elif r.extra in ("labelled", "unlabelled"):
            r.theory += "; " + MORE_TRIALS
    return rows


def _draw(ax, learner, x, sub, top, alpha, i, ls):
    s = dict(STYLE[learner])
    label = s.pop("label") + f", alpha = {alpha:g}"
    s.update(color=f"C{i}", ls=ls)  # one colour per alpha; marker and line tell the learner
    plotting.draw_nhat(ax, x, sub, top, s, label)


def _labelled_panel(ax, data, rows, extra, title) -> None:
    trials, nhat = data
    beta = beta_of(nhat)
    by = empirical_sample_complexity(trials, alphas_of(nhat), beta, by=["learner", "b"],
                                     error_col=ERROR_COL)
    for i, alpha in enumerate(alphas_of(nhat)):
        for learner, ls in ((GL, "-"), (FP, "--")):
            sub = by[(by.learner == learner) & (by.alpha == alpha)].sort_values("b")
            _draw(ax, learner, sub["b"], sub, float(trials["n"].max()), alpha, i, ls)
    plotting.log_axes(ax, np.sort(trials["b"].unique()), "b = log2 |X|",
                      plotting.nhat_label(beta, " (labelled examples)"), base=2)
    mine = [r for r in rows if r.extra == extra]
    ax.set_title(f"{title}, n_unlabelled = {int(trials['n_unlabelled'].iloc[0])}\n"
                 + "GL slopes: " + plotting.fmt_values(
                     [(f"alpha={r.alpha:g}", r.slope) for r in mine]), fontsize=9)
    plotting.legend_below(ax, 1)


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    dom, unl = _load(results, "c13_generic_domain"), _load(results, "c13_generic_unlabelled")
    pla = _load(results, PLATEAU_EXP)
    panels = [p for p in (dom, pla, unl) if p is not None]
    fig, axes = plotting.panels(len(panels), 6.4, 6.2)
    ax_iter = iter(axes)
    if dom is not None:
        _labelled_panel(next(ax_iter), dom, rows, "labelled",
                        "labelled cost, support 4 beside the cut")
    if pla is not None:
        _labelled_panel(next(ax_iter), pla, rows, "labelled plateau",
                        "labelled cost, plateau population\n(all thresholds but the target "
                        f"err {float(pla[0][PLATEAU].iloc[0]):g})")
    if unl is not None:
        ax, (trials, nhat) = next(ax_iter), unl
        beta = beta_of(nhat)
        by = _unlabelled_nhat(trials, alphas_of(nhat), beta)
        for i, alpha in enumerate(alphas_of(nhat)):
            sub = by[by.alpha == alpha].sort_values("b")
            _draw(ax, GL, sub["b"], sub, float(trials["n_unlabelled"].max()), alpha, i, "-")
        plotting.log_axes(ax, np.sort(trials["b"].unique()), "b = log2 |X|",
                          plotting.nhat_label(beta, " (unlabelled examples)"), base=2)
        ax.set_title(f"unlabelled cost, labelled n = {int(trials['n'].iloc[0])}\n"
                     + "slopes: " + plotting.fmt_values(
                         [(f"alpha={r.alpha:g}", r.slope) for r in rows
                          if r.extra == "unlabelled"]), fontsize=9)
        plotting.legend_below(ax, 1)
    plotting.save(fig, out_dir, "c13_generic",
                  "C13: GenericLearner (sanitizer = Laplace-tree substitute for BLR), "
                  "thresholds on {0..2^b - 1}")


CLAIM = Claim(id="C13", name="c13_generic", statement=STATEMENT, experiments=EXPERIMENTS,
              analyse=analyse, plot=plot, headline={"alpha": 0.1},
              # 160 trials x 85 cells each (~12 and ~6 CPU-min): restored by make reproduce
              committed=("c13_generic_domain", PLATEAU_EXP))
