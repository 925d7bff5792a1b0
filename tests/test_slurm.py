"""The SLURM path against a real SLURM: ``make test-slurm`` (skipped elsewhere).

``make test-slurm`` brings up a one-node cluster (scripts/slurm_cluster.sh), sets ``SLURM_CONF``
and ``PPM_TEST_SLURM=1`` and runs this file. Checked here:

* a sweep run through ``hydra/launcher=slurm`` (a SLURM job array, one task per cell) aggregates
  to the same ``trials.csv`` and ``n_hat.csv`` as the same sweep run locally (joblib), apart from
  :data:`EXECUTION_COLUMNS`, which record how a trial ran, not what it computed;
* ``make reproduce``'s sweep step, which forks each sweep (experiments/sweep_process.py),
  submits through SLURM and gets the trials of the local run;
* preemption: a sweep whose job array is ``scancel``-ed mid-way, then rerun, recomputes none of
  the trials that had finished (their stored text and time are unchanged) and ends with the same
  CSVs as the local run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    not os.environ.get("PPM_TEST_SLURM") or shutil.which("sbatch") is None,
    reason="needs a SLURM cluster: run `make test-slurm`",
)

# Columns that record execution, not results: the wall-clock time of each fit.
EXECUTION_COLUMNS = ["fit_seconds"]

# d = 1 realizable cells (as in C1); a large test sample makes each trial last ~0.7 s so that the
# preemption test can cancel the array while a cell has finished some trials but not all.
QUICK = ["experiment=c1_realizable_d1", "n=64,16", "trials=4", "n_test=5000"]
# Long enough per cell (each trial scores a 4e6-point test sample) that a scancel after the
# first 3 trials always lands mid-sweep, also on a quiet machine.
SLOW_TRIALS = 30
SLOW = ["experiment=c1_realizable_d1", "n=64,32", f"trials={SLOW_TRIALS}", "n_test=4000000"]


def _sweep(tmp: Path, name: str, overrides: list[str], launcher: str, wait=True):
    args = [sys.executable, "-m", "experiments.run", "--multirun", *overrides,
            f"results_root={tmp / name / 'results'}", f"hydra.sweep.dir={tmp / name / 'sweep'}"]
    if launcher == "slurm":
        # the array's name lets the test cancel exactly this sweep's jobs
        args += ["hydra/launcher=slurm", "hydra.launcher.mem_gb=1", f"hydra.launcher.name={name}"]
    else:
        args += ["hydra.launcher.n_jobs=2"]
    env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    if not wait:
        return proc
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, out[-3000:]
    return out


def _aggregate(tmp: Path, name: str) -> dict[str, pd.DataFrame]:
    out = tmp / name / "agg"
    subprocess.run([sys.executable, "-m", "scripts.aggregate", str(tmp / name / "sweep"),
                    "--out", str(out)], cwd=ROOT, check=True, capture_output=True)
    tables = {}
    for csv in ("trials.csv", "n_hat.csv"):
        df = pd.read_csv(out / csv).drop(columns=EXECUTION_COLUMNS, errors="ignore")
        tables[csv] = df.sort_values(list(df.columns)).reset_index(drop=True)
    return tables


def _assert_same(a: dict, b: dict) -> None:
    for csv in a:
        assert len(a[csv]) > 0, csv
        pd.testing.assert_frame_equal(a[csv], b[csv], check_exact=True, obj=csv)


def _trial_files(root: Path) -> dict[tuple[str, int], tuple[str, float]]:
    """Every stored trial: (cell key, trial) -> (its CSV text, when it was stored)."""
    from experiments import cache

    return {(key, trial): (text, written)
            for key, trial, text, _, written in cache.scan(root / "cache")}


def test_slurm_sweep_equals_local_sweep(tmp_path):
    log = _sweep(tmp_path, "slurm", QUICK, "slurm")
    assert "Submitit 'slurm' sweep" in log  # it really went through SLURM
    assert list((tmp_path / "slurm" / "sweep" / ".submitit").glob("*/*_log.out"))
    _sweep(tmp_path, "local", QUICK, "joblib")
    _assert_same(_aggregate(tmp_path, "slurm"), _aggregate(tmp_path, "local"))


def test_preempted_slurm_sweep_resumes_without_recomputing(tmp_path):
    name = f"ppm_preempt_{os.getpid()}"
    results = tmp_path / name / "results"
    total = 2 * SLOW_TRIALS
    proc = _sweep(tmp_path, name, SLOW, "slurm", wait=False)
    deadline = time.monotonic() + 180
    while len(_trial_files(results)) < 3:
        assert proc.poll() is None, proc.stdout.read()[-3000:]
        assert time.monotonic() < deadline, "no trial finished within 180 s"
        time.sleep(0.2)
    subprocess.run(["scancel", "--name", name], check=True)  # the whole array, mid-cell
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode != 0, "the cancelled sweep should fail: " + out[-2000:]
    before = _trial_files(results)
    assert 3 <= len(before) < total, len(before)

    _sweep(tmp_path, name, SLOW, "slurm")
    after = _trial_files(results)
    assert len(after) == total
    recomputed = [p for p, stamp in before.items() if after.get(p) != stamp]
    assert recomputed == [], f"finished trials recomputed: {recomputed}"
    print(f"preempted with {len(before)}/{total} trials done; rerun computed "
          f"{len(after) - len(before)}, recomputed 0")

    _sweep(tmp_path, "local", SLOW, "joblib")
    _assert_same(_aggregate(tmp_path, name), _aggregate(tmp_path, "local"))


def _run_sweeps(tmp: Path, name: str, launch: str) -> str:
    """``make reproduce``'s sweep step (scripts/run_sweeps.py): on Linux it forks the sweep
    (experiments/sweep_process.py), which then submits its job array through submitit."""
    args = [sys.executable, "-m", "scripts.run_sweeps", "--results", str(tmp / name / "results"),
            "--outputs", str(tmp / name / "out"), "--suffix", "_quick", "--launch", launch,
            "--no-aggregate", "--verbose", "c1_realizable_d1"]
    env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1", PPM_ARGS="trials=2")
    proc = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.stdout + proc.stderr


def test_a_forked_sweep_submits_to_slurm_and_equals_the_local_sweep(tmp_path):
    from experiments.sweep_process import forking

    assert forking()  # make test-slurm runs on Linux: the sweep below is forked
    name = f"ppm_forked_{os.getpid()}"
    log = _run_sweeps(tmp_path, name, f"hydra/launcher=slurm hydra.launcher.mem_gb=1 "
                                      f"hydra.launcher.name={name}")
    assert "Submitit 'slurm' sweep" in log, log[-2000:]
    _run_sweeps(tmp_path, "local", "hydra.launcher.n_jobs=1 n_jobs=1")
    for job in sorted((tmp_path / "local" / "out").glob("*/*/trials.csv")):
        mine = tmp_path / name / "out" / job.relative_to(tmp_path / "local" / "out")
        pd.testing.assert_frame_equal(
            pd.read_csv(mine).drop(columns=EXECUTION_COLUMNS),
            pd.read_csv(job).drop(columns=EXECUTION_COLUMNS), check_exact=True)
