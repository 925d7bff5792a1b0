"""More designs of the coverage study (docs/model.md §5.2): C9's and C13's paired contrasts
and C12's slope, simulated as :mod:`analysis.coverage` simulates the others.

:data:`MORE` names them, mirroring the claim modules (which this layer may not import;
tests/test_coverage.py checks the mirror):

* ``c9_domain_d1`` (claims/c9_domain.py, the d = 1 grid, headline alpha 0.1): PPM and the
  fully private EM on the same sample per ``(T, n, trial)``. Two counted statistics per data
  set: PPM's slope of ``log n_hat`` against ``log T`` (records ``c9_domain_d1_flat``,
  :func:`analysis.slopes.sample_complexity_slope_against` on PPM's trials) and the paired
  contrast ``slope(PPM) - slope(fully private)`` (``c9_domain_d1_contrast``,
  :func:`analysis.slopes.slope_difference_paired`);
* ``c13_generic_plateau`` (claims/c13_generic.py, ``c13_generic_domain_plateau``, alpha 0.1):
  the paired contrast ``slope(fully private EM) - slope(GenericLearner)`` against
  ``b = log2 T`` (``c13_generic_plateau_contrast``);
* ``c12_grid_halfplanes`` (claims/c12_grid_halfplanes.py, headline alpha 0.1): the Set Cover
  Learner's slope of ``log n_hat`` against ``b = log2 T``, each ``T`` on its own samples (an
  "against" design of :mod:`analysis.coverage`, run by its :func:`~analysis.coverage.run_dataset`).

A **contrast** design's cells are the first learner's ``x`` ascending, then the second's; the
two learners' cells at one ``x`` share their latent ``U`` per ``(n, trial)`` (comonotone, as
C3's epsilons do), different ``x`` draw their own. Its per-cell ``n_hat`` records carry
``cell = x`` for the first learner of the difference and ``cell = -x`` for the second.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.aggregate import ERROR_COL
from analysis.coverage import (DESIGNS, READINGS, Cell, Design, load_design, recorded_bootstrap,
                               run_dataset as run_simple, same_value, seed_sequence,
                               trial_grid, truth_curves)
from analysis.dose_response import use_reading
from analysis.sample_complexity import loglog_slope
from analysis.slopes import sample_complexity_slope_against, slope_difference_paired
from experiments.columns import FULLY_PRIVATE, GENERIC, PPM, SET_COVER, T

__all__ = ["MORE", "RECORDS", "load_any", "run_any", "simulate_contrast", "difference",
           "record_settings"]

# name -> (kind, experiment, learners, x column, alpha); the x column "b" is log2 T, rounded
# to an integer as C13 does (claims/c13_generic.py _with_b; C12's powers of 2 are exact)
MORE = {
    "c9_domain_d1": ("contrast", "c9_domain", (PPM, FULLY_PRIVATE), T, 0.1),
    "c13_generic_plateau": ("contrast", "c13_generic_domain_plateau", (FULLY_PRIVATE, GENERIC),
                            "b", 0.1),
    "c12_grid_halfplanes": ("against", "c12_grid_halfplanes", (SET_COVER,), "b", 0.1),
}
# the records each design writes: its contrast (or slope) first, then C9's flat row
RECORDS = {"c9_domain_d1": ("c9_domain_d1_contrast", "c9_domain_d1_flat"),
           "c13_generic_plateau": ("c13_generic_plateau_contrast",),
           "c12_grid_halfplanes": ("c12_grid_halfplanes",)}
FLAT = {"c9_domain_d1"}  # the designs whose first learner's own slope is counted too


def load_any(name: str, root="results") -> Design:
    """A design of :data:`analysis.coverage.DESIGNS` or of :data:`MORE`."""
    if name in DESIGNS:
        return load_design(name, root)
    if name not in MORE:
        raise ValueError(f"design must be one of {sorted([*DESIGNS, *MORE])}, got {name!r}")
    kind, exp, learners, x_col, alpha = MORE[name]
    root = Path(root)
    path = root / exp / "trials.csv"
    if not path.exists():
        raise FileNotFoundError(f"design {name}: no trials at {path}")
    trials = pd.read_csv(path, low_memory=False)
    beta = float(pd.read_csv(root / exp / "n_hat.csv")["beta"].iloc[0])
    if x_col == "b":
        trials = trials.assign(b=np.log2(trials[T].astype(float)).round().astype(int))
    cells = []
    for lrn in learners:
        sub = trials[trials["learner"] == lrn]
        if sub.empty:
            raise ValueError(f"design {name}: no trials of {lrn!r} in {path}")
        for g, grp in sub.groupby(x_col, sort=True):
            ns, t, err = trial_grid(grp)
            cells.append(Cell(float(g), alpha, ns, t, np.array([np.sum(e <= alpha) for e in err])))
    nx = len(cells) // len(learners)
    if kind == "contrast" and any(
            not (a.x == b.x and np.array_equal(a.ns, b.ns) and np.array_equal(a.trials, b.trials))
            for a, b in zip(cells[:nx], cells[nx:])):
        raise ValueError(f"design {name}: the two learners must share every ({x_col}, n, trial)")
    xs = ", ".join(f"{c.x:g}" for c in cells[:nx])
    setting = (f"alpha {alpha}, {' minus '.join(learners)} ({x_col} {xs}, paired)"
               if kind == "contrast" else f"alpha {alpha}, {learners[0]}, {x_col} {xs}")
    return Design(name, kind, beta, x_col, tuple(cells), setting)


def record_settings(design: Design) -> dict:
    """Each record name of ``design`` -> its setting text."""
    names = RECORDS.get(design.name, (design.name,))
    out = {names[0]: design.setting}
    if len(names) > 1:
        lrn, x_col, alpha = MORE[design.name][2][0], design.x_col, design.cells[0].alpha
        nx = len(design.cells) // 2
        out[names[1]] = (f"alpha {alpha}, {lrn}, {x_col} "
                         + ", ".join(f"{c.x:g}" for c in design.cells[:nx]) + " (flat row)")
    return out


def difference(x, v, kept, nx):
    """``slope(first learner) - slope(second)``: the ``slope_fn`` of
    :func:`analysis.slopes.slope_difference_paired` (the first ``nx`` cells are the first's)."""
    first = np.asarray(kept) < nx
    if first.sum() < 2 or (~first).sum() < 2:
        return math.nan
    return loglog_slope(x[first], v[first])[0] - loglog_slope(x[~first], v[~first])[0]


def simulate_contrast(design: Design, probs, rng):
    """One data set of a contrast design: ``(df, datasets, resample)``, ``datasets`` and
    ``resample`` in :func:`analysis.slopes.slope_difference_paired`'s form and order (the first
    learner's ``x`` ascending, then the second's; every ``n``'s errors in trial order)."""
    _, _, learners, x_col, alpha = MORE[design.name]
    cells, nx = design.cells, len(design.cells) // 2
    errs = [None] * len(cells)
    for i in range(nx):  # one latent U per (x, n, trial), shared by the two learners
        us = [rng.random(int(t)) for t in cells[i].trials]
        for d in (i, nx + i):
            errs[d] = [np.where(u <= probs[d][j], alpha, 1.0) for j, u in enumerate(us)]
    datasets = [(c.ns, e) for c, e in zip(cells, errs)]
    df = pd.concat([pd.DataFrame({
        "learner": learners[d // nx], x_col: c.x, "n": np.repeat(c.ns, c.trials),
        "trial": np.concatenate([np.arange(t) for t in c.trials]),
        ERROR_COL: np.concatenate(errs[d])}) for d, c in enumerate(cells)], ignore_index=True)
    if x_col == "b":
        df["b"] = df["b"].astype(int)
    sizes = [[int(t) for t in c.trials] for c in cells[:nx]]

    def resample(rng):  # slope_difference_paired's: trial indices once per (x, n)
        idx = [[rng.integers(0, t, t) for t in s] for s in sizes]
        return [[e[i] for e, i in zip(es, idx[d % nx])] for d, (_, es) in enumerate(datasets)]

    return df, datasets, resample


def _cell_records(base, cells, n_true, outside, pt_lo_hi, sign):
    pt, lo, hi = pt_lo_hi
    return [dict(base, quantity="n_hat", cell=s * c.x, estimate=float(pt[j]), lo=float(lo[j]),
                 hi=float(hi[j]), true=math.log(n_true[j]), outside_grid=int(outside[j]),
                 lack_of_fit=None, censored_frac=math.nan)
            for j, (c, s) in enumerate(zip(cells, sign))]


def _slope_record(base, res, true, outside):
    return dict(base, quantity="slope", cell=math.nan, estimate=float(res["slope"]),
                lo=float(res["lo"]), hi=float(res["hi"]), true=true, outside_grid=sum(outside),
                lack_of_fit=res.get("lack_of_fit"), censored_frac=float(res["censored_frac"]))


def _check(name, res, claim):
    for key in ("slope", "lo", "hi"):
        if not same_value(res[key], claim[key]):
            raise RuntimeError(f"design {name}: the recorded bootstrap's {key} {res[key]!r} "
                               f"is not the claim's {claim[key]!r}")


def run_contrast(design: Design, truth: str, index: int, n_boot: int, readings=READINGS,
                 curves=None, verify=True) -> list[dict]:
    """:func:`analysis.coverage.run_dataset` for a contrast design: the paired contrast (and
    C9's flat row) of one data set, each from one recorded run of the claim's bootstrap;
    ``verify`` also calls the claim's functions and raises unless they agree."""
    _, _, learners, x_col, alpha = MORE[design.name]
    names = RECORDS[design.name]
    probs, n_true = curves if curves is not None else truth_curves(design, truth)
    rng = np.random.default_rng(seed_sequence(design.name, truth, index))
    df, datasets, resample = simulate_contrast(design, probs, rng)
    seed = int(rng.integers(2**32))  # the bootstrap's, the same for both readings
    cells, nx = design.cells, len(design.cells) // 2
    xs = np.array([c.x for c in cells[:nx]])
    outside = [not c.ns[0] <= v <= c.ns[-1] for c, v in zip(cells, n_true)]
    s_first = loglog_slope(xs, n_true[:nx])[0]
    s_true = s_first - loglog_slope(xs, n_true[nx:])[0]
    flat = Design(design.name, "against", design.beta, x_col, cells[:nx], design.setting)
    out = []
    for reading in readings:
        res, pts = recorded_bootstrap(design, datasets, resample, n_boot, seed, reading,
                                      stat=lambda x, v, kept: difference(x, v, kept, nx))
        if verify:
            with use_reading(reading):
                _check(design.name, res, slope_difference_paired(
                    df, x_col, learners[0], learners[1], alpha, design.beta,
                    error_col=ERROR_COL, n_boot=n_boot, random_state=seed))
        base = dict(design=names[0], truth=truth, dataset=int(index), reading=reading)
        out.append(_slope_record(base, res, s_true, outside))
        out += _cell_records(base, cells, n_true, outside, pts, [1] * nx + [-1] * nx)
        if design.name not in FLAT:
            continue
        res, pts = recorded_bootstrap(flat, datasets[:nx], None, n_boot, seed, reading)
        if verify:
            with use_reading(reading):
                _check(design.name, res, sample_complexity_slope_against(
                    df[df["learner"] == learners[0]], x_col, alpha, design.beta,
                    error_col=ERROR_COL, n_boot=n_boot, random_state=seed))
        base = dict(base, design=names[1])
        out.append(_slope_record(base, res, s_first, outside[:nx]))
        out += _cell_records(base, cells[:nx], n_true[:nx], outside[:nx], pts, [1] * nx)
    return out


def run_any(design: Design, truth: str, index: int, n_boot: int, readings=READINGS,
            curves=None, verify=True) -> list[dict]:
    """One data set's records of any design (per cell: the ``n_hat`` records too)."""
    if design.kind == "contrast":
        return run_contrast(design, truth, index, n_boot, readings, curves, verify)
    recs = run_simple(design, truth, index, n_boot, readings, per_cell=True, curves=curves,
                      verify=verify)
    name = RECORDS.get(design.name, (design.name,))[0]
    return [dict(r, design=name) for r in recs]
