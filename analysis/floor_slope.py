"""Two statistics for a rate that shares ``n_hat`` with a second term (docs/model.md §5).

* :func:`floor_subtracted_slope_paired`: for ``n ~ A/x + B`` (C3: ``x`` = epsilon, ``B`` the
  epsilon-free cost), the plain log-log slope is pulled toward 0 by the floor ``B``. The
  statistic here is the slope of ``log(n_hat(x) - n_hat(x_floor))`` against
  ``log x_eff``, ``x_eff = 1 / (1/x - 1/x_floor)``, over the fitted ``x`` below the floor's
  ``x_floor``: under the model the difference is exactly ``A / x_eff`` (slope -1), whatever
  ``B`` (``x_eff`` differs from ``x`` by ``-log(1 - x/x_floor)``, 0.105 at ``x = x_floor/10``).
  The groups share their samples per ``(n, trial)``, so the bootstrap resamples trial indices
  jointly across them (a pair of groups is resampled jointly wherever both hold the same
  trials at an ``n``, on its own elsewhere).
* :func:`two_term_fit`, :func:`two_term_share`: ``n_hat(alpha) = A/alpha^2 + B/alpha`` with
  ``A, B >= 0`` (non-negative least squares on relative residuals: every cell weighs alike
  whatever its size), and the fitted model's local log-log slope (C2).

Both run on the shared engine :func:`analysis.bootstrap.bootstrap`, so they respect the
reading of ``n_hat`` in force (:func:`analysis.dose_response.use_reading`) and treat censored
cells as it does: a cell censored in the point estimate enters at the grid's edge as a bound
(``direction``), and one censored in a replicate enters at the edge (``censored_frac``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import nnls

from analysis.bootstrap import bootstrap, shared_draws
from analysis.sample_complexity import (check_df, check_n_values, grouped_errors,
                                        loglog_slope, read_point)
from ppm.validation import check_open_unit, check_positive_int, check_random_state

__all__ = ["floor_subtracted_slope", "floor_subtracted_slope_paired", "two_term_fit",
           "two_term_share", "family_statistic", "NON_POSITIVE_VALUE"]

# The statistic of a replicate (or point estimate) in which some n_hat(x) - n_hat(x_floor) is
# <= 0: the value of "no dependence on x" (slope 0). Such a difference is what an x-free n_hat
# gives; the rule can only move the interval toward that alternative, never toward -1.
NON_POSITIVE_VALUE = 0.0


def floor_subtracted_slope(xs, vals, floor_pos) -> tuple[float, bool]:
    """``(slope, non_positive)``: the least-squares slope of ``log(vals - vals[floor_pos])``
    against ``log(1 / (1/x - 1/x_floor))`` over the other cells; ``non_positive`` when some
    difference is <= 0 (the slope is then :data:`NON_POSITIVE_VALUE`)."""
    xs, vals = np.asarray(xs, dtype=float), np.asarray(vals, dtype=float)
    x_floor, v_floor = xs[floor_pos], vals[floor_pos]
    mask = np.arange(xs.size) != floor_pos
    x, v = xs[mask], vals[mask]
    if x.size < 2 or not (np.all(np.isfinite(v)) and np.isfinite(v_floor)):
        return math.nan, False
    diff = v - v_floor
    if np.any(diff <= 0):
        return NON_POSITIVE_VALUE, True
    return float(loglog_slope(1.0 / (1.0 / x - 1.0 / x_floor), diff)[0]), False


class _Recorder:
    """The engine's ``slope_fn``: the floor-subtracted slope, remembering every call's
    non-positive flag. The engine calls it for the point estimate (and the censoring moves),
    then, in the grid reading, ``n_boot`` times on the grid's own brackets, and last once per
    replicate: the last ``n_boot`` calls are the replicates."""

    def __init__(self, floor_cell: int):
        self.floor_cell, self.flags = floor_cell, []

    def __call__(self, xs, vals, cell_indices):
        pos = np.flatnonzero(np.asarray(cell_indices) == self.floor_cell)
        if pos.size != 1:
            self.flags.append(False)
            return math.nan
        slope, flag = floor_subtracted_slope(xs, vals, int(pos[0]))
        self.flags.append(flag)
        return slope


def _paired_datasets(df, x_col, n_col, error_col, trial_col):
    """Per group of ``x_col`` (sorted): ``(ns, errs)`` with each ``errs[i]`` ordered by trial,
    and the trial ids per (group, n), for a joint resample."""
    check_df(df, [x_col, n_col, error_col, trial_col], [x_col, n_col, error_col])
    check_n_values(df, n_col)
    if df.duplicated([x_col, n_col, trial_col]).any():
        raise ValueError(f"more than one row per ({x_col}, {n_col}, {trial_col}): "
                         "pass the trials of one learner")
    xs, datasets, ids = [], [], []
    for x, g in df.sort_values([n_col, trial_col]).groupby(x_col, sort=True):
        ns, errs = grouped_errors(g, n_col, error_col)
        by_n = dict(list(g.groupby(n_col, sort=True)))
        xs.append(float(x))
        datasets.append((ns.astype(float), errs))
        ids.append([tuple(by_n[n][trial_col].tolist()) for n in ns])
    return np.array(xs), datasets, ids


def _joint_resample(datasets, ids):
    """One trial-index draw per (n, set of trial ids), shared by every group holding those
    trials at that n (the same samples), so the groups move together in every replicate."""
    return shared_draws(datasets, [[(float(n), t) for n, t in zip(ns, tid)]
                                   for (ns, _), tid in zip(datasets, ids)])


def floor_subtracted_slope_paired(df, x_col, alpha, beta, fit_max, n_col="n",
                                  error_col="error", trial_col="trial", n_boot=200,
                                  random_state=0, level=0.95) -> dict:
    """The floor-subtracted slope of ``n_hat`` against ``x`` (see the module), fitted over the
    groups with ``x <= fit_max`` (and below the floor), the floor read at the largest ``x``.

    Returns the engine's dict (``slope, lo, hi, se, n_boot_valid, censored_frac, direction,
    lack_of_fit``, ...) with ``x_floor``, ``fit_x`` (the fitted x), ``n_points`` (fitted cells
    uncensored in the point estimate), ``floor_censored`` (the floor cell's censoring in the
    point estimate, "" if none), ``non_positive`` (the point estimate had a difference <= 0)
    and ``non_positive_frac`` (fraction of replicates with one; their statistic is
    :data:`NON_POSITIVE_VALUE`). ``slope`` is NaN when fewer than two x lie below the floor
    within ``fit_max``.
    """
    alpha = check_open_unit(alpha, "alpha")
    beta = check_open_unit(beta, "beta")
    n_boot = check_positive_int(n_boot, "n_boot", minimum=0)
    level = check_open_unit(level, "level")
    rng = check_random_state(random_state)
    xs, datasets, ids = _paired_datasets(df, x_col, n_col, error_col, trial_col)
    if np.any(xs <= 0):
        raise ValueError(f"column {x_col!r} must be positive for a log-log slope")
    x_floor = float(xs.max())
    fit = [i for i, x in enumerate(xs) if x <= fit_max and x < x_floor]
    empty = {"slope": math.nan, "lo": math.nan, "hi": math.nan, "se": math.nan,
             "n_points": len(fit), "n_boot_valid": 0, "censored_frac": math.nan,
             "direction": "", "lack_of_fit": "", "x_floor": x_floor,
             "fit_x": [float(xs[i]) for i in fit], "floor_censored": "",
             "non_positive": False, "non_positive_frac": math.nan}
    if len(fit) < 2:
        return empty
    keep = fit + [int(np.argmax(xs))]
    datasets = [datasets[i] for i in keep]
    ids = [ids[i] for i in keep]
    cells = [(j, alpha, float(xs[i])) for j, i in enumerate(keep)]
    rec = _Recorder(floor_cell=len(keep) - 1)
    res = bootstrap(datasets, cells, beta, n_boot, rng, level,
                    resample=_joint_resample(datasets, ids), slope_fn=rec, keep_censored=True)
    cens = [read_point(ns, errs, alpha, 1.0 - beta)[1] for ns, errs in datasets]
    # the engine's first call is the point estimate, its last n_boot the replicates
    replicate_flags = rec.flags[-n_boot:] if n_boot and res["n_boot_valid"] else []
    for k, v in empty.items():
        res.setdefault(k, v)
    res.update(n_points=int(sum(c == "" for c in cens[:-1])), floor_censored=cens[-1],
               x_floor=x_floor, fit_x=[float(xs[i]) for i in fit],
               non_positive=bool(rec.flags[0]) if rec.flags else False,
               non_positive_frac=(float(np.mean(replicate_flags)) if replicate_flags
                                  else math.nan))
    return res


# ------------------------------------------------------------------ two-term model (C2)


def two_term_fit(alphas, n_hats) -> tuple[float, float]:
    """``(A, B)`` of ``n_hat = A/alpha^2 + B/alpha``, ``A, B >= 0``, minimising the relative
    residuals ``sum((n_hat - model) / n_hat)^2`` (scipy.optimize.nnls); NaN if fewer than two
    finite positive cells."""
    a, n = np.asarray(alphas, dtype=float), np.asarray(n_hats, dtype=float)
    ok = np.isfinite(a) & np.isfinite(n) & (a > 0) & (n > 0)
    if ok.sum() < 2:
        return math.nan, math.nan
    a, n = a[ok], n[ok]
    design = np.column_stack([1.0 / a**2, 1.0 / a]) / n[:, None]
    coef, _ = nnls(design, np.ones_like(n))
    return float(coef[0]), float(coef[1])


def two_term_share(A, B, alpha) -> float:
    """The ``A/alpha^2`` term's share of the fitted ``n_hat`` at ``alpha``; the fitted model's
    local slope of ``log n`` against ``log(1/alpha)`` there is ``1 + share``."""
    hi, lo = A / alpha**2, B / alpha
    return float(hi / (hi + lo)) if hi + lo > 0 else math.nan


def family_statistic(kind: str, alpha0: float, pair=None):
    """A ``slope_fn`` for the engine on cells ``x = 1/alpha``: ``"local"``, the two-term
    model's local slope ``1 + share`` at ``alpha0``; ``"misfit"``, the measured log-log slope
    between the two alphas of ``pair`` minus the fitted model's slope between them (0 when the
    model bends as the data do where the verdict is read)."""
    if kind not in ("local", "misfit"):
        raise ValueError(f"kind must be 'local' or 'misfit', got {kind!r}")

    def fn(xs, vals, _=None):
        a = 1.0 / np.asarray(xs, dtype=float)
        v = np.asarray(vals, dtype=float)
        A, B = two_term_fit(a, v)
        if not np.isfinite(A):
            return math.nan
        if kind == "local":
            return 1.0 + two_term_share(A, B, alpha0)
        p = np.asarray(pair, dtype=float)
        sel = np.isin(np.round(a, 12), np.round(p, 12))
        if sel.sum() != 2:
            return math.nan
        measured = loglog_slope(1.0 / a[sel], v[sel])[0]
        return measured - loglog_slope(1.0 / p, A / p**2 + B / p)[0]
    return fn


def two_term_family(df, alpha_col, beta, n_col="n", error_col="error", n_boot=200,
                    random_state=0, level=0.95) -> dict:
    """The two-term model on a target-indexed family (one population per alpha, each read at
    its own alpha, as :func:`analysis.slopes.sample_complexity_slope_family`).

    Returns ``dict(A, B, alphas, n_hat, local, misfit)``: ``A, B`` fitted on the point
    estimate's ``n_hat`` (censored cells at the grid's edge), ``local`` the engine's dict for
    the model's local slope ``1 + share`` at the smallest alpha and ``misfit`` for the
    measured minus the model's slope between the two smallest alphas (both from the same
    replicates: the same ``random_state``).
    """
    from analysis.slopes import family_groups
    beta = check_open_unit(beta, "beta")
    n_boot = check_positive_int(n_boot, "n_boot", minimum=0)
    level = check_open_unit(level, "level")
    datasets, cells = family_groups(df, alpha_col, n_col, error_col)
    alphas = np.array([c[1] for c in cells])
    out = {"alphas": alphas, "A": math.nan, "B": math.nan, "n_hat": None}
    if alphas.size < 3:
        return out | {"local": None, "misfit": None}
    a0, pair = float(alphas.min()), np.sort(alphas)[:2]
    for kind in ("local", "misfit"):
        out[kind] = bootstrap(datasets, cells, beta, n_boot, check_random_state(random_state),
                              level, slope_fn=family_statistic(kind, a0, pair),
                              keep_censored=True)
        out[kind]["n_points"] = out[kind]["n_uncensored"]
    vals = []
    for ns, errs in datasets:
        v, c = read_point(ns, errs, float(alphas[len(vals)]), 1.0 - beta)
        vals.append(ns[-1] if c == "right" else ns[0] if c == "left" else v)
    out["n_hat"] = np.asarray(vals, dtype=float)
    out["A"], out["B"] = two_term_fit(alphas, out["n_hat"])
    return out
