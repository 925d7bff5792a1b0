"""Coverage of the ``n_hat`` intervals: each rate claim's design simulated from known curves.

docs/model.md §5.2. A **design** is what a rate claim reads: its
cells (one success curve each: the abscissa ``x`` of the claim's slope, the ``alpha`` its
``n_hat`` is read at, the committed ``n`` grid and trials per ``n``) and which cells share
their samples. :func:`load_design` reads it from the committed trials in
``results/<experiment>/``; :data:`DESIGNS` names the ones covered, mirroring the claim modules
(which this layer may not import; tests/test_coverage.py checks the mirror).

**Truths** (:func:`truth_curves`): a probit of each cell's committed successes on ``log n``
(:func:`analysis.dose_response.glm_fit` over all of the curve's cells); the logistic curve with
the same ED50 and ED_{1-beta}; and a two-component probit mixture (weight
:data:`MIX_WEIGHT` on the first: a shoulder just below 0.9) with the same ED_{1-beta}, which
neither GLM describes. The true ``n_hat`` is the truth's ED_{1-beta}, the true statistic the
claim's statistic (a least-squares log-log slope) on the true ``n_hat``.

**Data sets** (:func:`simulate`): a latent ``U ~ Uniform(0, 1)`` per (sample, n, trial); a trial
succeeds at a cell iff ``U <= p_cell(n)``. Cells on the same samples share ``U`` (comonotone:
the strongest dependence a joint bootstrap must handle), others draw their own. Each trial's
error is the smallest alpha of its data set at which it succeeds (1.0 if none), so that
``error <= alpha`` iff success.

:func:`run_dataset` computes the claim's own statistic (the function the claim calls, under
:func:`analysis.dose_response.use_reading`) and, from the very same bootstrap replicates, each
cell's ``n_hat`` interval; :func:`summarise` turns the records into bias, sd, mean width and
coverage (with its Clopper-Pearson interval).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.optimize import brentq
from scipy.special import expit, logit as logit_fn
from scipy.stats import beta as beta_dist, norm

from analysis.aggregate import ERROR_COL
from analysis.coverage_tails import tails
from analysis.dose_response import glm_fit, use_reading
from analysis.sample_complexity import loglog_slope
from analysis.slopes import (bootstrap, sample_complexity_slope, sample_complexity_slope_against,
                             sample_complexity_slope_family, sample_complexity_slope_paired)
from experiments.columns import ALPHA_TARGET, EPSILON, PPM, W_PUB
from ppm.validation import check_random_state

__all__ = ["TRUTHS", "READINGS", "DESIGNS", "MIX_WEIGHT", "MIX_GAP", "Cell", "Design",
           "load_design", "cell_truth", "truth_curves", "simulate", "run_dataset", "summarise",
           "clopper_pearson"]

TRUTHS = ("probit", "logit", "mixture")
READINGS = ("grid", "fit")
MIX_WEIGHT = 0.85  # the mixture's first component: its plateau sits just below 1 - beta = 0.9
MIX_GAP = 3.0  # the second component's centre, in probit sds (1/b) right of the first's
LEVEL = 0.95
CLAIM_N_BOOT = 300  # claims.base.ResultStore.n_boot: every claim's slope interval

# name -> (kind, experiments, x column, alpha, selection), mirroring the claim modules:
# C1 (claims/c1_realizable.py): every alpha of n_hat.csv on the same trials, slope vs 1/alpha;
# C3 (claims/c3_epsilon.py): the headline alpha 0.05, epsilon <= PRIVACY_DOMINATES = 1, the
#   epsilons on the same sample per (n, trial): paired bootstrap;
# C5 (claims/c5_mixture_weight.py): the headline d = 2, alpha 0.1, slope vs w_pub, groups apart;
# C2 (claims/c2/agnostic.py): the hard family (all of its sweeps, _load_family), PPM at the
#   headline epsilon 1, the small-alpha regime alpha <= SMALL_ALPHA = 0.01, each population
#   at its own alpha (a population per alpha: independent samples).
DESIGNS = {
    "c1_realizable_d1": ("alphas", ("c1_realizable_d1",), None, None, None),
    "c1_realizable_d2": ("alphas", ("c1_realizable_d2",), None, None, None),
    "c3_epsilon_d1": ("paired", ("c3_epsilon_d1",), EPSILON, 0.05, (None, 1.0)),
    "c5_mixture_weight_d2": ("against", ("c5_mixture_weight_d2",), W_PUB, 0.1, None),
    "c2_hard_family": ("family", ("c2_hard_family", "c2_hard_family_small_alpha",
                                  "c2_hard_family_fine", "c2_hard_family_fine_alpha0025",
                                  "c2_hard_family_fine_alpha00125"), ALPHA_TARGET, None,
                       (None, 0.01)),
}
KINDS = ("alphas", "paired", "against", "family")
# the record names of analysis/coverage_designs.py's designs (which imports this module), in
# the tables' order after DESIGNS (tests/test_coverage.py checks them)
MORE_RECORDS = ("c9_domain_d1_flat", "c9_domain_d1_contrast", "c13_generic_plateau_contrast",
                "c12_grid_halfplanes")


@dataclass(frozen=True)
class Cell:
    """One success curve: the statistic's abscissa, the alpha read, the grid and its data."""

    x: float  # 1/alpha (C1, C2), epsilon (C3), w_pub (C5)
    alpha: float
    ns: np.ndarray  # the committed n grid
    trials: np.ndarray  # trials per n
    k: np.ndarray  # committed successes per n (excess error <= alpha): the truth's fit


@dataclass(frozen=True)
class Design:
    """A rate claim's design: its cells, how they share samples and the statistic's inputs."""

    name: str
    kind: str  # "alphas" (one sample, many alphas), "paired", "against" or "family"
    beta: float
    x_col: str | None  # the grouping column of the trials (None for "alphas")
    cells: tuple  # of Cell, in the order the statistic reads them (x ascending)
    setting: str

    @property
    def shared(self) -> bool:
        """Do the cells share their samples (one U per (n, trial) for all of them)?"""
        return self.kind in ("alphas", "paired")


def read_trials(name: str, exps, root) -> pd.DataFrame:
    """The committed trials of design ``name``'s experiments ``exps`` under ``root``, one frame."""
    paths = [Path(root) / e / "trials.csv" for e in exps]
    for path in (p for p in paths if not p.exists()):
        raise FileNotFoundError(f"design {name}: no trials at {path}")
    return pd.concat([pd.read_csv(p, low_memory=False) for p in paths], ignore_index=True)


def load_design(name: str, root="results") -> Design:
    """The design ``name`` (a key of :data:`DESIGNS`) read from the trials under ``root``."""
    if name not in DESIGNS:
        raise ValueError(f"design must be one of {sorted(DESIGNS)}, got {name!r}")
    kind, exps, x_col, alpha, sel = DESIGNS[name]
    trials = read_trials(name, exps, root := Path(root))
    trials = trials[trials["learner"] == PPM]
    nhat = pd.read_csv(root / exps[0] / "n_hat.csv")
    beta = float(nhat["beta"].iloc[0])
    if kind == "family":
        trials = trials[trials[EPSILON] == 1.0]  # the headline epsilon
    if sel is not None:
        lo, hi = sel
        v = trials[x_col]
        trials = trials[(v >= (lo if lo is not None else -np.inf)) & (v <= hi)]
    cells = []
    if kind == "alphas":
        alphas = np.sort(nhat.loc[nhat["learner"] == PPM, "alpha"].unique())
        ns, t, err = trial_grid(trials)
        cells = [Cell(1.0 / a, float(a), ns, t, np.array([np.sum(e <= a) for e in err]))
                 for a in alphas]
    else:
        for g, sub in trials.groupby(x_col, sort=True):
            a = float(g) if kind == "family" else alpha
            ns, t, err = trial_grid(sub)
            cells.append(Cell(1.0 / a if kind == "family" else float(g), a, ns, t,
                              np.array([np.sum(e <= a) for e in err])))
    if kind == "paired" and any(not (np.array_equal(c.ns, cells[0].ns)
                                     and np.array_equal(c.trials, cells[0].trials))
                                for c in cells):
        raise ValueError(f"design {name}: paired groups must share their (n, trial) grid")
    xs = ", ".join(f"{c.x:g}" for c in cells)
    own = ", ".join(f"{c.alpha:g}" for c in cells)
    setting = {"alphas": f"alphas {own} on one sample",
               "paired": f"alpha {alpha}, epsilon {xs} (paired)",
               "against": f"alpha {alpha}, w_pub {xs}",
               "family": f"epsilon 1, alpha_target {own}"}[kind]
    return Design(name, kind, beta, x_col, tuple(cells), setting)


def trial_grid(trials):
    """Sorted ``n`` values, trials per ``n`` and each ``n``'s excess errors."""
    g = trials.groupby("n", sort=True)[ERROR_COL]
    ns = np.array(list(g.groups.keys()), dtype=float)
    err = [grp.to_numpy(dtype=float) for _, grp in g]
    return ns, np.array([e.size for e in err]), err


# --------------------------------------------------------------------------------------------
# the truths
# --------------------------------------------------------------------------------------------


def _probit_mixture(x, m1, b):
    return (MIX_WEIGHT * norm.cdf(b * (x - m1))
            + (1.0 - MIX_WEIGHT) * norm.cdf(b * (x - m1 - MIX_GAP / b)))


def cell_truth(cell: Cell, truth: str, beta: float):
    """One cell's true success curve: ``(p, x_t)``, ``p`` a function of ``log n`` and ``x_t``
    its ``log`` ED_{1-beta} (the probit truth's, for every truth)."""
    if truth not in TRUTHS:
        raise ValueError(f"truth must be one of {TRUTHS}, got {truth!r}")
    target = 1.0 - beta
    b0, b1, _ = glm_fit(np.log(cell.ns), cell.k, cell.trials, link="probit")
    if not (np.isfinite(b1) and b1 > 0):
        raise ValueError(f"the committed curve at x={cell.x:g} has no increasing probit fit "
                         f"(slope {b1!r})")
    xt = (norm.ppf(target) - b0) / b1
    if truth == "probit":
        return (lambda x: norm.cdf(b0 + b1 * np.asarray(x))), xt
    if truth == "logit":  # the same ED50 (-b0 / b1) and ED_{1-beta}
        x50 = -b0 / b1
        return (lambda x: expit(logit_fn(target) * (np.asarray(x) - x50) / (xt - x50))), xt
    # the mixture, shifted until it crosses 1 - beta at xt
    m1 = brentq(lambda m: _probit_mixture(xt, m, b1) - target, xt - 40.0 / b1,
                xt + 40.0 / b1, xtol=1e-12)
    return (lambda x: _probit_mixture(np.asarray(x), m1, b1)), xt


def truth_curves(design: Design, truth: str):
    """Per cell, the truth's success probability at the cell's ``n`` grid and its true
    ``n_hat`` (ED_{1-beta}): ``(probs, n_true)``, in cell order.

    On cells that share their trials across alphas ("alphas") success must be monotone in
    alpha at every ``n``: the probabilities are made non-decreasing in alpha (cumulative max),
    which moves each true ED_{1-beta} to the smallest one at or below its alpha.
    """
    probs, ed = [], []
    for c in design.cells:
        p, xt = cell_truth(c, truth, design.beta)
        probs.append(p(np.log(c.ns)))
        ed.append(math.exp(xt))
    if design.kind == "alphas":  # cells in alpha order, ascending
        probs = list(np.maximum.accumulate(np.array(probs), axis=0))
        ed = list(np.minimum.accumulate(np.array(ed)))
    return probs, np.array(ed)


def true_statistic(design: Design, n_true) -> float:
    """The claim's statistic on the true ``n_hat``: the least-squares log-log slope."""
    return float(loglog_slope([c.x for c in design.cells], n_true)[0])


# --------------------------------------------------------------------------------------------
# one data set
# --------------------------------------------------------------------------------------------


def seed_sequence(design: str, truth: str, index: int) -> np.random.SeedSequence:
    """The data set's seed: a function of (design name, truth, index) only, so a result
    depends neither on the order the data sets run in nor on the workers."""
    return np.random.SeedSequence([zlib.crc32(design.encode()), zlib.crc32(truth.encode()),
                                   int(index)])


def simulate(design: Design, probs, rng):
    """One data set of the design: ``(df, datasets, resample)``.

    ``df`` has the columns the claim's statistic reads (``n``, ``trial``, the group column,
    ``excess_error``); ``datasets`` and ``resample`` are the same trials in
    :func:`analysis.slopes.bootstrap`'s form, in the claim's order (groups by ascending ``x``).
    """
    cells = design.cells
    succ = []  # per cell, per n: boolean trials
    if design.shared:
        us = [rng.random(int(t)) for t in cells[0].trials]
        succ = [[u <= p[j] for j, u in enumerate(us)] for p in probs]
    else:
        for c, p in zip(cells, probs):
            succ.append([rng.random(int(t)) <= p[j] for j, t in enumerate(c.trials)])
    if design.kind == "alphas":
        # the smallest alpha at which the trial succeeds (monotone in alpha: nested successes)
        alphas = np.array([c.alpha for c in cells])
        errs = []
        for j in range(cells[0].ns.size):
            s = np.array([sc[j] for sc in succ])  # (alphas, trials)
            first = np.where(s.any(0), alphas[np.argmax(s, axis=0)], 1.0)
            errs.append(first)
        ns = cells[0].ns
        df = pd.DataFrame({"n": np.repeat(ns, cells[0].trials),
                           "trial": np.concatenate([np.arange(t) for t in cells[0].trials]),
                           ERROR_COL: np.concatenate(errs)})
        datasets = [(ns, errs)]
        resample = None
    else:
        datasets, frames = [], []
        for c, sc in zip(cells, succ):
            errs = [np.where(s, c.alpha, 1.0) for s in sc]
            datasets.append((c.ns, errs))
            frames.append(pd.DataFrame({
                design.x_col: c.alpha if design.kind == "family" else c.x,
                "n": np.repeat(c.ns, c.trials),
                "trial": np.concatenate([np.arange(t) for t in c.trials]),
                ERROR_COL: np.concatenate(errs)}))
        df = pd.concat(frames, ignore_index=True)
        resample = None
        if design.kind == "paired":  # analysis.slopes.sample_complexity_slope_paired's
            per_n = [int(t) for t in cells[0].trials]

            def resample(rng):
                idx = [rng.integers(0, t, t) for t in per_n]
                return [[e[i] for e, i in zip(errs, idx)] for _, errs in datasets]
    return df, datasets, resample


def claim_statistic(design: Design, df, n_boot: int, seed: int) -> dict:
    """The claim's own statistic and interval on ``df`` (the function its claim calls)."""
    kw = dict(error_col=ERROR_COL, n_boot=n_boot, random_state=seed)
    if design.kind == "alphas":
        return sample_complexity_slope(df, [c.alpha for c in design.cells], design.beta, **kw)
    if design.kind == "paired":
        return sample_complexity_slope_paired(df, design.x_col, design.cells[0].alpha,
                                              design.beta, **kw)
    if design.kind == "against":
        return sample_complexity_slope_against(df, design.x_col, design.cells[0].alpha,
                                               design.beta, **kw)
    return sample_complexity_slope_family(df, design.x_col, design.beta, **kw)


def _loglog(x, y, _=None):
    return loglog_slope(x, y)[0]


class _Recorder:
    """A ``slope_fn`` that computes the statistic ``stat`` (default: the least-squares log-log
    slope) and keeps every ``n_hat`` vector it is called with: the point estimate first, the
    bootstrap replicates last."""

    def __init__(self, stat=_loglog):
        self.calls, self.stat = [], stat

    def __call__(self, x, y, kept):
        self.calls.append(np.array(y, dtype=float))
        return self.stat(x, y, kept)


def _percentiles(a, axis=0):
    q = 100.0 * (1.0 - LEVEL) / 2.0
    with np.errstate(invalid="ignore"):
        return np.nanpercentile(a, [q, 100.0 - q], axis=axis)


def recorded_bootstrap(design, datasets, resample, n_boot, seed, reading, stat=_loglog):
    """The claim's bootstrap (:func:`analysis.slopes.bootstrap` with the claim's cells, joint
    resample and seed) with a recording statistic: ``(result, cells)``, ``cells`` every cell's
    ``log n_hat`` point, lo and hi from the very replicates of the slope's interval. ``stat``:
    the claim's ``slope_fn(x, n_hats, cell_indices)`` (default: the log-log slope)."""
    rec = _Recorder(stat)
    cells = [(0 if design.kind == "alphas" else i, c.alpha, c.x)
             for i, c in enumerate(design.cells)]
    res = bootstrap(datasets, cells, design.beta, n_boot, check_random_state(seed), LEVEL,
                    resample=resample, slope_fn=rec, keep_censored=True, reading=reading)
    reps = np.log(np.array(rec.calls[-n_boot:]))
    lo, hi = _percentiles(reps)
    if reading == "grid":  # the grid reading widens to the point brackets' resolution
        rlo, rhi = _percentiles(np.log(np.array(rec.calls[-2 * n_boot:-n_boot])))
        lo, hi = np.fmin(lo, rlo), np.fmax(hi, rhi)
    # the replicates are the slope's own: their percentile interval is the result's
    xs, kept = np.array([c[2] for c in cells], dtype=float), np.arange(len(cells))
    slo, shi = _percentiles([stat(xs, np.exp(r), kept) for r in reps])
    if reading == "fit" and not (same_value(slo, res["lo"]) and same_value(shi, res["hi"])):
        raise RuntimeError(f"design {design.name}: the recorded replicates give [{slo}, {shi}],"
                           f" the bootstrap [{res['lo']}, {res['hi']}]")
    return res, (np.log(rec.calls[0]), lo, hi)


def same_value(a, b) -> bool:
    return bool(a == b or (np.isnan(a) and np.isnan(b)) or abs(a - b) <= 1e-9 * abs(b))


def run_dataset(design: Design, truth: str, index: int, n_boot: int, readings=READINGS,
                per_cell=True, curves=None, verify=True) -> list[dict]:
    """Records (one per reading and quantity, and per cell for ``n_hat``) of one data set.

    Slope records: the claim's statistic, its interval and the true slope; ``n_hat`` records
    (``per_cell``) on the natural-log scale: ``log n_hat``, its interval, ``log`` of the true
    ED_{1-beta}. ``lack_of_fit`` (fitted reading, slope records): the bootstrap's reasons, ""
    if the model stands. ``curves``: :func:`truth_curves`'s output, if already computed.

    With ``per_cell`` the statistic and the cells come from one recorded run of the claim's
    bootstrap; ``verify`` also calls the claim's own function (:func:`claim_statistic`) on the
    data set and raises unless it returns the same statistic and interval (the script verifies
    one data set in ten: the call is deterministic, and it doubles the cost).
    """
    probs, n_true = curves if curves is not None else truth_curves(design, truth)
    rng = np.random.default_rng(seed_sequence(design.name, truth, index))
    df, datasets, resample = simulate(design, probs, rng)
    seed = int(rng.integers(2**32))  # the bootstrap's, the same for both readings
    s_true = true_statistic(design, n_true)
    outside = [not c.ns[0] <= v <= c.ns[-1] for c, v in zip(design.cells, n_true)]
    base = dict(design=design.name, truth=truth, dataset=int(index))
    out = []
    for reading in readings:
        res = cells = None
        if per_cell:
            res, cells = recorded_bootstrap(design, datasets, resample, n_boot, seed, reading)
        if verify or not per_cell:
            with use_reading(reading):
                claim = claim_statistic(design, df, n_boot, seed)
            for key in ("slope", "lo", "hi"):
                if res is not None and not same_value(res[key], claim[key]):
                    raise RuntimeError(f"design {design.name}: the recorded bootstrap's {key} "
                                       f"{res[key]!r} is not the claim's {claim[key]!r}")
            res = claim
        out.append(dict(base, reading=reading, quantity="slope", cell=math.nan,
                        estimate=float(res["slope"]), lo=float(res["lo"]), hi=float(res["hi"]),
                        true=s_true, outside_grid=sum(outside),
                        lack_of_fit=res.get("lack_of_fit"),
                        censored_frac=float(res["censored_frac"])))
        if per_cell:
            pt, lo, hi = cells
            for j, c in enumerate(design.cells):
                out.append(dict(base, reading=reading, quantity="n_hat", cell=c.x,
                                estimate=float(pt[j]), lo=float(lo[j]), hi=float(hi[j]),
                                true=math.log(n_true[j]), outside_grid=int(outside[j]),
                                lack_of_fit=None, censored_frac=math.nan))
    return out


# --------------------------------------------------------------------------------------------
# the summary
# --------------------------------------------------------------------------------------------


def clopper_pearson(k: int, t: int, confidence=0.95) -> tuple[float, float]:
    """Exact two-sided binomial interval for ``k`` of ``t``."""
    a = 1.0 - confidence
    lo = beta_dist.ppf(a / 2, k, t - k + 1) if k > 0 else 0.0
    hi = beta_dist.ppf(1 - a / 2, k + 1, t - k) if k < t else 1.0
    return float(lo), float(hi)


def summarise(records, scale: float = 1.0) -> pd.DataFrame:
    """Bias, sd, mean width and coverage per (design, truth, reading, quantity, cell).

    ``records``: :func:`run_dataset`'s dicts (or their DataFrame). A data set whose interval is
    missing counts as not covering (``valid`` counts those with one). ``scale``: each interval
    scaled about its centre first (0.7 = narrowed by 30%: the control that a coverage test has
    power). ``lack_of_fit_frac``: fitted-reading slopes flagged with a lack of fit;
    ``outside_grid``: cells whose true ``n_hat`` lies outside their ``n`` grid (the claim can
    read them only as bounds).
    """
    df = pd.DataFrame(records)
    centre, half = (df["lo"] + df["hi"]) / 2.0, (df["hi"] - df["lo"]) / 2.0 * scale
    df = df.assign(lo=centre - half, hi=centre + half)
    rows = []
    keys = ["design", "truth", "reading", "quantity", "cell"]
    for key, g in df.groupby(keys, sort=False, dropna=False):
        err = (g["estimate"] - g["true"]).to_numpy(dtype=float)
        ok = np.isfinite(g["lo"]) & np.isfinite(g["hi"])
        hit = int((ok & (g["lo"] <= g["true"]) & (g["true"] <= g["hi"])).sum())
        t = len(g)
        tail = tails(int((ok & (g["true"] < g["lo"])).sum()),  # each tail (coverage_tails)
                     int((ok & (g["true"] > g["hi"])).sum()), hit, t)
        lof = g["lack_of_fit"]
        flagged = (float(lof.map(lambda s: isinstance(s, str) and s != "").mean())
                   if key[2] == "fit" and key[3] == "slope" else math.nan)
        with np.errstate(invalid="ignore"):
            rows.append(dict(zip(keys, key), true=float(g["true"].iloc[0]),
                             outside_grid=int(g["outside_grid"].iloc[0]),
                             bias=float(np.nanmean(err)) if np.isfinite(err).any() else math.nan,
                             sd=float(np.nanstd(err, ddof=1)) if np.isfinite(err).sum() > 1
                             else math.nan,
                             mean_width=float((g["hi"] - g["lo"])[ok].mean()) if ok.any()
                             else math.nan,
                             coverage=hit / t, **dict(zip(("coverage_lo", "coverage_hi"),
                                                          clopper_pearson(hit, t))),
                             datasets=t, valid=int(ok.sum()), lack_of_fit_frac=flagged,
                             censored_frac=float(g["censored_frac"].mean()), **tail))
    return pd.DataFrame(rows)


def markdown_table(table: pd.DataFrame) -> str:
    """The docs' tables (docs/model.md) from :func:`summarise`'s table (``results/coverage.csv``):
    the claim's statistic per design and truth, both readings side by side; then each reading's
    per-cell ``n_hat`` coverage (its range over the cells) and mean width of ``log n_hat``."""
    def cov_text(r):
        return f"{r.coverage:.2f} [{r.coverage_lo:.2f}, {r.coverage_hi:.2f}]"

    key, ORDER = ["design", "truth"], [*DESIGNS, *MORE_RECORDS]
    order = {t: i for i, t in enumerate(TRUTHS)}
    slope = table[table["quantity"] == "slope"]
    nh = table[table["quantity"] == "n_hat"]
    n_cells = nh.groupby(["design", "truth", "reading"]).size().groupby(level=[0, 1]).max()
    lines = ["| design | truth | cells (truth outside the grid) | true slope | grid: bias | sd | "
             "width | coverage | fitted: bias | sd | width | coverage | lack of fit |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    groups = sorted(slope.groupby(key, sort=False), key=lambda kv: (
        ORDER.index(kv[0][0]) if kv[0][0] in ORDER else 99, order.get(kv[0][1], 9)))
    for (design, truth), g in groups:
        by = {r.reading: r for r in g.itertuples()}
        size = n_cells.get((design, truth), "?")
        cells = [f"{design}", truth, f"{size} ({int(g['outside_grid'].iloc[0])})",
                 f"{g['true'].iloc[0]:.3f}"]
        for reading in READINGS:
            r = by.get(reading)
            cells += ([f"{r.bias:+.3f}", f"{r.sd:.3f}", f"{r.mean_width:.3f}", cov_text(r)]
                      if r is not None else ["", "", "", ""])
        f = by.get("fit")
        cells.append(f"{f.lack_of_fit_frac:.2f}" if f is not None else "")
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "| design | truth | grid: n_hat coverage, min..max over the cells | "
              "mean width of log n_hat | fitted: n_hat coverage, min..max | "
              "mean width of log n_hat | fitted: mean bias of log n_hat |",
              "|---|---|---|---|---|---|---|"]
    groups = sorted(nh.groupby(key, sort=False), key=lambda kv: (
        ORDER.index(kv[0][0]) if kv[0][0] in ORDER else 99, order.get(kv[0][1], 9)))
    for (design, truth), g in groups:
        cells = [design, truth]
        for reading in READINGS:
            r = g[g["reading"] == reading]
            cells += ([f"{r['coverage'].min():.2f}..{r['coverage'].max():.2f}",
                       f"{r['mean_width'].mean():.2f}"] if len(r) else ["", ""])
        f = g[g["reading"] == "fit"]
        cells.append(f"{f['bias'].mean():+.3f}" if len(f) else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
