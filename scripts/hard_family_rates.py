"""C2 on the hard family: ``n_hat`` of each population at its own alpha, and the slopes.

    python -m scripts.hard_family_rates [results/c2_hard_family]

Reads ``trials.csv`` of the ``c2_hard_family`` sweep (one :class:`ppm.hard_family.MarginFamily`
population per ``population.alpha_target``), computes per learner and epsilon ``n_hat`` at
``alpha = population.alpha_target`` (:func:`ppm.sample_complexity.family_sample_complexity`)
and the slope of ``log n_hat`` against ``log(1/alpha)`` with its bootstrap interval
(:func:`ppm.sample_complexity.sample_complexity_slope_family`), over all targets and over the
smaller half (the small-alpha regime where theory predicts 2). Writes
``family_n_hat.csv`` and ``family_slopes.csv`` next to ``trials.csv``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from experiments.pipeline import write_csv_atomic
from scripts.aggregate import unique_trials
from ppm.sample_complexity import family_sample_complexity, sample_complexity_slope_family

ALPHA_COL = "population.alpha_target"


def curves(df: pd.DataFrame):
    """(learner, epsilon label, trials) per curve; ERM once (its trials repeat per epsilon)."""
    df = unique_trials(df)
    for (learner, eps), g in df.groupby(["learner", df["learner.epsilon"].fillna(-1.0)]):
        yield learner, (None if eps < 0 else float(eps)), g


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result_dir", type=Path, nargs="?",
                        default=Path("results/c2_hard_family"))
    parser.add_argument("--beta", type=float, default=0.1)
    parser.add_argument("--n-boot", type=int, default=1000)
    args = parser.parse_args(argv)
    df = pd.read_csv(args.result_dir / "trials.csv", low_memory=False)
    nh_frames, slopes = [], []
    for learner, eps, g in curves(df):
        nh = family_sample_complexity(g, ALPHA_COL, args.beta, error_col="excess_error")
        nh.insert(0, "learner", learner)
        nh.insert(1, "epsilon", eps)
        nh_frames.append(nh)
        alphas = sorted(g[ALPHA_COL].unique())
        for name, keep in (("all", alphas), ("small_alpha", alphas[: (len(alphas) + 1) // 2])):
            part = g[g[ALPHA_COL].isin(keep)]
            res = sample_complexity_slope_family(part, ALPHA_COL, args.beta,
                                                 error_col="excess_error", n_boot=args.n_boot)
            slopes.append({"learner": learner, "epsilon": eps, "alphas": name,
                           "alpha_min": min(keep), "alpha_max": max(keep), **res})
    nh = pd.concat(nh_frames, ignore_index=True)
    sl = pd.DataFrame(slopes)
    write_csv_atomic(nh, args.result_dir / "family_n_hat.csv")
    write_csv_atomic(sl, args.result_dir / "family_slopes.csv")
    with pd.option_context("display.width", 160):
        print(nh.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        print(sl.to_string(index=False, float_format=lambda v: f"{v:.3g}"))


if __name__ == "__main__":
    main()
