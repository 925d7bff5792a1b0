"""One slope of ``log n_hat`` against ``log x`` pooled over settings that share their samples.

C4 (Theorem 4.9) reads ``n_hat`` at d = 1, 2, 3 in many (epsilon, alpha) settings. Each
setting's slope rests on three ``n_hat`` and its bootstrap interval is about +-0.3 wide, so
most settings alone are inconclusive; yet they all measure the same growth in d, on the same
runs (every epsilon of a trial is run on one sample, every alpha reads the same errors), so
their intervals are strongly dependent and cannot be combined by counting verdicts. The pooled
estimator fits one slope with one intercept per setting (fixed effects)::

    log n_hat[s, x] = a[s] + b log x

by least squares over the settings ``s`` whose ``n_hat`` is uncensored at every ``x`` (a
complete design: ``b`` is then exactly the mean of the per-setting slopes, so the theory for
``b`` is the mean of the settings' theory ranges). A setting with a censored ``n_hat`` (beyond
the grid) is excluded and returned in ``excluded``: such a setting needs more samples at large
``x``, so the pooled slope describes the settings that were measurable, which the caller must
say.

Bootstrap: each replicate draws the trial indices once per (sample group, x, n) and applies
them to every setting run on those samples (as :func:`analysis.sample_complexity.
sample_complexity_slope_paired` does across epsilons), recomputes every ``n_hat`` and ``b``;
a cell censored in a replicate enters at the edge of its grid, counted in ``censored_frac``
(:func:`analysis.slopes.bootstrap`). Percentile interval.
"""

from __future__ import annotations

import math

import numpy as np


from ppm.validation import check_open_unit, check_positive_int, check_random_state
from analysis.sample_complexity import (check_alphas,
                                        check_df,
                                        check_n_values,
                                        read_point,
                                        loglog_slope)
from analysis.slopes import bootstrap

__all__ = ["sample_complexity_slope_pooled", "common_slope", "split_datasets", "shared_resample"]


def common_slope(x, y, groups) -> float:
    """Least-squares slope of ``log y`` on ``log x`` with one intercept per group.

    ``nan`` if no group has two distinct ``x`` (nothing varies within a group).
    """
    lx, ly = np.log(np.asarray(x, dtype=float)), np.log(np.asarray(y, dtype=float))
    g = np.unique(np.asarray(groups), return_inverse=True)[1].ravel()
    size = np.bincount(g)
    dx = lx - (np.bincount(g, weights=lx) / size)[g]
    dy = ly - (np.bincount(g, weights=ly) / size)[g]
    den = float(dx @ dx)
    return float(dx @ dy) / den if den > 0 else math.nan


def split_datasets(df, x_col, by, sample_col, n_col, error_col, trial_col):
    """Per (by key, x): ``(ns, errs)`` with errors ordered by trial, and its sample group."""
    keys, datasets, sample_of, trial_ids = [], [], [], []
    for key, g in df.groupby([*by, x_col], sort=True):
        if g.duplicated([n_col, trial_col]).any():
            raise ValueError(f"more than one row per ({n_col}, {trial_col}) in the group "
                             f"{dict(zip([*by, x_col], key))}: pass one learner's trials")
        samples = g[sample_col].unique()
        if samples.size != 1:
            raise ValueError(f"the group {dict(zip([*by, x_col], key))} mixes sample groups "
                             f"{list(samples)} in column {sample_col!r}")
        g = g.sort_values([n_col, trial_col])
        ns = np.unique(g[n_col].to_numpy(dtype=float))
        by_n = [h for _, h in g.groupby(n_col, sort=True)]
        keys.append(key)
        datasets.append((ns, [h[error_col].to_numpy(dtype=float) for h in by_n]))
        sample_of.append((samples[0], key[-1]))
        trial_ids.append([tuple(h[trial_col]) for h in by_n])
    return keys, datasets, sample_of, trial_ids


def shared_resample(datasets, sample_of, trial_ids, used, partial=False):
    """``resample(rng)``: one draw of trial indices per (sample group, x, n), applied to every
    used dataset of that sample group, which must hold the same trials at the same n (the
    datasets no pooled setting reads are passed through unchanged). ``partial``: sample groups
    whose settings were run on different grids (e.g. one epsilon at more n than another) share
    the draw at every (n, trials) they have in common, and draw on their own elsewhere."""
    members: dict = {}
    for i, s in enumerate(sample_of):
        if i in used:
            members.setdefault(s, []).append(i)
    if partial:
        order = sorted(used)

        def resample_cells(rng):
            out = [errs for _, errs in datasets]
            draws: dict = {}
            for i in order:
                new = []
                for n, e, tid in zip(datasets[i][0], datasets[i][1], trial_ids[i]):
                    key = (sample_of[i], float(n), tid)
                    if key not in draws:
                        draws[key] = rng.integers(0, e.size, e.size)
                    new.append(e[draws[key]])
                out[i] = new
            return out
        return resample_cells
    for s, idx in members.items():
        first = idx[0]
        for i in idx[1:]:
            if (not np.array_equal(datasets[i][0], datasets[first][0])
                    or trial_ids[i] != trial_ids[first]):
                raise ValueError(f"the settings of sample group {s!r} do not hold the same "
                                 "(n, trial) cells, so they cannot share a resample")

    def resample(rng):
        out = [errs for _, errs in datasets]
        for idx in members.values():
            draws = [rng.integers(0, e.size, e.size) for e in datasets[idx[0]][1]]
            for i in idx:
                out[i] = [e[d] for e, d in zip(datasets[i][1], draws)]
        return out
    return resample


def _setting_cells(keys, datasets, by, alphas, alpha_of, xs_all, x_col, beta, excluded):
    """The pooled settings ``(by key, alpha)``, in order: ``(label, present, vals)`` with the
    dataset index of each ``x`` and its ``read_point`` result ``(n_hat, censoring)``.
    A setting not run at every ``x`` goes to ``excluded`` instead."""
    index = {k: i for i, k in enumerate(keys)}
    for skey in sorted({k[:-1] for k in keys}):
        name = skey if len(by) > 1 else skey[0]
        if alpha_of is not None and name not in alpha_of:
            raise ValueError(f"alphas has no entry for the {by} group {name!r}")
        for a in (alphas if alpha_of is None else alpha_of[name]):
            label = (name, float(a))
            present = [index.get((*skey, x)) for x in xs_all]
            if any(i is None for i in present):
                excluded.append((*label, "not run at every " + x_col))
                continue
            yield label, present, [read_point(datasets[i][0], datasets[i][1], a, 1.0 - beta)
                                   for i in present]


def sample_complexity_slope_pooled(df, x_col, by, alphas, beta, *, sample_col, n_col="n",
                                   error_col="error", trial_col="trial", n_boot=200,
                                   random_state=0, level=0.95, min_points=3) -> dict:
    """Common slope of ``log n_hat`` on ``log x`` over the settings (``by`` group, alpha).

    ``alphas``: the targets read in every ``by`` group, or a dict from ``by`` key to its own
    targets.
    ``df``: one learner's trials with columns ``x_col`` (e.g. d), ``by`` (e.g. epsilon),
    ``n_col``, ``trial_col``, ``error_col`` and ``sample_col``: rows with the same
    ``sample_col`` value and the same ``x`` were run on the same samples per ``(n, trial)``
    (the caller states this; the bootstrap resamples them jointly). A setting enters if its
    ``n_hat`` is uncensored at every ``x`` of ``df`` (at least ``min_points`` of them).

    Returns ``dict(slope, lo, hi, se, n_points, n_boot_valid, censored_frac)`` as
    :func:`analysis.slopes.sample_complexity_slope`, plus ``settings`` (the pooled
    ``(by key, alpha)``), ``per_setting`` (their own slopes: ``slope`` is their mean) and
    ``excluded`` (``(by key, alpha, reason)``).
    """
    alpha_of = ({k: check_alphas(v) for k, v in alphas.items()} if isinstance(alphas, dict)
                else None)
    alphas = None if alpha_of is not None else check_alphas(alphas)
    beta = check_open_unit(beta, "beta")
    n_boot = check_positive_int(n_boot, "n_boot", minimum=0)
    min_points = check_positive_int(min_points, "min_points", minimum=2)
    level = check_open_unit(level, "level")
    rng = check_random_state(random_state)
    by = [by] if isinstance(by, str) else list(by)
    check_df(df, [x_col, *by, n_col, error_col, trial_col, sample_col],
              [x_col, n_col, error_col])
    check_n_values(df, n_col)
    if np.any(df[x_col].to_numpy(dtype=float) <= 0):
        raise ValueError(f"column {x_col!r} must be positive for a log-log slope")
    keys, datasets, sample_of, trial_ids = split_datasets(df, x_col, by, sample_col, n_col,
                                                     error_col, trial_col)
    xs_all = np.sort(df[x_col].unique().astype(float))
    cells, groups, settings, per_setting, excluded = [], [], [], {}, []
    for label, present, vals in _setting_cells(keys, datasets, by, alphas, alpha_of, xs_all,
                                               x_col, beta, excluded):
        cens = [x for x, (v, c) in zip(xs_all, vals) if c or not np.isfinite(v)]
        if cens or xs_all.size < min_points:
            excluded.append((*label, f"n_hat censored at {x_col} = "
                             + ", ".join(f"{x:g}" for x in cens) if cens
                             else f"fewer than {min_points} {x_col}"))
            continue
        settings.append(label)
        per_setting[label] = loglog_slope(xs_all, [v for v, _ in vals])[0]
        cells += [(i, label[1], float(x)) for i, x in zip(present, xs_all)]
        groups += [len(settings) - 1] * len(present)
    groups = np.asarray(groups, dtype=int)

    def slope_fn(x, y, idx):
        return common_slope(x, y, groups[idx])

    resample = shared_resample(datasets, sample_of, trial_ids, {c[0] for c in cells})
    if not cells:
        res = {"slope": math.nan, "lo": math.nan, "hi": math.nan, "se": math.nan,
               "n_points": 0, "n_boot_valid": 0, "censored_frac": math.nan}
    else:
        res = bootstrap(datasets, cells, beta, n_boot, rng, level, resample=resample,
                         slope_fn=slope_fn, curve_id=sample_of)
    res.update(settings=settings, per_setting=per_setting, excluded=excluded)
    return res
