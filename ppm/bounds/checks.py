"""Validation of the bound functions' arguments (scalars or arrays), shared by
:mod:`ppm.bounds` and :mod:`ppm.bounds.shapes`: each names the bad value."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from ppm.validation import check_epsilon


def as_real(value, name: str, *, low: float, low_open: bool, high: float = math.inf,
             high_open: bool = True, what: str):
    """Validate a real scalar or array in an interval; return float or float ndarray."""
    if isinstance(value, bool) or isinstance(value, (str, bytes)):
        raise ValueError(f"{name} must be {what}, got {value!r}")
    if isinstance(value, Real):
        arr = np.asarray(float(value))
    else:
        try:
            arr = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be {what}, got {value!r}") from None
        if arr.dtype.kind == "b" or np.asarray(value).dtype.kind == "b":
            raise ValueError(f"{name} must be {what}, got {value!r}")
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(arr)
        ok &= (arr > low) if low_open else (arr >= low)
        ok &= (arr < high) if high_open else (arr <= high)
    if not np.all(ok):
        bad = arr[~ok].flat[0] if arr.ndim else arr.item()
        raise ValueError(f"{name} must be {what}, got {bad!r}")
    return float(arr) if arr.ndim == 0 else arr


def check_w_pub(w_pub) -> float:
    if isinstance(w_pub, bool) or not isinstance(w_pub, Real):
        raise ValueError(f"w_pub must be a number in (0, 1], got {w_pub!r}")
    w = float(w_pub)
    if not (0.0 < w <= 1.0):
        raise ValueError(f"w_pub must be in (0, 1], got {w_pub!r}")
    return w


def check_n(n, name: str = "n"):
    return as_real(n, name, low=1.0, low_open=False, what="a finite number >= 1")


def check_alpha_array(alpha):
    return as_real(alpha, "alpha", low=0.0, low_open=True, high=1.0, what="in (0, 1)")


def check_epsilon_array(epsilon):
    if np.ndim(epsilon) == 0 and not isinstance(epsilon, np.ndarray):
        return check_epsilon(epsilon)
    return as_real(epsilon, "epsilon", low=0.0, low_open=True,
                    what="a positive finite number")


def scalar_or_array(x):
    """numpy 0-d results -> Python float; arrays unchanged."""
    x = np.asarray(x, dtype=float)
    return float(x) if x.ndim == 0 else x
