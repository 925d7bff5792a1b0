"""The fixed-n rule of a wrapper against its base learner (BNS15 Theorem 4.13's LabelBoost,
C14; its rectangle twin, C17): at ``n`` fixed at the wrapper's labelled need, the wrapper's
success rate must not move with the size parameter ``b``, while a learner whose cost grows with
``b`` (the base learner) falls from success to failure inside the ``b`` range.

The statistic is the slope of the success rate against ``log2 b``
(:func:`success_slope`: :func:`analysis.sample_complexity.success_rate_slope` on the excess
error); the alternative's range comes from the design alone (:func:`design_fall`), and
:func:`fixed_n_verdict` weighs the wrapper's slope against 0 and that fall.
"""

from __future__ import annotations

import math

import numpy as np

from analysis.aggregate import ERROR_COL
from analysis.sample_complexity import success_rate_slope
from claims.rules.outcomes import LEVEL, inconclusive
from claims.rules.predictions import rate_verdict
from claims.rules.verdicts import fmt_slope
from experiments.columns import B

# The fixed-n rows: the wrapper's success rate flat in b, against the base learner's fall.
FIXED_NAMES = ("the wrapper flat", "a cost crossing n inside the b range (the base learner's)")


def success_slope(trials, alpha: float) -> dict:
    """Least-squares slope of the success rate (``excess_error <= alpha``) against ``log2 b``
    over the ``b`` of ``trials`` (per doubling of ``b``), with its normal interval at
    :data:`claims.rules.outcomes.LEVEL` (:func:`analysis.sample_complexity.success_rate_slope`:
    the Agresti-Coull variance). Returns ``slope, lo, hi, n_points`` and ``curve`` (the success
    rate per ``b``, Clopper-Pearson intervals)."""
    return success_rate_slope(trials, alpha, n_col=B, error_col=ERROR_COL, level=LEVEL)


def design_fall(bs) -> tuple[float, float]:
    """The alternative's range, from the design alone: a learner whose labelled need grows with
    ``b`` and crosses ``n`` inside the ``b`` range (the base learner: ``b ln 2`` samples per
    unit of its cost) drops from success (rate 1) to failure (rate 0) between two grid points;
    the least-squares slope against ``log2 b`` of every such unit step on the grid ``bs``,
    ``(steepest, shallowest)`` (-0.4 and -0.3 per doubling on 4 doublings)."""
    x = np.log2(np.asarray(bs, dtype=float))
    if x.size < 2:
        return (math.nan, math.nan)
    sxx = float(((x - x.mean()) ** 2).sum())
    slopes = [float(((x - x.mean()) * (np.arange(x.size) < j)).sum() / sxx)
              for j in range(1, x.size)]
    return (min(slopes), max(slopes))


def fixed_n_verdict(wrap: dict, base: dict, fall=None) -> str:
    """The wrapper's success-rate slope (:func:`success_slope`) weighed against 0 and against
    the fall the design predicts for a learner whose cost crosses ``n`` inside the ``b`` range
    (:func:`design_fall`, ``(steep, shallow)``; no measured value enters the bands): the bands
    are half the shallowest fall either side (:func:`claims.rules.predictions.rate_verdict` with
    ``tol = |shallow| / 2``). Inconclusive when the base learner's interval does not lie
    below 0 (the foil does not fall at this n: the design's premise fails)."""
    if not (np.isfinite(base["hi"]) and base["hi"] < 0):
        return inconclusive(f"the base learner's success rate does not fall at this n "
                            f"(slope {fmt_slope(base, 3)}): nothing to separate the wrapper "
                            f"from")
    if fall is None:
        fall = design_fall(base["curve"]["n"].to_numpy())
    return rate_verdict(wrap, (0.0, 0.0), fall, FIXED_NAMES, tol=abs(fall[1]) / 2)
