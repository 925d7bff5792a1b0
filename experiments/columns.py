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
``epsilon`` / ``w_pub`` / ``d`` column (the first layout repeated them and
wrote every baseline's parameters as ``learner.*``). :func:`to_current_layout` converts a table
in that first layout (cached trials of older runs, committed CSVs; ``scripts/migrate_results.py``)
and leaves a table already in the current layout as it is; it works on parsed tables and on
tables read as text (``dtype=str, keep_default_na=False``), where an empty string is missing.
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
# The first layout's duplicates: the row's epsilon, the population's w_pub and d.
OLD_DUPLICATES = ("epsilon", "w_pub", "d")
MAIN = "learner."


def owner_prefix(label: str, main: bool) -> str:
    """``learner.`` for the main learner, ``baselines.<label>.`` for a baseline."""
    return MAIN if main else f"baselines.{label}."


def is_owner_column(col: str) -> bool:
    return col.startswith(MAIN) or col.startswith("baselines.")


def _missing(s: pd.Series) -> pd.Series:
    # parsed tables hold NaN/None, tables read as text hold ""
    return s.isna() | (s.astype(object) == "")


def is_old_layout(df: pd.DataFrame) -> bool:
    return any(c in df.columns for c in OLD_DUPLICATES)


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


def to_current_layout(df: pd.DataFrame, estimators: list[tuple[str, bool, list[str]]],
                      empty=np.nan) -> pd.DataFrame:
    """``df`` in the current layout (a copy if it had to change).

    ``estimators``: ``(label, is_main, config keys)`` of every learner of the cells, from their
    config (``experiments.pipeline._estimators``): in the first layout a baseline's parameters
    sit under ``learner.*`` on its rows and are moved to ``baselines.<label>.*``; a key listed
    here whose value is null still gets its (empty) column, as the pipeline writes it.
    ``empty``: the missing value (``""`` for a table read as text).
    """
    if not is_old_layout(df):
        return order_columns(df)
    df = df.copy()
    if "population.d" in df.columns:
        df = df.drop(columns=["d"], errors="ignore")
    elif "d" in df.columns:  # a population without a d parameter: keep its dimension, owned
        d = df.pop("d")
        df["population.d"] = d
    df = df.drop(columns=[c for c in ("epsilon", "w_pub") if c in df.columns])
    main_keys: set[str] = set()
    for label, is_main, keys in estimators:
        if is_main:
            main_keys = set(keys)
            continue
        rows = (df["learner"] == label).to_numpy()
        # its config keys, and any other learner.* value on its rows (a key since removed)
        found = [c[len(MAIN):] for c in df.columns
                 if c.startswith(MAIN) and not _missing(df.loc[rows, c]).all()]
        for key in dict.fromkeys([*keys, *found]):
            old, new = f"{MAIN}{key}", f"baselines.{label}.{key}"
            if new not in df.columns:  # same dtype as the values it receives (str or number)
                dtype = df[old].dtype if old in df.columns else object
                df[new] = pd.Series(empty, index=df.index, dtype=dtype)
            if old in df.columns and rows.any():
                df.loc[rows, new] = df.loc[rows, old]
                df.loc[rows, old] = empty
    # learner.* columns that belonged to baselines only are empty now
    stale = [c for c in df.columns if c.startswith(MAIN) and c[len(MAIN):] not in main_keys
             and _missing(df[c]).all()]
    df = df.drop(columns=stale)
    for col in ("n_unlabelled", "n_label_queries", "n_pool"):
        if col not in df.columns:  # measured since the BNS15 learners; missing before
            df[col] = empty
    return order_columns(df)
