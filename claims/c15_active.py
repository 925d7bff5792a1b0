"""C15 (BNS15, Theorem 5.8): the private active learner's label queries do not depend on
epsilon; a private semi-supervised learner run at epsilon needs ``~1/epsilon`` labels.

``c15_active_queries``: Algorithm 4 (pool ``n_pool = ceil((3 + e) n_A / eps)``, uniform subset
of ``n_A``, ``t`` label queries, GenericLearner at epsilon 1); ``n_hat`` is read against the
number of label queries ``t`` (``learner.n_queries``), per epsilon; its slope against
``log epsilon`` must be 0. ``c15_generic_queries``: GenericLearner at epsilon itself, labels =
its labelled ``n``: slope -1 (the exponential mechanism's ``(ln|H| + ln 1/beta)/(alpha eps)``;
Theorem 5.6: a transcript-private learner needs ``Omega(1/(alpha eps))`` queries). The price of
the active learner is the pool, ``~1/eps`` unlabelled examples (a formula, reported).

Both epsilon rows are checks of a construction, not evidence (:func:`by_construction`,
:func:`claims.rules.accounting.as_check`: passed when the slope interval lies in the construction's
``prediction +- SLOPE_TOL``, a loud "check: FAILED" otherwise, the rule's own reading beside
it). The active row's flatness is built in: epsilon only changes the pool size, the inner
learner always sees ``n_A`` points at epsilon 1. The GenericLearner row is the foil, whose
``1/epsilon`` is its exponential mechanism's by design. So C15 reads as checks plus its exact
privacy audit: no statistical row is counted. What the design leaves open is how many labels
the active learner reads against the alternatives, per alpha at the smallest epsilon
(:func:`separation_rows`, references):

* GenericLearner at that epsilon (a transcript-private learner: its labelled ``n_hat`` measured
  in ``c15_generic_queries``) and ``1/(alpha eps)``: our illustration of BNS15 Theorem 5.6's
  ``Omega(1/(alpha eps))`` lower bound for *transcript-private* learners with an assumed
  constant 1 (the constant is ours: BNS15 states none). Rule (:func:`separation_verdict`):
  "holds" when the active learner's ``n_hat`` interval lies entirely below both; "does not
  hold" when it lies entirely above GenericLearner's or above ``1/(alpha eps)``; otherwise
  inconclusive.
* A non-private active learner (binary search over the pool's distinct points, which is CAL
  for thresholds) needs ``ceil(log2(2 support + 1))`` queries for error 0 on this population,
  whatever epsilon: the ratio is the price of privacy in label queries (reported).

By design the active learner's label queries at any epsilon are GenericLearner's at epsilon 1
on ``n_A`` points (54 against 55 at alpha 0.1), so the separation rows repeat the two epsilon
checks: they are shown, not counted (:func:`separation_note`), and the assumed constant 1 of
Theorem 5.6's bound judges nothing that is counted.

Privacy (an exact audit, not counted as statistical evidence, :func:`privacy_rows`): BNS15
Definition 5.3 asks the active learner's output distribution to change by at most ``e^epsilon``
between pools (fully labelled databases) that differ in one entry.
:mod:`ppm.diagnostics.active_audit` computes that distribution EXACTLY for Algorithm 4 with the
real GenericLearner inside (the 2-point grid, on which the sanitizer's law has a closed form),
on every pool of ``n_pool`` entries and every neighbour of each, for the settings of
:data:`ppm.diagnostics.active_audit.SETTINGS` (nothing is sampled). Rule: "exact audit: passes
(N neighbouring pairs)" iff the largest privacy loss is at most epsilon (plus the float
tolerance :data:`~ppm.diagnostics.active_audit.TOL`) in every setting, else "exact audit: FAILS"
(loud: the claim's verdict then starts with "AUDIT FAILED"). It can fail only through a bug, so
it is shown in the audit section of the verdict table, not counted. The alternative it is
weighed against: a non-private active learner (CAL, the binary search the separation rows
price), whose loss on the same pools is computed by the same function (infinite: a neighbour
makes a label appear). The label-query count is not part of this row. Its ``trials`` name
``privacy_audits/audit.csv``'s rows of the private active learner, the same exact audit. Beside
it, a check (not counted): the loss is also below Claim 5.7's amplification bound
``ln(1 + p (e - 1))``, ``p = n_A / n_pool``, and without the pool (``n_pool = n_A``) the same
audit finds a loss above epsilon at the small epsilons (it can fail).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from claims.reporting import plotting
from claims.base import Claim, VerdictRow, alphas_of, beta_of, setting_value, trial_set
from claims.rules.predictions import rate_verdict, theory_with_alternative
from claims.rules.accounting import as_check, audit_verdict
from claims.rules.outcomes import SLOPE_TOL
from claims.rules.verdicts import FAILS, HOLDS, check_verdict, fmt_slope
from analysis.sample_complexity import empirical_sample_complexity
from analysis.slopes import sample_complexity_slope_paired
from ppm.diagnostics import active_audit
from ppm.semi_supervised.active import pool_size
from analysis.aggregate import ERROR_COL
from experiments.columns import D, EPSILON, GENERIC, N_A, N_QUERIES, PRIVATE_ACTIVE, SUPPORT

STATEMENT = "active learner: label queries independent of epsilon"
EXPERIMENTS = ("c15_active_queries", "c15_generic_queries")
EPS, QUERIES = EPSILON, N_QUERIES
ACTIVE, GL = PRIVATE_ACTIVE, GENERIC
# (experiment, learner, column holding the number of labels read, theory slope, label)
SIDES = (("c15_active_queries", ACTIVE, QUERIES, 0.0,
          "private active learner (Alg. 4): label queries"),
         ("c15_generic_queries", GL, "n", -1.0, "GenericLearner at epsilon: labelled n"))


# each side's alternative: the other side's rate
ALTERNATIVE = {ACTIVE: (-1.0, -1.0), GL: (0.0, 0.0)}
NAMES = {ACTIVE: ("epsilon-free 0", "1/epsilon labels"),
         GL: ("1/epsilon labels", "epsilon-free, like the active learner")}


# What each row computes (VerdictRow.statistic) and the trials or table it reads
STAT_SLOPE = "loglog_slope_epsilon"  # slope of log n_hat (labels read) against log epsilon
STAT_SEPARATION = "label_queries_at_smallest_epsilon"  # n_hat of both learners at one epsilon
STAT_AUDIT = "exact_privacy_loss"  # the largest exact privacy loss over neighbouring pools
STAT_AMPLIFICATION = "exact_privacy_loss_vs_claim_5_7"  # the same losses against Claim 5.7
# The exact audit writes no table of its own: it is the one privacy_audits/audit.csv holds for
# the private active learner (the same function, ppm.diagnostics.active_audit.audit)
AUDIT_TRIALS = trial_set(("privacy_audits/audit", {"learner": ACTIVE}))
# Both epsilon rows are checks of a construction, not evidence (module docstring)
CONSTRUCTION = {
    ACTIVE: "construction, not evidence: epsilon only sets the pool size, the inner learner "
            "always runs at epsilon 1 on n_A points, so the label queries are flat by design",
    GL: "construction, not evidence: the foil, GenericLearner's exponential mechanism at "
        "epsilon, pays (ln|H| + ln 1/beta)/(alpha eps) labels by design"}


def by_construction(learner: str, v: str, fit: dict, theory: float) -> str:
    """An epsilon row as a check of its construction (:data:`CONSTRUCTION`): passed when the
    slope interval lies in ``theory +- SLOPE_TOL`` (the rule's own verdict, which can be
    inconclusive on censored cells, follows); a loud "check: FAILED" otherwise."""
    inside = bool(np.isfinite([fit["lo"], fit["hi"]]).all() and theory - SLOPE_TOL <= fit["lo"]
                  and fit["hi"] <= theory + SLOPE_TOL)
    return as_check(CONSTRUCTION[learner], inside, f"the rule's reading: {v}")


def separation_verdict(active: tuple, generic: tuple, lower_bound: float) -> str:
    """``active`` / ``generic``: ``(n_hat, lo, hi)`` (NaN hi: beyond the grid) at one epsilon;
    the rule of the module docstring."""
    a, a_lo, a_hi = active
    g, g_lo, g_hi = generic
    if not np.isfinite(a):
        return "not measured"
    a_hi = a_hi if np.isfinite(a_hi) else math.inf
    g_lo = g_lo if np.isfinite(g_lo) else (g if np.isfinite(g) else math.nan)
    g_hi = g_hi if np.isfinite(g_hi) else math.inf
    if np.isfinite(a_lo) and (a_lo > g_hi or a_lo > lower_bound):
        return FAILS
    if np.isfinite(g_lo) and a_hi < g_lo and a_hi < lower_bound:
        return HOLDS
    return "inconclusive (intervals overlap)"


def separation_note(v: str) -> str:
    """A separation row: shown, not counted (module docstring)."""
    return ("reference (by design the active learner's queries are GenericLearner's at epsilon "
            "1 on n_A points, so this repeats the two epsilon checks; 1/(alpha eps) is our "
            f"illustration of Thm 5.6 with an assumed constant 1, not BNS15's statement): {v}")


def _cell(by, eps, alpha):
    r = by[(by[EPS] == eps) & (by.alpha == alpha)]
    if r.empty or r["censored"].iloc[0] == "right":
        return math.nan, math.nan, math.nan
    return tuple(float(r[c].iloc[0]) for c in ("n_hat", "n_hat_lo", "n_hat_hi"))


def separation_rows(results) -> list[VerdictRow]:
    """Active learner vs Theorem 5.6's bound and GenericLearner at the smallest epsilon."""
    act, gen = results.load("c15_active_queries"), results.load("c15_generic_queries")
    if act is None or gen is None:
        return []
    beta = beta_of(act[1])
    a_by = _by_eps(act[0], ACTIVE, QUERIES, alphas_of(act[1]), beta)
    g_by = _by_eps(gen[0], GL, "n", alphas_of(gen[1]), beta_of(gen[1]))
    eps = float(min(a_by[EPS].min(), g_by[EPS].min()))
    support = int(act[0][SUPPORT].iloc[0])
    cal = math.ceil(math.log2(2 * support + 1))
    rows = []
    for alpha in alphas_of(act[1]):
        a, g = _cell(a_by, eps, alpha), _cell(g_by, eps, alpha)
        bound = 1 / (alpha * eps)
        rows.append(VerdictRow(
            claim="C15", figure="c15_active",
            setting=f"active vs transcript-private learners at epsilon={eps:g}, "
                    f"alpha={alpha:g}",
            paper="Thm 5.8's active learner needs fewer label queries than transcript-private "
                  "learners, which need Omega(1/(alpha eps)) (Thm 5.6; BNS15 states no "
                  "constant)",
            measured=f"label queries n_hat: private active {a[0]:.0f} [{a[1]:.0f}, {a[2]:.0f}]"
                     f"; GenericLearner at epsilon {g[0]:.0f} [{g[1]:.0f}, {g[2]:.0f}]; "
                     f"non-private binary search (CAL) {cal} (price of privacy "
                     f"{a[0] / cal:.0f}x)",
            theory=f"active < GenericLearner at epsilon; 1/(alpha eps) = {bound:.0f}: our "
                   "illustration of Thm 5.6's Omega(1/(alpha eps)) with an assumed constant 1 "
                   "(ours, not BNS15's: the theorem states no constant)",
            verdict=separation_note(separation_verdict(a, g, bound)),
            statistic=STAT_SEPARATION,
            trials=trial_set(("c15_active_queries", {"epsilon": eps}),
                             ("c15_generic_queries", {"epsilon": eps})),
            slope=math.nan, slope_lo=math.nan, slope_hi=math.nan,
            d=1, epsilon=eps, alpha=float(alpha), extra="separation"))
    return rows


@lru_cache(maxsize=1)
def _audit() -> tuple:
    """The exact audit of every setting (about 4 s; computed once per process)."""
    return tuple(active_audit.audit())


def privacy_verdict(audit) -> str:
    """Definition 5.3's rule on the exact audit (module docstring): an exact audit of a proven
    claim, "exact audit: passes (N neighbouring pairs)" or "exact audit: FAILS (...)", shown
    in the audit section and never counted as statistical evidence."""
    if not audit:
        return "not measured"
    over = [a for a in audit if a["loss"] > a["epsilon"] + active_audit.TOL]
    return audit_verdict(not over, sum(a["neighbour_pairs"] for a in audit),
                         "neighbouring pairs", detail=f"{len(over)} settings above epsilon")


def privacy_rows(audit=None) -> list[VerdictRow]:
    """The counted exact-audit row and its check (module docstring)."""
    audit = list(_audit() if audit is None else audit)
    if not audit:
        return []
    worst = max(audit, key=lambda a: a["loss"] / a["epsilon"])
    per = "; ".join(f"eps={a['epsilon']:g} n_A={a['n_A']} t={a['t']} (n_pool={a['n_pool']}, "
                    f"{a['pools']} pools): {a['loss']:.4f}" for a in audit)
    eps_all = sorted({a["epsilon"] for a in audit})
    cal = max(a["cal_loss"] for a in audit)
    under = [a for a in audit if a["loss"] <= a["claim_5_7_bound"] + active_audit.TOL]
    teeth = [a for a in audit if a["no_pool_loss"] > a["epsilon"] + active_audit.TOL]
    setting = (f"exact audit of Alg. 4 with GenericLearner inside (grid of 2 points), every pool "
               f"of n_pool = ceil((3+e) n_A/eps) entries and every neighbour, epsilon in "
               f"{', '.join(f'{e:g}' for e in eps_all)}")
    return [VerdictRow(
        claim="C15", figure="c15_active", setting=setting,
        paper="the active learner is epsilon-DP in the sense of Definition 5.3 (Claim 5.7, "
              "Thm 5.8): its output law on neighbouring labelled pools within e^epsilon",
        measured=(f"max privacy loss / epsilon = {worst['loss'] / worst['epsilon']:.4f} (at "
                  f"eps={worst['epsilon']:g}, n_A={worst['n_A']}, t={worst['t']}: pool "
                  f"{worst['worst_pool']} vs {worst['worst_neighbour']}, type counts of "
                  f"(x, y) = (0,0), (0,1), (1,0), (1,1)); max loss per setting: {per}; "
                  f"{sum(a['neighbour_pairs'] for a in audit)} neighbouring pairs, exact"),
        theory=(f"<= epsilon (+{active_audit.TOL:g} float tolerance); alternative: a "
                f"non-private active learner (CAL by binary search), loss = infinity "
                f"(computed on the same pools: {cal:g})"),
        verdict=privacy_verdict(audit), statistic=STAT_AUDIT, trials=AUDIT_TRIALS, d=1,
        epsilon=float(worst["epsilon"]), extra="privacy"),
        VerdictRow(
        claim="C15", figure="c15_active", setting=setting + ": amplification and teeth",
        paper="Claim 5.7: subsampling amplifies the inner learner's 1-DP to "
              "ln(1 + p (e - 1)), p = n_A / n_pool",
        measured=(f"loss <= Claim 5.7's bound in {len(under)} of {len(audit)} settings ("
                  + "; ".join(f"eps={a['epsilon']:g} n_A={a['n_A']} t={a['t']}: "
                              f"{a['loss']:.4f} <= {a['claim_5_7_bound']:.4f}" for a in audit)
                  + f"); without the pool (n_pool = n_A) the loss exceeds epsilon in "
                  f"{len(teeth)} of {len(audit)} settings ("
                  + "; ".join(f"eps={a['epsilon']:g} n_A={a['n_A']} t={a['t']}: "
                              f"{a['no_pool_loss']:.3f}" for a in teeth)
                  + ")"),
        theory="loss <= ln(1 + p (e - 1)) (proved); the audit can fail: without the pool "
               "the inner learner's 1-DP is not amplified",
        verdict=check_verdict(len(under) == len(audit) and bool(teeth),
                              f"{len(audit) - len(under)} settings above Claim 5.7's bound, "
                              f"{len(teeth)} without-pool settings above epsilon"),
        statistic=STAT_AMPLIFICATION, trials=AUDIT_TRIALS, d=1, epsilon=float(worst["epsilon"]),
        extra="privacy check")]


def _by_eps(trials, learner, n_col, alphas, beta):
    return empirical_sample_complexity(trials[trials.learner == learner], alphas, beta,
                                       by=[EPS], n_col=n_col, error_col=ERROR_COL)


def _values(sub) -> str:
    return ", ".join(f"eps={r[EPS]:g}: {r.n_hat:.0f}" if not r.censored else
                     f"eps={r[EPS]:g}: {r.censored}-censored"
                     for _, r in sub.sort_values(EPS).iterrows())


def analyse(results) -> list[VerdictRow]:
    rows = []
    for exp, learner, n_col, theory, what in SIDES:
        data = results.load(exp)
        if data is None:
            continue
        trials, nhat = data
        beta = beta_of(nhat)
        eps = np.sort(trials[EPS].unique())
        by = _by_eps(trials, learner, n_col, alphas_of(nhat), beta)
        pool = ""
        if learner == ACTIVE:
            n_A = int(trials[N_A].iloc[0])
            pool = (f"; pool n_pool = ceil((3+e) n_A/eps) = {pool_size(n_A, eps.min())} at "
                    f"eps={eps.min():g}, {pool_size(n_A, eps.max())} at eps={eps.max():g} "
                    f"(n_A={n_A})")
        for alpha in alphas_of(nhat):
            # the epsilons of a trial share one pool (the sample does not depend on the
            # learner): trial indices are resampled once per replicate for every epsilon
            fit = sample_complexity_slope_paired(trials[trials.learner == learner], EPS, alpha,
                                                 beta, n_col=n_col, error_col=ERROR_COL,
                                                 n_boot=results.n_boot)
            rows.append(VerdictRow(
                claim="C15", figure="c15_active",
                setting=f"{'active' if learner == ACTIVE else GL}, "
                        f"epsilon={eps.min():g}..{eps.max():g}, alpha={alpha:g}",
                paper=("label queries of the active learner independent of epsilon "
                       "(BNS15 Thm 5.8)" if learner == ACTIVE else
                       "a private semi-supervised learner at epsilon needs ~1/epsilon labels "
                       "(BNS15 Thm 3.3, 5.6)"),
                measured=f"slope of log n_hat ({what}) vs log epsilon = {fmt_slope(fit)}; "
                         f"n_hat: {_values(by[by.alpha == alpha])}{pool}",
                theory=(theory_with_alternative((theory, theory), ALTERNATIVE[learner],
                                                NAMES[learner])),
                verdict=by_construction(learner, rate_verdict(
                    fit, (theory, theory), ALTERNATIVE[learner], NAMES[learner]), fit, theory),
                statistic=STAT_SLOPE, trials=trial_set(exp),
                slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
                d=setting_value(trials, D, cast=int), alpha=float(alpha),
                extra="active" if learner == ACTIVE else "generic"))
    return rows + separation_rows(results) + privacy_rows()


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    fig, (ax,) = plotting.panels(1, 7.4, 6.4)
    eps_all, beta = [], 0.1
    for exp, learner, n_col, _, what in SIDES:
        data = results.load(exp)
        if data is None:
            continue
        trials, nhat = data
        beta = beta_of(nhat)
        by = _by_eps(trials, learner, n_col, alphas_of(nhat), beta)
        top = float(trials[n_col].max())
        for i, alpha in enumerate(alphas_of(nhat)):
            sub = by[by.alpha == alpha].sort_values(EPS)
            eps_all += list(sub[EPS])
            style = dict(color=f"C{i}" if learner == ACTIVE else f"C{i + 2}",
                         marker="o" if learner == ACTIVE else "D",
                         ls="-" if learner == ACTIVE else "--")
            plotting.draw_nhat(ax, sub[EPS], sub, top, style, f"{what}, alpha = {alpha:g}")
        if learner == ACTIVE:
            n_A = int(trials[N_A].iloc[0])
            grid = np.sort(trials[EPS].unique())
            ax.plot(grid, [pool_size(n_A, e) / 100 for e in grid], color="0.4", ls=":",
                    label=f"pool size / 100 (unlabelled, n_A = {n_A})")
    ticks = np.unique(eps_all) if eps_all else None
    plotting.log_axes(ax, ticks, "epsilon", plotting.nhat_label(beta, " (labels read)"))
    ax.set_title("; ".join(f"{r.extra} alpha={r.alpha:g}: slope {r.slope:.2f}" for r in rows
                           if r.extra in ("active", "generic")) + "\n"
                 + "; ".join(f"alpha={r.alpha:g} at epsilon {r.epsilon:g}: "
                             f"{r.measured.split(';')[0]} vs 1/(alpha eps) = "
                             f"{1 / (r.alpha * r.epsilon):.0f} (our constant 1; "
                             f"{r.verdict.rsplit('): ', 1)[-1]})"
                             for r in rows if r.extra == "separation"),
                 fontsize=8)
    plotting.legend_below(ax, 1)
    plotting.save(fig, out_dir, "c15_active",
                  "C15: label queries vs epsilon, private active learner vs GenericLearner")


CLAIM = Claim(id="C15", name="c15_active", statement=STATEMENT, experiments=EXPERIMENTS,
              analyse=analyse, plot=plot, headline={"alpha": 0.1})
