"""The outcomes a verdict names and the tests an interval passes before any rule weighs it.

Shared by the slope verdicts (:mod:`claims.rules.verdicts`: an interval against one theory band) and
the rate verdicts (:mod:`claims.rules.predictions`: an interval against a prediction and the
alternative it argues against). Before either weighs an interval, :func:`interval_defect`
turns away what cannot be weighed (docs/model.md §5): a NaN estimate is "not measured"; fewer
than :data:`MIN_POINTS` uncensored points, no bootstrap interval, or an interval of zero width
(which no measurement on a grid of sample sizes can give: it comes from a rule that lost the
grid's resolution) are "inconclusive", never "holds".
"""

from __future__ import annotations

import numpy as np

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

HOLDS = "holds"
FAILS = "does not hold"
FASTER = "faster than the worst case on this population"
# An upper bound's growth read between its two references (C4: the privacy price grows faster
# than the alternative d, slower than the bound's ln|G|): an outcome in its own right.
BETWEEN = "between: faster than d, slower than the bound"
NOT_MEASURED = "not measured"


def inconclusive(reason: str) -> str:
    """The verdict "inconclusive (reason)"."""
    return f"inconclusive ({reason})"


def fit_defect(fit: dict) -> str | None:
    """"inconclusive (lack of fit ...)" when the dose-response curves a statistic reads do not
    describe its data (``fit["lack_of_fit"]``, :func:`analysis.dose_response.lack_of_fit`), else
    ``None``: a reading the model does not support decides nothing."""
    reasons = fit.get("lack_of_fit", "") if isinstance(fit, dict) else ""
    if reasons:
        return inconclusive(f"lack of fit of the dose-response curve: {reasons}")
    return None


def interval_defect(lo: float, hi: float, estimate: float, n_points=None) -> str | None:
    """The verdict of an interval ``[lo, hi]`` about ``estimate`` that cannot be weighed, or
    ``None`` if it can: "not measured" for a NaN estimate, else "inconclusive" for fewer than
    :data:`MIN_POINTS` uncensored points (``n_points``; ``None``: not counted here), no
    interval, or an interval of zero width."""
    if not np.isfinite(estimate):
        return NOT_MEASURED
    if n_points is not None and n_points < MIN_POINTS:
        return inconclusive(f"{n_points} uncensored points, fewer than {MIN_POINTS}")
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return inconclusive("no bootstrap interval")
    if hi - lo <= 1e-9 * max(1.0, abs(estimate)):
        return inconclusive("zero-width interval, narrower than the grid's resolution")
    return None
