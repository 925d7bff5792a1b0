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
(``configs/c4_price.yaml``, ``scripts/mechanism_price.py --device cuda``) at those d: the exact
``|G|`` of every sample from ConstrHalf, at the level-4 rate of experiments/cost.py. Runs from
the repository root with ``PYTHONPATH=.``; the batch logic lives in
experiments/gpu_batch.py.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from experiments import committed, cost, gpu_batch


def _versions() -> str:
    out = [f"python {platform.python_version()}"]
    for dist in ("numpy", "pandas", "numba", "numba-cuda", "hydra-core"):
        try:
            out.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            if dist == "numba-cuda":
                out.append("numba-cuda not installed (numba's built-in numba.cuda)")
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=gpu_batch.REPO,
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=gpu_batch.REPO, capture_output=True, text=True).stdout.strip()
        out.append(f"commit {head}{' (working tree modified)' if dirty else ''}")
    except (OSError, subprocess.CalledProcessError):
        pass
    return ", ".join(out)


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
    over = total > gpu_batch.BUDGET_MINUTES
    if args.estimate:
        print(f"batch {batch.name} ({args.batch}): H100 estimate per cell, in run order")
        print("\n".join(gpu_batch.format_estimate(cells)), flush=True)
        if over and not args.force:
            _fail(f"batch {batch.name} estimates {total:.1f} H100-minutes, over the budget of "
                  f"{gpu_batch.BUDGET_MINUTES:g}: split it or trim its n grid (--force to go on)")
        return
    if over and not args.force:
        _fail(f"batch {batch.name} estimates {total:.1f} H100-minutes, over the budget of "
              f"{gpu_batch.BUDGET_MINUTES:g}: split it or trim its n grid (--force to run it)")
    big = next((c for c in cells if c.max_hypotheses > gpu_batch.MAX_HYPOTHESES), None)
    if big is not None:
        _fail(f"cell {big.experiment} [{' '.join(big.shown)}] draws |G| = "
              f"{big.max_hypotheses:.3g} > max_hypotheses {gpu_batch.MAX_HYPOTHESES:g}")
    run(batch, cells, out, args.device, args.workers, total)


def price_estimate(batch) -> tuple[float, list[str]]:
    """H100-minutes of a price batch and its estimate table (one line per d, then the total)."""
    from analysis import mechanism_price as mp

    design = mp.load_design()
    lines = [f"{'d':>3} {'samples':>8} {'E|G|/sample':>12} {'sum |G|':>10} {'H100 s':>8}"]
    total = 0.0
    for d in batch.price_dims:
        sizes = mp.class_sizes(design, d)
        sec = cost.price_seconds(sizes, d, design.n)
        total += sec
        lines.append(f"{d:>3} {len(sizes):>8} {sum(sizes) / len(sizes):>12.3g} "
                     f"{float(sum(sizes)):>10.3g} {sec:>8.1f}")
    lines.append(f"total: {total / 60:.1f} H100-minutes (budget {gpu_batch.BUDGET_MINUTES:g}; "
                 f"model: experiments/cost.py; design configs/c4_price.yaml, n = {design.n}, "
                 f"n_pub = {design.n_pub})")
    return total / 60, lines


def price_batch(batch, out: Path, args) -> None:
    """Estimate or run a price batch (C4's exact privacy price at ``batch.price_dims``)."""
    minutes, lines = price_estimate(batch)
    over = minutes > gpu_batch.BUDGET_MINUTES and not args.force
    if args.estimate:
        print(f"batch {batch.name} ({args.batch}): C4's price table, H100 estimate per d")
        print("\n".join(lines), flush=True)
        if over:
            _fail(f"batch {batch.name} estimates {minutes:.1f} H100-minutes, over the budget of "
                  f"{gpu_batch.BUDGET_MINUTES:g}")
        return
    if over:
        _fail(f"batch {batch.name} estimates {minutes:.1f} H100-minutes, over the budget of "
              f"{gpu_batch.BUDGET_MINUTES:g} (--force to run it)")
    versions = _versions()
    cmd = gpu_batch.price_command(batch, out, args.device)
    print(f"batch {batch.name}: estimate {minutes:.1f} H100-minutes; results root {out}\n"
          f"versions: {versions}\n  {shlex.join(cmd)}", flush=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(gpu_batch.REPO),
                                                      env.get("PYTHONPATH")]))
    proc = subprocess.run(cmd, cwd=gpu_batch.REPO, env=env)
    if proc.returncode != 0:
        _fail(f"scripts.mechanism_price exited with {proc.returncode}")
    print(f"\ncomputed with: {versions}\nto commit: {out / gpu_batch.PRICE_CSV_GPU} as "
          f"results/{gpu_batch.PRICE_CSV_GPU} (make reproduce reads it and recomputes nothing "
          f"for these d); note the batch file, this command, the versions and the wall time in "
          f"the commit message")


def run(batch, cells, out: Path, device: str, workers: int, total: float) -> None:
    from analysis.aggregate import aggregate

    versions = _versions()
    print(f"batch {batch.name}: {len(cells)} cells, estimate {total:.1f} H100-minutes; "
          f"results root {out}\nversions: {versions}", flush=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(gpu_batch.REPO),
                                                      env.get("PYTHONPATH")]))
    written = []
    for i, entry in enumerate(batch.entries):
        mine = [c for c in cells if c.experiment == entry.experiment]
        trials = sum(c.trials for c in mine)
        reused = sum(gpu_batch.cached_trials(c) for c in mine)
        cmd = gpu_batch.run_command(entry, out, device, workers, index=i)
        print(f"[{entry.experiment}] {len(mine)} cells, {trials} trials: {reused} in the trial "
              f"cache (reused), {trials - reused} to compute\n  {shlex.join(cmd)}", flush=True)
        sweep = out / "outputs" / entry.experiment
        if i == next(j for j, e in enumerate(batch.entries) if e.experiment == entry.experiment):
            shutil.rmtree(sweep, ignore_errors=True)  # job tables of an earlier run: rewritten
        proc = subprocess.run(cmd, cwd=gpu_batch.REPO, env=env)
        if proc.returncode != 0:
            _fail(f"{entry.experiment}: experiments.run exited with {proc.returncode}; the "
                  f"finished trials are in {out / 'cache'} (rerun to resume)")
    with cost.hydra_ctx():
        values = gpu_batch.committed_execution_values(cells)
    for exp in dict.fromkeys(e.experiment for e in batch.entries):
        dest = out / exp
        gpu_batch.rewrite_jobs(out / "outputs" / exp, values)
        df, nh = aggregate(out / "outputs" / exp, dest)
        written.append((exp, dest, df))
        print(f"{dest}: {len(df)} trial rows, {len(nh)} n_hat rows", flush=True)
    print(f"\ncomputed with: {versions}")
    print("to commit (docs/gpu.md, GPU batches):")
    for exp, dest, df in written:
        ns = sorted(int(n) for n in df["n"].unique())
        print(f"  - the rows of {dest / 'trials.csv'} into results/{exp}/trials.csv, next to the "
              f"CPU rows (same cell keys; the execution-only columns device, max_hypotheses "
              f"and histogram_memo carry the config's values, as make reproduce writes them); "
              f"extend the n grid of configs/experiment/{exp}.yaml to hold "
              f"n = {', '.join(map(str, ns))}; make reproduce then restores them from the "
              f"committed rows (experiments/cache.py) and computes nothing for them")
    print("  - note the batch file, this command, the versions above and the run's wall time "
          "in the commit message")


if __name__ == "__main__":
    main()
