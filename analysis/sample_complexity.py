"""Empirical sample complexity from per-trial errors (docs/model.md §5).

Input is a tidy DataFrame, one row per trial (one run of the learner), holding the sample size
(column ``n`` by default) and the true error of the output (``error`` by default; for the
agnostic claims pass the excess error, e.g. ``error_col="excess_error"``). The learner never
sees ``alpha`` or ``beta``: they are analysis parameters, and every ``(alpha, beta)`` is read
off the same runs.

* :func:`success_curve`: per ``n``, the fraction of trials with error ``<= alpha`` and its
  Clopper-Pearson interval;
* :func:`success_rate_slope`: at a fixed ``n``, the least-squares slope of that fraction
  against ``log2`` of a size parameter, with its normal interval;
* :func:`n_hat_from_curve`: the smallest ``n`` from which that fraction stays ``>= 1 - beta``,
  interpolated in ``log n``; :func:`crossing_bracket`: the grid points around it (the
  resolution every interval carries);
* :func:`empirical_sample_complexity`: ``n_hat`` and its interval per group and ``alpha``;
* :func:`loglog_slope`, :func:`slope_against`: the least-squares log-log slope of ``n_hat``.

The bootstrap intervals of those slopes are :mod:`analysis.slopes`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import beta as beta_dist, norm

from ppm.validation import check_open_unit

__all__ = [
    "success_curve",
    "success_rate_slope",
    "n_hat_from_curve",
    "crossing_bracket",
    "crossing_signature",
    "read_point",
    "empirical_sample_complexity",
    "loglog_slope",
    "slope_against",
]

# Fractions are ratios of small integers while the target is 1 - beta in floating point
# (1 - 0.05 != 19/20 in general): compare with this slack so 19 of 20 counts as 0.95.
_FRAC_TOL = 1e-9


# --------------------------------------------------------------------------------------------
# validation and grouping
# --------------------------------------------------------------------------------------------


def check_df(df, cols, numeric_cols):
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise ValueError(f"df has no column(s) {missing}; columns are {list(df.columns)}")
    if len(df) == 0:
        raise ValueError("df must contain at least one trial (row), got an empty DataFrame")
    for c in numeric_cols:
        try:
            v = df[c].to_numpy(dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"column {c!r} must be numeric") from None
        if not np.all(np.isfinite(v)):
            raise ValueError(f"column {c!r} contains NaN or infinity")


def check_n_values(df, n_col):
    n = df[n_col].to_numpy(dtype=float)
    if np.any(n <= 0):
        raise ValueError(f"column {n_col!r} must hold positive sample sizes, got {n[n <= 0][0]!r}")


def check_alphas(alphas) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(alphas, dtype=object))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"alphas must be a non-empty 1-D sequence, got {alphas!r}")
    return np.array([check_open_unit(a, "alpha") for a in arr], dtype=float)


def check_confidence(confidence, name="confidence") -> float:
    return check_open_unit(confidence, name)


def grouped_errors(df, n_col, error_col):
    """Sorted distinct sample sizes and, for each, the array of trial errors."""
    ns_raw = df[n_col].to_numpy()
    err = df[error_col].to_numpy(dtype=float)
    keys, inv = np.unique(ns_raw, return_inverse=True)
    order = np.argsort(inv, kind="stable")
    bounds = np.cumsum(np.bincount(inv.ravel(), minlength=keys.size))[:-1]
    errs = np.split(err[order], bounds)
    return keys, errs


def _clopper_pearson(k, t, confidence):
    """Exact two-sided binomial interval (Clopper-Pearson) for ``k`` successes of ``t``."""
    k = np.asarray(k, dtype=float)
    t = np.asarray(t, dtype=float)
    a = 1.0 - confidence
    with np.errstate(invalid="ignore", divide="ignore"):
        # Beta(k, t-k+1) / Beta(k+1, t-k) quantiles are undefined at k = 0 / k = t, where
        # the exact interval is closed at 0 / 1.
        lo = np.where(k > 0, beta_dist.ppf(a / 2, np.maximum(k, 1), t - k + 1), 0.0)
        hi = np.where(k < t, beta_dist.ppf(1 - a / 2, k + 1, np.maximum(t - k, 1)), 1.0)
    return lo, hi


def interpolate_n_hat(ns, fracs, target):
    """Unvalidated core of :func:`n_hat_from_curve`."""
    ok = np.asarray(fracs, dtype=float) >= target - _FRAC_TOL
    if not ok[-1]:
        return math.nan, "right"
    bad = np.flatnonzero(~ok)
    if bad.size == 0:
        return float(ns[0]), "left"
    i = int(bad[-1]) + 1  # first grid point of the final all-successful run
    f0, f1 = float(fracs[i - 1]), float(fracs[i])
    t = min(max((target - f0) / (f1 - f0), 0.0), 1.0)
    log_n = math.log(ns[i - 1]) + t * (math.log(ns[i]) - math.log(ns[i - 1]))
    return math.exp(log_n), ""


def read_point(ns, errs, alpha, target) -> tuple[float, str]:
    """One curve's ``n_hat`` and censoring in the reading in force
    (:func:`analysis.dose_response.reading`): the fitted ED_target (a right-censored curve
    reads ``nan``, as :func:`interpolate_n_hat` does) or the grid's interpolation."""
    from analysis.dose_response import read_curves, reading
    fr = np.array([np.mean(e <= alpha) for e in errs])
    if reading() == "grid":
        return interpolate_n_hat(ns, fr, target)
    t = np.array([e.size for e in errs], dtype=float)
    r = read_curves([(np.asarray(ns, dtype=float), np.rint(fr * t), t)], target)
    c = str(r.censored[0])
    return (math.nan if c == "right" else float(r.value[0])), c


def crossing_bracket(ns, fracs, target) -> tuple[float, float]:
    """The grid points ``(n_lo, n_hi)`` between which the success curve crosses ``target``.

    This is the measurement's resolution: a monotone success curve through the grid fractions
    can cross the target anywhere in ``(n_lo, n_hi]``, so no reading of ``n_hat`` (the
    interpolation of :func:`n_hat_from_curve` included) locates it more finely. ``(nan,
    ns[0])`` if left-censored (the crossing is at or below the first grid point), ``(ns[-1],
    inf)`` if right-censored.
    """
    ok = np.asarray(fracs, dtype=float) >= target - _FRAC_TOL
    if not ok[-1]:
        return float(ns[-1]), math.inf
    bad = np.flatnonzero(~ok)
    if bad.size == 0:
        return math.nan, float(ns[0])
    i = int(bad[-1]) + 1
    return float(ns[i - 1]), float(ns[i])


def draw_n_hat(ns, fracs, target, u) -> tuple[float, str]:
    """``n_hat`` drawn at position ``u`` in [0, 1] (in ``log n``) of its :func:`crossing_bracket`.

    A bootstrap replicate reads ``n_hat`` this way with ``u ~ U(0, 1)``: the resampled trials
    say between which grid points the curve crosses, and the grid says nothing finer, so the
    replicate's ``n_hat`` carries both the sampling noise (which bracket) and the grid's
    resolution (where in it). Censored curves as :func:`interpolate_n_hat`.
    """
    lo, hi = crossing_bracket(ns, fracs, target)
    if not math.isfinite(hi):
        return math.nan, "right"
    if not math.isfinite(lo):
        return float(ns[0]), "left"
    return math.exp(math.log(lo) + u * (math.log(hi) - math.log(lo))), ""


# --------------------------------------------------------------------------------------------
# public API
# --------------------------------------------------------------------------------------------


def success_curve(df, alpha, n_col="n", error_col="error", confidence=0.95) -> pd.DataFrame:
    """Per sample size, the fraction of trials with ``error <= alpha`` (docs/model.md §5).

    Returns a DataFrame sorted by ``n`` with columns ``n, trials, successes, frac, cp_lo,
    cp_hi``; ``[cp_lo, cp_hi]`` is the two-sided Clopper-Pearson interval at ``confidence``
    (closed at 0 when there is no success and at 1 when every trial succeeds).
    """
    alpha = check_open_unit(alpha, "alpha")
    confidence = check_confidence(confidence)
    check_df(df, [n_col, error_col], [n_col, error_col])
    check_n_values(df, n_col)
    ns, errs = grouped_errors(df, n_col, error_col)
    trials = np.array([e.size for e in errs], dtype=np.int64)
    succ = np.array([np.count_nonzero(e <= alpha) for e in errs], dtype=np.int64)
    lo, hi = _clopper_pearson(succ, trials, confidence)
    return pd.DataFrame(
        {"n": ns, "trials": trials, "successes": succ, "frac": succ / trials,
         "cp_lo": lo, "cp_hi": hi}
    )


def success_rate_slope(df, alpha, n_col="n", error_col="error", level=0.95) -> dict:
    """Least-squares slope of the success rate (``error <= alpha``, :func:`success_curve` with
    ``n_col`` the size parameter) against ``log2`` of ``n_col`` (per doubling), with its normal
    interval at ``level``. The slope is ``sum_j w_j p_j`` with ``w_j = (x_j - mean x) / S_xx``,
    so its variance is ``sum_j w_j^2 p_j (1 - p_j) / N_j``, read at the Agresti-Coull ``(k_j +
    2) / (N_j + 4)`` (an interval of non-zero width when every rate is 0 or 1). Returns ``slope,
    lo, hi, n_points`` and ``curve`` (the :func:`success_curve`: Clopper-Pearson intervals)."""
    curve = success_curve(df, alpha, n_col=n_col, error_col=error_col)
    x = np.log2(curve["n"].to_numpy(dtype=float))
    p, k = curve["frac"].to_numpy(dtype=float), curve["successes"].to_numpy(dtype=float)
    n = curve["trials"].to_numpy(dtype=float)
    sxx = float(((x - x.mean()) ** 2).sum())
    if x.size < 2 or sxx == 0:
        return dict(slope=math.nan, lo=math.nan, hi=math.nan, n_points=int(x.size), curve=curve)
    w = (x - x.mean()) / sxx
    slope = float((w * p).sum())
    pt = (k + 2) / (n + 4)
    se = math.sqrt(float((w ** 2 * pt * (1 - pt) / (n + 4)).sum()))
    z = float(norm.ppf(0.5 + level / 2))
    return dict(slope=slope, lo=slope - z * se, hi=slope + z * se, n_points=int(x.size),
                curve=curve)


def n_hat_from_curve(ns, fracs, target):
    """Smallest grid ``n`` from which the success fraction stays ``>= target`` (docs/model.md §5).

    ``target`` is ``1 - beta``. Monotone envelope: the answer is the first grid point of the
    final run of grid points that all reach the target, so a noisy early success followed by a
    failure does not count. Between the previous grid point (fraction ``f0 < target``) and that
    point (``f1 >= target``) the crossing is interpolated linearly in ``log n`` on the fraction.

    Returns ``(value, censored)``: ``censored = "left"`` if even the first grid point (and every
    later one) reaches the target (``value = ns[0]``, an upper bound on the truth), ``"right"``
    if the last grid point fails (``value = nan``), else ``""``.
    """
    target = check_open_unit(target, "target")
    ns = np.asarray(ns, dtype=float)
    fracs = np.asarray(fracs, dtype=float)
    if ns.ndim != 1 or ns.size == 0:
        raise ValueError(f"ns must be a non-empty 1-D array, got shape {ns.shape}")
    if fracs.shape != ns.shape:
        raise ValueError(f"fracs must have the same shape as ns {ns.shape}, got {fracs.shape}")
    if not np.all(np.isfinite(ns)) or np.any(ns <= 0):
        raise ValueError(f"ns must be finite and positive, got {ns!r}")
    if np.any(np.diff(ns) <= 0):
        raise ValueError(f"ns must be strictly increasing, got {ns!r}")
    if not np.all(np.isfinite(fracs)) or np.any((fracs < 0) | (fracs > 1)):
        raise ValueError(f"fracs must lie in [0, 1], got {fracs!r}")
    return interpolate_n_hat(ns, fracs, target)


def n_hat_rows(ns, errs, alphas, beta, confidence):
    """n_hat, its interval, censoring and min trials for each alpha, on one group, in the
    reading in force (:func:`analysis.dose_response.reading`), then the grid reading's
    ``n_hat``, interval and censoring (the reference) and the fitted reading's status and
    deviance p-value: one tuple per alpha in the order of :data:`N_HAT_COLUMNS`."""
    from analysis.dose_response import read_cell, reading
    target = 1.0 - beta
    trials = np.array([e.size for e in errs], dtype=np.int64)
    rows = []
    for a in alphas:
        succ = np.array([np.count_nonzero(e <= a) for e in errs], dtype=np.int64)
        lo, hi = _clopper_pearson(succ, trials, confidence)
        val, cens = interpolate_n_hat(ns, succ / trials, target)
        # optimistic curve (cp_hi) -> smaller n: lower end; pessimistic (cp_lo) -> upper end.
        # Each end goes out to the grid point bracketing its crossing (the grid's resolution):
        # the interval always contains the point estimate's whole bracket.
        v_lo, c_lo = interpolate_n_hat(ns, hi, target)
        v_hi, _ = interpolate_n_hat(ns, lo, target)
        if c_lo == "":
            v_lo = min(v_lo, crossing_bracket(ns, hi, target)[0])
        if math.isfinite(v_hi):
            v_hi = max(v_hi, crossing_bracket(ns, lo, target)[1])
        grid = (val, v_lo, v_hi, cens)
        f_val, f_lo, f_hi, f_cens, status, dev_p = read_cell(ns, succ, trials, target,
                                                             confidence)
        fitted = (_sig(f_val), _sig(f_lo), _sig(f_hi), f_cens)
        main = grid if reading() == "grid" else fitted
        rows.append((a, beta, *main, int(trials.min()), *grid, status, _sig(dev_p)))
    return rows


def _sig(v: float, digits: int = 10) -> float:
    """``v`` to ``digits`` significant digits: an iterative fit (converged to 1e-10 relative)
    can differ in its last bits between machines, which the committed tables must not show."""
    if not np.isfinite(v) or v == 0:
        return v
    return float(f"{v:.{digits}g}")


# The n_hat table's columns after the group keys: the reading in force, then the grid
# reading as the reference, then the fitted reading's status ("fit", "bracket", "flat",
# "censored") and its window's deviance p-value.
N_HAT_COLUMNS = ["alpha", "beta", "n_hat", "n_hat_lo", "n_hat_hi", "censored", "min_trials",
                 "n_hat_grid", "n_hat_grid_lo", "n_hat_grid_hi", "censored_grid",
                 "fit_status", "fit_deviance_p"]


def empirical_sample_complexity(df, alphas, beta, by=(), n_col="n", error_col="error",
                                confidence=0.95) -> pd.DataFrame:
    """``n_hat(alpha, beta)`` per group and ``alpha`` (docs/model.md §5).

    One row per (``by`` group, ``alpha``) with the ``by`` columns and ``alpha, beta, n_hat,
    n_hat_lo, n_hat_hi, censored, min_trials``. ``n_hat`` is :func:`n_hat_from_curve` on the
    success fractions at target ``1 - beta``; ``n_hat_lo`` / ``n_hat_hi`` apply it to the
    Clopper-Pearson upper / lower curves (``nan`` if that curve never reaches the target),
    each taken out to the grid point that brackets its curve's crossing
    (:func:`crossing_bracket`), so the interval always holds the point estimate's bracket: the
    grid cannot place a crossing more finely than between two of its points.
    Note that with ``T`` trials per ``n`` the lower curve can reach ``1 - beta`` only if
    ``((1 - confidence)/2)^(1/T) >= 1 - beta`` (e.g. ``T >= 36`` for beta = 0.1 at 95%).
    ``censored`` refers to ``n_hat`` (see :func:`n_hat_from_curve`).
    """
    alphas = check_alphas(alphas)
    beta = check_open_unit(beta, "beta")
    confidence = check_confidence(confidence)
    by = [by] if isinstance(by, str) else list(by)
    check_df(df, [*by, n_col, error_col], [n_col, error_col])
    check_n_values(df, n_col)
    out_cols = [*by, *N_HAT_COLUMNS]
    records = []
    groups = df.groupby(by, sort=True, dropna=False) if by else [((), df)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        ns, errs = grouped_errors(g, n_col, error_col)
        for row in n_hat_rows(ns.astype(float), errs, alphas, beta, confidence):
            records.append((*key, *row))
    return pd.DataFrame.from_records(records, columns=out_cols)


def crossing_signature(df, alpha, beta, by=(), n_col="n", error_col="error") -> tuple:
    """Per ``by`` group (sorted), the grid bracket of the crossing at ``alpha``
    (:func:`crossing_bracket`): what the measurement says about ``n_hat``, at the grid's
    resolution. Two targets alpha read on the same trials with equal signatures are one
    measurement (e.g. errors that are 0 or above both targets): counting them as two settings
    would count the same evidence twice."""
    alpha = check_open_unit(alpha, "alpha")
    target = 1.0 - check_open_unit(beta, "beta")
    by = [by] if isinstance(by, str) else list(by)
    check_df(df, [*by, n_col, error_col], [n_col, error_col])
    groups = df.groupby(by, sort=True, dropna=False) if by else [((), df)]
    out = []
    for key, g in groups:
        ns, errs = grouped_errors(g, n_col, error_col)
        fr = np.array([np.mean(e <= alpha) for e in errs])
        out.append((key, *crossing_bracket(ns.astype(float), fr, target)))
    return tuple(out)


def loglog_slope(x, y):
    """Least-squares line of ``log y`` on ``log x``: returns ``(slope, intercept)``.

    Entries where either value is non-finite or ``<= 0`` (e.g. censored ``n_hat = nan``) are
    ignored; ``(nan, nan)`` if fewer than 2 points remain or all remaining ``x`` are equal.
    """
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length, got {x.size} and {y.size}")
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    lx, ly = np.log(x[ok]), np.log(y[ok])
    if lx.size < 2 or np.ptp(lx) == 0:
        return math.nan, math.nan
    slope, intercept = np.polyfit(lx, ly, 1)
    return float(slope), float(intercept)


def slope_against(df_nhat, x_col, y_col="n_hat"):
    """Log-log slope of ``y_col`` against ``x_col`` in an ``n_hat`` table (thin helper).

    Rows whose ``censored`` column (if present) is non-empty are dropped first, so a
    left-censored ``n_hat`` (an upper bound) never enters a slope. Returns ``(slope,
    intercept)`` as :func:`loglog_slope`.
    """
    if not isinstance(df_nhat, pd.DataFrame):
        raise ValueError(f"df_nhat must be a pandas DataFrame, got {type(df_nhat).__name__}")
    for c in (x_col, y_col):
        if c not in df_nhat.columns:
            raise ValueError(f"df_nhat has no column {c!r}; columns are {list(df_nhat.columns)}")
    d = df_nhat
    if "censored" in d.columns:
        d = d[d["censored"].fillna("").astype(str) == ""]
    return loglog_slope(d[x_col].to_numpy(dtype=float), d[y_col].to_numpy(dtype=float))
