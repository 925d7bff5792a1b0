"""C8 (Section 4.3): the construction survives the two relaxations of the privacy model.

Relaxation (i), ``c8_eta``: privacy is only correlated with the label (flip probability eta).
Relaxation (ii), ``c8_label_mix``: public examples carry both labels. At the largest n, PPM's
mean error at each relaxation level minus its mean error at level 0 (trial-matched, 95%
intervals) must stay within ``TOL``: "essentially the same accuracy" holds when the interval's
upper end is at most ``TOL`` (so a noisier measurement can only make "holds" harder; the old
rule, point estimate within ``max(TOL, 3 se)``, let more noise pass more easily), does not hold
when its lower end is above ``TOL``, and is inconclusive otherwise. Intervals are never narrower
than the test sample's resolution ``1 / n_test`` (:func:`claims.verdicts.mean_ci`).

Provenance: ``statistic`` ``paired_error_difference``; ``trials`` the relaxation's experiment at
its largest n (``c8_eta[n=256]``): the two rows share no trial.
"""

from __future__ import annotations


import numpy as np

from claims import plotting
from claims.base import Claim, VerdictRow, trial_set
from claims.verdicts import error_resolution, mean_ci
from experiments.columns import D, ERM, ETA, PPM, PUBLIC_POS_RATE

STATEMENT = "the construction survives the two relaxations"
TOL = 0.02  # "essentially the same accuracy": the interval's upper end within 2 points of error
# What each row computes (VerdictRow.statistic): the trial-matched difference of PPM's mean
# error at a relaxation level and at level 0, at the largest n only (the row's trials are that
# experiment's cells at that n).
STATISTIC = "paired_error_difference"
RELAXATIONS = (  # experiment, swept column, name, the paper's sentence, axis label
    ("c8_eta", ETA, "relaxation (i)",
     "same construction, essentially the same accuracy when privacy is only correlated with "
     "the label", "relaxation (i): flip probability eta"),
    ("c8_label_mix", PUBLIC_POS_RATE, "relaxation (ii)",
     "same construction and analysis when public examples carry both labels",
     "relaxation (ii): fraction of label 1 among public examples"),
)


def _row(trials, x_col, name, paper, exp="") -> VerdictRow:
    """The row of one relaxation; ``exp``: the experiment the trials come from."""
    n = int(trials["n"].max())
    ppm = trials[(trials.learner == PPM) & (trials.n == n)]
    x0 = ppm[x_col].min()
    base = ppm[ppm[x_col] == x0].set_index("trial")["error"]
    worst, worst_x, parts, ok_all, caveat_ok, fails, no_ci = -np.inf, None, [], True, True, \
        False, False
    res = error_resolution(ppm)
    for x, g in ppm[ppm[x_col] != x0].groupby(x_col):
        # independent samples per cell (the seed hashes the population): the differences of
        # trial-matched pairs are i.i.d. with the variance of a difference of two means
        m, lo, hi = mean_ci((g.set_index("trial")["error"] - base).dropna(), resolution=res)
        parts.append(f"{x:g}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}]")
        no_ci |= not np.isfinite(hi)
        ok_all &= bool(np.isfinite(hi) and hi <= TOL)
        fails |= bool(np.isfinite(lo) and lo > TOL)
        caveat_ok &= bool(np.isfinite(hi) and hi <= max(float(x), TOL))
        if m > worst:
            worst, worst_x = m, x
    d = int(trials[D].iloc[0])
    return VerdictRow(
        claim="C8", figure="c8_relaxations", setting=f"{name}, d={d}, n={n}", paper=paper,
        measured=f"PPM mean error minus mean error at {x_col.split('.')[-1]} = 0: "
                 + "; ".join(parts),
        theory=f"small change: the interval's upper end <= {TOL:g} (alternative: the "
               f"error grows by more than {TOL:g})",
        verdict=("inconclusive (no interval: no spread and no resolution)" if no_ci else
                 "holds" if ok_all else
                 "does not hold (an interval lies entirely above "
                 f"{TOL:g})" if fails else
                 f"holds with caveat: error grows by up to {worst:.3f} (at {worst_x:g}), "
                 "the interval within the relaxation level" if caveat_ok else
                 f"inconclusive (an interval reaches above {TOL:g}: more trials would decide)"),
        statistic=STATISTIC, trials=trial_set((exp, {"n": n})) if exp else "",
        d=d, extra=name)


def analyse(results) -> list[VerdictRow]:
    return [_row(data[0], x_col, name, paper, exp)
            for exp, x_col, name, paper, _ in RELAXATIONS
            if (data := results.load(exp)) is not None]


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    present = [(results.load(exp)[0], x_col, xlabel)
               for exp, x_col, _, _, xlabel in RELAXATIONS if results.load(exp) is not None]
    fig, axes = plotting.panels(len(present), 6.4, 6.0)
    for ax, (trials, x_col, xlabel), row in zip(axes, present, rows):
        plotting.error_panel(ax, trials, x_col, xlabel, [PPM, ERM])
        ax.set_title(f"{row.setting}: {row.verdict}", fontsize=9)
    plotting.save(fig, out_dir, "c8_relaxations",
                  "C8: the relaxations of the label-determined privacy model")


CLAIM = Claim(id="C8", name="c8_relaxations", statement=STATEMENT,
              experiments=("c8_eta", "c8_label_mix"), analyse=analyse, plot=plot,
              committed=("c8_eta", "c8_label_mix"))
