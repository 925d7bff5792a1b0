"""The column layout of the trials CSVs (one row per trial and learner): each parameter once.

A row of ``trials.csv`` (and of every cached ``trial_XXXXX.csv``) has, in this order:

- ``experiment_name``, ``claim`` (aggregated tables only), then the measured columns
  :data:`MEASURED` (``trial``, ``learner``, ``n``, ``n_pub``, ..., ``learner_seed``);
- ``population.<param>``: the population's config, the same on every row of a cell, plus
  ``population.d``, the dimension of the sample space, for populations that have no ``d``
  parameter (so every experiment has it, under one name);
- ``learner.<param>``: the main learner's config, on the main learner's rows only;
- ``baselines.<label>.<param>``: a baseline's config, on that baseline's rows only (the row's
  ``learner`` is ``<label>``); a baseline configured with its class defaults has no columns;
- ``cell_key`` (aggregated tables only).

A parameter is written once, under the config entry that owns it: there is no bare
``epsilon`` / ``w_pub`` / ``d`` column.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

# Measured (and per-trial bookkeeping) columns, in the order the pipeline writes them.
MEASURED = ("trial", "learner", "n", "n_pub", "n_priv", "error", "error_se", "opt",
            "excess_error", "opt_test", "train_error", "n_halfspaces", "n_hypotheses",
            "log_n_hypotheses", "fit_seconds", "n_unlabelled", "n_label_queries", "n_pool",
            "n_test", "seed", "learner_seed")
# Columns of an aggregated table that a trial's cache file does not carry.
HEAD, TAIL = ("experiment_name", "claim"), ("cell_key",)
MAIN = "learner."


def owner_prefix(label: str, main: bool) -> str:
    """``learner.`` for the main learner, ``baselines.<label>.`` for a baseline."""
    return MAIN if main else f"baselines.{label}."


def is_owner_column(col: str) -> bool:
    return col.startswith(MAIN) or col.startswith("baselines.")


def order_columns(df: pd.DataFrame) -> pd.DataFrame:
    """The canonical column order (module docstring); unknown columns go before ``cell_key``."""
    cols = list(df.columns)
    head = [c for c in HEAD if c in cols] + [c for c in MEASURED if c in cols]
    pop = [c for c in cols if c.startswith("population.")]
    learner = [c for c in cols if c.startswith(MAIN)]
    labels = sorted({c.split(".")[1] for c in cols if c.startswith("baselines.")})
    base = [c for lab in labels for c in cols if c.startswith(f"baselines.{lab}.")]
    tail = [c for c in TAIL if c in cols]
    known = set(head + pop + learner + base + tail)
    rest = [c for c in cols if c not in known]
    order = head + pop + learner + base + rest + tail
    return df if order == cols else df[order]
