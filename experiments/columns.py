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

This module is the contract between the pipeline that writes the tables and the analysis and
claims that read them: the row labels (:func:`learner_label`, :data:`PPM`, :data:`ERM`, ...) and
the names of the setting columns the claims read (:data:`EPSILON`, :data:`W_PUB`, :data:`D`, ...)
are spelled here and only here.
"""

from __future__ import annotations

import pandas as pd

# Measured (and per-trial bookkeeping) columns, in the order the pipeline writes them.
MEASURED = ("trial", "learner", "n", "n_pub", "n_priv", "error", "error_se", "opt",
            "excess_error", "opt_test", "train_error", "n_halfspaces", "n_hypotheses",
            "log_n_hypotheses", "fit_seconds", "n_unlabelled", "n_label_queries", "n_pool",
            "n_test", "seed", "learner_seed")
# Columns of an aggregated table that a trial's cache file does not carry.
HEAD, TAIL = ("experiment_name", "claim"), ("cell_key",)
POPULATION, MAIN, BASELINES = "population.", "learner.", "baselines."

# Row labels (the ``learner`` column). The main learner's label is its class name, except PPM's
# (:func:`learner_label`); a baseline's is its key under ``baselines`` in the experiment config.
PPM_CLASS = "PPMHalfspaceLearner"
PPM = "ppm"
ERM = "erm"  # the non-private ERM baseline
FULLY_PRIVATE = "fully_private"
SEMI_PRIVATE, SEMI_PRIVATE_ALL = "semi_private", "semi_private_all"
GREEDY = "greedy"  # the non-private greedy set cover baseline
SET_COVER = "SetCoverLearner"
GENERIC = "GenericLearner"
LABEL_BOOST, GAP_THRESHOLD = "LabelBoostLearner", "GapThresholdMechanism"
LOGISTIC, DP_LOGISTIC, PUBLIC_ONLY = "logistic", "dp_logistic", "public_only"  # real data
DP_LOGISTIC_PUBLIC = "dp_logistic_public"  # real data: DP-LR with the public rows free
PRIVATE_ACTIVE = "PrivateActiveLearner"  # BNS15's private active learner, Algorithm 4 (C15)
DISJUNCTION = "DisjunctionLearner"  # the union-of-polygons learner (C16)
CONVEX = "convex"  # C16's convex foil: the Set Cover Learner over halfplanes
GREEDY_TRIANGLES = "GreedyTriangleCover"  # the non-private greedy cover by triangles (C16)

# The setting columns the claims read.
D = POPULATION + "d"  # the sample space's dimension: every experiment has it (module docstring)
W_PUB = POPULATION + "w_pub"
T = POPULATION + "T"  # the size of the finite grid domains (C9, C12, C13, C16)
C = POPULATION + "c"
B = POPULATION + "b"
K = POPULATION + "k"  # the target's literals (set cover populations)
DOMAIN = POPULATION + "D"  # the set cover population's domain size
ETA = POPULATION + "eta"
PUBLIC_POS_RATE = POPULATION + "public_pos_rate"
DECOY_ALPHA = POPULATION + "decoy_alpha"
ALPHA_TARGET = POPULATION + "alpha_target"  # the alpha a member of C2's hard family is built for
PLATEAU = POPULATION + "plateau"  # C13: the error of the nearly good thresholds
SUPPORT = POPULATION + "support"  # the grid populations' support size (C15, C16)
FEATURES = POPULATION + "features"  # the real data's feature columns (real_breast_cancer)
EPSILON = MAIN + "epsilon"
DELTA = MAIN + "delta"
EPSILON_HAT = MAIN + "epsilon_hat"
LEARNER_K = MAIN + "k"
ALPHA0 = MAIN + "alpha0"
COMPOSITION = MAIN + "composition"
N_A = MAIN + "n_A"  # the active learner's labelled subsample size (C15)
N_QUERIES = MAIN + "n_queries"  # the active learner's label queries t (C15)


def learner_label(target: str) -> str:
    """The row label of a main learner configured with ``_target_`` = ``target``: its class
    name, and :data:`PPM` for the PPM learner."""
    name = str(target).rsplit(".", 1)[-1]
    return PPM if name == PPM_CLASS else name


def owner_prefix(label: str, main: bool) -> str:
    """``learner.`` for the main learner, ``baselines.<label>.`` for a baseline."""
    return MAIN if main else f"{BASELINES}{label}."


def baseline_column(label: str, column: str) -> str:
    """The column of a main-learner parameter (``learner.<param>``) when the baseline ``label``
    owns it: ``baselines.<label>.<param>``."""
    if not column.startswith(MAIN):
        raise ValueError(f"{column!r} is not a learner.* column")
    return owner_prefix(label, main=False) + column[len(MAIN):]


def is_owner_column(col: str) -> bool:
    return col.startswith(MAIN) or col.startswith(BASELINES)


def order_columns(df: pd.DataFrame) -> pd.DataFrame:
    """The canonical column order (module docstring); unknown columns go before ``cell_key``."""
    cols = list(df.columns)
    head = [c for c in HEAD if c in cols] + [c for c in MEASURED if c in cols]
    pop = [c for c in cols if c.startswith(POPULATION)]
    learner = [c for c in cols if c.startswith(MAIN)]
    labels = sorted({c.split(".")[1] for c in cols if c.startswith(BASELINES)})
    base = [c for lab in labels for c in cols if c.startswith(owner_prefix(lab, main=False))]
    tail = [c for c in TAIL if c in cols]
    known = set(head + pop + learner + base + tail)
    rest = [c for c in cols if c not in known]
    order = head + pop + learner + base + rest + tail
    return df if order == cols else df[order]
