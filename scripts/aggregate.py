"""Aggregate sweeps: one ``trials.csv`` and one ``n_hat.csv`` per experiment.

    python -m scripts.aggregate outputs/<experiment> --out results/local/<experiment>
    python -m scripts.aggregate outputs/<exp1> outputs/<exp2> ... --out-root results/local

The committed results (``results/<experiment>/`` of this repository) are only overwritten with
``--overwrite-committed`` (``make reproduce`` passes it when it regenerates them); any other
destination, e.g. the scratch roots ``results/local/``, ``results/quick/`` and
``results/overrides/`` (not committed), is written as asked.

The tables and their layout: :mod:`analysis.aggregate`.
"""

from __future__ import annotations

if __name__ == "__main__":  # Ctrl-C: one line, exit 130, from before the slow imports
    from experiments.lifecycle import stop_on_ctrl_c
    stop_on_ctrl_c('aggregation (scripts.aggregate)',
                   'every trial is in the trial cache: rerun it')

import argparse
import tempfile
from pathlib import Path

from analysis.aggregate import aggregate
from experiments import committed


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep_dirs", type=Path, nargs="+")
    out = parser.add_mutually_exclusive_group(required=True)
    out.add_argument("--out", type=Path, help="output directory (one sweep)")
    out.add_argument("--out-root", type=Path,
                     help="write each sweep to <out-root>/<sweep dir name> (several sweeps, one "
                          "process: saves the interpreter start-up per sweep)")
    committed.add_flag(parser)
    args = parser.parse_args(argv)
    if args.out is not None and len(args.sweep_dirs) > 1:
        parser.error("--out takes one sweep directory; use --out-root for several")
    dests = [args.out if args.out is not None else args.out_root / sweep.name
             for sweep in args.sweep_dirs]
    committed.refuse_committed(dests, args.overwrite_committed)
    for sweep, dest in zip(args.sweep_dirs, dests):
        # written beside dest first: a table that reproduces dest's (up to timings and
        # execution-only settings) leaves dest's bytes alone (experiments.committed.settle)
        with tempfile.TemporaryDirectory(dir=dest.parent if dest.parent.exists() else None,
                                         prefix=f".{dest.name}.", suffix=".tmp") as tmp:
            df, nh = aggregate(sweep, Path(tmp))
            kept = [f for f in ("trials.csv", "n_hat.csv")
                    if not committed.settle(Path(tmp) / f, dest / f)]
        print(f"{dest}: {len(df)} trial rows, {len(nh)} n_hat rows"
              + (f" ({', '.join(kept)}: same result, file kept)" if kept else ""))


if __name__ == "__main__":
    main()
