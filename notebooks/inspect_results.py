# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # Inspecting `ppm` results
#
# Loads the tidy trial tables written by `make reproduce` (one row per trial and learner, every
# config value a column), recomputes `n_hat(alpha, beta)` for any slice, and redraws the C1
# panel. Open it with jupytext (`jupytext --to notebook notebooks/inspect_results.py`) or run
# it as a script: `python notebooks/inspect_results.py [results_dir]`.

# %%
import sys
from pathlib import Path

import matplotlib

if "ipykernel" not in sys.modules:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from ppm.sample_complexity import empirical_sample_complexity

RESULTS = Path(sys.argv[1]) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else Path("results")
if not RESULTS.exists():  # run from notebooks/
    RESULTS = Path("..") / RESULTS

trials = pd.concat(
    [pd.read_csv(p) for p in sorted(RESULTS.glob("*/trials.csv"))], ignore_index=True
)
print(trials.groupby(["experiment_name", "learner"]).size())

# %% [markdown]
# ## Slice by any config column
# Every config value is a column: `population.*`, `learner.*`, `n`, `d`, `epsilon`, `w_pub`.

# %%
SLICE = {"d": 2}  # e.g. {"d": 1, "learner": "ppm", "population.margin": 0.1}
view = trials
for col, val in SLICE.items():
    view = view[view[col] == val]
summary = view.groupby(["learner", "n"])["error"].describe(percentiles=[0.5, 0.9])
print(summary[["count", "mean", "50%", "90%"]])

# %% [markdown]
# ## `n_hat(alpha, beta)` for that slice, any alpha and beta (no rerun needed)

# %%
ALPHAS, BETA = [0.03, 0.05, 0.1, 0.2], 0.1
nh = empirical_sample_complexity(view, ALPHAS, BETA, by=["learner"], error_col="excess_error")
print(nh)

# %%
fig, ax = plt.subplots(figsize=(5, 4))
for learner, g in nh.groupby("learner"):
    ok = g["censored"].fillna("").eq("")
    ax.loglog(g["alpha"][ok], g["n_hat"][ok], "o-", label=learner)
ax.set_xlabel("alpha")
ax.set_ylabel(f"n_hat(alpha, beta={BETA})")
ax.legend()
ax.set_title(f"slice {SLICE}")
plt.show() if "ipykernel" in sys.modules else plt.close(fig)
