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
# config value a column), slices them by any config column, recomputes `n_hat(alpha, beta)` for
# any alpha and beta without rerunning anything, and redraws two figures: `n_hat` against alpha
# (claim C1) and `n_hat` against any swept column (claims C3, C4, C5, C9), with their intervals.
# A per-claim view (choose the claim in `CLAIM`, or with the environment variable `PPM_CLAIM`)
# shows one claim's verdict rows and every `n_hat` curve of its sweeps with intervals. Nothing
# here decides a claim: the verdicts are `make reproduce`'s (`results/summary.md`, rules in
# `claims/`).
#
# Three ways to run it, all on one results root (default `results/`, the committed results):
#
# - `make notebook [RESULTS=results/quick]`: executes it into one self-contained HTML page with
#   its figures inline, `<results>/notebook/inspect_results.html` (and the executed
#   `inspect_results.ipynb` beside it);
# - in Jupyter: `jupytext --to notebook notebooks/inspect_results.py`, then open the `.ipynb`
#   (the results root: environment variable `PPM_RESULTS`, default `results/`);
# - as a script, figures not shown: `python notebooks/inspect_results.py [results_dir]`.

# %%
import os
import sys
from pathlib import Path

import matplotlib

if "ipykernel" not in sys.modules:
    matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import LogLocator, NullFormatter

# The repository root (this notebook may be opened from notebooks/): the claim registry lives
# there, beside ppm/.
ROOT = Path.cwd() if (Path.cwd() / "claims").is_dir() else Path.cwd().parent
sys.path.insert(0, str(ROOT))
from claims.registry import CLAIMS, experiments  # noqa: E402
from analysis.sample_complexity import empirical_sample_complexity  # noqa: E402

# The results root: `PPM_RESULTS` (set by `make notebook`), else the script's argument, else the
# committed results. (In a kernel, sys.argv is the kernel's own: `-f <connection>.json`.)
ARGS = [a for a in sys.argv[1:] if not a.startswith("-") and not a.endswith(".json")]
RESULTS = Path(os.environ.get("PPM_RESULTS") or (ARGS[0] if ARGS else ROOT / "results"))
print(f"results root: {RESULTS}")

# The experiments of every registered claim (claims.registry), then any other aggregated sweep.
for claim in CLAIMS:
    print(f"{claim.id}: {claim.statement} <- {', '.join(claim.experiments) or 'exact audits'}")
others = sorted(p.parent.name for p in RESULTS.glob("*/trials.csv"))
names = [e for e in dict.fromkeys([*experiments(), *others])
         if (RESULTS / e / "trials.csv").exists()]
if not names:
    raise SystemExit(f"no <experiment>/trials.csv under {RESULTS}: run make reproduce first")
trials = pd.concat([pd.read_csv(RESULTS / e / "trials.csv", low_memory=False) for e in names],
                   ignore_index=True)
print(trials.groupby(["experiment_name", "learner"]).size().to_string())

# %% [markdown]
# ## Slice by any config column
# Every config value is a column, once, under its owner: `population.*` (with `population.d`),
# `learner.*` (the main learner's rows), `baselines.<label>.*` (that baseline's rows), `n`, plus
# the outcome columns `error`, `excess_error`, `opt`, `n_pub`, `n_hypotheses`, `fit_seconds`.

# %%
print(sorted(c for c in trials.columns if "." in c))
first = "c1_realizable_d2" if "c1_realizable_d2" in set(trials["experiment_name"]) else \
    trials["experiment_name"].iloc[0]
SLICE = {"experiment_name": first}  # e.g. {"population.d": 1, "learner": "ppm"}
view = trials
for col, val in SLICE.items():
    view = view[view[col] == val]
summary = view.groupby(["learner", "n"])["error"].describe(percentiles=[0.5, 0.9])
print(summary[["count", "mean", "50%", "90%"]].to_string())

# %% [markdown]
# ## `n_hat(alpha, beta)` for that slice, any alpha and beta (no rerun needed)

# %%
ALPHAS, BETA = [0.03, 0.05, 0.1, 0.2], 0.1
nh = empirical_sample_complexity(view, ALPHAS, BETA, by=["learner"], error_col="excess_error")
print("n_hat table")
print(nh.to_string())



def draw_curve(ax, x, g, **kw):
    """``n_hat`` with its interval (``n_hat_lo``, ``n_hat_hi``) against ``x``; censored points
    (no crossing inside the n grid) left out."""
    ok = g["censored"].isna().to_numpy() | g["censored"].astype(str).eq("").to_numpy()
    y, lo, hi = (g[c].to_numpy(dtype=float)[ok] for c in ("n_hat", "n_hat_lo", "n_hat_hi"))
    err = np.vstack([np.clip(y - lo, 0, None), np.clip(hi - y, 0, None)])
    ax.errorbar(np.asarray(x, dtype=float)[ok], y, yerr=np.nan_to_num(err), fmt="o-",
                capsize=3, **kw)


def tidy_log_axes(ax):
    """Log axes with decade ticks only (the default minor labels overlapped)."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(LogLocator(base=10, numticks=6))
        axis.set_minor_formatter(NullFormatter())
    ax.grid(alpha=0.3, which="both")


fig, ax = plt.subplots(figsize=(5, 4))
for learner, g in nh.groupby("learner"):
    draw_curve(ax, g["alpha"], g, label=learner)
tidy_log_axes(ax)
ax.set_xlabel("alpha")
ax.set_ylabel(f"n_hat(alpha, beta={BETA})")
ax.legend()
ax.set_title(f"slice {SLICE}", fontsize=9)
plt.show() if "ipykernel" in sys.modules else plt.close(fig)

# %% [markdown]
# ## `n_hat` against any swept column
# E.g. `learner.epsilon` in `c3_epsilon_d1`, `population.w_pub` in `c5_mixture_weight`,
# `population.d` in `c4_dimension_eps10`, `population.T` in `c9_domain`: the first of these the
# results root holds (set `EXPERIMENT, X` to choose).

# %%
SWEPT = [("c3_epsilon_d1", "learner.epsilon"), ("c5_mixture_weight", "population.w_pub"),
         ("c4_dimension_eps10", "population.d"), ("c9_domain", "population.T")]
held = [(e, x) for e, x in SWEPT if e in set(trials["experiment_name"]) and x in trials
        and trials.loc[trials["experiment_name"] == e, x].nunique() > 1]
EXPERIMENT, X = held[0] if held else SWEPT[0]
ALPHA = 0.05
sweep = trials[(trials["experiment_name"] == EXPERIMENT) & (trials["learner"] == "ppm")]
if sweep.empty:
    print(f"none of {[e for e, _ in SWEPT]} has results under {RESULTS}; run make reproduce")
else:
    by_x = empirical_sample_complexity(sweep, [ALPHA], BETA, by=[X], error_col="excess_error")
    print(f"n_hat against {X} at alpha = {ALPHA}")
    print(by_x[[X, "n_hat", "n_hat_lo", "n_hat_hi", "censored"]].to_string())
    fig, ax = plt.subplots(figsize=(5, 4))
    draw_curve(ax, by_x[X], by_x)
    tidy_log_axes(ax)
    ax.set_xlabel(X)
    ax.set_ylabel(f"n_hat(alpha={ALPHA}, beta={BETA})")
    ax.set_title(EXPERIMENT, fontsize=9)
    plt.show() if "ipykernel" in sys.modules else plt.close(fig)

# %% [markdown]
# ## One claim: its verdicts and every `n_hat` curve of its sweeps
# Choose the claim here (an id such as `"C5"`, or set `PPM_CLAIM`); the verdict rows come from
# `<results>/<claim>/summary.csv` (written by `make figures`), the curves from each sweep's
# `n_hat.csv`: one panel per sweep, `n_hat` against alpha per curve (learner, its parameters and
# the shared setting columns), with the intervals.

# %%
CLAIM = os.environ.get("PPM_CLAIM", "C5")
claim = next((c for c in CLAIMS if CLAIM in (c.id, c.name)), CLAIMS[0])
print(f"{claim.id}: {claim.statement}")
verdicts = RESULTS / claim.name / "summary.csv"
if verdicts.exists():
    rows = pd.read_csv(verdicts)
    with pd.option_context("display.max_colwidth", 90, "display.width", 200):
        print(rows[["setting", "measured", "verdict"]].to_string(index=False))
present = [e for e in claim.experiments if (RESULTS / e / "n_hat.csv").exists()]
if not present:
    print(f"no n_hat.csv of {claim.id}'s sweeps under {RESULTS} ({claim.experiments or 'audits'})")
else:
    fig, axes = plt.subplots(1, len(present), figsize=(5.5 * len(present), 4.5), squeeze=False)
    for ax, exp in zip(axes[0], present):
        table = pd.read_csv(RESULTS / exp / "n_hat.csv")
        keys = [c for c in table.columns if c not in ("alpha", "beta") and not c.startswith(
            ("n_hat", "censored", "min_trials", "fit_"))]
        for i, (key, g) in enumerate(table.groupby(keys, dropna=False, sort=True)):
            if i >= 12:  # a readable legend: the first 12 curves
                break
            label = ", ".join(str(k) for k in np.atleast_1d(key) if str(k) not in ("-", "nan"))
            draw_curve(ax, g["alpha"], g.sort_values("alpha"), label=label, ms=3)
        tidy_log_axes(ax)
        ax.set_xlabel("alpha")
        ax.set_ylabel("n_hat (interval)")
        ax.set_title(exp, fontsize=9)
        ax.legend(fontsize=6, loc="upper right")
    fig.tight_layout()
    plt.show() if "ipykernel" in sys.modules else plt.close(fig)
