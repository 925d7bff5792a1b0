"""O-shapes of Theorems 4.9 and 4.10 and of the classical non-private rates (docs/model.md §4).

Each is the theorem's big-O expression without its constant: curves beside measured
``n_hat`` get one fitted multiplicative constant (:func:`fit_shape_constant`), and the
claims compare measured slopes with the shapes' local slopes. The explicit bounds, with
their constants, are in :mod:`ppm.bounds`. Vectorised over ``alpha`` (and ``epsilon``).
"""

from __future__ import annotations

import math

import numpy as np

from ppm.validation import check_open_unit, check_positive_int
from ppm.bounds.checks import check_alpha_array, check_epsilon_array, scalar_or_array

def _log_factor(d, eps, alpha):
    # ln(d / (epsilon alpha)) of Theorems 4.9-4.10, guarded below by 1 (argument >= e): for
    # d / (epsilon alpha) < e the paper's log would be < 1 or negative, which no O() means.
    return np.log(np.maximum(math.e, d / (eps * alpha)))


def realizable_shape(alpha, beta, epsilon, d):
    """Theorem 4.9 O-form: ``(d^2 L + ln(1/beta)) / (epsilon alpha)`` (docs/model.md §4).

    ``L = ln(max(e, d/(epsilon alpha)))``: the paper's ``log(d/(epsilon alpha))`` guarded so
    that the log factor stays >= 1.

    Vectorised over ``alpha`` and ``epsilon`` (numpy broadcasting). Multiply by a constant from
    :func:`fit_shape_constant` to plot beside measured ``n_hat``.
    """
    alpha = check_alpha_array(alpha)
    beta = check_open_unit(beta, "beta")
    eps = check_epsilon_array(epsilon)
    d = check_positive_int(d, "d")
    L = _log_factor(d, eps, alpha)
    return scalar_or_array((d * d * L + math.log(1.0 / beta)) / (eps * alpha))


def agnostic_shape(alpha, beta, epsilon, d):
    """Theorem 4.10 O-form: ``(d^2 L + ln(1/beta)) max(1/alpha^2, 1/(epsilon alpha))``.

    ``L = ln(max(e, d/(epsilon alpha)))`` as in :func:`realizable_shape`. Vectorised over
    ``alpha`` and ``epsilon``.
    """
    alpha = check_alpha_array(alpha)
    beta = check_open_unit(beta, "beta")
    eps = check_epsilon_array(epsilon)
    d = check_positive_int(d, "d")
    L = _log_factor(d, eps, alpha)
    rate = np.maximum(1.0 / np.square(alpha), 1.0 / (eps * alpha))
    return scalar_or_array((d * d * L + math.log(1.0 / beta)) * rate)


def nonprivate_realizable_shape(alpha, beta, d):
    """Classical realizable rate for halfspaces (VC dim ``d + 1``): ``(d + ln(1/beta)) / alpha``.

    docs/model.md §4, non-private reference. Vectorised over ``alpha``.
    """
    alpha = check_alpha_array(alpha)
    beta = check_open_unit(beta, "beta")
    d = check_positive_int(d, "d")
    return scalar_or_array((d + math.log(1.0 / beta)) / np.asarray(alpha))


def nonprivate_agnostic_shape(alpha, beta, d):
    """Classical agnostic rate for halfspaces: ``(d + ln(1/beta)) / alpha^2`` (docs/model.md §4).

    Vectorised over ``alpha``.
    """
    alpha = check_alpha_array(alpha)
    beta = check_open_unit(beta, "beta")
    d = check_positive_int(d, "d")
    return scalar_or_array((d + math.log(1.0 / beta)) / np.square(alpha))


def fit_shape_constant(n_hat, shape_values) -> float:
    """One multiplicative constant ``c`` for ``n_hat ~ c * shape`` (docs/model.md §4, shape curves).

    Least squares in log space: ``c = exp(mean(log n_hat - log shape))`` over the entries
    where both are finite and positive (censored ``n_hat`` = nan are skipped).
    """
    y = np.asarray(n_hat, dtype=float).ravel()
    s = np.asarray(shape_values, dtype=float).ravel()
    if y.shape != s.shape:
        raise ValueError(
            f"n_hat and shape_values must have the same length, got {y.size} and {s.size}"
        )
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(y) & np.isfinite(s) & (y > 0) & (s > 0)
    if not np.any(ok):
        raise ValueError("n_hat and shape_values have no entry where both are finite and > 0")
    return float(np.exp(np.mean(np.log(y[ok]) - np.log(s[ok]))))
