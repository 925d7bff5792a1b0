"""The bootstrap engine behind every slope interval (docs/model.md §5.1).

:func:`bootstrap` resamples the trials (within each cell, or jointly across cells that share
samples), rereads every ``n_hat`` and recomputes the statistic; it dispatches on the reading
of ``n_hat`` in force (:func:`analysis.dose_response.reading`): :func:`fitted_bootstrap`
refits every cell's dose-response curve, :func:`grid_bootstrap` is the grid reading kept as
the reference. :func:`censored_direction` says which way censored cells bound a statistic.
The public slope functions are :mod:`analysis.slopes`.
"""

from __future__ import annotations

import math

import numpy as np

from analysis.sample_complexity import draw_n_hat, interpolate_n_hat, loglog_slope

__all__ = ["bootstrap", "grid_bootstrap", "shared_draws", "fitted_bootstrap", "cell_fractions",
           "censored_direction"]


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


def shared_draws(datasets, keys):
    """A ``resample`` for :func:`bootstrap`: one trial-index draw per key, shared by every
    group whose error vector at that position carries the same key (the same trials: the same
    samples), so those groups move together in every replicate. ``keys[i][j]``: the key of
    ``datasets[i]``'s ``j``-th error vector (hashable); draws are made in the datasets' order,
    at a key's first appearance."""
    def resample(rng):
        draws, out = {}, []
        for (_, errs), ks in zip(datasets, keys):
            row = []
            for e, k in zip(errs, ks):
                if k not in draws:
                    draws[k] = rng.integers(0, e.size, e.size)
                row.append(e[draws[k]])
            out.append(row)
        return out
    return resample


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


def _point_result(cells, vals, point_cens, keep_censored, slope_fn):
    """The cells that enter (``use``), their x and the point statistic's result dict, the
    same for both readings (censored cells as bounds: :func:`censored_direction`)."""
    use = np.ones(len(cells), dtype=bool) if keep_censored else point_cens == ""
    xs = np.array([c[2] for c in cells], dtype=float)
    slope = slope_fn(xs[use], vals[use], np.flatnonzero(use))
    return use, xs, {"slope": slope, "lo": math.nan, "hi": math.nan, "se": math.nan,
                     "n_points": int(use.sum()), "n_boot_valid": 0, "censored_frac": math.nan,
                     "resolution": (math.nan, math.nan),
                     "bounds": int(np.count_nonzero(point_cens[use] != "")),
                     "n_uncensored": int(np.count_nonzero(point_cens[use] == "")),
                     "direction": censored_direction(xs[use], vals[use], point_cens[use],
                                                     np.flatnonzero(use), slope_fn)}


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
    use, xs, res = _point_result(cells, vals, point_cens, keep_censored, slope_fn)
    res.update({"status": list(point.status), "n_hat": list(vals), "lack_of_fit": "",
                "reading": "fit"})
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
    use, xs, res = _point_result(cells, vals, point_cens, keep_censored, slope_fn)
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
