"""The finite grid domain ``{g_0 < ... < g_{T-1}}`` of the grid learners.

Shared by the fully private exponential mechanism (:mod:`ppm.baselines.fully_private`, BMN20's
impossibility side) and BNS15's GenericLearner (:mod:`ppm.semi_supervised.generic`), which both
learn thresholds on the same grid.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from ppm.validation import Number, check_positive_int

# The grid's parameters as scikit-learn constraints (the grid learners' _parameter_constraints).
GRID_CONSTRAINTS = {
    "T": [Number(Integral, 2, None, closed="left")],
    "low": [Number(Real, None, None, closed="neither")],  # a finite number
    "high": [Number(Real, None, None, closed="neither")],
}


def check_bound(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return float(value)


def check_grid(T, low, high):
    """Validate the grid parameters; returns ``(T, low, high)`` as ``(int, float, float)``."""
    T = check_positive_int(T, "T", minimum=2)
    low = check_bound(low, "low")
    high = check_bound(high, "high")
    check_grid_span(T, low, high)
    return T, low, high


def check_grid_span(T, low, high) -> None:
    """The grid's rules across parameters: ``low < high`` and a finite span."""
    if not low < high:
        raise ValueError(f"low must be < high, got low={low!r}, high={high!r}")
    if not math.isfinite((high - low) * (T - 1)):
        raise ValueError(f"(high - low) * (T - 1) must be finite, got low={low!r}, "
                         f"high={high!r}, T={T!r}")


def grid_points(T: int, low: float, high: float) -> np.ndarray:
    """``g_k = low + (k (high - low)) / (T - 1)``, ``k = 0..T-1`` (non-decreasing floats).

    Evaluated in exactly this order so that for ``[low, high] = [0, 1]`` the grid is
    ``k / (T - 1)`` bit for bit, the domain of :class:`ppm.populations.GridThresholds`
    (multiplying by a rounded step ``1 / (T - 1)`` instead would move some points by one ulp and
    put a threshold just above the grid point it is meant to sit on). Every operation is
    monotone, so the grid is non-decreasing even where rounding repeats a value.
    """
    return low + (np.arange(T, dtype=float) * (high - low)) / (T - 1)
