"""C4, where the ``d^2`` comes from: ``ln|G|``, the mechanism's price, the privacy cost ``A(d)``.

Three readings of Theorem 4.9's ``d^2 log`` term that do not go through the end-to-end
``n_hat`` vs d slope (:mod:`claims.c4.dimension` draws them beside it):

(a) ``ln|G|`` against ``d^2 ln n_pub`` (``results/c4_dimension/log_class_size.csv``, computed by
    :mod:`analysis.class_size`, written by ``scripts/log_class_size.py``: ``|C_pub|`` from
    ConstrHalf with dedup, ``|G| = 1 + sum_{j<=d} C(|C_pub|, j)`` as an exact integer).
    MEASURED: the local exponent of ``ln|G|`` in ``ln n_pub`` per d, to be compared with ``d^2``
    (docs/model.md §4: ``|C_pub| ~ 2 n_pub^d / d!``, ``|G| ~ |C_pub|^d / d!``). This is a
    property of the class, no sampling noise.
(b) The exponential mechanism's exact price, C4's counted test, is :mod:`claims.c4.price`.
(c) ``A(d)`` of ``n_hat ~ A(d)/epsilon + B(d)`` (w_pub = 0.1; ``c4_epsilon_fit``: d = 1, 2;
    ``c4_epsilon_fit_d3`` and ``c4_dimension_d3_wpub``: d = 3; epsilon in {1, 2, 4, 10}):
    the privacy cost separated from the non-private one, reported against d. Lemma 4.6 in
    error-rate units gives ``A(d) <= 2 (ln|G| + ln(1/beta)) / alpha`` for the EM's share: an
    upper bound, tested one-sidedly (:func:`lemma_4_6_verdict`); the slope of ``log A`` on
    ``log ln|G|`` is shown as a reference only (the lemma does not fix A's shape).

(a) and (c) are bounds every measurement must satisfy: built-in checks
(:func:`claims.rules.verdicts.check_verdict`), not settings.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from claims.base import VerdictRow, beta_of, trial_set
from claims.rules.verdicts import NOT_MEASURED, check_verdict, fmt_interval, verdict
from analysis import class_size
from analysis.class_size import fit_d2, local_exponents
from analysis.sample_complexity import empirical_sample_complexity, loglog_slope
from analysis.aggregate import ERROR_COL
from experiments import columns

CLASS_SIZE_CSV = class_size.CSV
EPSILON_FIT = "c4_epsilon_fit"
# d = 1, 2 (every epsilon); d = 3 at epsilon 2, 4; d = 3 at epsilon 1, 10 (n <= 160)
EPSILON_FIT_SWEEPS = (EPSILON_FIT, "c4_epsilon_fit_d3", "c4_dimension_d3_wpub")
# alphas of the A(d) fit: below w_pub = 0.1 (the constant's excess error); at n = 160 the
# d = 3 learner's 90% excess-error quantile is 0.051 at epsilon = 10 and 0.095 at epsilon = 1
# (the EM's price, ~10 mistakes at ln|G| ~ 21), so at d = 3 epsilon = 1 is censored
FIT_ALPHAS = (0.05, 0.07, 0.09)
FIGURE = "c4_dimension"
# provenance ids (VerdictRow.statistic): (a)'s slope of the local exponent of ln|G| vs d, (c)'s
# Lemma 4.6 check on A(d) (the same id at every alpha: one computation, several alphas read off
# the same trials)
STAT_CLASS_SIZE = "loglog_slope_class_size_exponent"
STAT_A_OF_D = "lemma_4_6_privacy_cost_A_of_d"


def _read(results, rel: str):
    path = results.root / rel
    return pd.read_csv(path) if path.exists() else None


# ------------------------------------------------------------------------------------------
# (a) ln|G| against d^2 ln n_pub
# ------------------------------------------------------------------------------------------


def class_size_row(results) -> list[VerdictRow]:
    df = _read(results, CLASS_SIZE_CSV)
    if df is None:
        return []
    top, below = local_exponents(df, -1), local_exponents(df, -2)
    ds = top["d"].to_numpy(dtype=float)
    slopes = [loglog_slope(ds, t["exponent"].to_numpy())[0] for t in (top, below)]
    fit, exact = fit_d2(df), df[df["source"] == "constrhalf"]
    window = top["n_pub_pair"].iloc[0]
    lo, hi = min(slopes), max(slopes)
    return [VerdictRow(
        claim="C4", figure=FIGURE,
        setting=f"ln|G| vs ln n_pub, d={int(ds.min())}..{int(ds.max())} (class size, exact)",
        paper="|G| <= (2 n_pub^d)^d: ln|G| ~ d^2 ln n_pub (Alg. 1-2, proof of Thm 4.9)",
        measured=f"local exponent of ln|G| in ln n_pub at n_pub {window}: "
                 + ", ".join(f"d={r.d}: {r.exponent:.2f}" for r in top.itertuples())
                 + f"; slope of log exponent vs log d = {slopes[0]:.3f} (window below: "
                 f"{slopes[1]:.3f}); ln|G| = {fit['slope']:.3f} d^2 ln n_pub + "
                 f"{fit['intercept']:.1f} (R^2 {fit['r2']:.3f}); ConstrHalf reaches the "
                 f"general-position |C_pub| in {int((exact.n_halfspaces == exact.n_halfspaces_upper).sum())}"
                 f"/{len(exact)} cells it runs in",
        theory="exponent d^2: slope 2 (no sampling noise; interval = the two largest "
               "n_pub windows)",
        verdict=check_verdict(verdict(lo, hi, slopes[0], 2.0, 2.0, len(ds)) == "holds",
                              "the exponent of ln|G| does not grow like d^2"),
        statistic=STAT_CLASS_SIZE, trials=trial_set(CLASS_SIZE_CSV.removesuffix(".csv")),
        slope=slopes[0], slope_lo=lo, slope_hi=hi, extra="ln|G| growth")]


# ------------------------------------------------------------------------------------------
# (c) n_hat ~ A(d)/epsilon + B(d)
# ------------------------------------------------------------------------------------------


def ppm_trials(trials: pd.DataFrame) -> pd.DataFrame:
    """The PPM rows with short names for the setting columns (read from their sources)."""
    t = trials[trials.learner == columns.PPM]
    return pd.DataFrame({"d": t[columns.D].astype(int), "w_pub": t[columns.W_PUB],
                         "epsilon": t[columns.EPSILON], "n": t["n"], "trial": t["trial"],
                         ERROR_COL: t[ERROR_COL], "log_G": t["log_n_hypotheses"]})


def fit_a_b(eps, n_hat) -> tuple[float, float]:
    """Least squares ``n_hat = A / epsilon + B`` over the finite points (NaN if < 2)."""
    eps, n_hat = np.asarray(eps, dtype=float), np.asarray(n_hat, dtype=float)
    ok = np.isfinite(n_hat)
    if ok.sum() < 2 or np.unique(eps[ok]).size < 2:
        return math.nan, math.nan
    A, B = np.polyfit(1.0 / eps[ok], n_hat[ok], 1)
    return float(A), float(B)


def _nhat_by_eps(t: pd.DataFrame, alpha: float, beta: float) -> pd.Series:
    nh = empirical_sample_complexity(t, [alpha], beta, by=["epsilon"], error_col=ERROR_COL)
    ok = nh["censored"].astype("string").fillna("").eq("")
    return nh["n_hat"].where(ok).set_axis(nh["epsilon"].to_numpy())


def _resample(t: pd.DataFrame, rng) -> pd.DataFrame:
    """Trial indices resampled with replacement once per n and applied to every epsilon.

    Each ``(n, trial)`` is one sample scored at every epsilon (the pipeline's seeds do not
    involve the learner), so the epsilons' ``n_hat`` are dependent: resampling each
    ``(epsilon, n)`` cell on its own would ignore that (as C3's paired bootstrap,
    :func:`analysis.slopes.sample_complexity_slope_paired`, explains).
    """
    idx = []
    for _, g in t.groupby("n"):
        trials = np.sort(g["trial"].unique())
        pick = trials[rng.integers(0, trials.size, trials.size)]
        rows = g.groupby("trial").indices
        idx.append(g.index.to_numpy()[np.concatenate([rows[k] for k in pick])])
    return t.loc[np.concatenate(idx)]


def a_of_d(t: pd.DataFrame, alpha: float, beta: float, n_boot: int, seed: int = 0) -> dict:
    """A, B with bootstrap intervals (trial indices resampled jointly over epsilon) at one d."""
    nh = _nhat_by_eps(t, alpha, beta)
    A, B = fit_a_b(nh.index, nh.to_numpy())
    rng = np.random.default_rng(seed)
    boot_all = np.array([fit_a_b(*(lambda s: (s.index, s.to_numpy()))(
        _nhat_by_eps(_resample(t, rng), alpha, beta)))[0] for _ in range(n_boot)])
    boot = boot_all[np.isfinite(boot_all)]
    lo, hi = ((float(np.quantile(boot, 0.025)), float(np.quantile(boot, 0.975)))
              if boot.size >= 0.8 * max(n_boot, 1) else (math.nan, math.nan))
    # ln|G| where the learner is: the median over PPM trials at the grid n nearest n_hat(eps=1)
    ref = nh.get(1.0, nh.dropna().iloc[0] if nh.notna().any() else math.nan)
    ns = np.sort(t["n"].unique())
    n_ref = int(ns[np.argmin(np.abs(ns - ref))]) if np.isfinite(ref) else int(ns.max())
    log_G = float(t.loc[t["n"] == n_ref, "log_G"].median())
    return {"A": A, "A_lo": lo, "A_hi": hi, "B": B, "n_hat": nh, "log_G": log_G,
            "A_boot": boot_all,
            "n_ref": n_ref, "em_A": 2.0 * (log_G + math.log(1.0 / beta)) / alpha}


def epsilon_fit_sources(results) -> str:
    """The ``trials`` of the A(d) rows: those of :data:`EPSILON_FIT_SWEEPS` that have been run,
    whole (every d and epsilon of each; every alpha is read off the same trials)."""
    return trial_set(*[e for e in EPSILON_FIT_SWEEPS if results.load(e) is not None])


def epsilon_fit_trials(results):
    """PPM trials at w_pub = 0.1 over d = 1, 2, 3 and every epsilon, from the three sweeps."""
    parts = [results.load(e) for e in EPSILON_FIT_SWEEPS]
    if parts[0] is None:
        return None
    t = pd.concat([ppm_trials(p[0]) for p in parts if p is not None], ignore_index=True)
    return t.drop_duplicates(["d", "epsilon", "n", "trial"]), beta_of(parts[0][1])


def epsilon_fit_table(results) -> tuple[pd.DataFrame, float] | None:
    """One row per (alpha, d): A(d), its interval, B(d), ln|G|(d) and Lemma 4.6's A."""
    out = epsilon_fit_trials(results)
    if out is None:
        return None
    t, beta = out
    n_boot = max(10, results.n_boot // 3)  # every replicate recomputes n_hat per epsilon
    rows = []
    for alpha in FIT_ALPHAS:
        for d, g in t.groupby("d"):
            r = a_of_d(g, float(alpha), beta, n_boot)
            rows.append({"alpha": float(alpha), "d": int(d), "w_pub": float(g.w_pub.iloc[0]),
                         **{k: v for k, v in r.items() if k not in ("n_hat", "A_boot")},
                         "A_boot": r["A_boot"],
                         "epsilons": ",".join(f"{e:g}" for e, v in r["n_hat"].items()
                                              if np.isfinite(v))})
    return pd.DataFrame(rows), beta


def _slope_of(tab: pd.DataFrame, x) -> tuple[float, float, float]:
    """Slope of log A on log x across d, with a bootstrap interval.

    Replicate b of every d's A (trial indices resampled jointly over epsilon within each d,
    :func:`a_of_d`) is one draw of independent samples, since different d are different
    samples: the slope through the b-th A of every d is a replicate of the slope. A replicate
    with an A <= 0 has no log slope; if more than 20% have none, or some d has no A, there is
    no interval.
    """
    ok = np.isfinite(tab.A.to_numpy()) & (tab.A.to_numpy() > 0)
    if ok.sum() < 2:
        return math.nan, math.nan, math.nan
    x = np.asarray(x, dtype=float)
    s = loglog_slope(x[ok], tab["A"].to_numpy()[ok])[0]
    if not ok.all():
        return s, math.nan, math.nan
    boots = np.stack(tab["A_boot"].to_list())  # (d, replicate)
    valid = np.all(np.isfinite(boots) & (boots > 0), axis=0)
    if valid.mean() < 0.8:
        return s, math.nan, math.nan
    lx = np.log(x) - np.log(x).mean()
    ly = np.log(boots[:, valid])
    slopes = lx @ (ly - ly.mean(axis=0)) / (lx @ lx)
    lo, hi = np.quantile(slopes, [0.025, 0.975])
    return s, float(lo), float(hi)


def lemma_4_6_verdict(tab: pd.DataFrame) -> str:
    """A check of Lemma 4.6's upper bound ``A(d) <= 2 (ln|G| + ln 1/beta) / alpha`` (one-sided):
    FAILED if some d's interval lies entirely above its bound, passed otherwise (saying where
    an interval reaches the bound). A bound every sample must satisfy is not evidence for the
    rate: C4's counted test is the private cost against the exact ln|G|
    (:mod:`claims.c4.dimension`)."""
    if not np.isfinite(tab.A).any():
        return NOT_MEASURED
    above = [int(r.d) for r in tab.itertuples() if np.isfinite(r.A_lo) and r.A_lo > r.em_A]
    if above:
        return check_verdict(False, "A above Lemma 4.6's bound at d = "
                             + ", ".join(map(str, above)))
    open_ = [int(r.d) for r in tab.itertuples() if not (np.isfinite(r.A_hi) and r.A_hi <= r.em_A)]
    return check_verdict(True) + (" (no interval, or an interval reaching the bound, at d = "
                                  + ", ".join(map(str, open_)) + ")" if open_ else "")


def epsilon_fit_rows(results) -> list[VerdictRow]:
    out = epsilon_fit_table(results)
    if out is None:
        return []
    tab, beta = out
    sources = epsilon_fit_sources(results)
    rows = []
    for alpha, g in tab.groupby("alpha"):
        g = g.sort_values("d")
        s, lo, hi = _slope_of(g, g["d"].to_numpy(dtype=float))
        r_s, r_lo, r_hi = _slope_of(g, g["em_A"].to_numpy() * g["alpha"].to_numpy() / 2.0)
        rows.append(VerdictRow(
            claim="C4", figure=FIGURE,
            setting=f"A(d) of n_hat ~ A/eps + B, d={','.join(str(d) for d in g.d)}, "
                    f"w_pub={g.w_pub.iloc[0]:g}, alpha={alpha:g} (c4_epsilon_fit*, d3_wpub)",
            paper="privacy cost 2(ln|G| + ln(1/beta))/(eps alpha) with ln|G| ~ d^2 ln n_pub "
                  "(Lemma 4.6: an upper bound)",
            measured="; ".join(
                f"d={r.d}: A = {fmt_interval(r.A, r.A_lo, r.A_hi, 1)}, B = {r.B:.1f} "
                f"(eps {r.epsilons}), ln|G| = {r.log_G:.1f} at n = {r.n_ref}, "
                f"Lemma 4.6 A = {r.em_A:.0f}" for r in g.itertuples())
                + f"; slope of log A vs log d = {fmt_interval(s, lo, hi)}; reference (not "
                f"tested: Lemma 4.6 bounds A, it does not fix its shape): slope of log A vs "
                f"log(ln|G| + ln 1/beta) = {fmt_interval(r_s, r_lo, r_hi)}",
            theory="check: A(d) <= Lemma 4.6's 2(ln|G| + ln 1/beta)/alpha at every d "
                   "(one-sided; a bound, not the rate: the counted test is the first C4 row)",
            verdict=lemma_4_6_verdict(g), statistic=STAT_A_OF_D, trials=sources,
            slope=s, slope_lo=lo, slope_hi=hi, alpha=float(alpha), w_pub=float(g.w_pub.iloc[0]),
            extra="privacy cost A(d)"))
    return rows


def analyse(results) -> list[VerdictRow]:
    return class_size_row(results) + epsilon_fit_rows(results)


# ------------------------------------------------------------------------------------------
# figure panels (drawn by claims.c4.dimension.plot)
# ------------------------------------------------------------------------------------------


def class_size_panel(ax, results) -> bool:
    df = _read(results, CLASS_SIZE_CSV)
    if df is None:
        return False
    for i, (d, g) in enumerate(df.sort_values("n_pub").groupby("d")):
        exact = g["source"] == "constrhalf"
        ax.plot(g["d2_log_n_pub"], g["log_G"], color=f"C{i}", lw=1)
        ax.scatter(g.loc[exact, "d2_log_n_pub"], g.loc[exact, "log_G"], color=f"C{i}",
                   label=f"d = {int(d)}")
        ax.scatter(g.loc[~exact, "d2_log_n_pub"], g.loc[~exact, "log_G"], color=f"C{i}",
                   facecolors="none")
    x = np.array([0.0, df["d2_log_n_pub"].max()])
    f = fit_d2(df)
    ax.plot(x, x, color="k", ls=":", lw=1, label="ln|G| = d^2 ln n_pub")
    top = local_exponents(df)
    ax.set_title("ln|G| vs d^2 ln n_pub (filled: ConstrHalf, open: general position)\n"
                 f"fit slope {f['slope']:.3f}; local exponents "
                 + ", ".join(f"{r.exponent:.1f}" for r in top.itertuples())
                 + " vs d^2 = " + ", ".join(str(r.d2) for r in top.itertuples()), fontsize=8)
    ax.set_xlabel(r"$d^2 \ln n_{pub}$")
    ax.set_ylabel(r"$\ln |G|$ (exact)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    return True


def a_of_d_panel(ax, results) -> bool:
    out = epsilon_fit_table(results)
    if out is None:
        return False
    tab, beta = out
    for i, (alpha, g) in enumerate(tab.groupby("alpha")):
        g = g.sort_values("d")
        ok = np.isfinite(g.A) & (g.A > 0)
        x = g.log_G + math.log(1.0 / beta)
        lo = np.where(np.isfinite(g.A_lo), g.A - g.A_lo, 0.0)
        hi = np.where(np.isfinite(g.A_hi), g.A_hi - g.A, 0.0)
        ax.errorbar(x[ok], g.A[ok], yerr=[lo[ok], hi[ok]], fmt="o-", color=f"C{i}",
                    capsize=3, label=f"A(d), alpha = {alpha:g}")
        ax.plot(x, g.em_A, "--", color=f"C{i}", lw=1,
                label="Lemma 4.6: 2(ln|G| + ln 1/beta)/alpha")
        for xv, yv, d in zip(x[ok], g.A[ok], g.d[ok]):
            ax.annotate(f"d={d}", (xv, yv), fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(r"$\ln|G| + \ln(1/\beta)$ at the n where PPM reaches alpha")
    ax.set_ylabel(r"$A(d)$ in $\hat n \approx A/\epsilon + B$")
    ax.set_title(f"privacy cost A(d) vs ln|G|, w_pub = {tab.w_pub.iloc[0]:g} "
                 "(c4_epsilon_fit)", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6)
    return True
