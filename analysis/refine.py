"""A design aid: which n values and how many trials per cell would make a slope conclusive.

For a counted row that is still inconclusive, the verdict says how narrow its interval must be
(``claims.rules.predictions``: "half-width h, needs < h*"). A log-log slope over cells ``x_i`` with
independent per-cell readings has ``var(slope) = sum_i w_i^2 var(log n_hat_i)``, ``w_i =
(log x_i - mean) / S_xx``; with the same variance ``v`` in every cell that is ``v / S_xx``, so
the slope's half-width ``1.96 sqrt(v / S_xx)`` falls under ``h*`` once every cell's
``var(log n_hat) <= S_xx (h* / 1.96)^2`` (:func:`cell_variance_needed`). Each cell's variance
at a proposed design (the cells of its fitted window plus the n at which its fitted curve
passes 0.75, 0.9 and 0.97: :func:`proposed_ns`) is measured by simulation from the cell's
fitted curve (:func:`simulated_log_sd`, the fitted reading of :mod:`analysis.dose_response`
applied to binomial draws), and the smallest trials per cell that meets the target is
:func:`trials_needed`. Shared samples make the true slope variance smaller than the
independent-cells formula (a paired design cancels common noise), so the advice errs on the
side of more trials.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from analysis.dose_response import fisher_scoring, pava, read_curves, separated, window_of

__all__ = ["fitted_curve", "proposed_ns", "simulated_log_sd", "cell_variance_needed",
           "trials_needed", "TRIAL_STEPS"]

# Trials per cell tried, in order (a sweep's trials are one setting for every cell of it).
TRIAL_STEPS = (40, 60, 100, 150, 200, 300, 400, 600, 800, 1200, 1600)
Z = norm.ppf(0.975)


def fitted_curve(ns, k, t, target):
    """``(b0, b1)`` of the probit in ``log n`` through the curve's window, or ``None`` when the
    curve is censored, separated or has no increasing fit (its design cannot be simulated from
    a fitted curve: the caller says so)."""
    ns, k, t = (np.asarray(v, dtype=float) for v in (ns, k, t))
    lo, hi, cens = window_of(pava(k, t), target)
    x = np.log(ns)
    if cens or separated(x[lo:hi], k[lo:hi], t[lo:hi]):
        return None
    b0, b1, ok = fisher_scoring(x[None, lo:hi], k[None, lo:hi], t[None, lo:hi],
                                np.ones((1, hi - lo)))
    if not ok[0] or not b1[0] > 0:
        return None
    return float(b0[0]), float(b1[0])


def proposed_ns(ns, curve, target) -> np.ndarray:
    """The window's cells of ``ns`` around the fitted crossing and the n at which the fitted
    curve passes 0.75, ``target`` and 0.97 (rounded to the grid of ``2^(j/4)``; never beyond
    4x the last cell)."""
    b0, b1 = curve
    ed = [math.exp((norm.ppf(p) - b0) / b1) for p in (0.75, target, 0.97)]
    lo, hi = min(ed) / 1.5, max(ed) * 1.5
    ns = np.asarray(ns, dtype=float)
    near = ns[(ns >= lo) & (ns <= hi)]
    # on the 2^(j/4) grid, so that the cells of one sweep (one n list for all) share them
    new = np.round(2.0 ** (np.round(4 * np.log2(np.clip(ed, 2, 4 * ns[-1]))) / 4))
    return np.unique(np.concatenate([near, new])).astype(float)


def simulated_log_sd(ns, curve, trials, target, datasets=300, seed=0) -> float:
    """The sd of the fitted ``log n_hat`` over ``datasets`` binomial data sets drawn from the
    fitted probit ``curve`` at the cells ``ns`` with ``trials`` each (censored reads at the
    grid's edge count as they would in a statistic)."""
    rng = np.random.default_rng(seed)
    b0, b1 = curve
    ns = np.asarray(ns, dtype=float)
    p = norm.cdf(b0 + b1 * np.log(ns))
    t = np.full(ns.size, float(trials))
    curves = [(ns, rng.binomial(trials, p).astype(float), t) for _ in range(datasets)]
    v = read_curves(curves, target, rng=rng).value
    v = v[np.isfinite(v)]
    return float(np.std(np.log(v), ddof=1)) if v.size > 2 else math.nan


def cell_variance_needed(xs, half_width) -> float:
    """The per-cell ``var(log n_hat)`` under which a least-squares log-log slope over the
    ``xs`` has a 95% half-width below ``half_width`` (independent cells, equal variances)."""
    lx = np.log(np.asarray(xs, dtype=float))
    sxx = float(np.sum((lx - lx.mean()) ** 2))
    return sxx * (half_width / Z) ** 2


def trials_needed(ns, curve, target, var_needed, seed=0) -> tuple[int | None, float]:
    """The smallest of :data:`TRIAL_STEPS` whose simulated ``var(log n_hat)`` at ``ns`` is at
    most ``var_needed``, with that variance; ``(None, var at the largest step)`` if none is."""
    var = math.nan
    for t in TRIAL_STEPS:
        var = simulated_log_sd(ns, curve, t, target, seed=seed) ** 2
        if var <= var_needed:
            return t, var
    return None, var
