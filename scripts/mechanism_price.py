"""C4: the exponential mechanism's own price vs d, exactly (Lemma 4.6; docs/model.md §§3-4).

    python -m scripts.mechanism_price [--out results/c4_dimension/mechanism_price.csv]
                                      [--overwrite-committed]  # the default --out is committed

NON-PRIVATE RESEARCH DIAGNOSTIC. The command line of
:func:`analysis.mechanism_price.price_table` (per trial sample, the exact law of the mechanism's
level from the score histogram of ``G``: the mean and ``(1 - beta)``-quantile of the excess
mistakes against Lemma 4.6's bound): writes the table and prints its means per (d, epsilon).
The C4 rows, bound check and panel are the claim's: :mod:`claims.c4_mechanism`.
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C: one line, exit 130, from before the slow imports
    from experiments.lifecycle import stop_on_ctrl_c
    stop_on_ctrl_c("C4's mechanism price table (scripts.mechanism_price)",
                   'rerun it (make c4-inputs) to redo it')

import argparse
from functools import partial
from pathlib import Path

from analysis import mechanism_price as mp
from experiments import committed


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results") / mp.CSV)
    parser.add_argument("--n", type=int, default=mp.N)
    parser.add_argument("--trials", type=int, default=mp.TRIALS)
    parser.add_argument("--dims", type=int, nargs="+", default=list(mp.DIMS))
    parser.add_argument("--epsilons", type=float, nargs="+", default=list(mp.EPSILONS))
    parser.add_argument("--beta", type=float, default=mp.BETA)
    parser.add_argument("--seed", type=int, default=mp.SEED)
    committed.add_flag(parser)
    args = parser.parse_args(argv)
    committed.refuse_committed([args.out], args.overwrite_committed)
    df = mp.price_table(args.dims, args.n, args.trials, args.epsilons, args.beta, args.seed,
                        log=partial(print, flush=True))
    committed.write_csv_settled(df, args.out)  # same result (timings aside): file kept
    print(mp.summary(df).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
