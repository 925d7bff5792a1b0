"""C4: the exponential mechanism's privacy price vs d, exactly (Lemma 4.6; docs/claims/c4_dimension.md).

    python -m scripts.mechanism_price [--out results/c4_dimension/privacy_price.csv]
                                      [--overwrite-committed]  # the default --out is committed
    python -m scripts.mechanism_price --dims 4 --device cuda --out DIR/privacy_price_gpu.csv

NON-PRIVATE RESEARCH DIAGNOSTIC. The command line of
:func:`analysis.mechanism_price.price_table` on the design ``configs/c4_price.yaml`` (per sample
at fixed n and n_pub, the exact law of the mechanism's training mistakes from the score
histogram of ``G``: the mean and ``(1 - beta)``-quantile of the excess mistakes against Lemma
4.6's bound): writes the table and prints its means per (d, epsilon). ``--dims`` defaults to
the design's CPU dimensions; its GPU dimensions run as a GPU batch (batches/gpu/c4_price_d4.yaml).
The C4 rows and panel are the claim's: :mod:`claims.c4_price`.
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
    parser.add_argument("--config", type=Path, default=mp.CONFIG, help="the design (yaml)")
    parser.add_argument("--dims", type=int, nargs="+", default=None,
                        help="dimensions (default: the design's dims_cpu)")
    parser.add_argument("--samples", type=int, default=None,
                        help="samples per d (default: the design's; fewer for a smoke run)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    committed.add_flag(parser)
    args = parser.parse_args(argv)
    try:
        design = mp.load_design(args.config)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        parser.error(f"--config {args.config}: {exc}")
    dims = args.dims if args.dims is not None else list(design.dims_cpu)
    if min(dims) < 1:
        parser.error(f"--dims must be >= 1, got {dims}")
    if args.samples is not None and args.samples < 1:
        parser.error(f"--samples must be >= 1, got {args.samples}")
    committed.refuse_committed([args.out], args.overwrite_committed)
    df = mp.price_table(design, dims, args.samples, device=args.device,
                        log=partial(print, flush=True))
    committed.write_csv_settled(df, args.out)  # same result (timings aside): file kept
    print(mp.summary(df).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
