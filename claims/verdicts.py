"""The verdict rules and interval statistics every claim uses, and the verdict table's rules.

Slope claims (C1-C5, C9): the bootstrap interval of the measured slope (SPEC section 5) is
compared with the theory's range (:func:`verdict`: holds if the interval meets the range,
"holds with caveat" if the point estimate is within 0.25 of it). The theorems are upper bounds;
where a measured rate is *smaller* than the bound's worst-case rate while every ``n_hat`` stays
below the explicit bound, the verdict says so (:func:`upper_bound_verdict`).
Error claims (C8, C10, real data): paired differences of mean true error with 95% normal
intervals over trials (same samples and test sets for every learner of a trial).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

# Two-sided 95% normal quantile. The intervals are normal (z), not Student t: over the 30-40
# trials of a cell the two differ in the third digit, and z is what the committed verdicts used.
Z95 = float(stats.norm.ppf(0.975))
CAVEAT_SLACK = 0.25  # a point estimate this close to the theory's range: "holds with caveat"
MAX_WIDTH = 1.0  # a slope interval wider than this is no evidence either way


def verdict(lo: float, hi: float, slope: float, theory_lo: float, theory_hi: float,
            n_points: int) -> str:
    """holds: interval meets [theory_lo, theory_hi]; caveat: point within 0.25 of it.

    Too few uncensored points (< 3) or an interval wider than 1 is no evidence either way.
    """
    if not np.isfinite(slope):
        return "not measured"
    if n_points < 3 or not (hi - lo <= MAX_WIDTH):
        return "inconclusive (too few points or interval too wide)"
    if lo <= theory_hi and hi >= theory_lo:
        return "holds"
    if theory_lo - CAVEAT_SLACK <= slope <= theory_hi + CAVEAT_SLACK:
        return "holds with caveat"
    return "does not hold"


def upper_bound_verdict(fit: dict, theory_lo: float, theory_hi: float, below_bound: bool) -> str:
    """Verdict for a rate that the paper gives as an upper bound (O-form)."""
    base = verdict(fit["lo"], fit["hi"], fit["slope"], theory_lo, theory_hi, fit["n_points"])
    if base != "does not hold":
        return base if below_bound else base + " (but n_hat exceeds the explicit bound)"
    if below_bound and fit["slope"] < theory_lo:
        return "holds with caveat: faster than the worst-case rate"
    return base


def mean_ci(values) -> tuple[float, float, float]:
    """Mean with its 95% normal interval (NaN bounds for fewer than two finite values)."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return math.nan, math.nan, math.nan
    m = float(v.mean())
    h = Z95 * float(v.std(ddof=1)) / math.sqrt(v.size) if v.size > 1 else math.nan
    return m, m - h, m + h


def paired_difference(trials: pd.DataFrame, a: str, b: str, keys) -> tuple[float, float, float]:
    """Mean of ``error(a) - error(b)`` over trials paired on ``keys`` (+ trial), 95% interval."""
    ka = trials[trials.learner == a].set_index([*keys, "trial"])["error"]
    kb = trials[trials.learner == b].set_index([*keys, "trial"])["error"]
    return mean_ci((ka - kb).dropna().to_numpy())


def fmt_interval(v: float, lo: float, hi: float, digits: int = 2) -> str:
    if not np.isfinite(v):
        return "n/a"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{v:.{digits}f}"
    return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def fmt_slope(fit: dict, digits: int = 2) -> str:
    return fmt_interval(fit["slope"], fit["lo"], fit["hi"], digits)


def combined_verdict(verdicts) -> str:
    """One verdict for a claim from the verdicts of its settings.

    Over the conclusive settings: "holds" if every one holds; "holds with caveat" if every one
    holds or holds with a caveat; otherwise "mixed: k of m conclusive settings hold".
    Inconclusive settings (too few uncensored points) neither confirm nor refute: they are
    counted in parentheses. Reference rows (non-private baselines) do not count.
    """
    v = [str(x) for x in verdicts if not str(x).startswith("reference")]
    if not v:
        return "not run"
    conclusive = [x for x in v if not x.startswith(("inconclusive", "not measured"))]
    rest = len(v) - len(conclusive)
    tail = f" ({rest} of {len(v)} settings inconclusive)" if rest else ""
    if not conclusive:
        return "inconclusive"
    if all(x == "holds" for x in conclusive):
        return "holds" + tail
    if all(x.startswith("holds") for x in conclusive):
        return "holds with caveat" + tail
    k = sum(x.startswith("holds") for x in conclusive)
    return f"mixed: {k} of {len(conclusive)} conclusive settings hold" + tail


def comparison_verdict(rows: pd.DataFrame) -> str:
    """A claim without a theorem (real data): its comparison verdicts, listed per epsilon."""
    return "; ".join(f"{r.verdict} at epsilon {r.epsilon:g}" for r in rows.itertuples())


def markdown_table(df: pd.DataFrame) -> str:
    """A GitHub markdown table (3 significant digits for floats, "–" for NaN).

    Written by hand rather than ``DataFrame.to_markdown``: that needs ``tabulate``, which is
    not in requirements.lock, and it pads the cells (the committed tables would change).
    """
    def fmt(v):
        if isinstance(v, (float, np.floating)):
            return "–" if np.isnan(v) else f"{v:.3g}"
        return str(v).replace("|", "\\|")  # a literal | would split the cell
    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines) + "\n"


CSV_FLOAT_FORMAT = "%.10g"  # summary CSVs: stable bytes across platforms (last-ulp noise)
