# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # Privacy-utility trade-off on real data: breast cancer
#
# A worked example of the PPM model (BMN20) on scikit-learn's bundled Wisconsin breast-cancer
# data (569 rows, no download): benign rows are **public**, malignant rows **private** (the
# label-determined model of [docs/model.md](../docs/model.md) §1). We fit, over a grid of
# epsilon and on repeated random splits,
#
# - the PPM learner (`PPMHalfspaceLearner`, BMN20 Algorithm 2): epsilon-DP for the private rows,
#   public rows free;
# - the fair DP logistic regression (`PublicAwareDPLogisticRegression`): public rows free too,
#   epsilon spent on the private rows only (objective perturbation, its docstring states the
#   privacy);
# - diffprivlib's DP logistic regression (`DPLogisticRegression`): every row private;
# - the non-private logistic regression and the public-only rule, as references;
#
# and plot test accuracy against epsilon with intervals. Everything goes through scikit-learn:
# the `public` mask is routed to every fit by metadata routing (docs/usage.md), and
# `ppm.budget.BudgetAccountant` adds up the epsilon that the repeated fits on the same private
# rows spend. It needs no results root and runs in under a minute on one core.
#
# Run it with `make notebook` (an HTML page under `<results>/notebook/`), in Jupyter after
# `jupytext --to notebook notebooks/privacy_utility.py`, or as a script:
# `python notebooks/privacy_utility.py`.

# %%
import sys

import matplotlib

if "ipykernel" not in sys.modules:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import sklearn
from scipy import stats
from sklearn.model_selection import ShuffleSplit, cross_val_score

from ppm import PPMHalfspaceLearner
from ppm.baselines import DPLogisticRegression, LogisticRegressionBaseline, PublicOnly
from ppm.baselines.dp_logistic_public import PublicAwareDPLogisticRegression
from ppm.budget import BudgetAccountant
from ppm.populations import load_breast_cancer_ppm

EPSILONS = [0.1, 0.3, 1.0, 3.0, 10.0]
N_SPLITS, N_TRAIN = 10, 200  # repeated random splits: 200 rows to train, 369 to test
SEED = 0

# %% [markdown]
# ## The data in the PPM model
#
# `load_breast_cancer_ppm` returns the raw features (two fixed in advance: mean texture and
# worst area), the label (1 = malignant) and the privacy mask (`public = (y == 0)`).

# %%
X, y, public = load_breast_cancer_ppm()
print(f"{len(y)} rows, {X.shape[1]} features; {public.sum()} public (benign), "
      f"{(~public).sum()} private (malignant)")

# %% [markdown]
# ## Route `public` and account for the budget
#
# With metadata routing on, `cross_val_score(..., params={"public": public})` hands each fit the
# mask of its training rows. A private learner needs fresh noise on every split (`cross_val_score`
# would clone one `random_state` into every fold, the same noise each time), so each split is
# scored on its own (`cv=[(train, test)]`) with a seed derived from the split's index. Each split
# refits the learner on overlapping private rows, so the fits compose: `N_SPLITS` fits at epsilon are `N_SPLITS * epsilon`-DP together (basic
# composition; an overstatement for disjoint rows). The accountant records it, and would refuse
# a fit past its budget before any work.

# %%
sklearn.set_config(enable_metadata_routing=True)
cv = ShuffleSplit(n_splits=N_SPLITS, train_size=N_TRAIN, random_state=SEED)

splits = list(cv.split(X))
PRIVATE = {
    "PPM": lambda eps, seed: PPMHalfspaceLearner(epsilon=eps, random_state=seed),
    "fair DP-LR (public rows free)":
        lambda eps, seed: PublicAwareDPLogisticRegression(epsilon=eps, C=0.1, random_state=seed),
    "DP-LR (diffprivlib, every row private)":
        lambda eps, seed: DPLogisticRegression(epsilon=eps, random_state=seed),
}


def seed_of(*key):
    """A seed from (SEED, learner, epsilon, split): every mechanism draw its own."""
    return int(np.random.SeedSequence([SEED, *key]).generate_state(1)[0])


rows = []
for j, (name, make) in enumerate(PRIVATE.items()):
    for k, eps in enumerate(EPSILONS):
        with BudgetAccountant(epsilon=N_SPLITS * eps) as acc:
            scores = np.concatenate([
                cross_val_score(make(eps, seed_of(j, k, i)), X, y, cv=[split],
                                params={"public": public})
                for i, split in enumerate(splits)])
        rows += [{"learner": name, "epsilon": eps, "split": i, "accuracy": s}
                 for i, s in enumerate(scores)]
        print(f"{name:40s} eps {eps:<5g} accuracy {scores.mean():.3f}  ({acc})")

references = {}
for name, est in {"logistic regression (non-private)": LogisticRegressionBaseline(),
                  "public only": PublicOnly()}.items():
    with BudgetAccountant() as acc:
        references[name] = cross_val_score(est, X, y, cv=cv, params={"public": public})
    print(f"{name:40s} accuracy {references[name].mean():.3f}  (private fits: {len(acc.history)})")
sklearn.set_config(enable_metadata_routing=False)
acc_table = pd.DataFrame(rows)

# %% [markdown]
# ## Accuracy against epsilon
#
# Mean test accuracy over the splits, bars: the plain 95% t interval over the splits. The splits
# overlap (each trains on 200 of the same 569 rows), so that interval is too narrow to compare
# two learners by; the table also gives the corrected resampled t interval of Nadeau and Bengio
# (2003), variance `(1/k + n_test/n_train) s^2` over `k` splits (`nb_lo`, `nb_hi`), and the next
# section compares the learners by their paired differences. The same correction judges the
# comparisons of [docs/claims/real_breast_cancer.md](../docs/claims/real_breast_cancer.md), on
# 40 splits and 20 mechanism draws per split.

# %%
def nadeau_bengio(values, n_train=N_TRAIN, n_test=len(y) - N_TRAIN, level=0.95):
    v = np.asarray(values, dtype=float)
    k = v.size
    se = np.sqrt((1 / k + n_test / n_train) * v.var(ddof=1))
    half = stats.t(df=k - 1).ppf(0.5 + level / 2) * se
    return v.mean(), v.mean() - half, v.mean() + half


def t_interval(values, level=0.95):
    v = np.asarray(values, dtype=float)
    half = stats.t(df=v.size - 1).ppf(0.5 + level / 2) * v.std(ddof=1) / np.sqrt(v.size)
    return v.mean(), v.mean() - half, v.mean() + half


summary = (acc_table.groupby(["learner", "epsilon"])["accuracy"]
           .apply(lambda s: pd.Series([*t_interval(s), *nadeau_bengio(s)[1:]],
                                      index=["mean", "lo", "hi", "nb_lo", "nb_hi"]))
           .unstack())
print(summary.round(3).to_string())

fig, ax = plt.subplots(figsize=(7, 4.5))
for (name, g), marker in zip(summary.groupby(level="learner"), "osD"):
    g = g.droplevel("learner")
    ax.errorbar(g.index, g["mean"], yerr=[g["mean"] - g["lo"], g["hi"] - g["mean"]],
                capsize=3, marker=marker, label=name)
for (name, s), color in zip(references.items(), ("C2", "0.4")):
    m, lo, hi = t_interval(s)
    ax.axhline(m, color=color, ls="--", label=f"{name}: {m:.3f}")
    ax.axhspan(lo, hi, color=color, alpha=0.12)
ax.set_xscale("log")
ax.set_xlabel(r"privacy parameter $\epsilon$ (for the private rows)")
ax.set_ylabel("test accuracy on the held-out rows")
ax.set_title(f"breast cancer, benign public / malignant private; {N_SPLITS} splits of "
             f"{N_TRAIN} rows; bars: 95% t intervals over splits (not for comparing)", fontsize=9)
ax.grid(True, which="both", alpha=0.3)
ax.legend(fontsize=7, loc="lower right")
plt.show()

# %% [markdown]
# ## The paired difference
#
# The learners are fitted on the same splits, so their accuracies are paired: the difference
# per split, with its own Nadeau-Bengio interval, is what a comparison reads, not whether two
# error bars overlap. With one mechanism draw per split the interval carries the mechanisms'
# noise inflated by the overlap correction too (conservative): at small epsilon it is wider than
# the accuracy scale itself.

# %%
wide = acc_table.pivot_table(index=["epsilon", "split"], columns="learner", values="accuracy")
fig, ax = plt.subplots(figsize=(7, 3.5))
for other, marker, shift in (("fair DP-LR (public rows free)", "s", 0.93),
                             ("DP-LR (diffprivlib, every row private)", "D", 1.08)):
    d = (wide["PPM"] - wide[other]).groupby(level="epsilon").apply(
        lambda s: pd.Series(nadeau_bengio(s), index=["mean", "lo", "hi"])).unstack()
    print(f"PPM - {other}:\n{d.round(3).to_string()}\n")
    ax.errorbar(d.index * shift, d["mean"], yerr=[d["mean"] - d["lo"], d["hi"] - d["mean"]],
                capsize=3, ls="none", marker=marker, label=f"PPM - {other}")
ax.axhline(0, color="k", lw=0.8)
ax.set_xscale("log")
ax.set_xlabel(r"privacy parameter $\epsilon$")
ax.set_ylabel("paired accuracy difference")
ax.grid(True, which="both", alpha=0.3)
ax.legend(fontsize=7)
plt.show()

# %% [markdown]
# With 10 splits and one mechanism draw per split these intervals are wide; the committed
# comparison (40 splits, 20 draws) is in `results/real_breast_cancer/summary.md` and on the
# claim's page.
