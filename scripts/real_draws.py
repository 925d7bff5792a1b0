"""Several mechanism draws per split for the real-data comparison (PPM vs DP-LR, breast cancer).

    python -m scripts.real_draws --results results [--draws 10] [--trials 40]
    python -m scripts.real_draws --results results --experiment real_breast_cancer_fair

Several draws of each private mechanism on each of the ``real_breast_cancer`` sweep's splits,
replayed exactly (what is drawn and how: :mod:`experiments.real_draws`), for the real-data
claim's split/mechanism variance decomposition
(:func:`analysis.split_comparison.split_mechanism_interval`).

Draw 0 uses the pipeline's learner seed, so it reproduces the committed trial (checked: the
script stops if an error differs); draw ``d >= 1`` uses the seed ``SeedSequence((learner_seed,
d))``. Writes ``<results>/<experiment>_draws/trials.csv`` (one row per split, learner, epsilon
and draw; ``--experiment`` chooses the sweep, default ``real_breast_cancer``). Cost on one
core: about 1.3 s per split for the scorer and its histogram, about 0.03 s per PPM draw and
0.1 s per DP-LR fit: 40 splits x 5 epsilons x 20 draws in about 10 minutes.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from experiments.real_draws import EPSILONS, EXPERIMENT, check_draw_zero, spec_for, split_rows
from ppm.files import write_csv_atomic


def main(argv=None) -> None:
    import numba
    numba.set_num_threads(1)  # one core (the machine is shared)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results")
    ap.add_argument("--draws", type=int, default=20)
    ap.add_argument("--trials", type=int, default=None, help="default: the sweep's")
    ap.add_argument("--experiment", default=EXPERIMENT,
                    choices=(EXPERIMENT, f"{EXPERIMENT}_fair"))
    args = ap.parse_args(argv)
    out_name = f"{args.experiment}_draws"
    specs = {e: spec_for(e, args.trials, args.experiment) for e in EPSILONS}
    n_trials = next(iter(specs.values()))["trials"]
    rows, t0 = [], time.perf_counter()
    for trial in range(n_trials):
        rows += split_rows(specs, trial, args.draws, out_name)
        print(f"split {trial + 1}/{n_trials}: {time.perf_counter() - t0:.0f} s", flush=True)
    df = pd.DataFrame(rows)
    committed = pd.read_csv(Path(args.results) / args.experiment / "trials.csv")
    print(f"draw 0 reproduces {check_draw_zero(df, committed)} committed cells")
    out = Path(args.results) / out_name
    out.mkdir(parents=True, exist_ok=True)
    write_csv_atomic(df, out / "trials.csv")
    print(f"wrote {out / 'trials.csv'} ({len(df)} rows)")


if __name__ == "__main__":
    main()
