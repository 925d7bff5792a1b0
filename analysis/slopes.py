"""Log-log slopes of the empirical sample complexity with bootstrap intervals (docs/model.md §5).

* :func:`bootstrap`: the shared resampling engine (trials resampled within each cell, or
  jointly across cells that share samples; each replicate refits every cell's dose-response
  curve, :mod:`analysis.dose_response`; :func:`grid_bootstrap` is the grid reading kept as the
  reference);
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
                                        check_n_values, draw_n_hat, grouped_errors,
                                        interpolate_n_hat, loglog_slope, n_hat_rows,
                                        N_HAT_COLUMNS)
from ppm.validation import check_open_unit, check_positive_int, check_random_state


def censored_direction(xs, vals, cens, cell_indices, slope_fn) -> str:
    """Which way the cells censored in the point estimate can move the statistic's truth.

    A right-censored cell entered at the grid's largest ``n`` has a true ``n_hat`` above it, a
    left-censored one at the smallest ``n`` below it. Each censored cell is moved that way (by
    a factor 2) and the statistic recomputed: if every such move raises it the estimate is a
    "lower bound" (the truth is at or above it), if every one lowers it an "upper bound",
    "bound both ways" when they disagree (nothing is decided by the estimate alone), and ""
    when no cell is censored or none moves the statistic.
    """
    cens = np.asarray(cens)
    if not np.any(cens != ""):
        return ""
    base = slope_fn(xs, vals, cell_indices)
    if not np.isfinite(base):
        return ""
    signs = set()
    for i in np.flatnonzero(cens != ""):
        v = np.array(vals, dtype=float)
        v[i] = v[i] * 2.0 if cens[i] == "right" else v[i] / 2.0
        moved = slope_fn(xs, v, cell_indices)
        if np.isfinite(moved) and abs(moved - base) > 1e-12 * max(1.0, abs(base)):
            signs.add(moved > base)
    if signs == {True}:
        return "lower bound"
    if signs == {False}:
        return "upper bound"
    return "bound both ways" if signs else ""


def bootstrap(datasets, cells, beta, n_boot, rng, level, resample=None, slope_fn=None,
              keep_censored=False, curve_id=None, reading=None):
    """Point statistic and bootstrap interval for ``log n_hat`` against ``log x`` over ``cells``.

    ``datasets``: list of ``(ns, errs)``; ``cells``: list of ``(dataset index, alpha, x)``.
    Each replicate resamples the trials with ``resample(rng)`` (default: within every
    ``(dataset, n)`` independently, one resample per dataset shared by all its cells; a caller
    whose datasets share samples passes a joint resample) and rereads every ``n_hat`` and the
    statistic ``slope_fn(xs, n_hats, cell_indices)`` (default: the least-squares log-log
    slope). Percentile interval at ``level``.

    ``reading`` (default: :func:`analysis.dose_response.reading`, "fit"): how a curve's
    ``n_hat`` is read. "fit" is the dose-response ED_{1-beta} of
    :mod:`analysis.dose_response`, refitted in every replicate; the result carries
    ``lack_of_fit`` (the reasons, "" if the model stands: a statistic with one is
    inconclusive) and ``status`` (per cell: fit, bracket, flat, censored). "grid" is
    :func:`grid_bootstrap`, the first-run-of-successes reading at the grid's resolution, kept
    as the reference.

    Censoring (either reading): only the cells uncensored in the point estimate enter, unless
    ``keep_censored``: then a censored cell enters as a bound at the grid's edge (largest ``n``
    if right-censored: the truth is larger; smallest if left-censored) and ``bounds`` counts
    such cells; ``direction`` (:func:`censored_direction`) says which way they can move the
    statistic. A cell censored in a replicate enters at the edge likewise (dropping it would
    bias the statistic toward the cells that stay measurable); ``censored_frac`` counts those
    (replicate, cell) pairs. ``curve_id[di]`` names the samples of dataset ``di``: curves of
    datasets on the same samples that coincide share one position in their bracket.
    """
    from analysis.dose_response import reading as current_reading
    reading = reading or current_reading()
    if reading == "grid":
        return grid_bootstrap(datasets, cells, beta, n_boot, rng, level, resample=resample,
                              slope_fn=slope_fn, keep_censored=keep_censored,
                              curve_id=curve_id)
    if reading != "fit":
        raise ValueError(f"reading must be 'fit' or 'grid', got {reading!r}")
    return fitted_bootstrap(datasets, cells, beta, n_boot, rng, level, resample=resample,
                            slope_fn=slope_fn, keep_censored=keep_censored, curve_id=curve_id)


def _least_squares_slope(x, y, _):
    return loglog_slope(x, y)[0]


def _defaults(datasets, curve_id, slope_fn, resample):
    """:func:`bootstrap`'s defaults: each dataset its own samples, one least-squares log-log
    slope, trials resampled within every ``(dataset, n)``."""
    if resample is None:
        def resample(rng):
            return [[e[rng.integers(0, e.size, e.size)] for e in errs] for _, errs in datasets]
    return (list(range(len(datasets))) if curve_id is None else curve_id,
            slope_fn or _least_squares_slope, resample)


def cell_fractions(datasets, cells, ds_errs):
    """Success fractions of every cell at once, one array per cell over its grid: each ``n``'s
    errors sorted once and counted at every alpha of the dataset by ``searchsorted``."""
    fracs = {}
    for di, errs in enumerate(ds_errs):
        a = np.array([c[1] for c in cells if c[0] == di])
        if a.size:
            fracs[di] = np.stack([np.searchsorted(np.sort(e), a, side="right") / e.size
                                  for e in errs])  # shape (grid n, alphas of di)
    out, pos = [], {di: 0 for di in fracs}
    for di, _, _ in cells:
        out.append(fracs[di][:, pos[di]])
        pos[di] += 1
    return out


def fitted_bootstrap(datasets, cells, beta, n_boot, rng, level, resample=None, slope_fn=None,
                     keep_censored=False, curve_id=None):
    """:func:`bootstrap` with the fitted (dose-response) reading of ``n_hat``."""
    from analysis.dose_response import lack_of_fit, read_curves
    target = 1.0 - beta
    curve_id, slope_fn, resample = _defaults(datasets, curve_id, slope_fn, resample)
    trials = [np.array([e.size for e in errs], dtype=float) for _, errs in datasets]

    def curves(fr):
        return [(datasets[di][0], np.rint(f * trials[di]), trials[di])
                for (di, _, _), f in zip(cells, fr)]

    point = read_curves(curves(cell_fractions(datasets, cells,
                                              [errs for _, errs in datasets])), target)
    vals, point_cens = point.value.astype(float), point.censored.astype(str)
    use = np.ones(len(cells), dtype=bool) if keep_censored else point_cens == ""
    xs = np.array([c[2] for c in cells], dtype=float)
    slope = slope_fn(xs[use], vals[use], np.flatnonzero(use))
    res = {"slope": slope, "lo": math.nan, "hi": math.nan, "se": math.nan,
           "n_points": int(use.sum()), "n_boot_valid": 0, "censored_frac": math.nan,
           "resolution": (math.nan, math.nan),
           "bounds": int(np.count_nonzero(point_cens[use] != "")),
           "n_uncensored": int(np.count_nonzero(point_cens[use] == "")),
           "direction": censored_direction(xs[use], vals[use], point_cens[use],
                                           np.flatnonzero(use), slope_fn),
           "status": list(point.status), "n_hat": list(vals), "lack_of_fit": "",
           "reading": "fit"}
    if n_boot == 0 or not use.any():
        return res
    kept = np.flatnonzero(use)
    q = 100.0 * (1.0 - level) / 2.0
    cells_u = [c for c, u in zip(cells, use) if u]
    xs = xs[use]
    # every replicate's curves are read in one batch (one vectorised GLM fit)
    batch, u_pos = [], []
    for _ in range(n_boot):
        fr = [f for f, u in zip(cell_fractions(datasets, cells, resample(rng)), use) if u]
        pos = {}
        for (di, _, _), f in zip(cells_u, fr):
            key = (curve_id[di], f.tobytes())
            if key not in pos:
                pos[key] = rng.random()
            u_pos.append(pos[key])
        batch.extend((datasets[di][0], np.rint(f * trials[di]), trials[di])
                     for (di, _, _), f in zip(cells_u, fr))
    reads = read_curves(batch, target, u=np.array(u_pos))
    v = reads.value.reshape(n_boot, len(cells_u))
    cens = reads.censored.reshape(n_boot, len(cells_u))
    res["censored_frac"] = float(np.mean(cens != ""))
    boot = np.array([slope_fn(xs, v[b], kept) for b in range(n_boot)])
    fields = ("value", "censored", "status", "cir", "dev_p", "cir_model")
    sub = type(point)(*(getattr(point, f)[use] for f in fields))
    per_rep = type(point)(*(getattr(reads, f).reshape(n_boot, len(cells_u)) for f in fields))
    res["lack_of_fit"] = "; ".join(lack_of_fit(sub, per_rep))
    boot = boot[np.isfinite(boot)]
    res["n_boot_valid"] = int(boot.size)
    if boot.size >= 2:
        res["lo"], res["hi"] = (float(b) for b in np.percentile(boot, [q, 100.0 - q]))
        res["se"] = float(np.std(boot, ddof=1))
    return res


def grid_bootstrap(datasets, cells, beta, n_boot, rng, level, resample=None, slope_fn=None,
                   keep_censored=False, curve_id=None):
    """:func:`bootstrap` with the grid reading of ``n_hat`` (the reference beside the counted one).

    ``datasets``: list of ``(ns, errs)``; ``cells``: list of ``(dataset index, alpha, x)``.
    Each replicate resamples the trials with ``resample(rng)`` (default: within every
    ``(dataset, n)`` independently, one resample per dataset shared by all its cells) and
    recomputes every ``n_hat`` and the slope. A replicate reads each ``n_hat`` at a uniform
    position (in ``log n``) of its crossing's bracket (:func:`draw_n_hat`): the grid locates a
    crossing no more finely than between two grid points, and an interpolation that stays put
    on a step-like curve (every trial failing at one grid point and succeeding at the next)
    would give a degenerate interval. The interval can thus never be narrower than the grid
    allows; ``resolution`` is the interval that the grid alone gives (the point estimate's
    brackets, no resampling), and ``[lo, hi]`` is widened to contain it.

    Only the cells uncensored in the point estimate enter, unless ``keep_censored``: then a
    cell censored in the point estimate enters as a bound too, as below, and ``bounds`` counts
    such cells. A cell censored in a replicate is not dropped (that would bias the slope toward
    the cells that happen to stay measurable): it enters at the edge of the grid, the largest
    ``n`` if right-censored (the true ``n_hat`` is larger: a lower bound) and the smallest
    ``n`` if left-censored (an upper bound); ``censored_frac`` counts these (replicate, cell)
    pairs. Percentile interval over the replicates. ``n_uncensored`` counts the cells
    uncensored in the point estimate, and ``direction`` (:func:`censored_direction`) says which
    way the cells entered as bounds can move the truth ("" when none is censored). ``slope_fn(xs, n_hats, cell_indices)``
    fits the slope (default: one least-squares line; :mod:`analysis.pooled_slope` passes a
    common slope with one intercept per setting), ``cell_indices`` naming the cells in
    ``cells``. ``curve_id[di]`` names the samples of dataset ``di`` (default: its index):
    cells of datasets on the same samples whose resampled curves coincide share one position in
    their bracket (one measurement read twice is not two readings of the grid).
    """
    target = 1.0 - beta
    curve_id, slope_fn, resample = _defaults(datasets, curve_id, slope_fn, resample)

    def fractions(ds_errs):
        return cell_fractions(datasets, cells, ds_errs)  # late-bound: the kept cells below

    def read(fr, rng=None):
        """n_hat of every cell: interpolated (``rng`` None) or drawn in its bracket (one
        position per distinct curve); censored cells at the grid's edge; returns (values,
        censoring)."""
        vals, cens, pos = [], [], {}
        for (di, _, _), f in zip(cells, fr):
            ns = datasets[di][0]
            if rng is None:
                v, c = interpolate_n_hat(ns, f, target)
            else:
                key = (curve_id[di], f.tobytes())
                if key not in pos:
                    pos[key] = rng.random()
                v, c = draw_n_hat(ns, f, target, pos[key])
            vals.append(ns[-1] if c == "right" else v)
            cens.append(c)
        return np.array(vals, dtype=float), np.array(cens)

    point_fr = fractions([errs for _, errs in datasets])
    vals, point_cens = read(point_fr)
    use = np.ones(len(cells), dtype=bool) if keep_censored else point_cens == ""
    xs = np.array([c[2] for c in cells], dtype=float)
    slope = slope_fn(xs[use], vals[use], np.flatnonzero(use))
    res = {"slope": slope, "lo": math.nan, "hi": math.nan, "se": math.nan,
           "n_points": int(use.sum()), "n_boot_valid": 0, "censored_frac": math.nan,
           "resolution": (math.nan, math.nan),
           "bounds": int(np.count_nonzero(point_cens[use] != "")),
           "n_uncensored": int(np.count_nonzero(point_cens[use] == "")),
           "direction": censored_direction(xs[use], vals[use], point_cens[use],
                                           np.flatnonzero(use), slope_fn)}
    if use.sum() < 2 or n_boot == 0:
        return res
    kept = np.flatnonzero(use)
    q = 100.0 * (1.0 - level) / 2.0
    point_fr = [f for f, u in zip(point_fr, use) if u]
    cells = [c for c, u in zip(cells, use) if u]
    xs = xs[use]
    # the grid's own resolution: the point estimate's brackets, no resampling
    grid = np.array([slope_fn(xs, read(point_fr, rng)[0], kept)
                     for _ in range(n_boot)])
    grid = grid[np.isfinite(grid)]
    if grid.size >= 2:
        res["resolution"] = tuple(float(v) for v in np.percentile(grid, [q, 100.0 - q]))
    boot = np.full(n_boot, math.nan)
    n_censored = 0
    for b in range(n_boot):
        fr = fractions(resample(rng))
        v, cens = read(fr, rng)  # left-censored: val = smallest n
        n_censored += int(np.count_nonzero(cens != ""))
        boot[b] = slope_fn(xs, v, kept)
    res["censored_frac"] = n_censored / (n_boot * len(cells))
    boot = boot[np.isfinite(boot)]
    res["n_boot_valid"] = int(boot.size)
    if boot.size >= 2:
        lo, hi = (float(v) for v in np.percentile(boot, [q, 100.0 - q]))
        r_lo, r_hi = res["resolution"]
        if np.isfinite(r_lo):
            lo, hi = min(lo, r_lo), max(hi, r_hi)
        res["lo"], res["hi"] = lo, hi
        res["se"] = float(np.std(boot, ddof=1))
    return res


def _uncensored_points(res: dict) -> dict:
    """The public slopes' ``n_points``: the cells uncensored in the point estimate (a slope
    needs :data:`claims.outcomes.MIN_POINTS` of them); ``n_cells`` counts every cell that
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


def _family_groups(df, alpha_col, n_col, error_col):
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
    datasets, cells = _family_groups(df, alpha_col, n_col, error_col)
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
    datasets, cells = _family_groups(df, alpha_col, n_col, error_col)
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
