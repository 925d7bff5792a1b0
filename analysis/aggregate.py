"""Collect the per-job ``trials.csv`` of one sweep into a tidy table and its ``n_hat`` table.

:func:`aggregate` (command line: ``python -m scripts.aggregate``) writes ``<out>/trials.csv`` (one row per trial and learner, every config value a column once,
under the config entry that owns it: ``experiments/columns.py``) and ``<out>/n_hat.csv``
(docs/model.md §5: ``n_hat(alpha, beta)`` with Clopper-Pearson-derived interval per curve and
alpha). The error used is ``excess_error`` (= error - OPT; equal to the error in the
realizable case), the quantity both theorems bound.

A curve of ``n_hat.csv`` is identified by

- ``learner``: its label (unique within an experiment);
- its *setting columns* (:func:`setting_columns`): the learner's own parameters that vary
  within the table, each a typed column under the name it has in ``trials.csv``
  (``learner.epsilon`` as floats, ``baselines.<label>.<param>`` for a baseline), empty (NaN)
  on the rows of a learner that does not own it. Only the columns a learner owns count
  (``learner.*`` for the main learner, ``baselines.<label>.*`` for a baseline), and never an
  execution-only setting (one that takes several values within one cell: it does not enter
  the cell key);
- ``params``: the same values as one readable label such as ``epsilon=0.1`` (``name=value``
  sorted by name, joined by ``", "``; ``-`` when none varies), for people and plots: a label,
  never parsed back into values (the setting columns carry them);
- the shared config columns that vary (``population.*``, ``n_unlabelled``, ``seed``, ...),
  which every row has.

A setting therefore keeps its name and type from ``trials.csv`` through ``n_hat.csv`` to the
claims: ``claims.base.ResultStore`` joins the settings that do *not* vary (e.g.
``population.d``) from ``trials.csv`` onto the ``n_hat`` rows, and a verdict row takes its
``d``, ``epsilon``, ``w_pub`` from those columns of the rows it judges
(``claims.base.row_settings``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from omegaconf import OmegaConf

from experiments import columns
from analysis.sample_complexity import N_HAT_COLUMNS, empirical_sample_complexity
from ppm.files import write_csv_atomic

ERROR_COL = "excess_error"
PARAMS = "params"
NO_PARAMS = "-"
# Columns that are measured or bookkeeping, never configuration (n is the x axis of a curve).
_NOT_CONFIG = (set(columns.MEASURED) - {"learner", "n_unlabelled", "n_test", "seed"}) | {"cell_key"}


def fmt_value(value) -> str:
    """A parameter value in a key: numbers exactly and short (1.0 -> "1", 1e-08 stays)."""
    if isinstance(value, (bool, np.bool_, str)):
        return str(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        text = repr(float(value))
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def execution_only(rows: pd.DataFrame, col: str) -> bool:
    """Several values within one cell: the setting does not enter the cell key."""
    return "cell_key" in rows.columns and rows.groupby("cell_key")[col].nunique(dropna=False).max() > 1


def _own_varying(rows: pd.DataFrame, label: str, owned: list[str]) -> list[str]:
    """The columns of learner ``label`` (its rows ``rows``) that enter its curve key: those it
    owns that vary within the table, execution-only ones excepted, sorted by parameter name."""
    mine = [c for c in owned
            if c.startswith((columns.MAIN, columns.owner_prefix(label, main=False)))]
    return sorted((c for c in mine if rows[c].nunique(dropna=False) > 1
                   and not execution_only(rows, c)), key=lambda c: c.rsplit(".", 1)[1])


def setting_columns(df: pd.DataFrame) -> list[str]:
    """The typed setting columns of ``df``'s curves (module docstring), in ``df``'s order:
    every owner column that enters some learner's curve key."""
    owned = [c for c in df.columns if columns.is_owner_column(c)]
    keys = {c for label, rows in df.groupby("learner", sort=False)
            for c in _own_varying(rows, label, owned)}
    return [c for c in df.columns if c in keys]


def curve_params(df: pd.DataFrame) -> pd.Series:
    """The ``params`` label of every row (module docstring): built from the setting columns,
    never read back into values."""
    out = pd.Series(NO_PARAMS, index=df.index, dtype=object)
    owned = [c for c in df.columns if columns.is_owner_column(c)]
    for label, rows in df.groupby("learner", sort=False):
        keys = _own_varying(rows, label, owned)
        if not keys:
            continue
        parts = [[f"{c.rsplit('.', 1)[1]}={fmt_value(v)}" if pd.notna(v) else "" for v in rows[c]]
                 for c in keys]
        out[rows.index] = [", ".join(p for p in row if p) or NO_PARAMS for row in zip(*parts)]
    return out


def with_params(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with its ``params`` label column (kept if already there)."""
    return df if PARAMS in df.columns else df.assign(**{PARAMS: curve_params(df)})


def curve_columns(df: pd.DataFrame) -> list[str]:
    """``learner``, ``params``, the typed setting columns (:func:`setting_columns`) and the
    shared config columns that vary in the trials table ``df``."""
    owned = setting_columns(df)
    shared = [c for c in df.columns if c not in _NOT_CONFIG and c not in ("learner", PARAMS)
              and not columns.is_owner_column(c)]
    return ["learner", PARAMS, *owned, *[c for c in shared if df[c].nunique(dropna=False) > 1]]


def unique_trials(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (curve, n, trial), with the ``params`` label: drop the copies of a baseline
    repeated across cells.

    A baseline that does not take the swept parameter (e.g. ERM in an epsilon sweep) sees the
    same samples in every cell (seeds do not depend on the learner config) and so appears once
    per cell with identical errors; counting those copies as extra trials would shrink its
    intervals. Every copy is identical except for the timing, so keeping the first is exact.
    """
    df = with_params(df)
    key = [*curve_columns(df), "n", "trial"]
    spread = df.groupby(key, dropna=False)["error"].nunique(dropna=False)
    if (spread > 1).any():
        raise ValueError(f"rows with the same curve, n and trial disagree on the error: "
                         f"{spread[spread > 1].index[0]}")
    return df.drop_duplicates(subset=key, keep="first")


def curve_config(nhat: pd.DataFrame, trials: pd.DataFrame) -> pd.DataFrame:
    """``nhat`` with the config columns of its curves that it does not carry (the settings that
    do not vary, e.g. ``population.d``) joined from ``trials``, by ``learner``, the typed
    setting columns and the shared key columns; a column a learner does not own stays empty on
    its rows. The ``params`` label joins only a table written before ``n_hat.csv`` carried the
    setting columns (it is compared as a whole, never parsed)."""
    trials = with_params(trials)
    typed = set(setting_columns(trials)) <= set(nhat.columns)
    key = [c for c in nhat.columns if c in trials.columns and not (typed and c == PARAMS)]
    extra = [c for c in trials.columns if c not in key and c not in _NOT_CONFIG
             and c not in columns.HEAD and c not in nhat.columns]
    lookup = trials[key + extra].drop_duplicates(key)
    out = nhat.merge(lookup, on=key, how="left", validate="many_to_one", indicator=True)
    orphans = out[out["_merge"] == "left_only"]
    if not orphans.empty:  # n_hat.csv is made from trials.csv: a curve without trials means the
        # two tables are from different runs (a partial or hand-edited root), not data to read
        first = ", ".join(f"{c}={orphans.iloc[0][c]}" for c in key)
        raise ValueError(f"{len(orphans)} n_hat row(s) have no trials in trials.csv (first: "
                         f"{first}): n_hat.csv and trials.csv are from different runs")
    return out.drop(columns="_merge")


def n_hat_table(df: pd.DataFrame, alphas, beta, confidence) -> pd.DataFrame:
    by = curve_columns(df)
    df = unique_trials(df)
    frames = []
    for key, group in df.groupby(by, sort=True, dropna=False):
        if not np.isfinite(group[ERROR_COL]).all():
            # No OPT for this curve (real data: the population is unknown), so no excess error
            # and no n_hat; its errors are still in trials.csv.
            continue
        nh = empirical_sample_complexity(group, alphas, beta, error_col=ERROR_COL,
                                         confidence=confidence)
        for i, (col, val) in enumerate(zip(by, key if isinstance(key, tuple) else (key,))):
            nh.insert(i, col, val)
        frames.append(nh)
    if not frames:
        return pd.DataFrame(columns=[*by, *N_HAT_COLUMNS])
    return pd.concat(frames, ignore_index=True)


def _read_job(job: Path) -> pd.DataFrame:
    """One job's ``trials.csv``, floats read exactly; the cell key as text (a hex key such as
    ``45e0959...`` would otherwise be read as the float ``inf``)."""
    return pd.read_csv(job / "trials.csv", low_memory=False, dtype={"cell_key": str})


def aggregate(sweep_dir: Path, out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    jobs = sorted(p.parent for p in sweep_dir.glob("*/trials.csv"))
    if not jobs:
        raise SystemExit(f"no */trials.csv under {sweep_dir}: did the sweep run?")
    df = pd.concat([_read_job(j) for j in jobs], ignore_index=True)
    df = columns.order_columns(df)
    df = df.sort_values(["learner", "n", "trial"], kind="stable").reset_index(drop=True)
    analysis = OmegaConf.load(jobs[0] / ".hydra" / "config.yaml").analysis
    nh = n_hat_table(df, list(analysis.alphas), analysis.beta, analysis.confidence)
    write_csv_atomic(df, out / "trials.csv")
    write_csv_atomic(nh, out / "n_hat.csv")
    return df, nh
