"""C2 on the hard family: the tables behind the C2 rows, written next to the trials.

    python -m scripts.hard_family_rates [results/c2_hard_family] [--n-boot 1000]

The analysis lives in the claim (:func:`claims.c2.agnostic.family_tables`: each population's
``n_hat`` at its own alpha, and the slope per learner, epsilon and alpha regime with its
bootstrap interval); this script only writes it out as ``family_n_hat.csv`` and
``family_slopes.csv`` for inspection. The verdict rows come from ``scripts/figures.py``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from claims.c2.agnostic import family_tables
from ppm.files import write_csv_atomic
from analysis.aggregate import unique_trials


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result_dir", type=Path, nargs="?",
                        default=Path("results/c2_hard_family"))
    parser.add_argument("--beta", type=float, default=0.1)
    parser.add_argument("--n-boot", type=int, default=1000)
    args = parser.parse_args(argv)
    trials = unique_trials(pd.read_csv(args.result_dir / "trials.csv", low_memory=False))
    nh, sl = family_tables(trials, args.beta, args.n_boot)
    write_csv_atomic(nh, args.result_dir / "family_n_hat.csv")
    write_csv_atomic(sl, args.result_dir / "family_slopes.csv")
    with pd.option_context("display.width", 160):
        print(nh.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
        print(sl.to_string(index=False, float_format=lambda v: f"{v:.3g}"))


if __name__ == "__main__":
    main()
