"""C15 (BNS15, Theorem 5.8): the private active learner's label queries do not depend on
epsilon; a private semi-supervised learner run at epsilon needs ``~1/epsilon`` labels.

``c15_active_queries``: Algorithm 4 (pool ``n_pool = ceil((3 + e) n_A / eps)``, uniform subset
of ``n_A``, ``t`` label queries, GenericLearner at epsilon 1); ``n_hat`` is read against the
number of label queries ``t`` (``learner.n_queries``), per epsilon; its slope against
``log epsilon`` must be 0. ``c15_generic_queries``: GenericLearner at epsilon itself, labels =
its labelled ``n``: slope -1 (the exponential mechanism's ``(ln|H| + ln 1/beta)/(alpha eps)``;
Theorem 5.6: a transcript-private learner needs ``Omega(1/(alpha eps))`` queries). The price of
the active learner is the pool, ``~1/eps`` unlabelled examples (a formula, reported).
"""

from __future__ import annotations

import numpy as np

from claims import plotting
from claims.base import Claim, VerdictRow, alphas_of, beta_of
from claims.verdicts import fmt_slope, verdict
from analysis.sample_complexity import empirical_sample_complexity, sample_complexity_slope_paired
from ppm.semi_supervised.active import pool_size
from analysis.aggregate import ERROR_COL

STATEMENT = "active learner: label queries independent of epsilon"
EXPERIMENTS = ("c15_active_queries", "c15_generic_queries")
EPS, QUERIES = "learner.epsilon", "learner.n_queries"
ACTIVE, GL = "PrivateActiveLearner", "GenericLearner"
# (experiment, learner, column holding the number of labels read, theory slope, label)
SIDES = (("c15_active_queries", ACTIVE, QUERIES, 0.0,
          "private active learner (Alg. 4): label queries"),
         ("c15_generic_queries", GL, "n", -1.0, "GenericLearner at epsilon: labelled n"))


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
            n_A = int(trials["learner.n_A"].iloc[0])
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
                setting=f"{'active' if learner == ACTIVE else 'GenericLearner'}, "
                        f"epsilon={eps.min():g}..{eps.max():g}, alpha={alpha:g}",
                paper=("label queries of the active learner independent of epsilon "
                       "(002 Thm 5.8)" if learner == ACTIVE else
                       "a private semi-supervised learner at epsilon needs ~1/epsilon labels "
                       "(002 Thm 3.3, 5.6)"),
                measured=f"slope of log n_hat ({what}) vs log epsilon = {fmt_slope(fit)}; "
                         f"n_hat: {_values(by[by.alpha == alpha])}{pool}",
                theory=f"{theory:g}",
                verdict=verdict(fit["lo"], fit["hi"], fit["slope"], theory, theory,
                                fit["n_points"]),
                slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
                d=1, alpha=float(alpha), extra="active" if learner == ACTIVE else "generic"))
    return rows


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
            n_A = int(trials["learner.n_A"].iloc[0])
            grid = np.sort(trials[EPS].unique())
            ax.plot(grid, [pool_size(n_A, e) / 100 for e in grid], color="0.4", ls=":",
                    label=f"pool size / 100 (unlabelled, n_A = {n_A})")
    ticks = np.unique(eps_all) if eps_all else None
    plotting.log_axes(ax, ticks, "epsilon", plotting.nhat_label(beta, " (labels read)"))
    ax.set_title("slopes: " + plotting.fmt_values([(f"{r.extra} alpha={r.alpha:g}", r.slope)
                                                   for r in rows]), fontsize=8)
    plotting.legend_below(ax, 1)
    plotting.save(fig, out_dir, "c15_active",
                  "C15: label queries vs epsilon, private active learner vs GenericLearner")


CLAIM = Claim(id="C15", name="c15_active", statement=STATEMENT, experiments=EXPERIMENTS,
              analyse=analyse, plot=plot, headline={"alpha": 0.1})
