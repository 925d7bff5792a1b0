"""The slope verdicts, the interval statistics every claim uses, and the verdict table's rules.

Slope claims (C1-C5, C9): the bootstrap interval ``[lo, hi]`` of a measured log-log slope
(docs/model.md §5) is compared with the theory's range ``[theory_lo, theory_hi]`` widened by the
equivalence margin :data:`SLOPE_TOL` (:func:`verdict`, two-sided):

- *holds*: the whole interval lies inside ``[theory_lo - SLOPE_TOL, theory_hi + SLOPE_TOL]``;
- *does not hold*: the whole interval lies outside that band (above it or below it);
- *inconclusive*: the interval crosses an edge of the band (or is wider than the band), or
  fewer than :data:`claims.rules.outcomes.MIN_POINTS` uncensored points carry the slope.

So a wider interval can only move a verdict toward "inconclusive": imprecision never makes
"holds" (nor "does not hold") easier. Nor can spurious precision: every ``n_hat`` is read on a
grid of sample sizes, which cannot place it more finely than between two grid points, so the
slope intervals of :mod:`analysis.sample_complexity` carry that resolution (each bootstrap
replicate draws ``n_hat`` within its bracket, and the interval is widened to the grid's own
spread); an interval of zero width (which no measurement on a grid can give: it comes from a
rule that lost the resolution) is reported "inconclusive", never "holds". The theorems are
upper bounds: :func:`upper_bound_verdict` reports an interval entirely on the fast side of the
band as the finding "faster than the worst case on this population", never as a form of
"holds", and one on the slow side as "does not hold". Error claims (C8, C10, real data):
differences of mean errors with Student t intervals over trials (:func:`mean_ci`).
:func:`combined_verdict` joins the settings of a claim: it is "inconclusive" unless most
settings are conclusive, and always says the counts.

Rates weighed against their alternative (:func:`claims.rules.predictions.rate_verdict`, the rule of
every counted slope row) are in :mod:`claims.rules.predictions`; the outcomes both modules name and
the tests an interval passes before either weighs it are in :mod:`claims.rules.outcomes`.
:func:`verdict` and :func:`upper_bound_verdict` remain for rows that have no alternative
(references, checks) and for C4.

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

from claims.rules.outcomes import (BETWEEN, FAILS, FASTER, HOLDS, LEVEL, NOT_MEASURED, SLOPE_TOL,
                                   fit_defect,
                                   inconclusive, interval_defect)

# Kept for the modules that still print normal intervals (C8); new code uses mean_ci (t).
Z95 = float(stats.norm.ppf(0.5 + LEVEL / 2))

# Rows that are shown but not counted in a claim's combined verdict: non-private baselines
# ("reference ...") and the per-setting parts of a pooled estimate ("breakdown ...", C4),
# whose own row carries the verdict.
NOT_COUNTED = ("reference", "breakdown", "check", "same measurement")
CHECK_PASSED = "check: passed"
CHECK_FAILED = "check: FAILED"


def counted(verdict) -> bool:
    """Whether a setting's verdict counts in :func:`combined_verdict`."""
    return not str(verdict).startswith(NOT_COUNTED)


def slope_band(theory_lo: float, theory_hi: float, tol: float = SLOPE_TOL) -> tuple[float, float]:
    """The equivalence band a slope interval must lie in for "holds"."""
    return theory_lo - tol, theory_hi + tol


def _side(lo: float, hi: float, slope: float, theory_lo: float, theory_hi: float,
          n_points: int) -> str:
    """"inside", "above", "below" (of the band) or an inconclusive / not-measured verdict."""
    defect = interval_defect(lo, hi, slope, n_points)
    if defect:
        return defect
    band_lo, band_hi = slope_band(theory_lo, theory_hi)
    if band_lo <= lo and hi <= band_hi:
        return "inside"
    if lo > band_hi:
        return "above"
    if hi < band_lo:
        return "below"
    if hi - lo > band_hi - band_lo:
        return inconclusive(f"interval wider than theory +- {SLOPE_TOL:g}")
    return inconclusive(f"interval crosses theory +- {SLOPE_TOL:g}")


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
    if fit_defect(fit):
        return fit_defect(fit)
    direction = fit.get("direction", "") or ""
    if direction == "bound both ways":
        return inconclusive("censored cells on both sides: the estimate bounds nothing")
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
    if fit_defect(fit):
        return fit_defect(fit)
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
    return inconclusive(f"censored cells make the estimate a {direction}; its interval lies "
                         f"{where}, and the censored cells could move the truth {toward} it")


def explicit_bound_note(v: str, below_bound: bool) -> str:
    """``v`` with the note that a measured ``n_hat`` exceeds the explicit bound, if it does."""
    if not below_bound and v != NOT_MEASURED:
        return v + " (but n_hat exceeds the explicit bound)"
    return v


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


def outcome_kind(v: str) -> str:
    """The outcome a verdict names: holds, faster, between, fails or inconclusive."""
    if v.startswith(("inconclusive", NOT_MEASURED)):
        return "inconclusive"
    if v.startswith("holds"):
        return "holds"
    if v.startswith("faster"):
        return "faster"
    if v.startswith("between"):
        return "between"
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
        if verdicts:  # rows, but none counted and no check (e.g. every precondition unmet)
            return (f"nothing counted: {len(verdicts)} reference or breakdown rows "
                    "(details in the claim's rows)")
        return "not run"
    return loud + _combined(v)


def _combined(v: list[str]) -> str:
    m = len(v)
    if m == 1:
        return v[0]
    kinds = pd.Series([outcome_kind(x) for x in v]).value_counts()
    n_inc = int(kinds.get("inconclusive", 0))
    conclusive = m - n_inc
    if 2 * conclusive <= m:
        return f"inconclusive ({conclusive} of {m} settings conclusive)"
    words = {"holds": "holds", "faster": FASTER, "between": BETWEEN, "fails": "does not hold"}
    found = [k for k in ("holds", "faster", "between", "fails") if kinds.get(k, 0)]
    # a caveat is named as one ("holds with caveat: ..."); "holds (why)" explains, no caveat
    caveat = "holds" in found and any("caveat" in x and outcome_kind(x) == "holds" for x in v)
    parts = []
    for k in found:
        word = words[k] + (" (with caveat)" if k == "holds" and caveat else "")
        parts.append(f"{word} in {int(kinds[k])} of {m} settings" if not parts
                     else f"{word} in {int(kinds[k])}")
    lead = "" if len(found) == 1 else "mixed: "
    return lead + ", ".join(parts) + (f", {n_inc} inconclusive" if n_inc else "")


def comparison_verdict(rows: pd.DataFrame) -> str:
    """A claim without a theorem (real data): its comparison verdicts, listed per epsilon."""
    return "; ".join(f"{r.verdict} at epsilon {r.epsilon:g}" if np.isfinite(r.epsilon)
                     else str(r.verdict) for r in rows.itertuples())  # NaN: a joint row


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
