"""Running a GPU batch (``python -m scripts.gpu_batch``; docs/gpu.md "GPU batches"): its
sweeps' multiruns and their aggregation, or C4's exact price table.

The batch file, its cells and their H100 estimate are :mod:`experiments.gpu_batch` (composing
and validating cells is the experiments' layer); running them needs the aggregation
(:func:`analysis.aggregate.aggregate`) and C4's price table
(:func:`analysis.mechanism_price.price_table`), so it lives here:

* :func:`run_batch`: each experiment as one multirun (``experiments.run`` with the runner's
  execution-only settings, :func:`experiments.gpu_batch.run_command`), resuming from the trial
  cache of the results root, then the execution-only columns set to the config's
  (:func:`experiments.gpu_batch.rewrite_jobs`) and ``<out>/<experiment>/trials.csv`` and
  ``n_hat.csv`` written by the aggregation;
* :func:`price_estimate` and :func:`run_price`: a price batch (``price: {dims: [4]}``) prices
  the exact ``|G|`` of every sample of ``configs/c4_price.yaml`` at the level-4 rate of
  :mod:`experiments.cost`, and computes the table at those d on the device, in this process, as
  ``python -m scripts.mechanism_price --dims ... --device cuda`` does.

No cell key or seed depends on the runner's settings, so the rows are the CPU's.
"""

from __future__ import annotations

import os
import platform
import shlex
import shutil
import subprocess
from functools import partial
from importlib import metadata
from pathlib import Path

from experiments import committed, cost, gpu_batch


class RunError(RuntimeError):
    """A run that stopped (a multirun that failed): one line naming it."""


def versions() -> str:
    """The versions a batch ran with (Python, the numeric stack, the commit), one line."""
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


def over_budget(name: str, minutes: float, hint: str = "") -> str | None:
    """The refusal of a batch estimated over :data:`experiments.gpu_batch.BUDGET_MINUTES`, one
    line (``hint`` appended), or None within the budget."""
    if minutes <= gpu_batch.BUDGET_MINUTES:
        return None
    return (f"batch {name} estimates {minutes:.1f} H100-minutes, over the budget of "
            f"{gpu_batch.BUDGET_MINUTES:g}{hint}")


def price_estimate(batch: gpu_batch.Batch) -> tuple[float, list[str]]:
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


def run_price(batch: gpu_batch.Batch, out, device: str = "cuda",
              samples: int | None = None) -> Path:
    """C4's price table at ``batch.price_dims`` (the design's samples, or the first
    ``samples``) on ``device``, written to ``<out>/<PRICE_CSV_GPU>``; its path."""
    from analysis import mechanism_price as mp

    dest = Path(out) / gpu_batch.PRICE_CSV_GPU
    design = mp.load_design(mp.CONFIG)
    df = mp.price_table(design, list(batch.price_dims), samples, device=device,
                        log=partial(print, flush=True))
    committed.write_csv_settled(df, dest)  # same result (timings aside): file kept
    print(mp.summary(df).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    print(f"wrote {dest}", flush=True)
    return dest


def run_batch(batch: gpu_batch.Batch, cells: list[cost.Cell], out: Path, device: str,
              workers: int, total: float) -> None:
    """Run every experiment of ``batch`` (its ``cells``, estimated at ``total`` H100-minutes)
    into the results root ``out``, aggregate each, and print what to commit; :class:`RunError`
    when a multirun fails (its finished trials stay in the trial cache)."""
    from analysis.aggregate import aggregate

    out = Path(out)
    version = versions()
    print(f"batch {batch.name}: {len(cells)} cells, estimate {total:.1f} H100-minutes; "
          f"results root {out}\nversions: {version}", flush=True)
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
            raise RunError(f"{entry.experiment}: experiments.run exited with {proc.returncode}; "
                           f"the finished trials are in {out / 'cache'} (rerun to resume)")
    with cost.hydra_ctx():
        values = gpu_batch.committed_execution_values(cells)
    for exp in dict.fromkeys(e.experiment for e in batch.entries):
        dest = out / exp
        gpu_batch.rewrite_jobs(out / "outputs" / exp, values)
        df, nh = aggregate(out / "outputs" / exp, dest)
        written.append((exp, dest, df))
        print(f"{dest}: {len(df)} trial rows, {len(nh)} n_hat rows", flush=True)
    print(f"\ncomputed with: {version}")
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
