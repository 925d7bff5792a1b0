"""Collect the per-job ``trials.csv`` of one sweep into a tidy table and its ``n_hat`` table.

    python -m scripts.aggregate outputs/<experiment> --out results/<experiment>
    python -m scripts.aggregate outputs/<exp1> outputs/<exp2> ... --out-root results

Writes ``<out>/trials.csv`` (one row per trial and learner, every config value a column) and
``<out>/n_hat.csv`` (SPEC section 5: ``n_hat(alpha, beta)`` with Clopper-Pearson-derived
interval for every learner and every combination of the config columns that vary in the sweep
besides ``n``). The error used is ``excess_error`` (= error - OPT; equal to the error in the
realizable case), the quantity both theorems bound.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from omegaconf import OmegaConf

from experiments.pipeline import _LEARNER_EXECUTION_PARAMS, write_csv_atomic
from ppm.sample_complexity import empirical_sample_complexity

ERROR_COL = "excess_error"
# Columns that identify a curve: everything that is configuration, except n.
_NOT_CONFIG = {"trial", "n", "n_pub", "n_priv", "n_label_queries", "n_pool", "error", "error_se", "opt", "opt_test",
               "excess_error", "train_error", "n_halfspaces", "n_hypotheses", "log_n_hypotheses", "fit_seconds",
               "learner_seed", "cell_key"}


def curve_columns(df: pd.DataFrame) -> list[str]:
    """``learner`` plus the config columns that take more than one value in ``df``.

    Settings that only choose how the exact mechanism is computed (``learner.method``, ...)
    never identify a curve: every backend returns the same hypotheses.
    """
    cols = [c for c in df.columns if c not in _NOT_CONFIG and c != "learner"
            and c not in _EXECUTION_COLUMNS]
    varying = [c for c in cols if df[c].nunique(dropna=False) > 1]
    return ["learner", *varying]


_EXECUTION_COLUMNS = {f"learner.{p}" for p in _LEARNER_EXECUTION_PARAMS}


def unique_trials(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (curve, n, trial): drop the copies of a baseline repeated across cells.

    A baseline that does not take the swept parameter (e.g. ERM in an epsilon sweep) sees the
    same samples in every cell (seeds do not depend on the learner config) and so appears once
    per cell with identical errors; counting those copies as extra trials would shrink its
    intervals. Every copy is identical except for the timing, so keeping the first is exact.
    """
    key = [*curve_columns(df), "n", "trial"]
    spread = df.groupby(key, dropna=False)["error"].nunique(dropna=False)
    if (spread > 1).any():
        raise ValueError(f"rows with the same curve, n and trial disagree on the error: "
                         f"{spread[spread > 1].index[0]}")
    return df.drop_duplicates(subset=key, keep="first")


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
        return pd.DataFrame(columns=[*by, "alpha", "beta", "n_hat", "n_hat_lo", "n_hat_hi",
                                     "censored", "min_trials"])
    return pd.concat(frames, ignore_index=True)


def aggregate(sweep_dir: Path, out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    jobs = sorted(p.parent for p in sweep_dir.glob("*/trials.csv"))
    if not jobs:
        raise SystemExit(f"no */trials.csv under {sweep_dir}: did the sweep run?")
    df = pd.concat([pd.read_csv(j / "trials.csv") for j in jobs], ignore_index=True)
    df = df.sort_values(["learner", "n", "trial"], kind="stable").reset_index(drop=True)
    analysis = OmegaConf.load(jobs[0] / ".hydra" / "config.yaml").analysis
    nh = n_hat_table(df, list(analysis.alphas), analysis.beta, analysis.confidence)
    write_csv_atomic(df, out / "trials.csv")
    write_csv_atomic(nh, out / "n_hat.csv")
    return df, nh


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep_dirs", type=Path, nargs="+")
    out = parser.add_mutually_exclusive_group(required=True)
    out.add_argument("--out", type=Path, help="output directory (one sweep)")
    out.add_argument("--out-root", type=Path,
                     help="write each sweep to <out-root>/<sweep dir name> (several sweeps, one "
                          "process: saves the interpreter start-up per sweep)")
    args = parser.parse_args(argv)
    if args.out is not None and len(args.sweep_dirs) > 1:
        parser.error("--out takes one sweep directory; use --out-root for several")
    for sweep in args.sweep_dirs:
        dest = args.out if args.out is not None else args.out_root / sweep.name
        df, nh = aggregate(sweep, dest)
        print(f"{dest}: {len(df)} trial rows, {len(nh)} n_hat rows")


if __name__ == "__main__":
    main()
