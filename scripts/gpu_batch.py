"""Estimate or run a GPU batch (batches/gpu/*.yaml) of PPM sweeps on one H100.

    python -m scripts.gpu_batch batches/gpu/c4_wpub06_d3_tail.yaml --estimate
    python -m scripts.gpu_batch batches/gpu/c4_wpub06_d3_tail.yaml [--out DIR]
    python -m scripts.gpu_batch batches/gpu/c4_price_d4.yaml --estimate   # C4's price table

``--estimate`` prints per cell the experiment, its overrides, trials, the expected ``|G|`` per
fit, the cell's summed ``|G|`` (and the part it scores: a later epsilon on the same samples
loads their histograms from the memo) and its H100 seconds, then the total in H100-minutes
(model and calibration: experiments/cost.py). A batch over 30 H100-minutes is refused (exit 2)
unless ``--force``. Without ``--estimate`` each experiment runs as one multirun
(``experiments.run`` with ``learner.device=cuda``, 8 trial workers, ``--out`` as its results
root, resuming from the trial cache there), then ``<out>/<experiment>/trials.csv`` and
``n_hat.csv`` are written by the project's aggregation, ready to commit (docs/gpu.md
"GPU batches"). A price batch (``price: {dims: [4]}``) prices and runs C4's exact price table
(``configs/c4_price.yaml``, as ``scripts/mechanism_price.py --device cuda``) at those d: the exact
``|G|`` of every sample from ConstrHalf, at the level-4 rate of experiments/cost.py. Runs from
the repository root with ``PYTHONPATH=.``; the batch file and its cells are
experiments/gpu_batch.py, the runs analysis/gpu_batch_run.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from analysis import gpu_batch_run as runner
from experiments import committed, cost, gpu_batch


def _fail(msg: str) -> None:
    print(f"error: {msg}", file=sys.stderr, flush=True)
    sys.exit(2)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("batch", type=Path, help="batch file (batches/gpu/*.yaml)")
    parser.add_argument("--estimate", action="store_true", help="print the H100 estimate only")
    parser.add_argument("--out", type=Path, default=None,
                        help="results root of the run (default results/local/gpu/<name>)")
    parser.add_argument("--force", action="store_true",
                        help=f"run or estimate a batch over {gpu_batch.BUDGET_MINUTES:g} "
                             f"H100-minutes")
    # testing only: the whole path on a machine without a GPU
    parser.add_argument("--device", default="cuda", choices=("cuda", "cpu"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, default=gpu_batch.WORKERS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.workers < 1:
        _fail(f"--workers must be >= 1, got {args.workers}")
    try:
        batch = gpu_batch.load(args.batch)
        out = (args.out if args.out is not None else gpu_batch.default_out(batch)).absolute()
        if committed.is_committed(out) or out == committed.COMMITTED.resolve():
            _fail(f"--out {out}: the committed results/ is no scratch root; write to "
                  f"results/local/gpu/{batch.name} (the default) and commit the rows by hand")
        if batch.price_dims:
            return price_batch(batch, out, args)
        cells = gpu_batch.cells(batch, out, args.device, args.workers)
    except gpu_batch.BatchError as exc:
        _fail(str(exc))
    total = cost.estimate(cells) / 60
    over = runner.over_budget(batch.name, total, ": split it or trim its n grid (--force to go on)")
    if args.estimate:
        print(f"batch {batch.name} ({args.batch}): H100 estimate per cell, in run order")
        print("\n".join(gpu_batch.format_estimate(cells)), flush=True)
        if over and not args.force:
            _fail(over)
        return
    if over and not args.force:
        _fail(runner.over_budget(batch.name, total, ": split it or trim its n grid (--force to "
                                                    "run it)"))
    big = next((c for c in cells if c.max_hypotheses > gpu_batch.MAX_HYPOTHESES), None)
    if big is not None:
        _fail(f"cell {big.experiment} [{' '.join(big.shown)}] draws |G| = "
              f"{big.max_hypotheses:.3g} > max_hypotheses {gpu_batch.MAX_HYPOTHESES:g}")
    try:
        runner.run_batch(batch, cells, out, args.device, args.workers, total)
    except runner.RunError as exc:
        _fail(str(exc))


def price_batch(batch, out: Path, args) -> None:
    """Estimate or run a price batch (C4's exact privacy price at ``batch.price_dims``)."""
    minutes, lines = runner.price_estimate(batch)
    if args.estimate:
        print(f"batch {batch.name} ({args.batch}): C4's price table, H100 estimate per d")
        print("\n".join(lines), flush=True)
        over = runner.over_budget(batch.name, minutes)
        if over and not args.force:
            _fail(over)
        return
    over = runner.over_budget(batch.name, minutes, " (--force to run it)")
    if over and not args.force:
        _fail(over)
    versions = runner.versions()
    print(f"batch {batch.name}: estimate {minutes:.1f} H100-minutes; results root {out}\n"
          f"versions: {versions}\n  C4's price table at d = "
          f"{', '.join(map(str, batch.price_dims))} on {args.device} (analysis.mechanism_price)",
          flush=True)
    dest = runner.run_price(batch, out, args.device)
    print(f"\ncomputed with: {versions}\nto commit: {dest} as "
          f"results/{gpu_batch.PRICE_CSV_GPU} (make reproduce reads it and recomputes nothing "
          f"for these d); note the batch file, this command, the versions and the wall time in "
          f"the commit message")


if __name__ == "__main__":
    main()
