"""The verdict rules and interval statistics every claim uses, and the verdict table's rules.

Slope claims (C1-C5, C9): the bootstrap interval ``[lo, hi]`` of a measured log-log slope
(docs/model.md §5) is compared with the theory's range ``[theory_lo, theory_hi]`` widened by the
equivalence margin :data:`SLOPE_TOL` (:func:`verdict`, two-sided):

- *holds*: the whole interval lies inside ``[theory_lo - SLOPE_TOL, theory_hi + SLOPE_TOL]``;
- *does not hold*: the whole interval lies outside that band (above it or below it);
- *inconclusive*: the interval crosses an edge of the band (or is wider than the band), or
  fewer than :data:`MIN_POINTS` uncensored points carry the slope.

So a wider interval can only move a verdict toward "inconclusive": imprecision never makes
"holds" (nor "does not hold") easier. Nor can spurious precision: every ``n_hat`` is read on a
grid of sample sizes, which cannot place it more finely than between two grid points, so the
slope intervals of :mod:`analysis.sample_complexity` carry that resolution (each bootstrap
replicate draws ``n_hat`` within its bracket, and the interval is widened to the grid's own
spread); an interval of zero width (which no measurement on a grid can give: it comes from a
rule that lost the resolution) is reported "inconclusive", never "holds". The theorems are upper bounds: :func:`upper_bound_verdict`
reports an interval entirely on the fast side of the band as the finding "faster than the worst
case on this population", never as a form of "holds", and one on the slow side as "does not
hold". Error claims (C8, C10, real data): differences of mean errors with Student t intervals
over trials (:func:`mean_ci`). :func:`combined_verdict` joins the settings of a claim: it is
"inconclusive" unless most settings are conclusive, and always says the counts.

Rates weighed against their alternative (:func:`rate_verdict`, the rule of every counted slope
row): the row names the rate the claim argues against, and the bands of the prediction and of
the alternative are derived from the two (:func:`prediction_bands`: each range widened by
``SLOPE_TOL`` on its far side, by at most half the gap on the side facing the other). "holds"
needs the interval inside the prediction's band; an interval meeting both bands is
"inconclusive (cannot separate X from Y at this precision: ...)" with the half-width and the
trials per cell that would separate them; overlapping predictions cannot be separated at any
precision. Censored cells enter the slopes as bounds (``fit["direction"]``): a bound decides only
on its own side. :func:`verdict` and :func:`upper_bound_verdict` remain for rows that have no
alternative (references, checks) and for C4.

What is counted: each distinct measurement once. Rows that read the same trials at two targets
alpha whose crossings fall in the same grid brackets everywhere are one measurement
(:func:`mark_same_measurement`: the later ones are shown, not counted). Built-in checks (a
property that can fail only through a bug, e.g. an exact count or a bound every sample must
satisfy) are not settings: :func:`check_verdict` reports "check: passed" or "check: FAILED",
outside the counts, and a failed check makes the claim's combined verdict start with
"CHECK FAILED".
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

LEVEL = 0.95  # two-sided level of every interval
# Equivalence margin of a slope verdict, in units of the log-log slope. The claims separate
# exponents that differ by 1/2 or more (C2: 2 vs the 3/2 of the smooth, cube-root regime and 1
# of the 1/(epsilon alpha) regime; C1/C3: 1 vs 2 or 0; C5/C9: 0 vs 1/2 and more), so a margin of
# 1/4 keeps the bands of competing exponents apart; it also covers what the analysis adds to
# the rate, n_hat read on a grid of powers of 2 and interpolated (about +-0.1 over the 1-2
# decades of alpha we fit). A smaller margin would need more than the 40-100 trials per cell
# (bootstrap half-widths are 0.1-0.3 there); a larger one would let 3/2 pass for 2.
SLOPE_TOL = 0.25
MIN_POINTS = 3  # a slope through fewer uncensored points has no bootstrap worth the name
# Kept for the modules that still print normal intervals (C8); new code uses mean_ci (t).
Z95 = float(stats.norm.ppf(0.5 + LEVEL / 2))

HOLDS = "holds"
FAILS = "does not hold"
FASTER = "faster than the worst case on this population"
NOT_MEASURED = "not measured"
# Rows that are shown but not counted in a claim's combined verdict: non-private baselines
# ("reference ...") and the per-setting parts of a pooled estimate ("breakdown ...", C4),
# whose own row carries the verdict.
NOT_COUNTED = ("reference", "breakdown", "check", "same measurement")
CHECK_PASSED = "check: passed"
CHECK_FAILED = "check: FAILED"


def counted(verdict) -> bool:
    """Whether a setting's verdict counts in :func:`combined_verdict`."""
    return not str(verdict).startswith(NOT_COUNTED)


def _inconclusive(reason: str) -> str:
    return f"inconclusive ({reason})"


def slope_band(theory_lo: float, theory_hi: float, tol: float = SLOPE_TOL) -> tuple[float, float]:
    """The equivalence band a slope interval must lie in for "holds"."""
    return theory_lo - tol, theory_hi + tol


def _side(lo: float, hi: float, slope: float, theory_lo: float, theory_hi: float,
          n_points: int) -> str:
    """"inside", "above", "below" (of the band) or an inconclusive / not-measured verdict."""
    if not np.isfinite(slope):
        return NOT_MEASURED
    if n_points < MIN_POINTS:
        return _inconclusive(f"{n_points} uncensored points, fewer than {MIN_POINTS}")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return _inconclusive("no bootstrap interval")
    if hi - lo <= 1e-9 * max(1.0, abs(slope)):
        return _inconclusive("zero-width interval, narrower than the grid's resolution")
    band_lo, band_hi = slope_band(theory_lo, theory_hi)
    if band_lo <= lo and hi <= band_hi:
        return "inside"
    if lo > band_hi:
        return "above"
    if hi < band_lo:
        return "below"
    if hi - lo > band_hi - band_lo:
        return _inconclusive(f"interval wider than theory +- {SLOPE_TOL:g}")
    return _inconclusive(f"interval crosses theory +- {SLOPE_TOL:g}")


def verdict(lo: float, hi: float, slope: float, theory_lo: float, theory_hi: float,
            n_points: int) -> str:
    """Two-sided slope verdict (a rate the paper states as tight, or a flat "0" claim).

    holds: ``[lo, hi]`` inside ``[theory_lo - SLOPE_TOL, theory_hi + SLOPE_TOL]``; does not
    hold: ``[lo, hi]`` entirely outside it; otherwise (or with fewer than ``MIN_POINTS``
    uncensored points) inconclusive; a NaN slope is "not measured".
    """
    side = _side(lo, hi, slope, theory_lo, theory_hi, n_points)
    return {"inside": HOLDS, "above": FAILS, "below": FAILS}.get(side, side)


def upper_bound_verdict(fit: dict, theory_lo: float, theory_hi: float, below_bound: bool,
                        worse: str = "above") -> str:
    """Verdict for a rate that the paper gives as an upper bound (O-form).

    ``worse``: the side of the band where a learner that needs *more* samples than the bound
    lands ("above" for slopes against 1/alpha or d, "below" for slopes against epsilon). An
    interval entirely on the other side is the finding :data:`FASTER`, never "holds"; one
    entirely on the ``worse`` side does not hold. ``below_bound``: every measured ``n_hat``
    is at most the explicit bound (if not, the verdict says so).
    """
    if worse not in ("above", "below"):
        raise ValueError(f"worse must be 'above' or 'below', got {worse!r}")
    direction = fit.get("direction", "") or ""
    if direction == "bound both ways":
        return _inconclusive("censored cells on both sides: the estimate bounds nothing")
    if direction:  # censored cells entered as bounds: decide only on the bound's side
        return bound_estimate_verdict(fit, theory_lo, theory_hi, direction, below_bound, worse)
    side = _side(fit["lo"], fit["hi"], fit["slope"], theory_lo, theory_hi,
                 fit.get("n_uncensored", fit["n_points"]))
    base = {"inside": HOLDS, worse: FAILS}.get(side, FASTER if side in ("above", "below")
                                                else side)
    if not below_bound and base != NOT_MEASURED:
        return base + " (but n_hat exceeds the explicit bound)"
    return base


def bound_estimate_verdict(fit: dict, theory_lo: float, theory_hi: float, direction: str,
                           below_bound: bool = True, worse: str = "above") -> str:
    """:func:`upper_bound_verdict` for an estimate that censored cells make a one-sided bound.

    ``direction``: ``""`` (no censored cell: :func:`upper_bound_verdict`), ``"lower bound"``
    (the true rate is at least the estimate, e.g. a right-censored ``n_hat`` entered at the
    grid's largest n) or ``"upper bound"``. A bound decides only on its own side: a lower bound
    whose whole interval lies on the ``worse`` side of the band "does not hold" (the truth is
    further out still); anything else is inconclusive, since the censored cells could move the
    truth across the band (an upper bound on the fast side likewise gives :data:`FASTER`).
    """
    if not direction:
        return upper_bound_verdict({**fit, "direction": ""}, theory_lo, theory_hi, below_bound,
                                   worse)
    if direction not in ("lower bound", "upper bound"):
        raise ValueError(f"direction must be '', 'lower bound' or 'upper bound', got {direction!r}")
    side = _side(fit["lo"], fit["hi"], fit["slope"], theory_lo, theory_hi,
                 fit.get("n_uncensored", fit["n_points"]))
    if side == NOT_MEASURED or (side.startswith("inconclusive")
                                and not side.startswith("inconclusive (interval")):
        return side  # too few points, no interval, zero width: the bound decides nothing
    better = "below" if worse == "above" else "above"
    toward = "above" if direction == "lower bound" else "below"  # where the truth may lie
    if side == toward:
        return (FAILS if toward == worse else FASTER) + f" (even as a {direction})"
    where = {"inside": "inside the band", worse: f"{worse} the band",
             better: f"{better} the band"}.get(side, "across the band's edge")
    return _inconclusive(f"censored cells make the estimate a {direction}; its interval lies "
                         f"{where}, and the censored cells could move the truth {toward} it")


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
    if not np.isfinite(estimate):
        return NOT_MEASURED
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return _inconclusive("no bootstrap interval")
    if hi - lo <= 1e-9 * max(1.0, abs(estimate)):
        return _inconclusive("zero-width interval, narrower than the grid's resolution")
    if not (predicted[1] < alternative[0] or alternative[1] < predicted[0]):
        return _inconclusive(f"{p_name} prediction and {a_name} overlap: the design cannot "
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
        return _inconclusive(f"censored cells make the estimate a lower bound; it excludes "
                             f"{' and '.join(below) or 'neither prediction'} from below and "
                             "cannot confirm either")
    if direction == "upper bound":
        above = [n for n, b in ((p_name, predicted), (a_name, alternative)) if b[0] > hi]
        if p_name in above:
            return FAILS + f" (even as an upper bound: below {p_name} prediction)"
        return _inconclusive(f"censored cells make the estimate an upper bound; it excludes "
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
    return _inconclusive(f"cannot separate {p_name} prediction from {a_name} at this precision")


def explicit_bound_note(v: str, below_bound: bool) -> str:
    """``v`` with the note that a measured ``n_hat`` exceeds the explicit bound, if it does."""
    if not below_bound and v != NOT_MEASURED:
        return v + " (but n_hat exceeds the explicit bound)"
    return v


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
    entirely on the other side is :data:`FASTER`); inconclusive: it meets both bands
    ("cannot separate ... at this precision", with the half-width and the trials that would),
    crosses a band's outer edge, or the ranges overlap. Censored cells (``fit["direction"]``)
    make the estimate a bound: it decides only what it excludes (:func:`prediction_verdict`),
    and holds only when the prediction's band is open on the bound's side.
    """
    if worse not in ("", "above", "below"):
        raise ValueError(f"worse must be '', 'above' or 'below', got {worse!r}")
    p_name, a_name = names
    lo, hi, est = fit["lo"], fit["hi"], fit["slope"]
    if not np.isfinite(est):
        return NOT_MEASURED
    n_points = fit.get("n_uncensored", fit.get("n_points", MIN_POINTS))
    if n_points < MIN_POINTS:
        return _inconclusive(f"{n_points} uncensored points, fewer than {MIN_POINTS}")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return _inconclusive("no bootstrap interval")
    if hi - lo <= 1e-9 * max(1.0, abs(est)):
        return _inconclusive("zero-width interval, narrower than the grid's resolution")
    bands = prediction_bands(predicted, alternative, tol)
    if bands is None:
        return _inconclusive(f"{p_name} and {a_name} overlap: this design cannot separate them")
    band_p, band_a = bands
    direction = fit.get("direction", "") or ""
    if direction == "bound both ways":
        return _inconclusive("censored cells on both sides: the estimate bounds nothing")

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
        return _inconclusive(f"censored cells make the estimate a lower bound; its interval "
                             f"{fmt_band((lo, hi))} excludes "
                             f"{a_name if band_a[1] < lo else 'neither band'} from below and "
                             f"cannot confirm {p_name}")
    if direction == "upper bound":
        if inside(band_p) and band_p[0] == -math.inf:
            return HOLDS + " (as an upper bound)"
        if band_p[0] > hi:
            return (FASTER if worse == "above" else FAILS) + \
                f" (even as an upper bound: below {p_name})"
        return _inconclusive(f"censored cells make the estimate an upper bound; its interval "
                             f"{fmt_band((lo, hi))} excludes "
                             f"{a_name if band_a[0] > hi else 'neither band'} from above and "
                             f"cannot confirm {p_name}")
    if inside(band_p):
        return HOLDS
    if worse:  # an upper-bound rate: entirely on the fast side of its band is a finding
        if (worse == "above" and hi < band_p[0]) or (worse == "below" and lo > band_p[1]):
            return FASTER + (f" (consistent with {a_name})" if inside(band_a) else "")
    if inside(band_a):
        return FAILS + f" (consistent with {a_name}, not with {p_name})"
    if not meets(band_p) and not meets(band_a):
        side = ("above" if lo > max(band_p[1], band_a[1]) else
                "below" if hi < min(band_p[0], band_a[0]) else "between")
        return FAILS + f" (the interval lies {side} both bands)"
    if meets(band_p) and meets(band_a):
        return _inconclusive(f"cannot separate {p_name} from {a_name} at this precision: "
                             + _precision_needed(fit, est, bands))
    which = band_p if meets(band_p) else band_a
    return _inconclusive(f"interval crosses an edge of "
                         f"{p_name if which is band_p else a_name}'s band {fmt_band(which)}: "
                         + _precision_needed(fit, est, bands))


def mean_ci(values, level: float = LEVEL, resolution: float = 0.0) -> tuple[float, float, float]:
    """Mean with its Student t interval (``scipy.stats.t``) over the finite values.

    NaN bounds for fewer than two finite values (no spread to estimate). ``resolution``: the
    measurement's own resolution (e.g. ``1 / n_test`` for an error read on ``n_test`` points);
    the interval is never narrower than ``mean +- resolution``. Values without spread give no
    interval (NaN bounds) unless a resolution is given: a zero-width interval is never
    returned, so no caller can read "no spread" as "known exactly".
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return math.nan, math.nan, math.nan
    m = float(v.mean())
    if v.size < 2:
        return m, math.nan, math.nan
    sem = float(stats.sem(v))
    if sem == 0.0:
        if resolution > 0:
            return m, m - resolution, m + resolution
        return m, math.nan, math.nan  # no spread and no resolution: no interval
    lo, hi = stats.t.interval(level, df=v.size - 1, loc=m, scale=sem)
    if resolution > 0:
        lo, hi = min(lo, m - resolution), max(hi, m + resolution)
    return m, float(lo), float(hi)


def paired_difference(trials: pd.DataFrame, a: str, b: str, keys,
                      resolution: float = 0.0) -> tuple[float, float, float]:
    """Mean of ``error(a) - error(b)`` over trials paired on ``keys`` (+ trial), t interval
    (:func:`mean_ci`, never narrower than ``resolution``)."""
    ka = trials[trials.learner == a].set_index([*keys, "trial"])["error"]
    kb = trials[trials.learner == b].set_index([*keys, "trial"])["error"]
    return mean_ci((ka - kb).dropna().to_numpy(), resolution=resolution)


def error_resolution(trials: pd.DataFrame) -> float:
    """The resolution of a mean error read on ``n_test`` test points: ``1 / n_test`` (the
    smallest ``n_test`` of the trials), 0 when the trials do not say (exact errors)."""
    if "n_test" in trials and trials["n_test"].notna().any():
        n_test = float(trials["n_test"].dropna().min())
        if n_test > 1:
            return 1.0 / n_test
    return 0.0


def check_verdict(passed: bool, detail: str = "") -> str:
    """A built-in check (not a setting, not counted): "check: passed" or "check: FAILED (...)";
    a failed one makes :func:`combined_verdict` say so first."""
    if passed:
        return CHECK_PASSED
    return CHECK_FAILED + (f" ({detail})" if detail else "")


def same_measurement(label: str, v: str) -> str:
    """The verdict of a row that repeats the measurement of the row ``label`` (not counted)."""
    return f"same measurement as {label} (not counted): {v}"


def mark_same_measurement(rows, signature, label) -> None:
    """Mark, in place, every row whose ``signature(row)`` equals an earlier row's as
    :func:`same_measurement` of it (``label(row)`` names the earlier row); rows whose
    signature is ``None`` are left alone. Signatures: e.g. :func:`analysis.sample_complexity.
    crossing_signature`, the grid brackets of every ``n_hat`` the row reads."""
    seen = {}
    for r in rows:
        sig = signature(r)
        if sig is None or not counted(r.verdict):
            continue
        if sig in seen:
            r.verdict = same_measurement(label(seen[sig]), r.verdict)
        else:
            seen[sig] = r


def fmt_interval(v: float, lo: float, hi: float, digits: int = 2) -> str:
    if not np.isfinite(v):
        return "n/a"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{v:.{digits}f}"
    return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def fmt_slope(fit: dict, digits: int = 2) -> str:
    return fmt_interval(fit["slope"], fit["lo"], fit["hi"], digits)


def _kind(v: str) -> str:
    if v.startswith(("inconclusive", NOT_MEASURED)):
        return "inconclusive"
    if v.startswith("holds"):
        return "holds"
    if v.startswith("faster"):
        return "faster"
    return "fails"


def combined_verdict(verdicts) -> str:
    """One verdict for a claim from the verdicts of its settings, with the counts.

    Reference rows (non-private baselines), breakdown rows (the parts of a pooled
    estimate), repeated measurements and built-in checks do not count; a failed check is put
    first ("CHECK FAILED ..."). "inconclusive" unless a strict
    majority of the settings is conclusive; otherwise the common verdict of the conclusive
    settings ("holds", "faster than the worst case on this population", "does not hold") or
    "mixed", followed by the counts, e.g. "holds in 4 of 6 settings, 2 inconclusive".
    """
    verdicts = [str(x) for x in verdicts]
    failed = [x for x in verdicts if x.startswith(CHECK_FAILED)]
    n_checks = sum(x.startswith("check") for x in verdicts)
    loud = (f"CHECK FAILED ({len(failed)} of {n_checks} built-in checks failed: a bug, the "
            "measurements below are suspect); " if failed else "")
    v = [x for x in verdicts if counted(x)]
    if not v:
        if n_checks:
            return loud + (f"checks only: {n_checks - len(failed)} of {n_checks} passed")
        return "not run"
    return loud + _combined(v)


def _combined(v: list[str]) -> str:
    m = len(v)
    if m == 1:
        return v[0]
    kinds = pd.Series([_kind(x) for x in v]).value_counts()
    n_inc = int(kinds.get("inconclusive", 0))
    conclusive = m - n_inc
    if 2 * conclusive <= m:
        return f"inconclusive ({conclusive} of {m} settings conclusive)"
    words = {"holds": "holds", "faster": FASTER, "fails": "does not hold"}
    found = [k for k in ("holds", "faster", "fails") if kinds.get(k, 0)]
    caveat = "holds" in found and any(x != HOLDS and _kind(x) == "holds" for x in v)
    parts = []
    for k in found:
        word = words[k] + (" (with caveat)" if k == "holds" and caveat else "")
        parts.append(f"{word} in {int(kinds[k])} of {m} settings" if not parts
                     else f"{word} in {int(kinds[k])}")
    lead = "" if len(found) == 1 else "mixed: "
    return lead + ", ".join(parts) + (f", {n_inc} inconclusive" if n_inc else "")


def comparison_verdict(rows: pd.DataFrame) -> str:
    """A claim without a theorem (real data): its comparison verdicts, listed per epsilon."""
    return "; ".join(f"{r.verdict} at epsilon {r.epsilon:g}" for r in rows.itertuples())


def markdown_table(df: pd.DataFrame) -> str:
    """A GitHub markdown table via ``DataFrame.to_markdown`` (tabulate).

    Floats are written with 3 significant digits ("–" for NaN) before tabulate sees them, and
    tabulate's number parsing is off, so cells read exactly as formatted; a literal ``|`` is
    escaped (it would split the cell).
    """
    def fmt(v):
        if isinstance(v, (float, np.floating)):
            return "–" if np.isnan(v) else f"{v:.3g}"
        return str(v).replace("|", "\\|")
    cells = df.astype(object).map(fmt)
    return cells.to_markdown(index=False, tablefmt="github", disable_numparse=True) + "\n"


CSV_FLOAT_FORMAT = "%.10g"  # summary CSVs: stable bytes across platforms (last-ulp noise)
