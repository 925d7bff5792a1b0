"""Empirical sample complexity from per-trial errors (docs/model.md §5).

Input is a tidy DataFrame, one row per trial (one run of the learner), holding the sample size
(column ``n`` by default) and the true error of the output (``error`` by default; for the
agnostic claims pass the excess error, e.g. ``error_col="excess_error"``). The learner never
sees ``alpha`` or ``beta``: they are analysis parameters, and every ``(alpha, beta)`` is read
off the same runs.

* :func:`success_curve`: per ``n``, the fraction of trials with error ``<= alpha`` and its
  Clopper-Pearson interval;
* :func:`n_hat_from_curve`: the smallest ``n`` from which that fraction stays ``>= 1 - beta``,
  interpolated in ``log n``; :func:`crossing_bracket`: the grid points around it (the
  resolution every interval carries);
* :func:`empirical_sample_complexity`: ``n_hat`` and its interval per group and ``alpha``;
* :func:`sample_complexity_slope`, :func:`sample_complexity_slope_against`: the measured
  log-log slope with a bootstrap-over-trials interval (the verdict numbers of docs/model.md §5);
* :func:`sample_complexity_slope_paired`: the slope across groups that share their samples
  per trial (C3's epsilons), resampling trial indices jointly;
* :func:`family_sample_complexity`, :func:`sample_complexity_slope_family`: the same for a
  family of populations indexed by the target (one population per alpha, e.g.
  :class:`ppm.populations.hard_family.MarginFamily`): each population's ``n_hat`` is read at its own alpha.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy.stats import beta as beta_dist

from ppm.validation import check_open_unit, check_positive_int, check_random_state

__all__ = [
    "success_curve",
    "n_hat_from_curve",
    "crossing_bracket",
    "crossing_signature",
    "empirical_sample_complexity",
    "loglog_slope",
    "slope_against",
    "sample_complexity_slope",
    "sample_complexity_slope_against",
    "family_sample_complexity",
    "sample_complexity_slope_family",
    "sample_complexity_slope_paired",
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


def _check_confidence(confidence, name="confidence") -> float:
    return check_open_unit(confidence, name)


def _grouped(df, n_col, error_col):
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
    confidence = _check_confidence(confidence)
    check_df(df, [n_col, error_col], [n_col, error_col])
    check_n_values(df, n_col)
    ns, errs = _grouped(df, n_col, error_col)
    trials = np.array([e.size for e in errs], dtype=np.int64)
    succ = np.array([np.count_nonzero(e <= alpha) for e in errs], dtype=np.int64)
    lo, hi = _clopper_pearson(succ, trials, confidence)
    return pd.DataFrame(
        {"n": ns, "trials": trials, "successes": succ, "frac": succ / trials,
         "cp_lo": lo, "cp_hi": hi}
    )


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


def _n_hat_rows(ns, errs, alphas, beta, confidence):
    """n_hat, its interval, censoring and min trials for each alpha, on one group."""
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
        rows.append((a, beta, val, v_lo, v_hi, cens, int(trials.min())))
    return rows


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
    confidence = _check_confidence(confidence)
    by = [by] if isinstance(by, str) else list(by)
    check_df(df, [*by, n_col, error_col], [n_col, error_col])
    check_n_values(df, n_col)
    out_cols = [*by, "alpha", "beta", "n_hat", "n_hat_lo", "n_hat_hi", "censored",
                "min_trials"]
    records = []
    groups = df.groupby(by, sort=True, dropna=False) if by else [((), df)]
    for key, g in groups:
        key = key if isinstance(key, tuple) else (key,)
        ns, errs = _grouped(g, n_col, error_col)
        for row in _n_hat_rows(ns.astype(float), errs, alphas, beta, confidence):
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
        ns, errs = _grouped(g, n_col, error_col)
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


def bootstrap(datasets, cells, beta, n_boot, rng, level, resample=None, slope_fn=None,
              keep_censored=False, curve_id=None):
    """Point slope and bootstrap interval for ``log n_hat`` against ``log x`` over ``cells``.

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
    pairs. Percentile interval over the replicates. ``slope_fn(xs, n_hats, cell_indices)``
    fits the slope (default: one least-squares line; :mod:`analysis.pooled_slope` passes a
    common slope with one intercept per setting), ``cell_indices`` naming the cells in
    ``cells``. ``curve_id[di]`` names the samples of dataset ``di`` (default: its index):
    cells of datasets on the same samples whose resampled curves coincide share one position in
    their bracket (one measurement read twice is not two readings of the grid).
    """
    target = 1.0 - beta
    if curve_id is None:
        curve_id = list(range(len(datasets)))
    if slope_fn is None:
        def slope_fn(x, y, _):
            return loglog_slope(x, y)[0]
    if resample is None:
        def resample(rng):
            return [[e[rng.integers(0, e.size, e.size)] for e in errs] for _, errs in datasets]

    def fractions(ds_errs):
        # success fractions of every cell at once: sort each n's errors, count by searchsorted
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
           "bounds": int(np.count_nonzero(point_cens[use] != ""))}
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


def sample_complexity_slope(df, alphas, beta, n_col="n", error_col="error", n_boot=200,
                            random_state=0, level=0.95) -> dict:
    """Slope of ``log n_hat`` against ``log(1/alpha)``, with a bootstrap interval (docs/model.md §5).

    Theory: 1 for the realizable bound (Theorem 4.9), 2 for the agnostic bound at fixed
    epsilon and small alpha (Theorem 4.10). Uses the alphas whose ``n_hat`` is uncensored.
    The interval resamples the trials within each ``n`` with replacement, recomputes ``n_hat``
    for every alpha and the slope, and takes the percentile interval at ``level``; seeded
    through a numpy Generator, so the result is deterministic for a given ``random_state``.

    Returns ``dict(slope, lo, hi, se, n_points, n_boot_valid)`` (``se``: bootstrap standard
    deviation; ``n_points``: alphas used; ``n_boot_valid``: replicates with a slope).
    """
    alphas = check_alphas(alphas)
    beta = check_open_unit(beta, "beta")
    n_boot = check_positive_int(n_boot, "n_boot", minimum=0)
    level = check_open_unit(level, "level")
    rng = check_random_state(random_state)
    check_df(df, [n_col, error_col], [n_col, error_col])
    check_n_values(df, n_col)
    ns, errs = _grouped(df, n_col, error_col)
    cells = [(0, a, 1.0 / a) for a in alphas]
    return bootstrap([(ns.astype(float), errs)], cells, beta, n_boot, rng, level)


def sample_complexity_slope_against(df, x_col, alpha, beta, n_col="n", error_col="error",
                                    n_boot=200, random_state=0, level=0.95) -> dict:
    """Slope of ``log n_hat`` against ``log x`` across groups of ``x_col`` (docs/model.md §§5-6).

    For claims C3-C5 and C9 (``n_hat`` vs epsilon, d, w_pub, T): the trials are grouped by the
    positive numeric column ``x_col``, ``n_hat(alpha, beta)`` is computed in each group, and the
    slope of ``log n_hat`` on ``log x`` is fitted over the uncensored groups (e.g. theory -1
    against epsilon in the privacy-dominated regime, 0 against w_pub). Bootstrap as in
    :func:`sample_complexity_slope`, resampling within each ``(group, n)``. Same return dict.
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
        ns, errs = _grouped(g, n_col, error_col)
        datasets.append((ns.astype(float), errs))
        cells.append((i, alpha, float(x)))
    return bootstrap(datasets, cells, beta, n_boot, rng, level)



def _family_groups(df, alpha_col, n_col, error_col):
    check_df(df, [alpha_col, n_col, error_col], [alpha_col, n_col, error_col])
    check_n_values(df, n_col)
    datasets, cells = [], []
    for i, (a, g) in enumerate(df.groupby(alpha_col, sort=True)):
        a = check_open_unit(float(a), alpha_col)
        ns, errs = _grouped(g, n_col, error_col)
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
    confidence = _check_confidence(confidence)
    datasets, cells = _family_groups(df, alpha_col, n_col, error_col)
    records = []
    for (ns, errs), (_, a, _) in zip(datasets, cells):
        records.append(_n_hat_rows(ns, errs, [a], beta, confidence)[0])
    return pd.DataFrame.from_records(records, columns=["alpha", "beta", "n_hat", "n_hat_lo",
                                                       "n_hat_hi", "censored", "min_trials"])


def sample_complexity_slope_family(df, alpha_col, beta, n_col="n", error_col="error",
                                   n_boot=200, random_state=0, level=0.95) -> dict:
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
    return bootstrap(datasets, cells, beta, n_boot, rng, level)


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
                                   level=0.95) -> dict:
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
    return bootstrap(datasets, cells, beta, n_boot, rng, level, resample=resample)
