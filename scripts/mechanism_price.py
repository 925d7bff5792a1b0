"""C4: the exponential mechanism's privacy price vs d, exactly (Lemma 4.6; docs/claims/c4_dimension.md).

    python -m scripts.mechanism_price [--out results/c4_dimension/privacy_price.csv]
                                      [--overwrite-committed]  # the default --out is committed
    python -m scripts.mechanism_price --dims 4 --device cuda --out DIR/privacy_price_gpu.csv
    python -m scripts.mechanism_price --nested [--out results/c4_dimension/k_eff.csv]
    python -m scripts.mechanism_price --predict-d4   # configs/c4_predictions.yaml, before d = 4

NON-PRIVATE RESEARCH DIAGNOSTIC. The command line of
:func:`analysis.mechanism_price.price_table` on the design ``configs/c4_price.yaml`` (per sample
at fixed n and n_pub, the exact law of the mechanism's training mistakes from the score
histogram of ``G``: the mean and ``(1 - beta)``-quantile of the excess mistakes against Lemma
4.6's bound): writes the table and prints its means per (d, epsilon). ``--dims`` defaults to
the design's CPU dimensions; its GPU dimensions run as a GPU batch (batches/gpu/c4_price_d4.yaml).
``--nested``: C4's counted table instead, on ``configs/c4_k_eff.yaml`` (one private sample per
(d, sample), nested public sets: :func:`analysis.mechanism_price.nested_table`).
``--predict-d4``: writes the blind d = 4 predictions (:func:`claims.c4.blind.write_predictions`)
from the committed d = 3 rows; refused once d = 4 rows exist.
The C4 rows and panel are the claim's: :mod:`claims.c4.price`.
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
    parser.add_argument("--out", type=Path, default=None,
                        help="the table (default: the design's committed place)")
    parser.add_argument("--config", type=Path, default=None, help="the design (yaml)")
    parser.add_argument("--nested", action="store_true",
                        help="the counted nested design (configs/c4_k_eff.yaml)")
    parser.add_argument("--predict-d4", action="store_true",
                        help="write configs/c4_predictions.yaml (before any d = 4 row)")
    parser.add_argument("--dims", type=int, nargs="+", default=None,
                        help="dimensions (default: the design's dims_cpu)")
    parser.add_argument("--samples", type=int, default=None,
                        help="samples per d (default: the design's; fewer for a smoke run)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    committed.add_flag(parser)
    args = parser.parse_args(argv)
    if args.predict_d4:
        import pandas as pd
        from claims.c4 import blind as c4_blind
        root = Path("results")
        try:
            pred = c4_blind.write_predictions(pd.read_csv(root / mp.CSV),
                                              (root / mp.CSV_GPU).exists())
        except (OSError, ValueError) as exc:
            parser.error(f"--predict-d4: {exc}")
        print(pred)
        print(f"wrote {c4_blind.PREDICTIONS}")
        return
    load, config = ((mp.load_nested_design, mp.NESTED_CONFIG) if args.nested
                    else (mp.load_design, mp.CONFIG))
    args.config = args.config or config
    args.out = args.out or Path("results") / (mp.NESTED_CSV if args.nested else mp.CSV)
    try:
        design = load(args.config)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        parser.error(f"--config {args.config}: {exc}")
    dims = args.dims if args.dims is not None else list(
        design.dims if args.nested else design.dims_cpu)
    if min(dims) < 1:
        parser.error(f"--dims must be >= 1, got {dims}")
    if args.samples is not None and args.samples < 1:
        parser.error(f"--samples must be >= 1, got {args.samples}")
    committed.refuse_committed([args.out], args.overwrite_committed)
    table = mp.nested_table if args.nested else mp.price_table
    df = table(design, dims, args.samples, device=args.device, log=partial(print, flush=True))
    committed.write_csv_settled(df, args.out)  # same result (timings aside): file kept
    print(mp.summary(df).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
