"""C4's counted statistic: how the exponential mechanism's privacy price grows with d (BMN20
Lemma 4.6, Theorem 4.9; docs/claims/c4_dimension.md).

BMN20's ``d^2`` comes from the mechanism's price ``(2/epsilon)(ln|G| + ln 1/beta)`` (Lemma 4.6, a
union bound over ``G``) with ``ln|G| = O(d^2 ln n_pub)``; a learner that paid only the VC price
would pay ~ d. Read here from the mechanism's EXACT law on each sample
(:mod:`analysis.mechanism_price`, design ``configs/c4_price.yaml``: n, n_pub, epsilons and the
counted epsilon fixed before the run), not from a crossing of two learners' n_hat:

* ``E(d)``: the mean over samples of the expected excess training mistakes ``E[m(g_hat)] -
  min_G m`` at the counted epsilon (in this realizable population ``min_G m = 0``, so these
  mistakes are the privacy price and nothing else);
* the growth statistic ``R = (E(d_max) - E(d_max - 1)) / (E(2) - E(1))``, last increment over
  first, with a bootstrap over samples (independent per d); its references on the same samples:
  the same ratio of the mean exact ``ln|G|`` (the bound's growth), of ``ln(|G| / c_min)``
  (``c_min``: the hypotheses at the minimal score, which the union bound ignores) and 1 (a
  price linear in d).

The rule (:func:`growth_verdict`), one-sided as befits an upper bound: an interval entirely at
or below 1 is "does not hold" (the price grows no faster than d); entirely above 1 and below
the ``ln|G|`` ratio is the outcome :data:`claims.outcomes.BETWEEN` ("faster than d, slower than
the bound", with the factor by which the union bound is loose in d); above 1 and reaching the
``ln|G|`` ratio is "holds". Lemma 4.6's bound itself is checked on every sample and epsilon (the
``(1 - beta)`` quantile of the exact law against ``(2/epsilon)(ln|G| + ln 1/beta)``): an exact
check, shown apart.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from analysis import mechanism_price
from claims.base import VerdictRow
from claims.outcomes import BETWEEN, FAILS, HOLDS, LEVEL, NOT_MEASURED, inconclusive, \
    interval_defect
from claims.verdicts import check_verdict, fmt_interval

FIGURE = "c4_dimension"
PAPER = ("Lemma 4.6: m(g_hat) - min_G m <= (2/eps)(ln|G| + ln 1/beta) w.p. 1 - beta, "
         "ln|G| = O(d^2 ln n_pub) (Theorem 4.9's d^2)")
GPU_BATCH = "batches/gpu/c4_price_d4.yaml"
#: a bootstrap with more replicates than this share of undefined ratios (E(2) <= E(1)) decides
#: nothing
MAX_UNDEFINED = 0.025


def increments_ratio(values) -> float:
    """``(v[-1] - v[-2]) / (v[1] - v[0])`` of values at d = 1, 2, ...; NaN when the first
    increment is not positive."""
    v = np.asarray(values, dtype=float)
    first = v[1] - v[0]
    return float((v[-1] - v[-2]) / first) if first > 0 else math.nan


def per_d(df: pd.DataFrame) -> pd.DataFrame:
    """Means per d of one epsilon's rows."""
    df = df.assign(log_G_cmin=df["log_G"] - df["log_c_min"])
    return df.groupby("d").agg(samples=("sample", "nunique"), E=("excess_mean", "mean"),
                               q=("excess_q", "mean"), bound=("em_bound", "mean"),
                               log_G=("log_G", "mean"), log_G_cmin=("log_G_cmin", "mean"))


def price_growth(df: pd.DataFrame, epsilon: float, n_boot: int, seed: int = 0) -> dict:
    """:func:`increments_ratio` of the mean excess over d at ``epsilon``, its percentile
    bootstrap interval (samples resampled within each d) and the references' ratios."""
    g = df[df["epsilon"] == epsilon]
    tab = per_d(g)
    dims = [int(d) for d in tab.index]
    out = {"epsilon": float(epsilon), "dims": dims, "table": tab,
           "ratio": math.nan, "lo": math.nan, "hi": math.nan, "undefined": 0.0,
           "refs": {"ln|G|": math.nan, "ln(|G|/c_min)": math.nan, "d": 1.0}}
    if len(dims) < 3 or dims != list(range(1, len(dims) + 1)):
        return out
    out["ratio"] = increments_ratio(tab["E"])
    out["refs"]["ln|G|"] = increments_ratio(tab["log_G"])
    out["refs"]["ln(|G|/c_min)"] = increments_ratio(tab["log_G_cmin"])
    out["bound_increments"] = np.diff(tab["bound"].to_numpy())
    out["price_increments"] = np.diff(tab["E"].to_numpy())
    if n_boot <= 0:
        return out
    rng = np.random.default_rng(seed)
    means = []
    for d in dims:  # the per-sample excess of each d, resampled n_boot times
        x = g.loc[g["d"] == d].sort_values("sample")["excess_mean"].to_numpy()
        means.append(x[rng.integers(0, x.size, (n_boot, x.size))].mean(axis=1))
    m = np.column_stack(means)
    first, last = m[:, 1] - m[:, 0], m[:, -1] - m[:, -2]
    ok = first > 0
    out["undefined"] = float(1.0 - ok.mean())
    if ok.any():
        r = last[ok] / first[ok]
        a = (1.0 - LEVEL) / 2.0
        out["lo"], out["hi"] = (float(v) for v in np.quantile(r, [a, 1.0 - a]))
    out["n_boot"] = int(n_boot)
    return out


def growth_coverage(df: pd.DataFrame, epsilon: float, datasets: int = 200, n_boot: int = 300,
                    seed: int = 1) -> dict:
    """The coverage of :func:`price_growth`'s interval, by simulation on the claim's own design:
    the committed per-sample prices of each d are taken as the population (the ratio of their
    means is the truth), ``datasets`` data sets of the design's size are drawn from it (samples
    with replacement, independently per d), and each gets its interval as the claim computes
    it. Returns the truth, the coverage and the share of intervals missing on each side."""
    g = df[df["epsilon"] == epsilon]
    truth = increments_ratio(per_d(g)["E"])
    rng = np.random.default_rng(seed)
    parts = {d: part.reset_index(drop=True) for d, part in g.groupby("d")}
    below = above = 0
    for k in range(datasets):
        sim = pd.concat([p.iloc[rng.integers(0, len(p), len(p))].assign(sample=np.arange(len(p)))
                         for p in parts.values()], ignore_index=True)
        fit = price_growth(sim, epsilon, n_boot, seed=seed + 1 + k)
        below += fit["hi"] < truth
        above += fit["lo"] > truth
    return {"truth": truth, "coverage": 1.0 - (below + above) / datasets,
            "miss_low": below / datasets, "miss_high": above / datasets, "datasets": datasets}


def growth_verdict(fit: dict) -> str:
    """The one-sided reading of ``R`` against 1 (d) and the ``ln|G|`` ratio (the bound)."""
    r, lo, hi, rg = fit["ratio"], fit["lo"], fit["hi"], fit["refs"]["ln|G|"]
    defect = interval_defect(lo, hi, r, len(fit["dims"]))
    if defect:
        return defect
    if fit["undefined"] > MAX_UNDEFINED:
        return inconclusive(f"{fit['undefined']:.1%} of the replicates have E(2) <= E(1)")
    if hi <= 1.0:
        return (f"{FAILS} (the price grows no faster than d: R = {fmt_interval(r, lo, hi)} <= 1; "
                f"the bound's ln|G| ratio is {rg:.2f})")
    if lo <= 1.0:
        return inconclusive(f"R = {fmt_interval(r, lo, hi)} contains d's 1")
    if hi < rg:
        return (f"{BETWEEN} (R = {fmt_interval(r, lo, hi)} in (1, {rg:.2f}): the union bound "
                f"is loose in d here by a factor {rg / r:.2f})")
    return f"{HOLDS} (R = {fmt_interval(r, lo, hi)} > 1 reaches the bound's ln|G| ratio {rg:.2f})"


def _per_d_text(tab: pd.DataFrame) -> str:
    return "; ".join(f"d={d}: E {r.E:.3g}, q90 {r.q:.3g}, bound {r.bound:.3g}, ln|G| "
                     f"{r.log_G:.2f}, ln(|G|/c_min) {r.log_G_cmin:.2f} ({int(r.samples)} samples)"
                     for d, r in tab.iterrows())


def growth_row(fit: dict, design, counted: bool) -> VerdictRow:
    dims, refs = fit["dims"], fit["refs"]
    wait = (f"; d = {', '.join(map(str, sorted(set(design.dims_gpu) - set(dims))))} waits for "
            f"the GPU batch {GPU_BATCH}" if set(design.dims_gpu) - set(dims) else "")
    v = growth_verdict(fit) if len(dims) >= 3 else NOT_MEASURED
    if not counted:
        v = (f"breakdown (epsilon = {fit['epsilon']:g}: not the counted regime, "
             f"epsilon = {design.counted_epsilon:g}): {v}")
    last = f"E({dims[-1]}) - E({dims[-2]})" if len(dims) >= 2 else "the last increment"
    return VerdictRow(
        claim="C4", figure=FIGURE,
        setting=f"privacy price vs d (counted test): the exponential mechanism's exact expected "
                f"excess training mistakes E(d) at n = {design.n}, n_pub = {design.n_pub}, "
                f"epsilon = {fit['epsilon']:g}, d = {','.join(map(str, dims))}; growth "
                f"R = ({last}) / (E(2) - E(1)), bootstrap over samples{wait}"
        if counted else
        f"privacy price vs d at epsilon = {fit['epsilon']:g} (n = {design.n}, n_pub = "
        f"{design.n_pub}, d = {','.join(map(str, dims))})",
        paper=PAPER,
        measured=f"R = {fmt_interval(fit['ratio'], fit['lo'], fit['hi'])}; "
                 + _per_d_text(fit["table"]),
        theory=f"bound's ln|G|: R = {refs['ln|G|']:.2f}; ln(|G|/c_min): "
               f"R = {refs['ln(|G|/c_min)']:.2f}; alternative d (VC price): R = 1; one-sided: "
               f"R <= 1 does not hold",
        verdict=v, slope=fit["ratio"], slope_lo=fit["lo"], slope_hi=fit["hi"],
        epsilon=fit["epsilon"], extra="counted test" if counted else "privacy price")


def bound_row(df: pd.DataFrame, design) -> VerdictRow:
    within = int((df["excess_q"] <= df["em_bound"]).sum())
    worst = float((df["excess_q"] / df["em_bound"]).max())
    return VerdictRow(
        claim="C4", figure=FIGURE,
        setting=f"Lemma 4.6's bound on every sample: n = {design.n}, n_pub = {design.n_pub}, "
                f"d = {','.join(str(int(d)) for d in sorted(df['d'].unique()))}, epsilon = "
                + ",".join(f"{e:g}" for e in sorted(df["epsilon"].unique())),
        paper=PAPER,
        measured=f"(1 - beta)-quantile of the exact law within the bound on {within} of "
                 f"{len(df)} (sample, epsilon) pairs; largest quantile / bound {worst:.2f}",
        theory="quantile <= (2/eps)(ln|G| + ln(1/beta)) on every sample (an exact check)",
        verdict=check_verdict(within == len(df),
                              f"{len(df) - within} of {len(df)} pairs above the bound"),
        extra="mechanism price")


def analyse(results) -> list[VerdictRow]:
    df = mechanism_price.read_tables(results.root)
    if df is None:
        return []
    design = mechanism_price.load_design()
    rows = []
    for eps in [design.counted_epsilon] + [e for e in design.epsilons
                                           if e != design.counted_epsilon]:
        if (df["epsilon"] == eps).any():
            fit = price_growth(df, eps, results.n_boot)
            rows.append(growth_row(fit, design, counted=eps == design.counted_epsilon))
    return rows + [bound_row(df, design)]


def price_panel(ax, results) -> bool:
    """E(d) and the bound's growth per epsilon, normalised by their first increments (a line
    of slope 1 per step is d), against d."""
    df = mechanism_price.read_tables(results.root)
    if df is None:
        return False
    design = mechanism_price.load_design()
    for i, (eps, g) in enumerate(df.groupby("epsilon")):
        tab = per_d(g)
        if len(tab) < 2 or tab["E"].iloc[1] <= tab["E"].iloc[0]:
            continue
        e = (tab["E"] - tab["E"].iloc[0]) / (tab["E"].iloc[1] - tab["E"].iloc[0])
        lw = 2.2 if eps == design.counted_epsilon else 1.0
        ax.plot(tab.index, e, "o-", color=f"C{i}", lw=lw,
                label=f"eps = {eps:g}: E(d){' (counted)' if lw > 1 else ''}")
    tab = per_d(df[df["epsilon"] == df["epsilon"].iloc[0]])
    for col, style, name in (("log_G", "k--", "bound: ln|G|"),
                             ("log_G_cmin", "k:", "ln(|G| / c_min)")):
        x = tab[col]
        ax.plot(tab.index, (x - x.iloc[0]) / (x.iloc[1] - x.iloc[0]), style, lw=1, label=name)
    ax.plot(tab.index, tab.index - 1, color="C3", ls="-.", lw=1, label="d (VC price)")
    ax.set_xticks(list(tab.index))
    ax.set_xlabel("dimension d")
    ax.set_ylabel("(E(d) - E(1)) / (E(2) - E(1)), and the references alike")
    ax.set_title(f"the mechanism's privacy price vs d (exact law; n = {design.n}, "
                 f"n_pub = {design.n_pub})", fontsize=8)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=6)
    return True
