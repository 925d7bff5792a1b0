"""Rates weighed against their alternative: the rule of every counted slope row.

A counted row names the rate the claim predicts and the rate the paper argues against (e.g.
C1: Theorem 4.9's ``1/alpha`` against the agnostic ``1/alpha^2``). :func:`prediction_bands`
derives the bands of the two from the pair: each range widened by ``SLOPE_TOL`` on its far side
and by at most half the gap on the side facing the other, so the bands never overlap.
:func:`rate_verdict` says "holds" when the measured interval lies inside the prediction's band;
an interval meeting both bands is "inconclusive (cannot separate X from Y at this precision:
...)" with the half-width and the trials per cell that would separate them; overlapping
predictions cannot be separated at any precision. Censored cells enter the slopes as bounds
(``fit["direction"]``): a bound decides only on its own side. :func:`prediction_verdict` weighs
an interval against the two ranges themselves (C4's pooled ratio against the exact ``ln|G|``
and against 1). Before either rule, :func:`claims.rules.outcomes.interval_defect` turns away what
cannot be weighed.
"""

from __future__ import annotations

import math

import numpy as np

from claims.rules.outcomes import (FAILS, FASTER, HOLDS, MIN_POINTS, SLOPE_TOL, fit_defect,
                                   inconclusive, interval_defect)


def prediction_verdict(lo: float, hi: float, estimate: float, predicted: tuple,
                       alternative: tuple, names: tuple = ("the paper's", "the alternative"),
                       direction: str = "") -> str:
    """Verdict of an interval weighed against the claim's prediction and the alternative the
    paper argues against, each a closed range ``(lo, hi)`` (a point as ``(v, v)``).

    holds: the interval meets ``predicted`` and excludes ``alternative``; does not hold: it
    meets ``alternative`` and excludes ``predicted`` (or meets neither); inconclusive when it
    meets both ("cannot separate ... at this precision") or when the predictions themselves
    overlap (the design cannot separate them at any precision). ``direction`` ``"lower bound"``
    (censored cells: the truth is at or above the estimate) decides only what lies below the
    interval: a prediction entirely below ``lo`` is excluded, nothing above it is.
    """
    p_name, a_name = names
    defect = interval_defect(lo, hi, estimate)
    if defect:
        return defect
    if not (predicted[1] < alternative[0] or alternative[1] < predicted[0]):
        return inconclusive(f"{p_name} prediction and {a_name} overlap: the design cannot "
                             "separate them")
    if direction not in ("", "lower bound", "upper bound"):
        raise ValueError(f"direction must be '', 'lower bound' or 'upper bound', "
                         f"got {direction!r}")

    def meets(band):
        return band[0] <= hi and lo <= band[1]
    if direction == "lower bound":
        below = [n for n, b in ((p_name, predicted), (a_name, alternative)) if b[1] < lo]
        if p_name in below:
            return FAILS + f" (even as a lower bound: above {p_name} prediction)"
        return inconclusive(f"censored cells make the estimate a lower bound; it excludes "
                             f"{' and '.join(below) or 'neither prediction'} from below and "
                             "cannot confirm either")
    if direction == "upper bound":
        above = [n for n, b in ((p_name, predicted), (a_name, alternative)) if b[0] > hi]
        if p_name in above:
            return FAILS + f" (even as an upper bound: below {p_name} prediction)"
        return inconclusive(f"censored cells make the estimate an upper bound; it excludes "
                             f"{' and '.join(above) or 'neither prediction'} from above and "
                             "cannot confirm either")
    if meets(predicted) and not meets(alternative):
        return HOLDS
    if meets(alternative) and not meets(predicted):
        return FAILS + f" (consistent with {a_name}, not with {p_name} prediction)"
    if not meets(alternative) and not meets(predicted):
        side = "above" if lo > max(predicted[1], alternative[1]) else (
            "below" if hi < min(predicted[0], alternative[0]) else "between")
        return FAILS + f" (the interval lies {side} both predictions)"
    return inconclusive(f"cannot separate {p_name} prediction from {a_name} at this precision")


MIN_GAP = 0.01  # ranges closer than this (the slopes' printed precision) count as overlapping


def prediction_bands(predicted: tuple, alternative: tuple, tol: float = SLOPE_TOL):
    """The bands, in the x axis's units, of the claim's prediction and of the alternative it
    argues against, derived from the two: each range is widened by ``tol`` (what the grid and
    the analysis add to a rate) on its far side, and on the side facing the other by at most
    half the gap between them, so the two bands never overlap. ``None`` when the ranges
    themselves overlap or come closer than :data:`MIN_GAP` (no precision can separate them)."""
    p_lo, p_hi = (float(v) for v in predicted)
    a_lo, a_hi = (float(v) for v in alternative)
    if p_hi + MIN_GAP <= a_lo:
        m = min(tol, (a_lo - p_hi) / 2)
        return (p_lo - tol, p_hi + m), (a_lo - m, a_hi + tol)
    if a_hi + MIN_GAP <= p_lo:
        m = min(tol, (p_lo - a_hi) / 2)
        return (p_lo - m, p_hi + tol), (a_lo - tol, a_hi + m)
    return None


def fmt_band(band, digits: int = 2) -> str:
    lo, hi = band
    f = (lambda v: "inf" if v == math.inf else "-inf" if v == -math.inf
         else f"{v:.{digits}f}")
    return f"[{f(lo)}, {f(hi)}]"


def theory_with_alternative(predicted: tuple, alternative: tuple, names: tuple,
                            tol: float = SLOPE_TOL, digits: int = 2) -> str:
    """The theory column of a counted row: the prediction and the alternative, with bands."""
    bands = prediction_bands(predicted, alternative, tol)
    if bands is None:
        return (f"{names[0]} {fmt_band(predicted, digits)}; alternative {names[1]} "
                f"{fmt_band(alternative, digits)} (overlapping: not separable)")
    return (f"{names[0]} {fmt_band(predicted, digits)}, band {fmt_band(bands[0], digits)}; "
            f"alternative {names[1]} {fmt_band(alternative, digits)}, band "
            f"{fmt_band(bands[1], digits)}")


def _precision_needed(fit: dict, estimate: float, bands) -> str:
    """What would separate the bands: the half-width an interval about ``estimate`` needs to
    fit inside the band it lies in, the trials per cell that would give it (half-width ~
    1/sqrt(trials)) and whether the grid's own resolution already exceeds it."""
    lo, hi = fit["lo"], fit["hi"]
    half = max(hi - estimate, estimate - lo)
    edges = [e for b in bands for e in b if np.isfinite(e)]
    need = min(abs(estimate - e) for e in edges) if edges else math.nan
    if not (np.isfinite(need) and need > 0 and half > 0):
        return "the estimate sits on a band's edge: no precision separates them there"
    factor = (half / need) ** 2
    text = (f"half-width {half:.2g}, needs < {need:.2g}: about {math.ceil(factor)}x the "
            "trials per cell")
    r_lo, r_hi = fit.get("resolution", (math.nan, math.nan))
    if np.isfinite(r_lo) and (r_hi - r_lo) / 2 >= need:
        text += f" and a finer n grid (the grid alone spans +-{(r_hi - r_lo) / 2:.2g})"
    return text


def rate_verdict(fit: dict, predicted: tuple, alternative: tuple,
                 names: tuple = ("the paper's rate", "the alternative"),
                 worse: str = "", tol: float = SLOPE_TOL) -> str:
    """Verdict of a measured rate (``fit``: ``slope, lo, hi, n_points`` and optionally
    ``direction``, ``resolution``) weighed against the claim's prediction and the alternative
    it argues against, each a range ``(lo, hi)`` in the x axis's units (``inf`` allowed, e.g.
    ``(0, inf)`` for "grows"). The bands are :func:`prediction_bands`.

    holds: the interval lies inside the prediction's band (so it excludes the alternative's);
    does not hold: it lies inside the alternative's band, or outside both (for an upper-bound
    rate, ``worse`` = the side where a learner needing more samples lands, an interval
    entirely on the other side is :data:`FASTER`, counted only when it also excludes the
    alternative's band, else a breakdown row); inconclusive: it meets both bands
    ("cannot separate ... at this precision", with the half-width and the trials that would),
    crosses a band's outer edge, or the ranges overlap. Censored cells (``fit["direction"]``)
    make the estimate a bound: it decides only what it excludes (:func:`prediction_verdict`),
    and holds only when the prediction's band is open on the bound's side.
    """
    if worse not in ("", "above", "below"):
        raise ValueError(f"worse must be '', 'above' or 'below', got {worse!r}")
    p_name, a_name = names
    lo, hi, est = fit["lo"], fit["hi"], fit["slope"]
    n_points = fit.get("n_uncensored", fit.get("n_points", MIN_POINTS))
    defect = fit_defect(fit) or interval_defect(lo, hi, est, n_points)
    if defect:
        return defect
    bands = prediction_bands(predicted, alternative, tol)
    if bands is None:
        return inconclusive(f"{p_name} and {a_name} overlap: this design cannot separate them")
    band_p, band_a = bands
    direction = fit.get("direction", "") or ""
    if direction == "bound both ways":
        return inconclusive("censored cells on both sides: the estimate bounds nothing")

    def inside(b):
        return b[0] <= lo and hi <= b[1]

    def meets(b):
        return b[0] <= hi and lo <= b[1]
    if direction == "lower bound":
        if inside(band_p) and band_p[1] == math.inf:
            return HOLDS + " (as a lower bound)"
        if band_p[1] < lo:
            return (FASTER if worse == "below" else FAILS) + \
                f" (even as a lower bound: above {p_name})"
        return inconclusive(f"censored cells make the estimate a lower bound; its interval "
                             f"{fmt_band((lo, hi))} excludes "
                             f"{a_name if band_a[1] < lo else 'neither band'} from below and "
                             f"cannot confirm {p_name}")
    if direction == "upper bound":
        if inside(band_p) and band_p[0] == -math.inf:
            return HOLDS + " (as an upper bound)"
        if band_p[0] > hi:
            return (FASTER if worse == "above" else FAILS) + \
                f" (even as an upper bound: below {p_name})"
        return inconclusive(f"censored cells make the estimate an upper bound; its interval "
                             f"{fmt_band((lo, hi))} excludes "
                             f"{a_name if band_a[0] > hi else 'neither band'} from above and "
                             f"cannot confirm {p_name}")
    if inside(band_p):
        return HOLDS
    if worse:  # an upper-bound rate: entirely on the fast side of its band is a finding
        if (worse == "above" and hi < band_p[0]) or (worse == "below" and lo > band_p[1]):
            if meets(band_a):  # counted only when it could have failed: it must exclude a_name
                return (f"breakdown (not counted: faster than the worst case, but the interval "
                        f"{fmt_band((lo, hi))} meets {a_name}'s band {fmt_band(band_a)}: it "
                        f"could not have excluded it): {FASTER}")
            return FASTER
    if inside(band_a):
        return FAILS + f" (consistent with {a_name}, not with {p_name})"
    if not meets(band_p) and not meets(band_a):
        side = ("above" if lo > max(band_p[1], band_a[1]) else
                "below" if hi < min(band_p[0], band_a[0]) else "between")
        return FAILS + f" (the interval lies {side} both bands)"
    if meets(band_p) and meets(band_a):
        return inconclusive(f"cannot separate {p_name} from {a_name} at this precision: "
                             + _precision_needed(fit, est, bands))
    which = band_p if meets(band_p) else band_a
    return inconclusive(f"interval crosses an edge of "
                         f"{p_name if which is band_p else a_name}'s band {fmt_band(which)}: "
                         + _precision_needed(fit, est, bands))
