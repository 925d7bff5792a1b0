"""C4 (Theorem 4.9): the private cost grows like ``d^2 log(d/(epsilon alpha))``, ERM's like d.

What is MEASURED and what the theorem BOUNDS are kept apart:

* Measured, end to end: ``n_hat`` at d = 1, 2, 3 per (epsilon, w_pub) setting, and the slope
  of ``log n_hat`` against ``log d`` (rows "n_hat vs d"):
  - epsilon = 1, w_pub = 0.5: d = 1, 2 from the C1 sweeps, d = 3 from ``c4_dimension_d3``
    (n <= 48, what the exact mechanism allows at w_pub = 0.5 on a CPU);
  - epsilon = 10, w_pub = 0.5: ``c4_dimension_eps10`` (d = 1, 2, 3 at n <= 48);
  - epsilon = 1 and 10, w_pub = 0.1: d = 1, 2 from ``c4_epsilon_fit``, d = 3 from
    ``c4_dimension_d3_wpub`` (n <= 224: ``|G|`` depends only on ``n_pub ~ 0.1 n``);
  - epsilon = 2 and 4, w_pub = 0.1: the same with d = 3 from ``c4_epsilon_fit_d3`` (n <= 224),
    the other epsilons of the epsilon fit, read the same way.
  The theorem is an upper bound, and its d-dependence at these small d is not a pure power:
  each row compares the slope with the range spanned by the explicit Theorem 4.9 formula's
  own local slope over the row's d (``bounds.realizable_sample_complexity`` at
  ``n_pub = w_pub n``), the O-form's pure ``d^2`` (2) and the O-form with its log factor
  (``bounds.realizable_shape``), as C2/C3 do; the theory column names all three.
* Measured, mechanism side (:mod:`claims.c4_mechanism`): the growth of ``ln|G|`` with d (the
  source of ``d^2``), the exponential mechanism's exact price against Lemma 4.6's bound, and
  ``A(d)`` of ``n_hat ~ A(d)/epsilon + B(d)`` against ``ln|G|(d)``.

At w_pub = 0.1 the constant 1 already has excess error 0.1, so every alpha there is < 0.1
(``WPUB_ALPHAS``, the alphas of the d3_wpub config): at n = 160 the d = 3 learner's 90%
excess-error quantile is ~0.05 at epsilon = 10 (``G`` from ~16 public points) and ~0.095 at
epsilon = 1 (the EM's price, ~10 mistakes at ln|G| ~ 21), so smaller alphas are censored.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from claims import c4_mechanism, plotting
from claims.base import Claim, VerdictRow, alphas_of, beta_of
from claims.verdicts import (NOT_MEASURED, bound_estimate_verdict, fmt_slope,
                             upper_bound_verdict)
from ppm import bounds
from analysis.pooled_slope import (P_RANGE, increments_exponent, increments_ratio,
                                   sample_complexity_exponent_pooled)
from analysis.sample_complexity import empirical_sample_complexity, loglog_slope
from analysis.slopes import sample_complexity_slope_against
from analysis.aggregate import ERROR_COL

STATEMENT = "private cost d^2 log vs non-private d"
C1_SWEEPS = ("c1_realizable_d1", "c1_realizable_d2")
D3_WPUB = "c4_dimension_d3_wpub"
D3_FIT = "c4_epsilon_fit_d3"
EXPERIMENTS = ("c4_dimension_d3", "c4_dimension_eps10",
               *c4_mechanism.EPSILON_FIT_SWEEPS[::-1])
WPUB_ALPHAS = (0.05, 0.07, 0.09)


def _short(trials: pd.DataFrame) -> pd.DataFrame:
    """learner, d, n, trial, error, epsilon, w_pub, ln|G| from the parameter columns.

    ERM rows carry no epsilon (NaN); rows repeated by several jobs of one sweep (ERM of every
    epsilon) are kept once.
    """
    # The pipeline draws a trial's sample from (seed, population config, n, trial) only, so rows
    # equal in these were run on the same sample (every epsilon of a trial): the pooled slope's
    # bootstrap resamples them jointly.
    pop = sorted(c for c in trials.columns if c.startswith("population."))
    samples = trials["seed"].astype(str)
    for c in pop:
        samples = samples + "|" + trials[c].astype(str)
    t = pd.DataFrame({"learner": trials["learner"], "d": trials["population.d"].astype(int),
                      "n": trials["n"], "trial": trials["trial"], ERROR_COL: trials[ERROR_COL],
                      "epsilon": trials["learner.epsilon"], "w_pub": trials["population.w_pub"],
                      "log_n_hypotheses": trials["log_n_hypotheses"], "samples": samples})
    return t


def _at_epsilon(t: pd.DataFrame, eps: float) -> pd.DataFrame:
    ppm = t[(t.learner == "ppm") & np.isclose(t.epsilon, eps)]
    erm = t[(t.learner == "erm") & t.d.isin(ppm.d.unique())].drop_duplicates(["d", "n", "trial"])
    return pd.concat([ppm, erm], ignore_index=True)


def _setting(trials, alphas, beta, source) -> dict:
    by_d = empirical_sample_complexity(trials, alphas, beta, by=["learner", "d"],
                                       error_col=ERROR_COL)
    return {"trials": trials, "nhat": by_d, "alphas": np.asarray(alphas, dtype=float),
            "beta": beta, "source": source}


def _wpub_settings(results) -> list[dict]:
    """w_pub = 0.1 at every epsilon of the epsilon fit: d = 1, 2 from ``c4_epsilon_fit``,
    d = 3 from ``c4_dimension_d3_wpub`` (epsilon 1, 10) and ``c4_epsilon_fit_d3`` (2, 4)."""
    d3 = results.load(D3_WPUB)
    if d3 is None:
        return []
    parts = []
    for exp in (D3_WPUB, D3_FIT, c4_mechanism.EPSILON_FIT):
        data = results.load(exp)
        if data is not None:
            t = _short(data[0])
            parts.append(t[t.d < 3] if exp == c4_mechanism.EPSILON_FIT else t[t.d == 3])
    t = pd.concat(parts, ignore_index=True)
    out = []
    for eps in np.sort(t["epsilon"].dropna().unique()):
        te = _at_epsilon(t, float(eps))
        if te.d.nunique() < 2:
            continue
        source = (f"{D3_WPUB if eps in (1.0, 10.0) else D3_FIT} + "
                  f"{c4_mechanism.EPSILON_FIT} d<3")
        out.append(_setting(te, WPUB_ALPHAS, beta_of(d3[1]), source))
    return out


def settings(results) -> list[dict]:
    """One dict per (epsilon, w_pub) panel that has results."""
    out = []
    d3 = results.load("c4_dimension_d3")
    if d3 is not None:
        parts = [results.load(e) for e in C1_SWEEPS]
        t = pd.concat([_short(p[0]) for p in parts if p is not None] + [_short(d3[0])],
                      ignore_index=True)
        out.append(_setting(t, alphas_of(d3[1]), beta_of(d3[1]),
                            "C1 sweeps + c4_dimension_d3"))
    e10 = results.load("c4_dimension_eps10")
    if e10 is not None:
        out.append(_setting(_short(e10[0]), alphas_of(e10[1]), beta_of(e10[1]),
                            "c4_dimension_eps10"))
    return out + _wpub_settings(results)


def _log_g_text(trials) -> tuple[int, str]:
    """ln|G| at the largest n every d reached: the d^2 ln(n_pub) of the bound, measured."""
    common = set.intersection(*(set(g["n"]) for _, g in trials.groupby("d")))
    n_common = int(max(common)) if common else int(min(trials.groupby("d")["n"].max()))
    lg = (trials[(trials.learner == "ppm") & (trials.n == n_common)]
          .groupby("d")["log_n_hypotheses"].median())
    return n_common, ", ".join(f"d={int(d)}: {v:.1f}" for d, v in lg.items())


def theory_range(ds, alpha, beta, eps, w_pub) -> dict:
    """Local slopes vs d of the explicit Thm 4.9 formula and of the O-form (pure and with log)."""
    explicit = loglog_slope(ds, np.array([bounds.realizable_sample_complexity(
        alpha, beta, eps, int(d), w_pub=w_pub) for d in ds], dtype=float))[0]
    shape = loglog_slope(ds, np.array([bounds.realizable_shape(alpha, beta, eps, int(d))
                                       for d in ds]))[0]
    values = [explicit, 2.0, shape]
    return {"explicit": explicit, "shape": shape, "lo": min(values), "hi": max(values)}


def _row(s: dict, alpha: float, n_boot: int) -> VerdictRow:
    trials, nhat, beta, source = s["trials"], s["nhat"], s["beta"], s["source"]
    ppm = trials[trials.learner == "ppm"]
    w_pub, eps = float(trials["w_pub"].iloc[0]), float(ppm["epsilon"].iloc[0])
    ds = np.sort(trials["d"].unique())
    top_d = trials.groupby("d")["n"].max()
    n_common, lg_text = _log_g_text(trials)
    fits = {learner: sample_complexity_slope_against(
        trials[trials.learner == learner], "d", alpha, beta, error_col=ERROR_COL, n_boot=n_boot)
        for learner in ("ppm", "erm")}
    sub = nhat[(nhat.learner == "ppm") & (nhat.alpha == alpha)].sort_values("d")
    ok = plotting.uncensored(sub)
    x, nh = sub["d"].to_numpy(dtype=float), sub["n_hat"].to_numpy(dtype=float)
    censored_d = [int(d) for d in x[plotting.right_censored(sub)]]
    th = theory_range(ds, alpha, beta, eps, w_pub)
    loose = [bounds.realizable_sample_complexity(alpha, beta, eps, int(d), w_pub=w_pub) / v
             for d, v in zip(x[ok], nh[ok])]
    note = (f"; n_hat > {int(top_d[censored_d[0]])} at d = {censored_d[0]} "
            "(censored: beyond the grid)") if censored_d else ""
    fit = fits["ppm"]
    return VerdictRow(
        claim="C4", figure="c4_dimension",
        setting=f"n_hat vs d, d={','.join(str(int(d)) for d in ds)}, w_pub={w_pub:g}, "
                f"epsilon={eps:g}, alpha={alpha:g} ({source}; largest n "
                + ", ".join(f"{int(top_d[d])}" for d in ds) + ")",
        paper="private cost d^2 log(d/(epsilon alpha)) vs non-private d",
        measured=f"PPM n_hat = " + ", ".join(
            f"{v:.0f}" if np.isfinite(v) else "censored" for v in nh)
                 + f"; slope of log n_hat vs log d = {fmt_slope(fit)} "
                 f"({fit['n_points']} uncensored d){note}; ln|G| at n={n_common}: {lg_text}"
                 f"; ERM slope = {fmt_slope(fits['erm'])}",
        theory=f"[{th['lo']:.2f}, {th['hi']:.2f}]: explicit Thm 4.9 local slope "
               f"{th['explicit']:.2f}, O-form d^2 = 2 (with log factor {th['shape']:.2f}); "
               f"ERM {loglog_slope(ds, ds + math.log(1 / beta))[0]:.2f}",
        looseness=float(np.median(loose)) if loose else math.nan,
        verdict=upper_bound_verdict(fit, th["lo"], th["hi"], all(v >= 1 for v in loose)),
        slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
        epsilon=eps, alpha=float(alpha), w_pub=w_pub, extra=source)


def theory_exponent(ds, alpha, beta, eps, w_pub) -> dict:
    """Increments exponents (:func:`analysis.pooled_slope.increments_exponent`) of the explicit
    Thm 4.9 formula and of the O-form with its log factor at ``ds``, and the pure ``d^2`` (2):
    the range the measured exponent is compared with."""
    explicit = increments_exponent(increments_ratio([bounds.realizable_sample_complexity(
        alpha, beta, eps, int(d), w_pub=w_pub) for d in ds], [0, 0, 0]), ds)
    shape = increments_exponent(increments_ratio([bounds.realizable_shape(
        alpha, beta, eps, int(d)) for d in ds], [0, 0, 0]), ds)
    values = [explicit, 2.0, shape]
    return {"explicit": explicit, "shape": shape, "lo": min(values), "hi": max(values)}


def local_loglog(nhat: dict, settings, ds) -> tuple[float, float]:
    """Pooled log-log slopes d1 -> d2 and d2 -> d3 (mean over the settings; point values): a
    log-log slope over d = 1..3 mixes the constant term in, and rises along d when it does."""
    lr = np.log(np.asarray(ds, dtype=float))
    out = []
    for i in (0, 1):
        out.append(float(np.mean([(math.log(nhat[k][i + 1]) - math.log(nhat[k][i]))
                                  / (lr[i + 1] - lr[i]) for k in settings])))
    return out[0], out[1]


def _pooled_row(sets: list[dict], n_boot: int) -> VerdictRow:
    """The exponent p of ``n_hat = a + b d^p`` pooled over the (epsilon, alpha) settings of one
    w_pub (:func:`analysis.pooled_slope.sample_complexity_exponent_pooled`: the increments
    ratio, free of the constant term; trials resampled jointly across the settings that share
    samples; a setting censored at d = 3 enters with n_hat at the grid's largest n, a lower
    bound, and then the exponent is a lower bound). Theory: the mean over the settings of their
    ranges (explicit Thm 4.9 formula's own increments exponent, pure d^2, O-form with log)."""
    ppm = pd.concat([s["trials"][s["trials"].learner == "ppm"] for s in sets], ignore_index=True)
    w_pub, beta = float(ppm["w_pub"].iloc[0]), sets[0]["beta"]
    alphas = {float(s["trials"].loc[s["trials"].learner == "ppm", "epsilon"].iloc[0]):
              s["alphas"] for s in sets}
    ds = np.sort(ppm["d"].unique())
    if len(ds) != 3:  # e.g. the quick profile, which leaves the d = 3 sweeps out
        return VerdictRow(
            claim="C4", figure="c4_dimension",
            setting=f"pooled n_hat vs d, d={','.join(str(int(d)) for d in ds)}, w_pub={w_pub:g}: "
                    f"exponent p of n_hat = a + b d^p from the increments ratio",
            paper="private cost d^2 log(d/(epsilon alpha)) vs non-private d",
            measured=f"not measured: the increments ratio needs d = 1, 2, 3, this root has d = "
                     f"{', '.join(str(int(d)) for d in ds)}",
            theory="p = 2 (d^2), an upper bound", verdict=NOT_MEASURED, w_pub=w_pub,
            extra="pooled")
    kw = dict(sample_col="samples", error_col=ERROR_COL, n_boot=n_boot)
    fit = sample_complexity_exponent_pooled(ppm, "d", "epsilon", alphas, beta, **kw)
    ths = [theory_exponent(ds, a, beta, eps, w_pub) for eps, a in fit["settings"]]
    lo = float(np.mean([t["lo"] for t in ths])) if ths else math.nan
    hi = float(np.mean([t["hi"] for t in ths])) if ths else math.nan
    nhat = _pooled_nhat(sets)
    top = {float(e): float(g.loc[g.d == ds[-1], "n"].max())
           for e, g in ppm.groupby("epsilon")}
    bounded = set(fit["bounded"])
    free = [k for k in fit["settings"] if k not in bounded]
    loose = [bounds.realizable_sample_complexity(a, beta, eps, int(d), w_pub=w_pub)
             / nhat[(eps, a)][i] for eps, a in free for i, d in enumerate(ds)]
    n_set, n_b = len(fit["settings"]), len(bounded)
    if n_set == 0:
        verdict = NOT_MEASURED
    else:
        verdict = bound_estimate_verdict(fit, lo, hi, fit["direction"],
                                         all(v >= 1 for v in loose))
    # the same estimator on the settings measured at every d only (dropping the censored
    # ones: biased toward the settings that stay measurable), and the local log-log slopes
    free_alphas = {e: [float(a) for a in v if (e, float(a)) in set(free)]
                   for e, v in alphas.items()}
    free_alphas = {e: v for e, v in free_alphas.items() if v}
    sub = (sample_complexity_exponent_pooled(
        ppm[ppm["epsilon"].isin(list(free_alphas))], "d", "epsilon", free_alphas, beta, **kw)
        if n_b and free else None)
    l12, l23 = local_loglog(nhat, free, ds) if free else (math.nan, math.nan)
    fmt = "; ".join(f"eps {e:g} alpha {a:g}: " + ", ".join(
        f"{v:.0f}" if np.isfinite(v) else f">{top[e]:.0f}" for v in nhat[(e, a)])
        for e, a in fit["settings"])
    excl = "; ".join(f"eps {e:g} alpha {a:g} ({why})" for e, a, why in fit["excluded"])
    # why the grid stops there: the exact class the largest d = 3 cells already score
    last = ppm[(ppm.d == ds[-1]) & (ppm.n == ppm.loc[ppm.d == ds[-1], "n"].max())]
    size = np.exp(last["log_n_hypotheses"].to_numpy(dtype=float))
    bound_txt = (f"a LOWER BOUND on the exponent: {n_b} of {n_set} settings are censored at "
                 f"d = {int(ds[-1])} and enter with n_hat at the grid's largest n (n_hat > "
                 f"that; there one exact fit scores |G| = {np.median(size):.1e} hypotheses "
                 f"(median; largest {size.max():.1e}) and |G| grows like n^{int(ds[-1]) ** 2}: "
                 f"a larger n needs the GPU scorer, docs/gpu.md)" if n_b else "no censored cell")
    ratio_txt = ("; a ratio <= 0: the pooled n_hat does not grow from d = 2 to d = 3"
                 + (" (censored cells enter at the d = 3 grid's largest n, below their n_hat at "
                    "d = 2)" if n_b else "") + ", so no exponent fits"
                 if np.isfinite(fit["ratio"]) and fit["ratio"] <= 0 else "")
    sub_txt = (f"; on the {len(free)} settings measured at every d alone: p = "
               f"{fmt_exponent(sub['slope'], sub['lo'], sub['hi']) if sub is not None else ''} "
               f"(biased down: the censored settings are the most privacy-dominated)"
               if sub is not None else "")
    return VerdictRow(
        claim="C4", figure="c4_dimension",
        setting=f"pooled n_hat vs d, d={','.join(str(int(d)) for d in ds)}, w_pub={w_pub:g}: "
                f"exponent p of n_hat = a + b d^p from the increments ratio (n(3) - n(2)) / "
                f"(n(2) - n(1)) summed over the (epsilon, alpha) settings, trials resampled "
                f"jointly across the settings that share samples ({n_set} of "
                f"{n_set + len(fit['excluded'])} settings; censored cells enter as bounds)",
        paper="private cost d^2 log(d/(epsilon alpha)) vs non-private d",
        measured=f"exponent p = {fmt_exponent(fit['slope'], fit['lo'], fit['hi'])} "
                 f"(increments ratio {fit['ratio']:.2f}; 1 for d, 5/3 for d^2{ratio_txt}), "
                 f"{bound_txt}{sub_txt}; pooled local log-log slopes (which "
                 f"mix in the constant) d 1->2: {l12:.2f}, 2->3: {l23:.2f}; n_hat per d: "
                 f"{fmt}; excluded: {excl or 'none'}",
        theory=f"[{lo:.2f}, {hi:.2f}]: mean over the settings of their ranges (increments "
               f"exponent of the explicit Thm 4.9 formula, pure d^2 = 2, O-form with log "
               f"factor); an upper bound",
        looseness=float(np.median(loose)) if loose else math.nan,
        verdict=verdict, slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"],
        w_pub=w_pub, extra="pooled")


def fmt_exponent(slope: float, lo: float, hi: float) -> str:
    """``p [lo, hi]`` of an increments exponent, with a value at an end of
    :data:`analysis.pooled_slope.P_RANGE` written as the bound it is (``<= -10``: the increments
    ratio is at or below that end's, e.g. ``<= 0`` when the pooled ``n_hat`` does not grow from
    the middle to the largest x), never as a measured number."""
    def one(v):
        if not np.isfinite(v):
            return "nan"
        return (f"<= {P_RANGE[0]:g}" if v <= P_RANGE[0] else f">= {P_RANGE[1]:g}"
                if v >= P_RANGE[1] else f"{v:.2f}")
    return f"{one(slope)} [{one(lo)}, {one(hi)}]"


def _pooled_nhat(sets: list[dict]) -> dict:
    """``(epsilon, alpha) -> n_hat`` at every d of each setting, in d order."""
    out = {}
    for s in sets:
        eps = float(s["trials"].loc[s["trials"].learner == "ppm", "epsilon"].iloc[0])
        sub = s["nhat"][s["nhat"].learner == "ppm"].sort_values("d")
        for a, g in sub.groupby("alpha"):
            out[(eps, float(a))] = g["n_hat"].to_numpy(dtype=float)
    return out


def _breakdown(row: VerdictRow) -> VerdictRow:
    row.verdict = (f"breakdown (one setting of the pooled w_pub = {row.w_pub:g} row, not "
                   f"counted): {row.verdict}")
    return row


def analyse(results) -> list[VerdictRow]:
    sets = settings(results)
    by_w = {}
    for s in sets:
        by_w.setdefault(float(s["trials"]["w_pub"].iloc[0]), []).append(s)
    pooled = [_pooled_row(group, results.n_boot) for _, group in sorted(by_w.items(),
                                                                         reverse=True)]
    rows = [_breakdown(_row(s, float(a), results.n_boot)) for s in sets for a in s["alphas"]]
    # the w_pub = 0.1 pooled row (the headline) first
    return sorted(pooled, key=lambda r: r.w_pub) + rows + c4_mechanism.analyse(results)


def _panel(ax, s: dict, rows) -> None:
    trials, nhat, alphas, beta = s["trials"], s["nhat"], s["alphas"], s["beta"]
    eps = float(trials.loc[trials.learner == "ppm", "epsilon"].iloc[0])
    w_pub = float(trials["w_pub"].iloc[0])
    ds = np.sort(trials["d"].unique())
    top_d = trials.groupby("d")["n"].max()
    for i, alpha in enumerate(alphas):
        for learner, ls in (("ppm", "-"), ("erm", "-.")):
            sub = nhat[(nhat.learner == learner) & (nhat.alpha == alpha)].sort_values("d")
            style, label = plotting.style_and_label(learner, f", alpha = {alpha:g}",
                                                    color=f"C{i}", ls=ls)
            # right-censored d are drawn at the largest n of their own d
            plotting.draw_nhat(ax, sub["d"], sub, top_d[sub["d"]].to_numpy(float), style, label)
            ok = plotting.uncensored(sub)
            if learner == "ppm" and ok.any():
                shape = np.array([bounds.realizable_shape(alpha, beta, eps, int(d)) for d in ds])
                c = bounds.fit_shape_constant(sub["n_hat"].to_numpy()[ok],
                                              shape[np.isin(ds, sub["d"].to_numpy()[ok])])
                ax.plot(ds, c * shape, color=f"C{i}", ls=":", lw=1,
                        label="d^2 log O-shape, fitted constant (dotted)" if i == 0 else None)
    plotting.log_axes(ax, ds, "dimension d", plotting.nhat_label(beta))
    mine = [r for r in rows if r.extra == s["source"] and r.epsilon == eps]
    ax.set_title(f"epsilon = {eps:g}, w_pub = {w_pub:g}; largest n: "
                 + ", ".join(f"d={int(d)}: {int(top_d[d])}" for d in ds) + "\nPPM slopes: "
                 + plotting.fmt_values([(f"alpha {r.alpha:g}", r.slope) for r in mine]),
                 fontsize=8)
    ax.legend(fontsize=6)


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    """One row of n_hat panels per w_pub (by epsilon), then the mechanism-side panels."""
    sets = settings(results)
    groups = [[s for s in sets if float(s["trials"]["w_pub"].iloc[0]) == w]
              for w in sorted({float(s["trials"]["w_pub"].iloc[0]) for s in sets}, reverse=True)]
    drawers = (c4_mechanism.class_size_panel, c4_mechanism.price_panel,
               c4_mechanism.a_of_d_panel)
    ncol = max([len(drawers)] + [len(g) for g in groups])
    fig, axes = plt.subplots(len(groups) + 1, ncol, figsize=(5.6 * ncol, 5.6 * (len(groups) + 1)),
                             squeeze=False)
    used = []
    for r, group in enumerate(groups):
        for ax, s in zip(axes[r], group):
            _panel(ax, s, rows)
            used.append(ax)
        w = float(group[0]["trials"]["w_pub"].iloc[0])
        pooled = [p for p in rows if p.extra == "pooled" and p.w_pub == w]
        if pooled and plotting.finite(pooled[0].slope):
            p = pooled[0]
            axes[r][0].set_title(axes[r][0].get_title() + f"\nw_pub = {w:g}, pooled over the "
                                 f"settings that reach d = 3: "
                                 f"{fmt_exponent(p.slope, p.slope_lo, p.slope_hi)}, {p.verdict}",
                                 fontsize=8)
    used += [ax for ax, draw in zip(axes[-1], drawers) if draw(ax, results)]
    plotting.compact(fig, axes, used, (5.6, 5.6))  # no empty panels (e.g. the quick profile)
    mechanism = any(any(ax is u for u in used) for ax in axes[-1])
    plotting.save(fig, out_dir, "c4_dimension",
                  "C4: n_hat vs d, measured end to end (top rows, one per w_pub); "
                  "where the d^2 comes from (bottom row)" if mechanism else
                  "C4: n_hat vs d, measured end to end (one row per w_pub)")


CLAIM = Claim(id="C4", name="c4_dimension", statement=STATEMENT, experiments=EXPERIMENTS,
              analyse=analyse, plot=plot,
              headline={"w_pub": 0.1},  # the pooled w_pub = 0.1 row (first)
              # minutes per d = 3 cell: their committed trials seed the cache (make reproduce)
              long=("c4_dimension_d3", "c4_dimension_d3_wpub", "c4_epsilon_fit_d3",
                    "c4_epsilon_fit"),
              # its d = 3, n = 48 cell takes ~20 min on 2 cores: restored, quick twin kept
              committed=("c4_dimension_eps10",))
