"""C4: ``ln |G|`` against ``d^2 ln n_pub``, from ``|C_pub|`` built by ``ConstrHalf`` (docs/model.md §§2-4).

    python -m scripts.log_class_size [--out results/c4_dimension/log_class_size.csv]
                                     [--overwrite-committed]  # the default --out is committed

The command line of :func:`analysis.class_size.class_size_table` (d = 1..6, several ``n_pub``,
the exact ``|G| = 1 + sum_{j<=d} C(|C_pub|, j)``; ConstrHalf where it visits at most
``--max-subsets`` subsets, the general-position count elsewhere): writes the table and prints
the ``d^2`` fits. The C4 row and panel are the claim's: :mod:`claims.c4.mechanism`.
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C: one line, exit 130, from before the slow imports
    from experiments.lifecycle import stop_on_ctrl_c
    stop_on_ctrl_c("C4's ln|G| table (scripts.log_class_size)",
                   'rerun it (make c4-inputs) to redo it')

import argparse
from functools import partial
from pathlib import Path

from analysis import class_size
from experiments import committed


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results") / class_size.CSV)
    parser.add_argument("--max-subsets", type=float, default=class_size.MAX_SUBSETS)
    parser.add_argument("--seed", type=int, default=0)
    committed.add_flag(parser)
    args = parser.parse_args(argv)
    committed.refuse_committed([args.out], args.overwrite_committed)
    df = class_size.class_size_table(max_subsets=args.max_subsets, seed=args.seed,
                                     log=partial(print, flush=True))
    committed.write_csv_settled(df, args.out)  # same result (timings aside): file kept
    print(class_size.summary(df))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
