"""Log-log slopes of the empirical sample complexity with bootstrap intervals (docs/model.md §5).

* :func:`analysis.bootstrap.bootstrap`: the shared resampling engine (trials resampled within
  each cell, or jointly across cells that share samples; each replicate refits every cell's
  dose-response curve; the grid reading is kept as the reference);
* :func:`sample_complexity_slope`, :func:`sample_complexity_slope_against`: the measured
  log-log slope with a bootstrap-over-trials interval (the verdict numbers of docs/model.md §5);
* :func:`sample_complexity_slope_paired`: the slope across groups that share their samples
  per trial (C3's epsilons), resampling trial indices jointly;
* :func:`family_sample_complexity`, :func:`sample_complexity_slope_family`: the same for a
  family of populations indexed by the target (one population per alpha, e.g.
  :class:`ppm.populations.hard_family.MarginFamily`): each population's ``n_hat`` is read at
  its own alpha.

``n_hat`` itself, its interval and the slope helpers are :mod:`analysis.sample_complexity`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis.sample_complexity import (check_alphas, check_confidence, check_df,
                                        check_n_values, grouped_errors, interpolate_n_hat,
                                        loglog_slope, n_hat_rows, N_HAT_COLUMNS)
from ppm.validation import check_open_unit, check_positive_int, check_random_state
# the engine, here for the modules and tests that import it from analysis.slopes
from analysis.bootstrap import bootstrap, censored_direction  # noqa: F401


def _uncensored_points(res: dict) -> dict:
    """The public slopes' ``n_points``: the cells uncensored in the point estimate (a slope
    needs :data:`claims.rules.outcomes.MIN_POINTS` of them); ``n_cells`` counts every cell that
    entered, the censored ones as bounds (``bounds``, ``direction``)."""
    res["n_cells"] = res["n_points"]
    res["n_points"] = res["n_uncensored"]
    return res


def sample_complexity_slope(df, alphas, beta, n_col="n", error_col="error", n_boot=200,
                            random_state=0, level=0.95, keep_censored=True) -> dict:
    """Slope of ``log n_hat`` against ``log(1/alpha)``, with a bootstrap interval (docs/model.md §5).

    Theory: 1 for the realizable bound (Theorem 4.9), 2 for the agnostic bound at fixed
    epsilon and small alpha (Theorem 4.10). Uses the alphas whose ``n_hat`` is uncensored.
    The interval resamples the trials within each ``n`` with replacement, recomputes ``n_hat``
    for every alpha and the slope, and takes the percentile interval at ``level``; seeded
    through a numpy Generator, so the result is deterministic for a given ``random_state``.

    Returns ``dict(slope, lo, hi, se, n_points, n_boot_valid, ...)`` (``se``: bootstrap
    standard deviation; ``n_points``: uncensored alphas; ``n_boot_valid``: replicates with a
    slope). ``keep_censored`` (default): a cell censored in the point estimate enters at the
    grid's edge as a bound (docs/results.md: never dropped) and ``direction`` says which way
    the estimate is then a bound; ``keep_censored=False`` drops it (the old reading).
    """
    alphas = check_alphas(alphas)
    beta = check_open_unit(beta, "beta")
    n_boot = check_positive_int(n_boot, "n_boot", minimum=0)
    level = check_open_unit(level, "level")
    rng = check_random_state(random_state)
    check_df(df, [n_col, error_col], [n_col, error_col])
    check_n_values(df, n_col)
    ns, errs = grouped_errors(df, n_col, error_col)
    cells = [(0, a, 1.0 / a) for a in alphas]
    return _uncensored_points(bootstrap([(ns.astype(float), errs)], cells, beta, n_boot, rng,
                                        level, keep_censored=keep_censored))


def sample_complexity_slope_against(df, x_col, alpha, beta, n_col="n", error_col="error",
                                    n_boot=200, random_state=0, level=0.95,
                                    keep_censored=True, slope_fn=None) -> dict:
    """Slope of ``log n_hat`` against ``log x`` across groups of ``x_col`` (docs/model.md §§5-6).

    For claims C3-C5 and C9 (``n_hat`` vs epsilon, d, w_pub, T): the trials are grouped by the
    positive numeric column ``x_col``, ``n_hat(alpha, beta)`` is computed in each group, and the
    slope of ``log n_hat`` on ``log x`` is fitted over the uncensored groups (e.g. theory -1
    against epsilon in the privacy-dominated regime, 0 against w_pub). Bootstrap as in
    :func:`sample_complexity_slope`, resampling within each ``(group, n)``. Same return dict.
    ``slope_fn``: another statistic of ``(x, n_hat)`` (e.g. :func:`linear_in_log_x`).
    """
    alpha = check_open_unit(alpha, "alpha")
    beta = check_open_unit(beta, "beta")
    n_boot = check_positive_int(n_boot, "n_boot", minimum=0)
    level = check_open_unit(level, "level")
    rng = check_random_state(random_state)
    check_df(df, [x_col, n_col, error_col], [x_col, n_col, error_col])
    check_n_values(df, n_col)
    xv = df[x_col].to_numpy(dtype=float)
    if np.any(xv <= 0):
        raise ValueError(f"column {x_col!r} must be positive for a log-log slope, "
                         f"got {xv[xv <= 0][0]!r}")
    datasets, cells = [], []
    for i, (x, g) in enumerate(df.groupby(x_col, sort=True)):
        ns, errs = grouped_errors(g, n_col, error_col)
        datasets.append((ns.astype(float), errs))
        cells.append((i, alpha, float(x)))
    return _uncensored_points(bootstrap(datasets, cells, beta, n_boot, rng, level,
                                        keep_censored=keep_censored, slope_fn=slope_fn))


def linear_in_log_x(x, n_hats, _=None) -> float:
    """A ``slope_fn`` for :func:`bootstrap`: the least-squares ``d n_hat / d ln x`` (samples per
    unit of ``ln x``), e.g. a mechanism's ``ln T`` coefficient."""
    x, y = np.asarray(x, dtype=float), np.asarray(n_hats, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0)
    if ok.sum() < 2:
        return math.nan
    return float(np.polyfit(np.log(x[ok]), y[ok], 1)[0])


def family_groups(df, alpha_col, n_col, error_col):
    check_df(df, [alpha_col, n_col, error_col], [alpha_col, n_col, error_col])
    check_n_values(df, n_col)
    datasets, cells = [], []
    for i, (a, g) in enumerate(df.groupby(alpha_col, sort=True)):
        a = check_open_unit(float(a), alpha_col)
        ns, errs = grouped_errors(g, n_col, error_col)
        datasets.append((ns.astype(float), errs))
        cells.append((i, a, 1.0 / a))
    return datasets, cells


def family_sample_complexity(df, alpha_col, beta, n_col="n", error_col="error",
                             confidence=0.95) -> pd.DataFrame:
    """``n_hat`` of each member of a target-indexed family at ITS OWN alpha (docs/model.md §5).

    ``df`` holds the trials of one learner on a family with one population per target; the
    column ``alpha_col`` (e.g. ``population.alpha_target``) gives each row's target. Returns
    the :func:`empirical_sample_complexity` table with one row per target, ``alpha`` equal to
    that target.
    """
    beta = check_open_unit(beta, "beta")
    confidence = check_confidence(confidence)
    datasets, cells = family_groups(df, alpha_col, n_col, error_col)
    records = []
    for (ns, errs), (_, a, _) in zip(datasets, cells):
        records.append(n_hat_rows(ns, errs, [a], beta, confidence)[0])
    return pd.DataFrame.from_records(records, columns=N_HAT_COLUMNS)


def sample_complexity_slope_family(df, alpha_col, beta, n_col="n", error_col="error",
                                   n_boot=200, random_state=0, level=0.95,
                                   keep_censored=True) -> dict:
    """Slope of ``log n_hat`` against ``log(1/alpha)`` across a target-indexed family.

    Like :func:`sample_complexity_slope`, but every population (group of ``alpha_col``) is
    read at its own target (:func:`family_sample_complexity`): the minimax reading of
    Theorem 4.10 (theory: 2 at fixed epsilon and small alpha). Bootstrap resamples the trials
    within each ``(population, n)``. Same return dict.
    """
    beta = check_open_unit(beta, "beta")
    n_boot = check_positive_int(n_boot, "n_boot", minimum=0)
    level = check_open_unit(level, "level")
    rng = check_random_state(random_state)
    datasets, cells = family_groups(df, alpha_col, n_col, error_col)
    return _uncensored_points(bootstrap(datasets, cells, beta, n_boot, rng, level,
                                        keep_censored=keep_censored))


def _paired_groups(df, x_col, n_col, error_col, trial_col):
    """Per group of ``x_col``: ``(ns, errs)`` with every ``errs[i]`` ordered by trial, so that
    index ``j`` is the same trial (the same sample) in every group."""
    check_df(df, [x_col, n_col, error_col, trial_col], [x_col, n_col, error_col])
    check_n_values(df, n_col)
    if df.duplicated([x_col, n_col, trial_col]).any():
        raise ValueError(f"more than one row per ({x_col}, {n_col}, {trial_col}): "
                         "pass the trials of one learner")
    tab = df.pivot(index=[n_col, trial_col], columns=x_col, values=error_col).sort_index()
    if tab.isna().to_numpy().any():
        raise ValueError(f"a paired bootstrap needs every ({n_col}, {trial_col}) in every "
                         f"{x_col} group; some are missing")
    ns = tab.index.get_level_values(0).unique().to_numpy(dtype=float)
    datasets = [(ns, [tab.xs(n, level=0)[x].to_numpy(dtype=float) for n in ns])
                for x in tab.columns]
    return list(tab.columns), datasets


def sample_complexity_slope_paired(df, x_col, alpha, beta, n_col="n", error_col="error",
                                   trial_col="trial", n_boot=200, random_state=0,
                                   level=0.95, keep_censored=True) -> dict:
    """:func:`sample_complexity_slope_against` for groups that share their samples per trial.

    When every group of ``x_col`` (e.g. epsilon, C3) is run on the same sample for a given
    ``(n, trial)``, the groups' errors are dependent and resampling each group on its own
    (as :func:`sample_complexity_slope_against` does) ignores that, which gives a wrong (in
    practice too wide) interval for a slope across the groups. Here each replicate draws the
    trial indices once per ``n`` and applies them to every group (the same resampled samples
    at every ``x``). Censoring in replicates as in :func:`sample_complexity_slope` (counted in
    ``censored_frac``). Same return dict.
    """
    alpha = check_open_unit(alpha, "alpha")
    beta = check_open_unit(beta, "beta")
    n_boot = check_positive_int(n_boot, "n_boot", minimum=0)
    level = check_open_unit(level, "level")
    rng = check_random_state(random_state)
    xs, datasets = _paired_groups(df, x_col, n_col, error_col, trial_col)
    if np.any(np.asarray(xs, dtype=float) <= 0):
        raise ValueError(f"column {x_col!r} must be positive for a log-log slope")
    per_n = [e.size for e in datasets[0][1]]

    def resample(rng):
        idx = [rng.integers(0, t, t) for t in per_n]
        return [[e[i] for e, i in zip(errs, idx)] for _, errs in datasets]

    cells = [(i, alpha, float(x)) for i, x in enumerate(xs)]
    return _uncensored_points(bootstrap(datasets, cells, beta, n_boot, rng, level,
                                        resample=resample, keep_censored=keep_censored))


def slope_difference_paired(df, x_col, a, b, alpha, beta, n_col="n", error_col="error",
                            trial_col="trial", learner_col="learner", n_boot=200,
                            random_state=0, level=0.95, keep_censored=True) -> dict:
    """``slope(a) - slope(b)`` of ``log n_hat`` against ``log x``, for two learners run on the
    same sample in every ``(x, n, trial)``: a paired bootstrap (each replicate draws the trial
    indices once per ``(x, n)`` and applies them to both learners), so the contrast a claim
    makes is measured directly rather than read off two separate intervals.

    Censored cells enter as bounds (``keep_censored``, :func:`bootstrap`); ``direction`` says
    which way they bound the difference. ``n_points``: the fewer uncensored x of the two
    learners. Same dict as :func:`bootstrap`.
    """
    alpha = check_open_unit(alpha, "alpha")
    beta = check_open_unit(beta, "beta")
    n_boot = check_positive_int(n_boot, "n_boot", minimum=0)
    level = check_open_unit(level, "level")
    rng = check_random_state(random_state)
    check_df(df, [x_col, n_col, error_col, trial_col, learner_col], [x_col, n_col, error_col])
    sub = df[df[learner_col].isin([a, b])]
    xs = np.sort(sub[x_col].unique()).astype(float)
    if np.any(xs <= 0):
        raise ValueError(f"column {x_col!r} must be positive for a log-log slope")
    datasets, sizes = {a: [], b: []}, []
    for x in xs:
        g = sub[sub[x_col] == x]
        if g.duplicated([n_col, trial_col, learner_col]).any():
            raise ValueError(f"more than one row per ({x_col}, {n_col}, {trial_col}, learner)")
        tab = g.pivot(index=[n_col, trial_col], columns=learner_col,
                      values=error_col).sort_index()
        if a not in tab or b not in tab or tab[[a, b]].isna().to_numpy().any():
            raise ValueError(f"{x_col}={x:g}: {a} and {b} must share every ({n_col}, "
                             f"{trial_col})")
        ns = tab.index.get_level_values(0).unique().to_numpy(dtype=float)
        for lrn in (a, b):
            datasets[lrn].append((ns, [tab.xs(n, level=0)[lrn].to_numpy(float) for n in ns]))
        sizes.append([e.size for e in datasets[a][-1][1]])
    nx = len(xs)
    data = datasets[a] + datasets[b]

    def resample(rng):
        idx = [[rng.integers(0, t, t) for t in s] for s in sizes]
        return [[e[i] for e, i in zip(errs, idx[d % nx])] for d, (_, errs) in enumerate(data)]

    def diff(x, v, kept):
        first = np.asarray(kept) < nx
        if first.sum() < 2 or (~first).sum() < 2:
            return math.nan
        return loglog_slope(x[first], v[first])[0] - loglog_slope(x[~first], v[~first])[0]

    cells = [(d, alpha, float(xs[d % nx])) for d in range(2 * nx)]
    res = bootstrap(data, cells, beta, n_boot, rng, level, resample=resample, slope_fn=diff,
                    keep_censored=keep_censored)
    target = 1.0 - beta
    unc = []
    for half in (datasets[a], datasets[b]):
        k = 0
        for ns, errs in half:
            fr = np.array([np.mean(e <= alpha) for e in errs])
            k += interpolate_n_hat(ns, fr, target)[1] == ""
        unc.append(k)
    res["n_cells"] = res["n_points"]
    res["n_points"] = res["n_uncensored"] = int(min(unc))
    return res
