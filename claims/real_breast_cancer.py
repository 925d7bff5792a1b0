"""Real data (the paper's motivating example): breast cancer, benign rows public, malignant private.

``real_breast_cancer`` (repeated random splits): test accuracy of PPM against DP logistic
regression (diffprivlib) at the same epsilon, paired on the split, with non-private logistic
regression and a public-only learner as references. No theorem: the verdicts are comparisons.
"""

from __future__ import annotations

import numpy as np

from claims import plotting
from claims.base import Claim, VerdictRow
from claims.verdicts import fmt_interval, mean_ci

STATEMENT = "breast cancer, benign public / malignant private: PPM vs DP-LR"
# the column holding each epsilon
EPS = {"ppm": "learner.epsilon", "dp_logistic": "baselines.dp_logistic.epsilon"}


def _trials(results):
    data = results.load("real_breast_cancer")
    return None if data is None else data[0].assign(accuracy=1.0 - data[0]["error"])


def analyse(results) -> list[VerdictRow]:
    trials = _trials(results)
    if trials is None:
        return []
    eps = np.sort(trials[EPS["ppm"]].dropna().unique())
    n = int(trials["n"].iloc[0])
    feats = trials["population.features"].iloc[0] if "population.features" in trials else ""
    rows = []
    for e in (eps.min(), 1.0, eps.max()):
        ppm = trials[(trials.learner == "ppm") & (trials[EPS["ppm"]] == e)]
        dpl = trials[(trials.learner == "dp_logistic") & (trials[EPS["dp_logistic"]] == e)]
        if e not in eps or ppm.empty or dpl.empty:
            continue
        m, lo, hi = mean_ci(
            (ppm.set_index("trial")["accuracy"] - dpl.set_index("trial")["accuracy"]).dropna())
        rows.append(VerdictRow(
            claim="real data", figure="real_breast_cancer",
            setting=f"breast cancer {feats}, n_train={n}, epsilon={e:g}",
            paper="PPM model motivating example (healthy public, sick private)",
            measured=f"accuracy PPM {fmt_interval(*mean_ci(ppm['accuracy']), 3)} vs DP-LR "
                     f"{fmt_interval(*mean_ci(dpl['accuracy']), 3)}; "
                     f"paired difference {m:+.3f} [{lo:+.3f}, {hi:+.3f}]",
            theory="(no theorem: an application)",
            verdict=("PPM better" if lo > 0 else "DP-LR better" if hi < 0 else "no difference"),
            epsilon=float(e), extra=f"{feats}, n_train={n}"))
    return rows


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    trials = _trials(results)
    fig, (ax,) = plotting.panels(1, 7.4, 6.2)
    for learner in ("ppm", "dp_logistic", "logistic", "public_only"):
        g = trials[trials.learner == learner]
        if g.empty:
            continue
        style, label = plotting.style_and_label(learner)
        if learner in EPS:
            stats = g.groupby(EPS[learner])["accuracy"].apply(mean_ci)
            m, lo, hi = (np.array([s[k] for s in stats]) for k in range(3))
            ax.errorbar(stats.index, m, yerr=[m - lo, hi - m], capsize=3, label=label, **style)
        else:
            m, lo, hi = mean_ci(g.drop_duplicates("trial")["accuracy"])
            ax.axhline(m, color=style["color"], ls="--", label=f"{label}: {m:.3f}")
            ax.axhspan(lo, hi, color=style["color"], alpha=0.15)
    ax.set_xscale("log")
    ax.set_xlabel(r"privacy parameter $\epsilon$")
    ax.set_ylabel("test accuracy on held-out rows (mean, 95% interval over splits)")
    feats = trials["population.features"].iloc[0] if "population.features" in trials else ""
    ax.set_title(f"{feats}, {int(trials['n'].iloc[0])} training rows per split, "
                 f"{trials['trial'].nunique()} splits", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    plotting.legend_below(ax)
    plotting.save(fig, out_dir, "real_breast_cancer",
                  "Real data: breast cancer (benign = public, malignant = private)")


CLAIM = Claim(id="real data", name="real_breast_cancer", statement=STATEMENT,
              experiments=("real_breast_cancer",), analyse=analyse, plot=plot,
              headline={"epsilon": 1.0}, has_theorem=False)
