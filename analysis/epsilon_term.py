"""C2's privacy term read across epsilon: ``n_hat(alpha, epsilon) = u(alpha) + v(alpha)/epsilon``.

BMN20 Theorem 4.10 bounds PPM's agnostic sample complexity by ``A/alpha^2 + B/(epsilon
alpha)`` (up to d and log factors). At one epsilon the two terms are hard to tell apart
(:func:`analysis.floor_slope.two_term_family`); across epsilon on paired samples they separate:
at each alpha the epsilon-free part ``u(alpha)`` and the privacy coefficient ``v(alpha)`` are
the intercept and slope of ``n_hat`` against ``1/epsilon`` (:func:`epsilon_term_fit`: least
squares on relative residuals, so every cell weighs alike whatever its size, as
:func:`analysis.floor_slope.two_term_fit`). The theorem's privacy term predicts ``v(alpha) ~
1/alpha`` (log factors aside); a multiplicative ``1/(epsilon alpha^2)`` would give ``v ~
1/alpha^2``. The statistic is the least-squares slope of ``log v`` against ``log(1/alpha)``
(:func:`growth_slope`); the u-free reading ``v2(alpha)``, the difference quotient of ``n_hat``
between the two smallest epsilons (:func:`pair_coefficient`), is its model check.

:func:`epsilon_term_growth` runs both on the shared engine :func:`analysis.bootstrap.bootstrap`
(the reading of ``n_hat`` in force, censored cells at the grid's edge). The samples of one
population (``alpha``) at one ``n`` and trial are the same at every epsilon (the seed does not
derive from epsilon), so each replicate draws one trial index vector per ``(alpha, n, trial
ids)`` and applies it at every epsilon; populations are resampled independently.
"""

from __future__ import annotations

import math

import numpy as np

from analysis.bootstrap import bootstrap, shared_draws
from analysis.sample_complexity import check_df, check_n_values, grouped_errors, loglog_slope
from ppm.validation import check_open_unit, check_positive_int, check_random_state

__all__ = ["epsilon_term_fit", "pair_coefficient", "growth_slope", "epsilon_term_growth"]


def _finite_positive(x, n):
    x, n = np.asarray(x, dtype=float), np.asarray(n, dtype=float)
    if x.shape != n.shape or x.ndim != 1:
        raise ValueError(f"inv_eps and n_hats must be 1-D of one length, got shapes {x.shape} "
                         f"and {n.shape}")
    ok = np.isfinite(x) & np.isfinite(n) & (x > 0) & (n > 0)
    return x[ok], n[ok]


def epsilon_term_fit(inv_eps, n_hats) -> tuple[float, float]:
    """``(u, v)`` of ``n_hat = u + v * inv_eps`` (``inv_eps = 1/epsilon``), minimising the
    relative residuals ``sum(((n_hat - u - v inv_eps) / n_hat)^2)`` (unconstrained: a ``v <=
    0`` says the data show no privacy term); NaN when fewer than two finite positive cells
    with distinct ``inv_eps``."""
    x, n = _finite_positive(inv_eps, n_hats)
    if np.unique(x).size < 2:
        return math.nan, math.nan
    design = np.column_stack([np.ones_like(x), x]) / n[:, None]
    coef, *_ = np.linalg.lstsq(design, np.ones_like(n), rcond=None)
    return float(coef[0]), float(coef[1])


def pair_coefficient(inv_eps, n_hats) -> float:
    """The u-free reading of ``v``: ``(n_hat(x1) - n_hat(x2)) / (x1 - x2)`` between the two
    largest ``inv_eps`` (the two smallest epsilons, where the privacy term weighs most); NaN
    when fewer than two finite positive cells."""
    x, n = _finite_positive(inv_eps, n_hats)
    if np.unique(x).size < 2:
        return math.nan
    order = np.argsort(x)[::-1]
    (x1, x2), (n1, n2) = x[order[:2]], n[order[:2]]
    return float((n1 - n2) / (x1 - x2))


def growth_slope(alphas, vs) -> float:
    """Least-squares slope of ``log v`` against ``log(1/alpha)``; NaN when some ``v`` is not
    finite and positive (no log) or fewer than two distinct alphas."""
    a, v = np.asarray(alphas, dtype=float), np.asarray(vs, dtype=float)
    if a.shape != v.shape or a.ndim != 1:
        raise ValueError(f"alphas and vs must be 1-D of one length, got shapes {a.shape} and "
                         f"{v.shape}")
    if np.unique(a).size < 2 or not np.all(np.isfinite(v) & (v > 0)):
        return math.nan
    return float(loglog_slope(1.0 / a, v)[0])


class _Recorder:
    """The engine's ``slope_fn`` on cells ``x = 1/epsilon``: per alpha the fit ``(u, v)`` and
    ``v2``, then :func:`growth_slope` of ``v`` (returned) and of ``v2`` (recorded). The
    engine's first call is the point estimate, its last ``n_boot`` the replicates."""

    def __init__(self, cell_alpha: np.ndarray):
        self.cell_alpha, self.calls = np.asarray(cell_alpha, dtype=float), []

    def __call__(self, xs, vals, cell_indices):
        ca = self.cell_alpha[np.asarray(cell_indices)]
        xs, vals = np.asarray(xs, dtype=float), np.asarray(vals, dtype=float)
        alphas = np.unique(ca)
        uv = np.array([epsilon_term_fit(xs[ca == a], vals[ca == a]) for a in alphas])
        v2 = np.array([pair_coefficient(xs[ca == a], vals[ca == a]) for a in alphas])
        rec = {"alphas": alphas, "u": uv[:, 0], "v": uv[:, 1], "v2": v2,
               "slope": growth_slope(alphas, uv[:, 1]), "slope2": growth_slope(alphas, v2),
               "n_hat": vals.copy()}
        self.calls.append(rec)
        return rec["slope"]


def _datasets(df, alpha_col, eps_col, n_col, error_col, trial_col):
    """One dataset ``(ns, errs)`` per ``(alpha, epsilon)``, each ``errs[i]`` ordered by trial;
    the cells ``(index, alpha, 1/epsilon)``; the resampling keys ``(alpha, n, trial ids)``."""
    cols = [alpha_col, eps_col, n_col, error_col, trial_col]
    check_df(df, cols, [alpha_col, eps_col, n_col, error_col])
    check_n_values(df, n_col)
    eps = df[eps_col].to_numpy(dtype=float)
    if np.any(~np.isfinite(eps) | (eps <= 0)):
        raise ValueError(f"column {eps_col!r} must hold positive finite epsilons, got "
                         f"{eps[~np.isfinite(eps) | (eps <= 0)][0]!r}")
    for a in np.unique(df[alpha_col].to_numpy(dtype=float)):
        check_open_unit(float(a), alpha_col)
    if df.duplicated([alpha_col, eps_col, n_col, trial_col]).any():
        raise ValueError(f"more than one row per ({alpha_col}, {eps_col}, {n_col}, "
                         f"{trial_col}): pass the trials of one learner")
    datasets, cells, keys = [], [], []
    for i, ((a, e), g) in enumerate(df.sort_values([n_col, trial_col])
                                    .groupby([alpha_col, eps_col], sort=True)):
        ns, errs = grouped_errors(g, n_col, error_col)
        by_n = dict(list(g.groupby(n_col, sort=True)))
        datasets.append((ns.astype(float), errs))
        cells.append((i, float(a), 1.0 / float(e)))
        keys.append([(float(a), float(n), tuple(by_n[n][trial_col].tolist())) for n in ns])
    return datasets, cells, keys


def _interval(values, level):
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if v.size < 2:
        return math.nan, math.nan
    q = 100.0 * (1.0 - level) / 2.0
    return tuple(float(x) for x in np.percentile(v, [q, 100.0 - q]))


def epsilon_term_growth(df, alpha_col, eps_col, beta, n_col="n", error_col="error",
                        trial_col="trial", n_boot=200, random_state=0, level=0.95) -> dict:
    """The growth of the privacy coefficient ``v(alpha)`` in ``1/alpha`` (see the module).

    ``df``: one learner's trials on a target-indexed family (``alpha_col``: each population
    read at its own alpha) at several epsilons (``eps_col``), the epsilons of one population
    fitted on the same samples per ``(n, trial)``. Needs two epsilons per alpha and two
    alphas. Returns the engine's dict for the slope of ``log v`` against ``log(1/alpha)``
    (``slope, lo, hi, se, n_boot_valid, censored_frac, direction, lack_of_fit, n_uncensored,
    bounds``) with ``alphas``, ``u``, ``v``, ``v2`` (point estimates per alpha), ``v_lo,
    v_hi`` (their percentile intervals on the same replicates), ``inv_eps`` and ``n_hat`` per
    cell (``cell_alpha``), ``secondary`` (``slope, lo, hi`` of ``log v2``), ``misfit``
    (``slope, lo, hi`` of the secondary minus the counted slope, replicate by replicate) and
    ``nonpositive_frac`` (replicates in which some ``v <= 0``: no log, left out of the
    interval).
    """
    beta = check_open_unit(beta, "beta")
    n_boot = check_positive_int(n_boot, "n_boot", minimum=0)
    level = check_open_unit(level, "level")
    rng = check_random_state(random_state)
    datasets, cells, keys = _datasets(df, alpha_col, eps_col, n_col, error_col, trial_col)
    cell_alpha = np.array([c[1] for c in cells])
    per_alpha = {a: np.unique([c[2] for c in cells if c[1] == a]).size
                 for a in np.unique(cell_alpha)}
    if len(per_alpha) < 2 or min(per_alpha.values()) < 2:
        raise ValueError(f"need at least two epsilons at each of at least two alphas, got "
                         f"{ {float(a): k for a, k in per_alpha.items()} }")
    rec = _Recorder(cell_alpha)
    res = bootstrap(datasets, cells, beta, n_boot, rng, level,
                    resample=shared_draws(datasets, keys), slope_fn=rec, keep_censored=True)
    point = rec.calls[0]
    reps = rec.calls[-n_boot:] if n_boot and len(rec.calls) > 1 else []
    v_reps = np.array([r["v"] for r in reps]).reshape(len(reps), point["alphas"].size)
    s1 = np.array([r["slope"] for r in reps], dtype=float)
    s2 = np.array([r["slope2"] for r in reps], dtype=float)
    lo_hi = [_interval(v_reps[:, j], level) for j in range(point["alphas"].size)]
    res.update(alphas=point["alphas"], u=point["u"], v=point["v"], v2=point["v2"],
               v_lo=np.array([b[0] for b in lo_hi]), v_hi=np.array([b[1] for b in lo_hi]),
               inv_eps=np.array([c[2] for c in cells]), cell_alpha=cell_alpha,
               n_hat=point["n_hat"], n_points=res["n_uncensored"],
               secondary=dict(zip(("slope", "lo", "hi"),
                                  (point["slope2"], *_interval(s2, level)))),
               misfit=dict(zip(("slope", "lo", "hi"),
                               (point["slope2"] - point["slope"], *_interval(s2 - s1, level)))),
               nonpositive_frac=(float(np.mean(np.any(v_reps <= 0, axis=1))) if len(reps)
                                 else math.nan))
    return res
