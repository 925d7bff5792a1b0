"""C4's counted test: how the exponential mechanism's privacy price grows with d, where nothing
caps it (BMN20 Lemma 4.6, Theorem 4.9; docs/claims/c4_dimension.md "The counted test").

Lemma 4.6 bounds the mechanism's excess by ``(2/epsilon)(ln|G| + ln 1/beta)`` (a union bound over
``G``) and the proof of Theorem 4.9 bounds ``ln|G|`` by ``O(d^2 ln n_pub)``: an UPPER bound, read
one-sidedly (:func:`bound_status`, an exact check on every sample). How the price itself grows
is its own finding, read from the mechanism's EXACT law on each sample
(:mod:`analysis.mechanism_price`):

* ``k_eff = E (e^(epsilon/2) - 1)`` (:func:`analysis.mechanism_price.k_eff`), ``E`` the exact
  expected excess mistakes: 1 for a threshold (d = 1, a geometric law), ``k`` when the
  hypotheses near the minimum form a ``k``-parameter family (a negative binomial law). ``G``'s
  hypotheses are built from up to d halfspaces of d parameters each: ``k = d^2`` is BMN20's
  ``d^2``; a price paying only the VC dimension would give ``k ~ d``.
* The counted statistic (design ``configs/c4_k_eff.yaml``, fixed after a pilot on its own seed,
  before the counted rows): the exponent ``b`` of ``k_eff(d) ~ d^b`` over d = 1, 2, 3 at the
  counted epsilon, on cells the small-``n_pub`` cap leaves alone, per sample ``k_eff`` averaged
  over its nested public sets; a bootstrap over samples (independent per d). The bands come from
  the two models (:func:`claims.rules.predictions.prediction_bands`: ``b = 2`` against ``b = 1``).
* The model check, fixed in advance: ``k_eff`` flat in ``n_pub`` (the paired ratio at the
  largest over the smallest ``n_pub`` within ``1 +- flat_margin`` at every d). Where it fails the
  declared secondary reading (``b`` at the largest ``n_pub`` alone) decides.

Breakdowns: the same exponent at every epsilon of the design, and ``k_eff`` per d on the fixed
(n = 192, n_pub = 12) design of ``configs/c4_price.yaml`` (every epsilon; capped cells named).
d = 4 is judged blind (:mod:`claims.c4.blind`).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from analysis import mechanism_price as mp
from claims.base import VerdictRow, trial_set
from claims.rules.outcomes import LEVEL, NOT_MEASURED, inconclusive
from claims.rules.predictions import fmt_band, prediction_bands, prediction_verdict
from claims.rules.verdicts import check_verdict, fmt_interval

FIGURE = "c4_dimension"
PAPER = ("Lemma 4.6: m(g_hat) - min_G m <= (2/eps)(ln|G| + ln 1/beta) w.p. 1 - beta, "
         "ln|G| = O(d^2 ln n_pub) (Theorem 4.9's d^2)")
GPU_BATCH = "batches/gpu/c4_price_d4.yaml"
#: provenance ids (VerdictRow.statistic): the counted exponent, its breakdown at the other
#: epsilons, k_eff per d on the fixed-n_pub design, Lemma 4.6's check
STAT_K_EFF = "k_eff_exponent_in_d"
STAT_K_EFF_BY_EPS = "k_eff_exponent_in_d_by_epsilon"
STAT_FIXED = "k_eff_by_d_at_fixed_n_pub"
STAT_BOUND = "lemma_4_6_quantile_within_bound"
#: the two models of k_eff(d) ~ d^b: BMN20's d^2 and the VC price's d
MODELS = {"d^2": 2.0, "d": 1.0}
NAMES = ("d^2's", "d's")


def bands():
    """The bands of ``b`` under d^2 and d, from the two models alone."""
    return prediction_bands((MODELS["d^2"],) * 2, (MODELS["d"],) * 2)


def tables_trials(root, rels) -> str:
    """The ``trials`` of rows read off the tables ``rels`` that are there (results paths)."""
    return trial_set(*[rel.removesuffix(".csv") for rel in rels if (Path(root) / rel).exists()])


def read(root, rels) -> pd.DataFrame | None:
    parts = [pd.read_csv(Path(root) / rel) for rel in rels if (Path(root) / rel).exists()]
    return pd.concat(parts, ignore_index=True) if parts else None


def exponent(ds, ks) -> float:
    """Least-squares slope of ``ln k`` on ``ln d`` (NaN with fewer than 2 positive points)."""
    ds, ks = np.asarray(ds, dtype=float), np.asarray(ks, dtype=float)
    ok = ks > 0
    if ok.sum() < 2:
        return math.nan
    return float(np.polyfit(np.log(ds[ok]), np.log(ks[ok]), 1)[0])


def _per_sample(g: pd.DataFrame, n_pubs=None) -> dict:
    """d -> per-sample k_eff (averaged over the sample's n_pubs, or those in ``n_pubs``)."""
    if n_pubs is not None:
        g = g[g["n_pub"].isin(n_pubs)]
    m = g.groupby(["d", "sample"])["k_eff"].mean()
    return {int(d): part.to_numpy() for d, part in m.groupby(level="d")}


def _boot_exponent(per: dict, n_boot: int, rng) -> np.ndarray:
    dims = sorted(per)
    means = np.column_stack([per[d][rng.integers(0, per[d].size, (n_boot, per[d].size))]
                             .mean(axis=1) for d in dims])
    x = np.log(np.asarray(dims, dtype=float))
    xc = x - x.mean()
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(means)
    return (y - y.mean(axis=1, keepdims=True)) @ xc / (xc @ xc)


def k_eff_fit(df: pd.DataFrame, design, epsilon: float, n_boot: int, seed: int = 0) -> dict:
    """The exponent ``b`` of ``k_eff(d)`` at ``epsilon`` on the uncapped cells, its bootstrap
    interval, the model check (paired flatness in ``n_pub``) and, where the check fails, the
    declared secondary reading (the largest ``n_pub`` alone)."""
    g = df[(df["epsilon"] == epsilon) & df["uncapped"].astype(bool)]
    cells = {int(d): sorted(int(v) for v in part["n_pub"].unique()) for d, part in g.groupby("d")}
    dims = sorted(cells)
    out = {"epsilon": float(epsilon), "dims": dims, "cells": cells, "b": math.nan,
           "lo": math.nan, "hi": math.nan, "k": {}, "flat": {}, "check": None,
           "reading": "primary", "capped": sorted(set(int(d) for d in df["d"].unique())
                                                  - set(dims))}
    if len(dims) < 3 or dims != list(range(1, len(dims) + 1)):
        return out
    per = _per_sample(g)
    for d in dims:  # paired flatness: the same samples at the smallest and largest n_pub
        lo_n, hi_n = cells[d][0], cells[d][-1]
        a = g[(g.d == d) & (g.n_pub == lo_n)].set_index("sample")["k_eff"]
        b = g[(g.d == d) & (g.n_pub == hi_n)].set_index("sample")["k_eff"].reindex(a.index)
        out["flat"][d] = (lo_n, hi_n, float(b.mean() / a.mean())) if hi_n > lo_n else None
    out["check"] = all(v is not None and abs(v[2] - 1) <= design.flat_margin
                       for v in out["flat"].values())
    if not out["check"]:  # the declared secondary reading
        out["reading"] = "secondary (largest n_pub)"
        per = {d: _per_sample(g[g.d == d], [cells[d][-1]])[d] for d in dims}
    out["k"] = {d: float(per[d].mean()) for d in dims}
    out["b"] = exponent(dims, [out["k"][d] for d in dims])
    if n_boot > 0:
        r = _boot_exponent(per, n_boot, np.random.default_rng(seed))
        r = r[np.isfinite(r)]
        a = (1.0 - LEVEL) / 2.0
        out["lo"], out["hi"] = (float(v) for v in np.quantile(r, [a, 1.0 - a]))
        out["n_boot"] = int(r.size)
    return out


def exponent_coverage(df: pd.DataFrame, design, datasets: int = 200, n_boot: int = 300,
                      seed: int = 1) -> dict:
    """The coverage of :func:`k_eff_fit`'s interval on the claim's own design: the committed
    per-sample rows of each d as the population (the exponent of their means is the truth),
    ``datasets`` data sets of the design's size drawn from it (whole samples, every n_pub of a
    sample together, independently per d), each with its interval as the claim computes it."""
    eps = design.counted_epsilon
    truth = k_eff_fit(df, design, eps, 0)["b"]
    rng = np.random.default_rng(seed)
    parts = {d: {s: g for s, g in part.groupby("sample")} for d, part in df.groupby("d")}
    below = above = 0
    for k in range(datasets):
        sim = []
        for d, by in parts.items():
            keys = list(by)
            for i, s in enumerate(rng.choice(keys, len(keys))):
                sim.append(by[s].assign(sample=i))
        fit = k_eff_fit(pd.concat(sim, ignore_index=True), design, eps, n_boot, seed + 1 + k)
        below += fit["hi"] < truth
        above += fit["lo"] > truth
    return {"truth": truth, "coverage": 1.0 - (below + above) / datasets,
            "miss_low": below / datasets, "miss_high": above / datasets, "datasets": datasets}


def exponent_verdict(fit: dict) -> str:
    """``b``'s interval against the d^2 and d bands (:func:`prediction_verdict`)."""
    if len(fit["dims"]) < 3:
        return NOT_MEASURED
    if any(len(v) < 2 for v in fit["cells"].values()):
        return inconclusive("fewer than two uncapped n_pub values at some d")
    band2, band1 = bands()
    return prediction_verdict(fit["lo"], fit["hi"], fit["b"], band2, band1, NAMES)


def bound_status(df: pd.DataFrame) -> dict:
    """Lemma 4.6 on every (sample, cell, epsilon) of ``df``: pairs within the bound, the largest
    quantile-to-bound ratio and the slack (its inverse)."""
    ratio = df["excess_q"] / df["em_bound"]
    worst = float(ratio.max())
    return {"within": int((df["excess_q"] <= df["em_bound"]).sum()), "pairs": len(df),
            "worst": worst, "slack": 1.0 / worst if worst > 0 else math.inf,
            "mean_price_share": (df.groupby(["d", "epsilon"])["excess_mean"].mean()
                                 / df.groupby(["d", "epsilon"])["em_bound"].mean())}


def bound_words(st: dict) -> str:
    if st["within"] < st["pairs"]:
        return (f"Lemma 4.6's bound is exceeded on {st['pairs'] - st['within']} of "
                f"{st['pairs']} (sample, epsilon) pairs")
    share = st["mean_price_share"]
    return (f"Lemma 4.6's bound holds with {st['slack']:.1f}x slack or more at every d, n_pub and "
            f"epsilon (the 90% quantile of the exact law at most {st['worst']:.2f} of the bound "
            f"in all {st['pairs']} exact laws (sample, n_pub, epsilon); the mean price "
            f"{share.min():.2f}-{share.max():.2f} of it)")


def _k_text(fit: dict) -> str:
    if not fit["k"]:  # fewer than d = 1, 2, 3 uncapped (a quick-profile root): no exponent
        return f"not computed (uncapped at d = {', '.join(map(str, fit['dims'])) or 'none'})"
    return ", ".join(f"d={d}: {fit['k'][d]:.2f} (n_pub {','.join(map(str, fit['cells'][d]))})"
                     for d in fit["dims"])


def _flat_text(fit: dict, design) -> str:
    return ("; ".join(f"d={d}: k_eff(n_pub {v[1]}) / k_eff(n_pub {v[0]}) = {v[2]:.3f}"
                      for d, v in fit["flat"].items() if v)
            + f" ({'passed' if fit['check'] else 'FAILED'}: within 1 +- {design.flat_margin:g})")


def counted_row(df: pd.DataFrame, design, n_boot: int, trials: str) -> VerdictRow:
    fit = k_eff_fit(df, design, design.counted_epsilon, n_boot)
    v = exponent_verdict(fit)
    st = bound_status(df)
    word = v.split(" (")[0]
    detail = v[len(word):].strip(" ()")
    lg = df[df.epsilon == design.counted_epsilon].groupby(["d", "n_pub"])["log_G"].mean()
    growth = (f"the price grows like d^2 in d: k_eff exponent b = "
              f"{fmt_interval(fit['b'], fit['lo'], fit['hi'])}" if word == "holds" else
              f"the price's growth in d: k_eff exponent b = "
              f"{fmt_interval(fit['b'], fit['lo'], fit['hi'])}{': ' + detail if detail else ''}")
    flat = (f"; it does not grow with n_pub (k_eff flat from n_pub {min(design.n_pubs)} to "
            f"{max(design.n_pubs)} while the bound's ln|G| rises by "
            + ", ".join(f"{lg[d].iloc[-1] - lg[d].iloc[0]:.1f}" for d in fit["dims"])
            + " at d = " + ", ".join(map(str, fit["dims"])) + ")" if fit["check"] else "")
    verdict = (f"{word} ({bound_words(st)}; {growth}{flat})"
               if word in ("holds", "does not hold") else v)
    band2, band1 = bands()
    return VerdictRow(
        claim="C4", figure=FIGURE,
        setting=f"privacy price vs d where nothing caps it (counted test): k_eff = E (e^(eps/2) "
                f"- 1) of the exponential mechanism's exact law, epsilon = "
                f"{design.counted_epsilon:g}, n_priv = {design.n_priv}, nested n_pub "
                f"{','.join(map(str, design.n_pubs))}, d = {','.join(map(str, fit['dims']))}; "
                f"exponent b of k_eff ~ d^b ({fit['reading']} reading), bootstrap over samples",
        paper=PAPER,
        measured=f"{bound_words(st)}; k_eff {_k_text(fit)}; b = "
                 f"{fmt_interval(fit['b'], fit['lo'], fit['hi'])}; model check (k_eff flat in "
                 f"n_pub, paired): {_flat_text(fit, design)}",
        theory=f"d^2 (BMN20, k_eff = d^2): b = 2, band {fmt_band(band2)}; alternative d (VC "
               f"price, k_eff ~ d): b = 1, band {fmt_band(band1)}",
        verdict=verdict, statistic=STAT_K_EFF, trials=trials,
        slope=fit["b"], slope_lo=fit["lo"], slope_hi=fit["hi"],
        epsilon=design.counted_epsilon, extra="counted test")


def epsilon_rows(df: pd.DataFrame, design, n_boot: int, trials: str) -> list[VerdictRow]:
    """The same exponent at every other epsilon of the design: breakdowns (same samples)."""
    rows = []
    for eps in design.epsilons:
        if eps == design.counted_epsilon or not (df["epsilon"] == eps).any():
            continue
        fit = k_eff_fit(df, design, eps, n_boot)
        cap = (f"; capped at d = {','.join(map(str, fit['capped']))} (n_pub < "
               f"({design.cap_factor:g}/eps)(d^2 + 3d))" if fit["capped"] else "")
        v = exponent_verdict(fit) if len(fit["dims"]) >= 3 else (
            f"{NOT_MEASURED} (every n_pub is capped at d = {','.join(map(str, fit['capped']))})")
        rows.append(VerdictRow(
            claim="C4", figure=FIGURE,
            setting=f"k_eff exponent in d at epsilon = {eps:g} (n_priv = {design.n_priv}, "
                    f"nested n_pub {','.join(map(str, design.n_pubs))})",
            paper=PAPER,
            measured=(f"k_eff {_k_text(fit)}; b = {fmt_interval(fit['b'], fit['lo'], fit['hi'])}"
                      if fit["k"] else "no exponent") + cap,
            theory="d^2: b = 2; d: b = 1",
            verdict=f"breakdown (epsilon = {eps:g}: not the counted regime, epsilon = "
                    f"{design.counted_epsilon:g}): {v}",
            statistic=STAT_K_EFF_BY_EPS, trials=trials, slope=fit["b"], slope_lo=fit["lo"],
            slope_hi=fit["hi"], epsilon=eps, extra="k_eff by epsilon"))
    return rows


def fixed_rows(df: pd.DataFrame, design, trials: str) -> list[VerdictRow]:
    """k_eff per d on the fixed (n, n_pub) design of configs/c4_price.yaml, every epsilon (d = 4
    where the GPU batch's rows exist)."""
    nested = mp.load_nested_design()
    rows = []
    for eps, g in df.groupby("epsilon"):
        k = g.assign(k=mp.k_eff(g["excess_mean"], eps)).groupby("d").agg(
            k=("k", "mean"), E=("excess_mean", "mean"), q=("excess_q", "mean"),
            bound=("em_bound", "mean"), log_G=("log_G", "mean"),
            cmin=("log_c_min", "mean"), samples=("sample", "nunique"))
        capped = [int(d) for d in k.index if not nested.uncapped(int(d), design.n_pub, eps)]
        free = [d for d in k.index if d not in capped]
        b = exponent(free, [k.loc[d, "k"] for d in free])
        rows.append(VerdictRow(
            claim="C4", figure=FIGURE,
            setting=f"privacy price per d at n = {design.n}, n_pub = {design.n_pub}, epsilon "
                    f"= {eps:g} (fixed design)",
            paper=PAPER,
            measured="; ".join(f"d={d}: E {r.E:.3g}, k_eff {r.k:.2f}, q90 {r.q:.3g}, bound "
                               f"{r.bound:.3g}, ln|G| {r.log_G:.2f}, ln(|G|/c_min) "
                               f"{r.log_G - r.cmin:.2f} ({int(r.samples)} samples)"
                               for d, r in k.iterrows())
                     + (f"; capped (n_pub {design.n_pub} < ({nested.cap_factor:g}/eps)"
                        f"(d^2 + 3d)) at d = {','.join(map(str, capped))}" if capped else "")
                     + (f"; least-squares exponent of k_eff in d over the uncapped d = "
                        f"{','.join(str(int(d)) for d in free)}: {b:.2f}"
                        if not math.isnan(b) else ""),
            theory="k_eff = d^2 (BMN20's d^2) or ~ d (VC price) where uncapped",
            verdict="breakdown (one n_pub: the counted test moves n_pub; levels shown)",
            statistic=STAT_FIXED, trials=trials, slope=b,
            epsilon=float(eps), extra="privacy price"))
    return rows


def bound_row(df: pd.DataFrame, trials: str) -> VerdictRow:
    st = bound_status(df)
    return VerdictRow(
        claim="C4", figure=FIGURE,
        setting=f"Lemma 4.6's bound on every sample: d = "
                f"{','.join(str(int(d)) for d in sorted(df['d'].unique()))}, epsilon = "
                + ",".join(f"{e:g}" for e in sorted(df["epsilon"].unique())),
        paper=PAPER,
        measured=f"(1 - beta)-quantile of the exact law within the bound on {st['within']} of "
                 f"{st['pairs']} (sample, epsilon) pairs; largest quantile / bound "
                 f"{st['worst']:.2f}",
        theory="quantile <= (2/eps)(ln|G| + ln(1/beta)) on every sample (an exact check)",
        verdict=check_verdict(st["within"] == st["pairs"],
                              f"{st['pairs'] - st['within']} of {st['pairs']} pairs above "
                              "the bound"),
        statistic=STAT_BOUND, trials=trials, extra="mechanism price")


def analyse(results) -> list[VerdictRow]:
    from claims.c4 import blind
    root = results.root
    rows = []
    nested = read(root, (mp.NESTED_CSV,))
    if nested is not None:
        design = mp.load_nested_design()
        trials = tables_trials(root, (mp.NESTED_CSV,))
        rows += [counted_row(nested, design, results.n_boot, trials)]
        rows += epsilon_rows(nested, design, results.n_boot, trials)
    fixed = read(root, (mp.CSV, mp.CSV_GPU))  # d = 1..3 on a CPU, d = 4 from the GPU batch
    if fixed is not None:
        rows += fixed_rows(fixed, mp.load_design(), tables_trials(root, (mp.CSV, mp.CSV_GPU)))
    rows += blind.analyse(results)
    both = [t for t in (nested, read(root, (mp.CSV, mp.CSV_GPU))) if t is not None]
    if both:
        cols = ["d", "sample", "epsilon", "excess_mean", "excess_q", "em_bound"]
        rows.append(bound_row(pd.concat([t[cols] for t in both], ignore_index=True),
                              tables_trials(root, (mp.NESTED_CSV, mp.CSV, mp.CSV_GPU))))
    return rows


# ------------------------------------------------------------------------------------------
# figure panels (claims/c4/dimension.py lays them out)
# ------------------------------------------------------------------------------------------


def levels_panel(ax, results) -> bool:
    """The counted epsilon's levels against n_pub, per d: the exact mean price E and its 90%
    quantile against Lemma 4.6's bound, ln|G| and ln(|G|/c_min) (nats) and the cap n_pub / 2."""
    df = read(results.root, (mp.NESTED_CSV,))
    if df is None:
        return False
    design = mp.load_nested_design()
    g = df[df["epsilon"] == design.counted_epsilon].assign(
        log_G_cmin=lambda t: t["log_G"] - t["log_c_min"])
    tab = g.groupby(["d", "n_pub"]).mean(numeric_only=True).reset_index()
    for i, (d, t) in enumerate(tab.groupby("d")):
        c = f"C{i}"
        ax.plot(t.n_pub, t.excess_mean, "o-", color=c, lw=1.6, label=f"d = {d}: mean price E")
        ax.plot(t.n_pub, t.excess_q, "s--", color=c, lw=1, ms=3, label="... its 90% quantile")
        ax.plot(t.n_pub, t.em_bound, ":", color=c, lw=1.4, label="... Lemma 4.6's bound")
        ax.plot(t.n_pub, t.log_G, "-.", color=c, lw=0.8, label="... ln|G|")
        ax.plot(t.n_pub, t.log_G_cmin, color=c, ls=(0, (1, 3)), lw=0.8, label="... ln(|G|/c_min)")
    x = np.array(sorted(tab.n_pub.unique()), dtype=float)
    ax.plot(x, x / 2, color="0.5", lw=3, alpha=0.4, label="cap ~ n_pub / 2")
    ax.set_yscale("log")
    ax.set_xticks(x)
    ax.set_xlabel("n_pub (nested public sets, one private sample)")
    ax.set_ylabel("training mistakes (ln|G|: nats)")
    ax.set_title(f"levels at epsilon = {design.counted_epsilon:g}: the price, its quantile and "
                 "the bound", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=5, ncol=3)
    return True


def k_eff_panel(ax, results, rows) -> bool:
    """The counted statistic: k_eff against d (log-log) at every epsilon's uncapped cells, the
    counted epsilon bold with its exponent, d^2 and d through k_eff(1) = 1, the blind d = 4
    predictions."""
    from claims.c4 import blind
    df = read(results.root, (mp.NESTED_CSV,))
    if df is None:
        return False
    design = mp.load_nested_design()
    for i, eps in enumerate(design.epsilons):
        fit = k_eff_fit(df, design, eps, 0)
        if not fit["k"]:
            continue
        bold = eps == design.counted_epsilon
        ax.plot(fit["dims"], [fit["k"][d] for d in fit["dims"]], "o-", color=f"C{i}",
                lw=2.2 if bold else 0.8, ms=6 if bold else 3,
                label=f"eps = {eps:g}{' (counted)' if bold else ''}")
    d = np.array([1.0, 4.0])
    ax.plot(d, d ** 2, "k--", lw=1, label="d^2 (BMN20)")
    ax.plot(d, d, color="C3", ls="-.", lw=1, label="d (VC price)")
    pred = blind.load_predictions()
    if pred is not None:
        for j, (name, m) in enumerate(pred["models"].items()):
            ax.errorbar([4 + 0.06 * (j - 0.5)], [m["k_eff"]],
                        yerr=[[m["k_eff"] - m["lo"]], [m["hi"] - m["k_eff"]]], fmt="D",
                        color="k" if name == "d^2" else "C3", ms=4, capsize=3,
                        label=f"d = 4 blind, {name} (eps 10, n_pub 12)")
    measured = [r for r in rows if r.statistic == blind.STAT_D4 and np.isfinite(r.slope)]
    if measured:  # the GPU rows, against the predictions beside them
        m = measured[0]
        ax.errorbar([4.0], [m.slope], yerr=[[m.slope - m.slope_lo], [m.slope_hi - m.slope]],
                    fmt="*", color="C4", ms=9, capsize=3,
                    label=f"d = 4 measured (GPU): {fmt_interval(m.slope, m.slope_lo, m.slope_hi)}")
    head = [r for r in rows if r.statistic == STAT_K_EFF]
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks([1, 2, 3, 4], ["1", "2", "3", "4"])
    ax.set_xlabel("dimension d")
    ax.set_ylabel("k_eff = E (e^(eps/2) - 1)")
    ax.set_title("counted: k_eff vs d where uncapped"
                 + (f"; b = {fmt_interval(head[0].slope, head[0].slope_lo, head[0].slope_hi)}"
                    if head else ""), fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6)
    return True
