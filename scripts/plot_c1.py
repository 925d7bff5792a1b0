"""Figure and verdict for claim C1 (Theorem 4.9): realizable sample complexity ``n ~ 1/alpha``.

    python -m scripts.plot_c1 --results results

Reads ``<results>/c1_realizable_d{1,2}/{trials,n_hat}.csv`` and writes
``<results>/figures/c1_realizable.png`` and ``<results>/c1_realizable/summary.{csv,md}``.
Per panel (one d): empirical ``n_hat(alpha, beta)`` of PPM and of non-private ERM with
intervals; the explicit bound of Theorem 4.9 (``|G|`` from ``n_pub = n``, the theorem's worst
case, and from ``n_pub = w_pub n``); the O-shape with one constant fitted to the PPM points;
the non-private shape ``(d + ln(1/beta))/alpha`` fitted to the ERM points. The verdict compares
the bootstrap interval of the measured slope of ``log n_hat`` against ``log(1/alpha)`` with the
theory's: 1, or the slightly larger local slope of the O-form's ``log(1/alpha)`` factor.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ppm import bounds  # noqa: E402
from ppm.sample_complexity import loglog_slope, sample_complexity_slope  # noqa: E402
from experiments.pipeline import write_csv_atomic  # noqa: E402
from scripts.aggregate import ERROR_COL  # noqa: E402

EXPERIMENTS = {1: "c1_realizable_d1", 2: "c1_realizable_d2"}
STYLE = {"ppm": dict(color="C0", marker="o", label="PPM (Alg. 2), measured"),
         "erm": dict(color="C2", marker="s", label="non-private ERM, measured")}


def verdict(lo: float, hi: float, slope: float, theory_lo: float, theory_hi: float,
            n_points: int) -> str:
    """holds: interval meets [theory_lo, theory_hi]; caveat: point within 0.25 of it.

    Too few uncensored alphas (< 3) or an interval wider than 1 is no evidence either way.
    """
    if not np.isfinite(slope):
        return "not measured"
    if n_points < 3 or not (hi - lo <= 1.0):
        return "inconclusive (too few points or interval too wide)"
    if lo <= theory_hi and hi >= theory_lo:
        return "holds"
    if theory_lo - 0.25 <= slope <= theory_hi + 0.25:
        return "holds with caveat"
    return "does not hold"


def panel(ax, d: int, trials: pd.DataFrame, nhat: pd.DataFrame) -> list[dict]:
    beta = float(nhat["beta"].iloc[0])
    alphas = np.sort(nhat["alpha"].unique())
    ppm_rows = trials[trials.learner == "ppm"]
    epsilon = float(ppm_rows["epsilon"].iloc[0])
    w_pub = float(trials["w_pub"].iloc[0])
    grid = np.geomspace(alphas.min(), alphas.max(), 50)
    rows = []
    for learner, style in STYLE.items():
        sub = nhat[nhat.learner == learner].sort_values("alpha")
        if sub.empty:
            continue
        # An empty 'censored' cell reads back from CSV as NaN.
        ok = sub["censored"].astype("string").fillna("").eq("") & np.isfinite(sub["n_hat"])
        lo = np.where(np.isfinite(sub["n_hat_lo"]), sub["n_hat_lo"], sub["n_hat"])
        hi = np.where(np.isfinite(sub["n_hat_hi"]), sub["n_hat_hi"], sub["n_hat"])
        ax.errorbar(sub["alpha"][ok], sub["n_hat"][ok],
                    yerr=[(sub["n_hat"] - lo)[ok], (hi - sub["n_hat"])[ok]],
                    ls="none", capsize=3, **style)
        right = sub["censored"].astype("string").fillna("").eq("right").to_numpy()
        if right.any():  # n_hat beyond the largest n of the grid: a lower bound, drawn open
            top = float(trials["n"].max())
            ax.scatter(sub["alpha"][right], np.full(right.sum(), top), marker="^", s=60,
                       facecolors="none", edgecolors=style["color"],
                       label=f"{learner.upper()}: n_hat > {top:g} (censored)")
        tri = trials[trials.learner == learner]
        fit = sample_complexity_slope(tri, alphas, beta, error_col=ERROR_COL, n_boot=300)
        if learner == "ppm":
            shape = bounds.realizable_shape(grid, beta, epsilon, d)
            shape_pts = bounds.realizable_shape(sub["alpha"].to_numpy(), beta, epsilon, d)
            theory_hi = loglog_slope(1 / grid, shape)[0]
            name = "O-shape fitted"
        else:
            shape = bounds.nonprivate_realizable_shape(grid, beta, d)
            shape_pts = bounds.nonprivate_realizable_shape(sub["alpha"].to_numpy(), beta, d)
            theory_hi = 1.0
            name = "VC shape fitted"
        c = np.nan
        if ok.any():
            c = bounds.fit_shape_constant(sub["n_hat"][ok].to_numpy(), shape_pts[ok.to_numpy()])
            ax.plot(grid, c * shape, ls=":", color=style["color"],
                    label=f"{name}: {c:.2g} x {'O-form' if learner == 'ppm' else '(d+ln 1/b)/a'}")
        explicit = np.array([bounds.realizable_sample_complexity(a, beta, epsilon, d)
                             for a in sub["alpha"]], dtype=float)
        looseness = explicit[ok.to_numpy()] / sub["n_hat"][ok].to_numpy()
        rows.append(dict(
            claim="C1", d=d, learner=learner, epsilon=epsilon if learner == "ppm" else np.nan,
            w_pub=w_pub, beta=beta, alphas=" ".join(f"{a:g}" for a in alphas),
            slope=fit["slope"], slope_lo=fit["lo"], slope_hi=fit["hi"], n_points=fit["n_points"],
            theory_slope=1.0, theory_slope_with_log=theory_hi, fitted_constant=c,
            # Looseness of Theorem 4.9's explicit bound: meaningful for the private learner only.
            looseness_median=(float(np.median(looseness)) if looseness.size and learner == "ppm"
                              else np.nan),
            # C1 is a claim about the private learner; ERM is the non-private reference.
            verdict=(verdict(fit["lo"], fit["hi"], fit["slope"], 1.0, theory_hi, fit["n_points"])
                     if learner == "ppm" else "reference (non-private)"),
        ))
    explicit_w1 = [bounds.realizable_sample_complexity(a, beta, epsilon, d) for a in grid]
    explicit_w = [bounds.realizable_sample_complexity(a, beta, epsilon, d, w_pub=w_pub)
                  for a in grid]
    ax.plot(grid, explicit_w1, color="0.3", label="Thm 4.9 explicit, |G| at n_pub = n")
    ax.plot(grid, explicit_w, color="0.3", ls="--",
            label=f"Thm 4.9 explicit, |G| at n_pub = {w_pub:g} n")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(alphas, [f"{a:g}" for a in alphas])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlabel(r"target error $\alpha$")
    ax.set_ylabel(rf"sample size $\hat n(\alpha, \beta={beta:g})$")
    ppm = next((r for r in rows if r["learner"] == "ppm"), None)
    title = f"d = {d}, epsilon = {epsilon:g}, w_pub = {w_pub:g}"
    if ppm is not None:
        title += (f"\nPPM slope {ppm['slope']:.2f} [{ppm['slope_lo']:.2f}, {ppm['slope_hi']:.2f}]"
                  f" vs theory 1 (with log factor {ppm['theory_slope_with_log']:.2f})")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="C1 figure and verdict")
    parser.add_argument("--results", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    present = {d: args.results / e for d, e in EXPERIMENTS.items()
               if (args.results / e / "n_hat.csv").exists()}
    if not present:
        raise SystemExit(f"no C1 results under {args.results}: run make reproduce first")
    fig, axes = plt.subplots(1, len(present), figsize=(6.4 * len(present), 6.4), squeeze=False)
    rows = []
    for ax, (d, path) in zip(axes[0], sorted(present.items())):
        rows += panel(ax, d, pd.read_csv(path / "trials.csv"), pd.read_csv(path / "n_hat.csv"))
    fig.suptitle("C1 (Theorem 4.9): realizable sample complexity, PPM vs non-private ERM",
                 fontsize=11)
    fig.tight_layout()
    (args.results / "figures").mkdir(parents=True, exist_ok=True)
    fig.savefig(args.results / "figures" / "c1_realizable.png", dpi=130)
    summary = pd.DataFrame(rows)
    write_csv_atomic(summary, args.results / "c1_realizable" / "summary.csv")
    cols = ["d", "learner", "slope", "slope_lo", "slope_hi", "theory_slope",
            "theory_slope_with_log", "looseness_median", "verdict"]
    (args.results / "c1_realizable" / "summary.md").write_text(markdown_table(summary[cols]))
    print(summary[cols].to_string(index=False))


def markdown_table(df: pd.DataFrame) -> str:
    """A GitHub markdown table (3 significant digits for floats)."""
    def fmt(v):
        if isinstance(v, (float, np.floating)):
            return "–" if np.isnan(v) else f"{v:.3g}"
        return str(v).replace("|", "\\|")  # a literal | would split the cell
    lines = ["| " + " | ".join(df.columns) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
