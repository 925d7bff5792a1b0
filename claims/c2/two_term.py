"""C2's counted two-term row: ``n_hat(alpha) = A/alpha^2 + B/alpha`` on the hard family (Thm 4.10).

Where both terms of Theorem 4.10's ``A/alpha^2 + B/(epsilon alpha)`` weigh (the larger alphas at
epsilon 1), the pure log-log slope is a breakdown and this row is counted: the two terms fitted
(A, B >= 0) and the local slope ``1 + share`` read at the smallest alpha
(:func:`analysis.floor_slope.two_term_family`), weighed against the theorem's 1/alpha^2 term and
the alternative ``A = 0`` (docs/claims/c2_agnostic.md).
"""

from __future__ import annotations

import math

import numpy as np

from analysis.aggregate import ERROR_COL
from analysis.floor_slope import two_term_family, two_term_share
from claims.base import VerdictRow
from claims.rules.outcomes import fit_defect, inconclusive, interval_defect
from claims.rules.predictions import rate_verdict, theory_with_alternative
from claims.rules.verdicts import fmt_slope
from experiments.columns import ALPHA_TARGET

ALTERNATIVE = (1.0, 1.0)  # the alternative slope: 1/(epsilon alpha) alone
TWO_TERM_PREDICTED = (1.5, 2.0)
TWO_TERM_NAMES = ("Thm 4.10's 1/alpha^2 term", "1/alpha alone (A = 0)")
TWO_TERM_STAT = "two_term_local_slope"


def censored_text(fit) -> str:
    frac = fit.get("censored_frac", math.nan)
    return (f"; censored in {frac:.1%} of bootstrap cells (entered at the grid's edge)"
            if frac > 0 else "")


def two_term_verdict(local: dict, misfit: dict) -> str:
    """The counted two-term row's rule (docs/claims/c2_agnostic.md): a defect of either
    interval, or a misfit interval that excludes 0 (the model does not bend as the data do
    where the statistic is read), is inconclusive; otherwise the local slope ``1 + share`` is
    weighed by :func:`claims.rules.predictions.rate_verdict` against :data:`TWO_TERM_PREDICTED`
    and the alternative ``A = 0`` (slope 1)."""
    for fit in (local, misfit):
        defect = fit_defect(fit) or interval_defect(fit["lo"], fit["hi"], fit["slope"],
                                                    fit.get("n_points"))
        if defect:
            return defect
    if (misfit.get("direction") or "") == "" and not misfit["lo"] <= 0.0 <= misfit["hi"]:
        return inconclusive(f"the two-term model does not fit: measured minus fitted slope "
                             f"{fmt_slope(misfit)} excludes 0")
    return rate_verdict(local, TWO_TERM_PREDICTED, ALTERNATIVE, TWO_TERM_NAMES)


def two_term_row(g, beta, eps, d, w_pub, c, regime, n_boot, cells="") -> VerdictRow:
    """The counted row of a range where both terms of Theorem 4.10 weigh: ``n_hat(alpha) =
    A/alpha^2 + B/alpha`` fitted (A, B >= 0) and read at the smallest alpha
    (:func:`analysis.floor_slope.two_term_family`); ``cells``: the trials it reads
    (:func:`family_trial_set`)."""
    res = two_term_family(g, ALPHA_TARGET, beta, error_col=ERROR_COL, n_boot=n_boot)
    setting = (f"hard family (margin 1/2 -+ {c:g} alpha, one population per alpha), d={d}, "
               f"w_pub={w_pub:g}, epsilon={eps:g}, {regime}, two-term fit")
    base = dict(claim="C2", figure="c2_agnostic", setting=setting,
                paper="n ~ A/alpha^2 + B/(epsilon alpha) (Thm 4.10): the agnostic term "
                      "A/alpha^2 is present (A > 0) beside the privacy term",
                theory=theory_with_alternative(TWO_TERM_PREDICTED, ALTERNATIVE,
                                               TWO_TERM_NAMES)
                + " (local slope 1 + the 1/alpha^2 term's share at the smallest alpha; Thm "
                  "4.10's constants give 1 + epsilon/(epsilon + alpha))",
                d=d, epsilon=float(eps), w_pub=w_pub, extra=f"hard family, {regime}, two-term",
                statistic=TWO_TERM_STAT, trials=cells)
    local, misfit = res.get("local"), res.get("misfit")
    if local is None:
        return VerdictRow(measured=f"{res['alphas'].size} alphas: the two-term fit needs 3",
                          verdict=inconclusive("fewer than 3 alphas for a two-term fit"),
                          **base)
    a = np.sort(res["alphas"])
    share = two_term_share(res["A"], res["B"], a[0])
    measured = (f"two-term fit n_hat = A/alpha^2 + B/alpha: A = {res['A']:.3g}, "
                f"B = {res['B']:.3g}; the 1/alpha^2 term's share at alpha={a[0]:g} = "
                f"{share:.2f}: local slope 1 + share = {fmt_slope(local)} "
                f"({local['n_points']} uncensored alphas{censored_text(local)}); measured "
                f"minus fitted slope over alpha {a[0]:g}..{a[1]:g} = {fmt_slope(misfit)}")
    return VerdictRow(measured=measured, verdict=two_term_verdict(local, misfit),
                      slope=local["slope"], slope_lo=local["lo"], slope_hi=local["hi"], **base)


# ------------------------------------------------------------------------ smooth population
