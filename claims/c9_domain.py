"""C9 (Section 1): fully private learning pays for the domain size; PPM does not.

``c9_domain`` (d = 1 grid of T points, T = 4 .. 2^20): per alpha, the slope of ``log n_hat``
against ``log T``. PPM's must be 0 (interval meets 0); the fully private exponential mechanism
over the 2T grid thresholds must grow (interval above 0; its theory ``n ~ ln(2T) + ln(1/beta)``).

d = 2 (from C12's ``c12_grid_halfplanes``, halfplanes on ``{0..T}^2``): the same test against
the published fully private learner, KMMS19's Set Cover Learner with exact Select Halfplane
(``(eps, delta)``-DP for all examples; PPM is pure eps-DP for the private examples only).

Rules (:func:`claims.rules.predictions.rate_verdict`; censored cells enter as bounds). Per alpha two
counted rows, each naming its alternative:

* PPM flat: prediction 0, alternative the fully private learner's ``ln T`` slope over the
  measured ``T`` (``~0.09-0.10`` here, so PPM's band is ``[-0.25, th/2]``, not +-0.25: a "flat"
  interval that reaches the fully private slope cannot separate the two); and "holds" only when
  the fully private learner's own measured interval clears that band (else the row is
  inconclusive: flatness shows no contrast when the comparator is flat too);
* the contrast, paired (:func:`analysis.slopes.slope_difference_paired`, both learners on the
  same samples): ``slope(PPM) - slope(fully private)``, prediction ``-th`` (the fully private
  slope's range, from ``ln(2T) + ln(1/beta)`` to pure ``ln T``), alternative 0 (PPM pays for
  the domain as the fully private learner does).

One fact, one row (:func:`one_fact`): the two rows of one alpha read the same trials, so the
paired contrast counts and the PPM-flat row is a breakdown; the d = 2 rows read C12's
``c12_grid_halfplanes`` trials, which C12 counts, so they are breakdowns here. The fully private
learner's ``n_hat`` grows only 64 -> 88 over ``T`` = 16 .. 2^20, below its own theory, so at
alpha 0.1 neither flatness nor the contrast separates: an inconclusive contrast names the design
that would decide it (:data:`DECIDING_DESIGN`).

Provenance: ``statistic`` ``loglog_slope_T`` (PPM flat) and ``paired_slope_difference_T`` (the
contrast); ``trials`` ``c9_domain`` at d = 1 and C12's ``c12_grid_halfplanes`` at d = 2. Every
alpha is read off the same trials, so the d = 1 contrasts of all alphas are counted once, as one
joint row (:func:`claims.rules.accounting.one_per_trial_set`: it holds only when every alpha's
contrast holds).
"""

from __future__ import annotations

import math

import numpy as np

from analysis.set_cover_privacy import privacy_note
from claims.rules.accounting import breakdown
from claims.reporting import grid_halfplanes, plotting
from claims.base import Claim, VerdictRow, alphas_of, beta_of, first, trial_set
from claims.rules.predictions import (fmt_band, prediction_bands, rate_verdict,
                                      theory_with_alternative)
from claims.rules.verdicts import counted, fmt_slope
from ppm import bounds
from analysis.sample_complexity import loglog_slope
from analysis.slopes import sample_complexity_slope_against, slope_difference_paired
from analysis.aggregate import ERROR_COL
from experiments.columns import EPSILON, ERM, FULLY_PRIVATE, PPM, SET_COVER, T

STATEMENT = "fully private learning pays for the domain; PPM does not"
LEARNERS = ((PPM, "-"), (FULLY_PRIVATE, "--"), (ERM, "-."))
CLAIM_HEADLINE_ALPHA = 0.1
EXPERIMENT = "c9_domain"
D2_EXPERIMENT = "c12_grid_halfplanes"  # C12's trials, read here at d = 2 (C12 counts them)
# What each row computes (VerdictRow.statistic): PPM's slope of log n_hat against log T, and the
# paired difference of PPM's and the fully private learner's slopes on the same samples. Every
# alpha is read off the same trials (those of EXPERIMENT at d = 1, C12's at d = 2).
FLAT_STAT = "loglog_slope_T"
CONTRAST_STAT = "paired_slope_difference_T"


def _em_shape(Ts, alpha, beta, eps):
    """EM over the 2T thresholds of the grid: n ~ (ln(2T) + ln(1/beta)) / (eps alpha)."""
    return (np.log(2 * Ts) + math.log(1 / beta)) / (eps * alpha)


def _ln_t_range(Ts, beta, extra=0.0) -> tuple:
    """The fully private learner's slope against ``log T`` over the measured ``T``: from its
    shape ``ln(2T) + ln(1/beta)`` (+ ``extra``, Lemma 4.6's other constants) to pure ``ln T``."""
    lo = loglog_slope(Ts, np.log(2 * Ts) + math.log(1 / beta) + extra)[0]
    hi = loglog_slope(Ts, np.log(Ts))[0]
    return (min(lo, hi), max(lo, hi))


def _rows(claim, trials, pp, fp, th, alpha, beta, n_boot, setting, fp_name, ppm_label,
          fp_label, cols, cells="") -> list[VerdictRow]:
    """The two counted rows of one alpha: PPM flat, and the paired contrast; ``cells``: the
    trials both read (:func:`claims.base.trial_set`)."""
    paper = "fully private learning pays for the domain (Omega(log T)); PPM does not"
    flat = rate_verdict(pp, (0.0, 0.0), th, ("PPM flat", f"{fp_name}'s ln T"))
    band_p = prediction_bands((0.0, 0.0), th)[0]
    if flat.startswith("holds") and not (np.isfinite(fp["lo"]) and fp["lo"] > band_p[1]):
        # the comparator's own measured slope is not separated from flat: PPM's flatness
        # shows no contrast here (the paired row decides)
        flat = (f"inconclusive (PPM is flat, but {fp_name}'s own slope {fmt_slope(fp, 3)} "
                f"does not clear PPM's band {fmt_band(band_p, 3)} either: the paired contrast "
                "decides)")
    diff = slope_difference_paired(trials, T, ppm_label, fp_label, alpha, beta,
                                   error_col=ERROR_COL, n_boot=n_boot)
    pred = (-th[1], -th[0])
    contrast = rate_verdict(diff, pred, (0.0, 0.0),
                            (f"PPM minus {fp_name} = -(ln T slope)", "no contrast (0)"))
    bound = f" ({diff['direction']})" if diff.get("direction") else ""
    return [
        VerdictRow(
            claim=claim, figure="c9_domain", setting=setting + ", PPM flat", paper=paper,
            measured=f"slope of log n_hat vs log T: PPM {fmt_slope(pp, 3)}, "
                     f"{fp_name} {fmt_slope(fp, 3)}",
            theory=theory_with_alternative((0.0, 0.0), th, ("PPM 0", f"{fp_name} ln T"),
                                           digits=3),
            verdict=flat, statistic=FLAT_STAT, trials=cells,
            slope=pp["slope"], slope_lo=pp["lo"], slope_hi=pp["hi"], **cols),
        VerdictRow(
            claim=claim, figure="c9_domain", setting=setting + ", paired contrast",
            paper=paper,
            measured=f"slope(PPM) - slope({fp_name}), same samples, paired bootstrap: "
                     f"{fmt_slope(diff, 3)}{bound}",
            theory=theory_with_alternative(pred, (0.0, 0.0), ("-(ln T slope)",
                                                              "no contrast 0"), digits=3),
            verdict=contrast, statistic=CONTRAST_STAT, trials=cells,
            slope=diff["slope"], slope_lo=diff["lo"], slope_hi=diff["hi"],
            **{**cols, "extra": cols.get("extra", "") + ", paired contrast"}),
    ]


def analyse(results) -> list[VerdictRow]:
    data = results.load(EXPERIMENT)
    if data is None:
        return []
    trials, nhat = data
    beta = beta_of(nhat)
    Ts = np.sort(trials[T].unique()).astype(float)
    eps = first(trials[trials.learner == PPM], EPSILON)
    rows = []
    for alpha in alphas_of(nhat):
        fp, pp = (sample_complexity_slope_against(trials[trials.learner == lrn], T, alpha, beta,
                                                  error_col=ERROR_COL, n_boot=results.n_boot)
                  for lrn in (FULLY_PRIVATE, PPM))
        th = _ln_t_range(Ts, beta)
        setting = (f"d=1 grid, T={int(Ts.min())}..{int(Ts.max())}, epsilon={eps:g}, "
                   f"alpha={alpha:g}")
        rows += _rows("C9", trials, pp, fp, th, alpha, beta, results.n_boot, setting,
                      "fully private EM", PPM, FULLY_PRIVATE,
                      dict(d=1, epsilon=eps, alpha=float(alpha),
                           extra=f"T {int(Ts.min())}..{int(Ts.max())}"),
                      trial_set(EXPERIMENT))
    return one_fact(rows) + _d2_rows(results)


def one_fact(rows: list[VerdictRow]) -> list[VerdictRow]:
    """One fact, one row (:mod:`claims.rules.accounting`): per alpha the paired contrast counts (it
    reads both learners on the same samples: the claim's "pays / does not pay"); the PPM-flat
    row reads the same trials and is a breakdown. An inconclusive contrast names the design
    that would decide it (:data:`DECIDING_DESIGN`)."""
    for r in rows:
        if r.extra.endswith("paired contrast"):
            if r.verdict.startswith("inconclusive"):
                r.theory += "; " + DECIDING_DESIGN
        elif counted(r.verdict):
            r.verdict = breakdown("the paired contrast on the same trials is this alpha's "
                                  "counted row", r.verdict)
    return rows


# The d = 1 fully private learner's n_hat grows only 64 -> 88 over T = 16 .. 2^20 here, below its
# own theory, so no precision separates flat from ln T: the design that would decide it.
DECIDING_DESIGN = (
    "design that would decide: the plateau population of C13 on this grid (every threshold but "
    "the target errs by 0.15, so the exponential mechanism's ln(2T) tail sets the fully private "
    "n_hat: slope ~0.7 against log b in C13), PPM and fully private EM paired on 160 trials per "
    "cell over the same 10 T: about 0.5 CPU-hours (C13's plateau sweep, 160 trials x 8 b, takes "
    "about 6 CPU-minutes of fits)")


def _d2_rows(results) -> list[VerdictRow]:
    """d = 2: PPM vs the published fully private learner (KMMS19) on C12's samples."""
    data = results.load(D2_EXPERIMENT)
    if data is None:
        return []
    trials, nhat = data
    beta = beta_of(nhat)
    Ts = np.sort(trials[T].unique()).astype(float)
    priv = privacy_note(trials)
    rows = []
    for alpha in alphas_of(nhat):
        sc, pp = (sample_complexity_slope_against(trials[trials.learner == lrn], T, alpha, beta,
                                                  error_col=ERROR_COL, n_boot=results.n_boot)
                  for lrn in (SET_COVER, PPM))
        th = _ln_t_range(Ts, beta)
        setting = (f"d=2 grid {{0..T}}^2, T={int(Ts.min())}..{int(Ts.max())}, halfplane "
                   f"target, PPM epsilon={priv['ppm_epsilon']:g} vs Set Cover Learner "
                   f"({priv['text']}), alpha={alpha:g}")
        rows += _rows("C9", trials, pp, sc, th, alpha, beta, results.n_boot, setting,
                      "Set Cover Learner", PPM, SET_COVER,
                      dict(d=2, epsilon=priv["ppm_epsilon"], alpha=float(alpha),
                           extra=f"d=2 vs Set Cover Learner; T {int(Ts.min())}..{int(Ts.max())}"),
                      trial_set(D2_EXPERIMENT))
    for r in rows:  # one fact, one row: C12 counts these trials
        if counted(r.verdict):
            r.verdict = breakdown(f"the {D2_EXPERIMENT} trials, which C12 counts", r.verdict)
    return rows


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    trials, nhat = results.load(EXPERIMENT)
    beta = beta_of(nhat)
    Ts = np.sort(trials[T].unique()).astype(float)
    eps = first(trials[trials.learner == PPM], EPSILON)
    d2 = results.load(D2_EXPERIMENT) is not None
    fig, axes = plotting.panels(2 if d2 else 1, 7.4, 6.8)
    ax = axes[0]
    for i, alpha in enumerate(alphas_of(nhat)):
        for learner, ls in LEARNERS:
            sub = nhat[(nhat.learner == learner) & (nhat.alpha == alpha)].sort_values(T)
            if sub.empty:
                continue
            style, label = plotting.style_and_label(learner, f", alpha = {alpha:g}",
                                                    color=f"C{i}", ls=ls)
            plotting.draw_nhat(ax, sub[T], sub, float(trials["n"].max()), style, label)
            ok = plotting.uncensored(sub)
            if learner == FULLY_PRIVATE and ok.any():
                shape = _em_shape(Ts, alpha, beta, eps)
                c = bounds.fit_shape_constant(sub["n_hat"].to_numpy()[ok],
                                              shape[np.isin(Ts, sub[T].to_numpy()[ok])])
                ax.plot(Ts, c * shape, color=f"C{i}", ls=":", lw=1,
                        label=f"(ln 2T + ln 1/beta)/(eps alpha) fitted, alpha = {alpha:g}")
    import matplotlib.ticker

    # the measured T as ticks, at most 8 labels (2^k): none collide however narrow the panel
    shown = Ts[::max(1, math.ceil(len(Ts) / 8))]
    plotting.log_axes(ax, None, "grid points T (d = 1 domain)", plotting.nhat_label(beta),
                      base=2)
    ax.set_xticks(shown, [f"$2^{{{math.log2(t):g}}}$" for t in shown])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_title(f"d = 1, epsilon = {eps:g}\n" + "; ".join(r.measured.split(": ", 1)[1]
                                                            for r in rows[:1]), fontsize=8)
    plotting.legend_below(ax)
    if d2:
        text = grid_halfplanes.draw_panel(axes[1], results)
        r2 = ([r for r in rows if r.d == 2 and r.alpha == CLAIM_HEADLINE_ALPHA]
              or [r for r in rows if r.d == 2])[:1]
        axes[1].set_title(f"d = 2 vs the published fully private learner (KMMS19)\n"
                          f"Set Cover Learner: {text}\nPPM: pure eps-DP, private "
                          f"examples only\n" + "; ".join(r.measured.split(": ", 1)[1]
                                                         for r in r2), fontsize=7)
    plotting.save(fig, out_dir, "c9_domain", "C9: domain size, fully private vs PPM")


CLAIM = Claim(id="C9", name="c9_domain", statement=STATEMENT, experiments=(EXPERIMENT,),
              analyse=analyse, plot=plot, headline={"alpha": CLAIM_HEADLINE_ALPHA})
