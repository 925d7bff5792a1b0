"""C4 (Lemma 4.6, Theorem 4.9): the private cost grows with the exact ``ln|G|``, not with d.

BMN20 prices the private part of the sample at about ``(ln|G| + ln 1/beta) / (epsilon alpha)``
with ``ln|G| = O(d^2 ln n_pub)``; a learner paying only the non-private (VC) price grows like d.
The COUNTED test (:mod:`analysis.private_cost`, docs/claims/c4_dimension.md): per setting
``(w_pub, epsilon, alpha)`` the private cost ``P(d) = n_hat_PPM(d) - n_hat_ERM(d)`` (ERM on the
same samples: the non-private part, measured) at d = 1, 2, 3; the increments ratio
``R = (P(3) - P(2)) / (P(2) - P(1))`` pooled over the settings with the joint bootstrap, against
the two predictions: ``[min rho_s, max rho_s]`` with ``rho_s`` the same ratio of the exact
``ln|G|`` each setting's fits scored at its own ``n_pub`` (BMN20), and exactly 1 (d).

The pool (:data:`COUNTED`) was chosen so that every setting is bracketed at d = 1, 2, 3 by the
committed trials: w_pub must exceed alpha (below it the all-private constant is already
accurate), and a small w_pub keeps ``n_pub``, hence ``|G|``, small while n grows:

* w_pub = 0.1: d = 1, 2 from ``c4_epsilon_fit``; d = 3 from ``c4_dimension_d3_wpub`` (epsilon 1,
  10) and ``c4_epsilon_fit_d3`` (2, 4), n <= 224 on the CPU, n = 240..352 on an H100;
* w_pub = 0.06: d = 1, 2 from ``c4_wpub06_d12``; d = 3 from ``c4_wpub06_d3`` (n <= 224 on the
  CPU, 256..448 on an H100).

The pool's other alphas (:data:`POOL_ALPHAS`) are censored at d = 3 and shown as bounds, not
counted; so is the w_pub = 0.5 pool (C1 sweeps, ``c4_dimension_d3``, ``c4_dimension_eps10``),
which reaches d = 3 only at n <= 48. The class-size, EM-price and ``A(d)`` rows
(:mod:`claims.c4_mechanism`) are checks.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from claims import c4_mechanism, plotting
from claims.base import Claim, VerdictRow, beta_of
from claims.outcomes import fit_defect
from claims.predictions import prediction_verdict
from claims.verdicts import NOT_MEASURED, fmt_interval
from analysis.aggregate import ERROR_COL
from analysis.private_cost import private_cost_ratio_pooled
from experiments.columns import D, EPSILON, ERM, POPULATION, PPM, W_PUB
from ppm import bounds

STATEMENT = "private cost grows with the exact ln|G| (~ d^2 ln n_pub), not with d"
C1_SWEEPS = ("c1_realizable_d1", "c1_realizable_d2")
D3_WPUB = "c4_dimension_d3_wpub"
D3_FIT = "c4_epsilon_fit_d3"
W06_D3, W06_D12 = "c4_wpub06_d3", "c4_wpub06_d12"
EXPERIMENTS = ("c4_dimension_d3", "c4_dimension_eps10", *c4_mechanism.EPSILON_FIT_SWEEPS[::-1],
               W06_D12, W06_D3)
# the alphas read in each small-w_pub pool (all below w_pub) ...
POOL_ALPHAS = {0.1: (0.05, 0.07, 0.09), 0.06: (0.03, 0.04, 0.05)}
# ... and the counted settings: those the design brackets at d = 1, 2, 3 (epsilon 1 at alpha
# 0.05, 0.07 and w_pub 0.1 would need n ~ 500-650 at d = 3: |G| ~ 1e13-1e14 per fit)
COUNTED = {(0.1, 1.0): (0.09,), (0.1, 2.0): (0.05, 0.07, 0.09), (0.1, 4.0): (0.05, 0.07, 0.09),
           (0.1, 10.0): (0.05, 0.07, 0.09), (0.06, 1.0): (0.05,), (0.06, 2.0): (0.04, 0.05),
           (0.06, 4.0): (0.03, 0.04, 0.05), (0.06, 10.0): (0.03, 0.04, 0.05)}
PAPER = "private cost ~ (ln|G| + ln 1/beta)/(eps alpha), ln|G| = O(d^2 ln n_pub) (Lemma 4.6)"
NAMES = ("the ln|G|", "the d (VC) prediction")


def _short(trials: pd.DataFrame) -> pd.DataFrame:
    """The columns the counted test reads, under their trials-CSV names (learner, d, n, trial,
    error, epsilon: NaN for ERM, w_pub, ln|G|), and the sample group ``samples``: the pipeline
    draws a trial's sample from (seed, population config, n, trial) only, so rows equal in these
    ran on the same sample (every epsilon and ERM): resampled jointly."""
    pop = sorted(c for c in trials.columns if c.startswith(POPULATION))
    samples = trials["seed"].astype(str)
    for c in pop:
        samples = samples + "|" + trials[c].astype(str)
    return pd.DataFrame({
        "learner": trials["learner"], D: trials[D].astype(int),
        "n": trials["n"], "trial": trials["trial"], ERROR_COL: trials[ERROR_COL],
        EPSILON: trials[EPSILON], W_PUB: trials[W_PUB],
        "log_n_hypotheses": trials["log_n_hypotheses"], "samples": samples})


def pool_trials(results) -> tuple[pd.DataFrame, float] | None:
    """PPM and ERM trials of the small-w_pub pools at d = 1, 2, 3 (None without d = 3)."""
    parts, beta = [], None
    for exp, ds in ((c4_mechanism.EPSILON_FIT, (1, 2)), (D3_WPUB, (3,)), (D3_FIT, (3,)),
                    (W06_D12, (1, 2)), (W06_D3, (3,))):
        data = results.load(exp)
        if data is not None:
            t = _short(data[0])
            parts.append(t[t[D].isin(ds)])
            beta = beta_of(data[1]) if beta is None else beta
    if not parts:
        return None
    t = pd.concat(parts, ignore_index=True)
    return (t, beta) if (t[D] == 3).any() else None


def wpub05_trials(results) -> list[tuple[pd.DataFrame, float, tuple]]:
    """The w_pub = 0.5 pool: (trials, beta, alphas) at epsilon 1 (C1 sweeps + d = 3) and 10."""
    out = []
    d3 = results.load("c4_dimension_d3")
    if d3 is not None:
        parts = [results.load(e) for e in C1_SWEEPS] + [d3]
        t = pd.concat([_short(p[0]) for p in parts if p is not None], ignore_index=True)
        out.append((t, beta_of(d3[1]), tuple(float(a) for a in d3[1]["alpha"].unique())))
    e10 = results.load("c4_dimension_eps10")
    if e10 is not None:
        out.append((_short(e10[0]), beta_of(e10[1]),
                    tuple(float(a) for a in e10[1]["alpha"].unique())))
    return out


def counted_test(results, n_boot: int) -> dict | None:
    pool = pool_trials(results)
    if pool is None:
        return None
    t, beta = pool
    present = {(float(w), float(e)) for w, e in
               t[t.learner == PPM][[W_PUB, EPSILON]].drop_duplicates().itertuples(index=False)}
    settings = {k: v for k, v in COUNTED.items() if k in present}
    fit = private_cost_ratio_pooled(t, settings, beta, error_col=ERROR_COL, n_boot=n_boot)
    fit["beta"], fit["missing"] = beta, sorted(set(COUNTED) - present)
    return fit


def _fmt(v) -> str:
    return ", ".join(f"{x:.0f}" for x in v)


def _what_would_separate(fit: dict, trials: int = 100) -> str:
    """What would separate the predictions: an interval narrower than the gap between them,
    i.e. about ``(width / gap)^2`` times the trials per cell (an interval shrinks ~
    1/sqrt(trials)), on a grid whose resolution alone is narrower than the gap too."""
    gap = fit["predicted"][0] - 1.0
    width, res = fit["hi"] - fit["lo"], fit["resolution"][1] - fit["resolution"][0]
    if not (np.isfinite(width) and gap > 0 and width > gap):
        return ""
    k = math.ceil((width / gap) ** 2 * 10) / 10
    grid = (f", on an n grid finer than now (its resolution alone spans {res:.2f})"
            if np.isfinite(res) and res >= 0.5 * gap else "")
    return (f"; separating them needs an interval narrower than the {gap:.2f} between them "
            f"(now {width:.2f} wide): about {k:g}x the {trials} trials per cell{grid}")


def counted_row(fit: dict) -> VerdictRow:
    n_set, pred = len(fit["settings"]), fit["predicted"]
    by_w = pd.Series([w for w, _, _ in fit["settings"]]).value_counts().sort_index(ascending=False)
    verdict = (NOT_MEASURED if not n_set else fit_defect(fit) or prediction_verdict(
        fit["lo"], fit["hi"], fit["ratio"], pred, (1.0, 1.0), NAMES, fit["direction"]))
    if verdict.startswith("inconclusive (cannot"):
        verdict = verdict[:-1] + _what_would_separate(fit) + ")"
    excl = "; ".join(f"w_pub {w:g} eps {e:g} alpha {a:g}: {why}"
                     for w, e, a, why in fit["excluded"])
    return VerdictRow(
        claim="C4", figure="c4_dimension",
        setting=f"private cost vs d (counted test): increments ratio R = (P(3) - P(2)) / "
                f"(P(2) - P(1)) of P(d) = n_hat_PPM - n_hat_ERM, pooled over {n_set} settings "
                f"(" + ", ".join(f"w_pub {w:g}: {c}" for w, c in by_w.items()) + "), joint "
                "bootstrap over trials",
        paper=PAPER,
        measured=f"R = {fmt_interval(fit['ratio'], fit['lo'], fit['hi'])} ("
                 + (f"grid resolution alone [{fit['resolution'][0]:.2f}, "
                    f"{fit['resolution'][1]:.2f}]; " if np.isfinite(fit["resolution"][0])
                    else "")
                 + f"{fit['n_boot_valid']} replicates; cells censored in a replicate: "
                 f"{fit['censored_frac']:.1%}); without subtracting ERM: "
                 f"{fit['raw_ratio']:.2f}"
                 + (f"; {len(fit['bounded'])} settings censored at d = 3 (a lower bound)"
                    if fit["bounded"] else "")
                 + (f"; excluded: {excl}" if excl else "")
                 + (f"; no trials for {fit['missing']}" if fit["missing"] else ""),
        theory=f"ln|G| (BMN20): R in [{pred[0]:.2f}, {pred[1]:.2f}] (each setting's exact "
               f"ln|G| ratio; {fit['weighted']:.2f} with the theory's scales 1/(eps alpha)); "
               "alternative d (VC, the non-private price): R = 1",
        verdict=verdict, slope=fit["ratio"], slope_lo=fit["lo"], slope_hi=fit["hi"],
        extra="counted test")


def _setting_row(label, s: dict, note: str, source: str) -> VerdictRow:
    w_pub, eps, alpha = label
    cens = s["censored"]
    return VerdictRow(
        claim="C4", figure="c4_dimension",
        setting=f"w_pub={w_pub:g}, epsilon={eps:g}, alpha={alpha:g}, d=1,2,3 ({source})",
        paper=PAPER,
        measured=f"n_hat PPM {_fmt(s[PPM])}{' (d = 3: >, censored)' if cens else ''}; "
                 f"ERM {_fmt(s[ERM])}; private cost P {_fmt(s['private'])}; exact ln|G| at "
                 f"n_pub = w_pub n_hat: " + ", ".join(f"{v:.1f}" for v in s["log_g"])
                 + f"; R_s = {s['ratio']:.2f}{' (a lower bound)' if cens else ''}",
        theory=f"ln|G|: R_s = {s['rho']:.2f}; d: R_s = 1",
        verdict=f"breakdown ({note}, not counted)", slope=s["ratio"],
        epsilon=eps, alpha=alpha, w_pub=w_pub, extra=source)


def setting_rows(results) -> list[VerdictRow]:
    """Every setting of the pools, counted or not, with its own numbers (no interval)."""
    rows = []
    pool = pool_trials(results)
    if pool is not None:
        t, beta = pool
        for (w, e), g in t[t.learner == PPM].groupby([W_PUB, EPSILON]):
            key = (float(w), float(e))
            for a in POOL_ALPHAS.get(key[0], ()):
                rows += _breakdown(t, {key: (a,)}, beta,
                                   "a setting of the counted test" if a in COUNTED.get(key, ())
                                   else "outside the counted pool", "small-w_pub pool")
    for t, beta, alphas in wpub05_trials(results):
        for e in sorted(t.loc[t.learner == PPM, EPSILON].dropna().unique()):
            for a in alphas:
                rows += _breakdown(t, {(0.5, float(e)): (a,)}, beta,
                                   "w_pub = 0.5 pool: d = 3 only at n <= 48", "w_pub 0.5 pool")
    return rows


def _breakdown(t, setting, beta, note, source) -> list[VerdictRow]:
    fit = private_cost_ratio_pooled(t, setting, beta, error_col=ERROR_COL, n_boot=0)
    if fit["settings"]:
        label = fit["settings"][0]
        return [_setting_row(label, fit["per_setting"][label], note, source)]
    w, e, a, why = fit["excluded"][0]
    return [VerdictRow(claim="C4", figure="c4_dimension",
                       setting=f"w_pub={w:g}, epsilon={e:g}, alpha={a:g}, d=1,2,3 ({source})",
                       paper=PAPER, measured=why, theory="ln|G| vs d",
                       verdict=f"breakdown ({note}, not counted): {NOT_MEASURED}",
                       epsilon=e, alpha=a, w_pub=w, extra=source)]


H100_RATE = 3e11  # level-3 hypotheses/s measured on an H100 (docs/gpu.md, results/bench_gpu.csv)


def d4_projection(label, s: dict, trials: int = 100, cells: int = 6) -> dict:
    """Where d = 4 would cross, projected from the setting's d = 1, 2, 3 under the ln|G|
    model, and what one GPU batch would cost there.

    ``P(4) = P(3) + c (L(4) - L(3))`` with ``c = (P(3) - P(1)) / (L(3) - L(1))`` and ``L(4)``
    the exact ``ln|G|`` at d = 4 and ``n_pub = w_pub n_hat(4)`` (general position,
    ``ppm.bounds.hypothesis_class_size``), ERM's n_hat extended linearly; solved by fixed-point
    iteration. The cost: ``E|G|`` over ``n_pub ~ Binomial(n_hat(4), w_pub)`` per fit, times
    ``trials`` fits per cell and ``cells`` grid cells around the crossing, at
    :data:`H100_RATE`."""
    w_pub = label[0]
    p, lg, erm = s["private"], s["log_g"], s[ERM]
    c = (p[2] - p[0]) / (lg[2] - lg[0])
    erm4 = erm[2] + (erm[2] - erm[1])
    n4 = s[PPM][2]
    for _ in range(50):
        l4 = math.log(bounds.hypothesis_class_size(max(1, round(w_pub * n4)), 4))
        n4 = erm4 + p[2] + c * (l4 - lg[2])
    k = np.arange(0, int(n4) + 1)
    pmf = stats.binom.pmf(k, int(round(n4)), w_pub)
    size = float(sum(q * bounds.hypothesis_class_size(int(j), 4) for j, q in zip(k, pmf)
                     if q > 1e-12))
    return {"n_hat": n4, "n_pub": w_pub * n4, "log_g": l4, "size": size,
            "minutes": size * trials * cells / H100_RATE / 60.0}


def d4_row(fit: dict) -> VerdictRow | None:
    """The d = 4 projections of the counted settings (a reference, not a verdict)."""
    if not fit["settings"]:
        return None
    proj = {k: d4_projection(k, fit["per_setting"][k]) for k in fit["settings"]}
    best = min(proj, key=lambda k: proj[k]["minutes"])
    return VerdictRow(
        claim="C4", figure="c4_dimension",
        setting="d = 4 projected from d = 1, 2, 3 under the ln|G| model (counted settings): "
                "n_hat(4), its n_pub and the H100 time of one batch (6 cells x 100 trials)",
        paper=PAPER,
        measured="; ".join(f"w_pub {w:g} eps {e:g} alpha {a:g}: n_hat(4) ~ {v['n_hat']:.0f}, "
                           f"n_pub ~ {v['n_pub']:.0f}, E|G| = {v['size']:.1e}, "
                           f"{v['minutes']:.2g} H100-min"
                           for (w, e, a), v in proj.items())
                 + f"; cheapest: w_pub {best[0]:g} eps {best[1]:g} alpha {best[2]:g} at "
                   f"{proj[best]['minutes']:.2g} H100-minutes",
        theory="a batch must fit 30 H100-minutes (docs/gpu.md)",
        verdict="reference (a projection for planning, not counted): "
                + ("one setting fits a 30-minute batch" if proj[best]["minutes"] <= 30
                   else "no setting fits a 30-minute batch"),
        extra="d4 projection")


def analyse(results) -> list[VerdictRow]:
    fit = counted_test(results, results.n_boot)
    head = [counted_row(fit)] if fit is not None else []
    d4 = d4_row(fit) if fit is not None else None
    return head + setting_rows(results) + ([d4] if d4 else []) + c4_mechanism.analyse(results)


# ------------------------------------------------------------------------------------------
# figure
# ------------------------------------------------------------------------------------------


def _normalised_panel(ax, fit: dict) -> None:
    """(P(d) - P(1)) / (P(2) - P(1)) per counted setting: 0, 1, R_s; the predictions at d = 3:
    1 + rho_s (ln|G|) and 2 (d); the pooled 1 + R with its interval."""
    for i, (label, s) in enumerate(fit["per_setting"].items()):
        p = np.asarray(s["private"], dtype=float)
        y = (p - p[0]) / (p[1] - p[0])
        c = "C0" if label[0] == 0.1 else "C1"
        ax.plot([1, 2, 3], y, color=c, lw=0.8, alpha=0.5,
                label=f"a setting at w_pub = {label[0]:g}" if i in (0, len(fit["settings"]) - 1)
                else None)
        ax.plot([2.9, 3.1], [1 + s["rho"]] * 2, color="C2", lw=1.5,
                label="ln|G| prediction per setting" if i == 0 else None)
    ax.axhline(2.0, color="C3", ls="--", lw=1, label="d prediction (R = 1)")
    ax.errorbar([3.2], [1 + fit["ratio"]], yerr=[[fit["ratio"] - fit["lo"]],
                                                 [fit["hi"] - fit["ratio"]]],
                fmt="o", color="k", capsize=4, label="pooled 1 + R, 95% interval")
    ax.set_xticks([1, 2, 3])
    ax.set_xlabel("dimension d")
    ax.set_ylabel("normalised private cost (P(d) - P(1)) / (P(2) - P(1))")
    ax.set_title(f"(A) counted test: R = {fmt_interval(fit['ratio'], fit['lo'], fit['hi'])}; "
                 f"ln|G| predicts [{fit['predicted'][0]:.2f}, {fit['predicted'][1]:.2f}], "
                 "d predicts 1", fontsize=8)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6)


def _cost_vs_log_g_panel(ax, fit: dict) -> None:
    """The private cost in units of 1/(epsilon alpha) against the exact ln|G| + ln(1/beta):
    one line per setting; Lemma 4.6's bound 2(ln|G| + ln 1/beta) for the EM's share."""
    lb = math.log(1.0 / fit["beta"])
    top = 0.0
    for label, s in fit["per_setting"].items():
        x = np.asarray(s["log_g"]) + lb
        y = np.asarray(s["private"]) * label[1] * label[2]
        ax.plot(x, y, "o-", color="C0" if label[0] == 0.1 else "C1", lw=0.8, ms=3, alpha=0.7)
        top = max(top, float(np.nanmax(x)))
    xs = np.array([0.0, top])
    ax.plot(xs, 2 * xs, "k--", lw=1,
            label="Lemma 4.6: 2 (ln|G| + ln 1/beta), the EM's share alone")
    ax.plot([], [], "o-", color="C0", label="w_pub = 0.1 settings")
    ax.plot([], [], "o-", color="C1", label="w_pub = 0.06 settings")
    ax.set_xlabel(r"exact $\ln|G| + \ln(1/\beta)$ at $n_{pub} = w_{pub}\,\hat n$ (d = 1, 2, 3)")
    ax.set_ylabel(r"private cost $P \cdot \epsilon\alpha$")
    ax.set_title("(B) the private cost against the exact ln|G| (a straight line per setting "
                 "if P grows with ln|G|)", fontsize=8)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6)


def _nhat_panel(ax, fit: dict, w_pub: float) -> bool:
    """PPM's n_hat vs d per setting of one pool; at d = 3 the two predictions from d = 1, 2:
    ln|G| (open circle) and d (cross)."""
    mine = [(k, s) for k, s in fit["per_setting"].items() if k[0] == w_pub]
    if not mine:
        return False
    for i, ((_, eps, a), s) in enumerate(mine):
        c = f"C{i % 10}"
        ax.plot([1, 2, 3], s[PPM], "o-", color=c, lw=1, ms=4,
                label=f"eps {eps:g}, alpha {a:g}")
        ax.plot([1, 2, 3], s[ERM], ":", color=c, lw=0.8)
        p = s["private"]
        for rho, m in ((s["rho"], "o"), (1.0, "x")):
            ax.scatter([3.08], [s[ERM][2] + p[1] + rho * (p[1] - p[0])], marker=m, s=30,
                       facecolors="none" if m == "o" else c, edgecolors=c if m == "o" else None,
                       color=c)
    ax.scatter([], [], marker="o", facecolors="none", edgecolors="k",
               label="d = 3 predicted from d = 1, 2: ln|G|")
    ax.scatter([], [], marker="x", color="k", label="... and d")
    ax.plot([], [], "k:", label="ERM (non-private) n_hat")
    ax.set_yscale("log")
    ax.set_xticks([1, 2, 3])
    ax.set_xlabel("dimension d")
    ax.set_ylabel(f"n_hat (beta = {fit['beta']:g})")
    ax.set_title(f"(C) n_hat vs d at w_pub = {w_pub:g}, counted settings", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=5, ncol=2)
    return True


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    """Top row: the counted test; bottom row: where ln|G| comes from (class size, EM price,
    A(d): checks)."""
    fit = counted_test(results, 0)
    head = [r for r in rows if r.extra == "counted test"]
    if fit is not None and head:
        fit.update(lo=head[0].slope_lo, hi=head[0].slope_hi)
    drawers = (c4_mechanism.class_size_panel, c4_mechanism.price_panel,
               c4_mechanism.a_of_d_panel)
    fig, axes = plt.subplots(2, 4, figsize=(22.4, 11.2), squeeze=False)
    used = []
    if fit is not None and fit["settings"]:
        _normalised_panel(axes[0][0], fit)
        _cost_vs_log_g_panel(axes[0][1], fit)
        used += [axes[0][0], axes[0][1]]
        used += [ax for ax, w in zip(axes[0][2:], (0.1, 0.06)) if _nhat_panel(ax, fit, w)]
    used += [ax for ax, draw in zip(axes[1], drawers) if draw(ax, results)]
    plotting.compact(fig, axes, used, (5.6, 5.6))
    verdict = head[0].verdict.split(";")[0].split(" (")[0] if head else "not measured here"
    if head and fit is not None and fit["settings"]:
        verdict += (f": R = {fmt_interval(fit['ratio'], fit['lo'], fit['hi'])}, ln|G| predicts "
                    f"[{fit['predicted'][0]:.2f}, {fit['predicted'][1]:.2f}], d predicts 1")
    plotting.save(fig, out_dir, "c4_dimension",
                  f"C4: does the private cost grow with the exact ln|G| or with d? {verdict}")


CLAIM = Claim(id="C4", name="c4_dimension", statement=STATEMENT, experiments=EXPERIMENTS,
              analyse=analyse, plot=plot,
              # minutes per d = 3 cell (GPU-made rows among them): committed trials seed the
              # cache (make reproduce)
              long=("c4_dimension_d3", "c4_dimension_d3_wpub", "c4_epsilon_fit_d3",
                    "c4_epsilon_fit", W06_D3, W06_D12),
              # its d = 3, n = 48 cell takes ~20 min on 2 cores: restored, quick twin kept
              committed=("c4_dimension_eps10",))
