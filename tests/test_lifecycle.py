"""A sweep's worker processes die with it (SIGKILL), and Ctrl-C ends with one line.

Both run the real entry point in its own session with the joblib launcher (2 cells at once) and
``n_jobs=2`` (2 trial workers per cell): three layers of processes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent


def _start(tmp: Path) -> subprocess.Popen:
    # each trial ~0.5 s (large test sample): the sweep is still running when signalled
    args = [sys.executable, "-m", "experiments.run", "--multirun", "experiment=c1_realizable_d1",
            "n=64,32", "trials=30", "n_test=1000000", "n_jobs=2", "hydra.launcher.n_jobs=2",
            f"results_root={tmp / 'r'}", f"hydra.sweep.dir={tmp / 's'}"]
    env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    return subprocess.Popen(args, cwd=ROOT, env=env, start_new_session=True, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _stored(tmp: Path) -> int:
    """Trials in the trial cache of the sweep's results root."""
    from experiments import cache

    return cache.trials_since(tmp / "r" / "cache", 0.0)[1]


def _wait_for_trials(tmp: Path, proc, k: int = 2) -> None:
    deadline = time.monotonic() + 240
    while _stored(tmp) < k:
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.2)


def test_sigkill_of_the_sweep_takes_its_workers_along(tmp_path):
    proc = _start(tmp_path)
    _wait_for_trials(tmp_path, proc)
    workers = psutil.Process(proc.pid).children(recursive=True)
    assert len(workers) >= 4  # cell workers and their trial workers (+ resource trackers)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    gone, alive = psutil.wait_procs(workers, timeout=10)
    assert alive == [], [p.cmdline()[-4:] for p in alive]


def test_ctrl_c_ends_with_one_line_saying_what_was_kept(tmp_path):
    proc = _start(tmp_path)
    _wait_for_trials(tmp_path, proc)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal sends to the foreground group
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "Traceback" not in out, out[-3000:]
    tail = [ln for ln in out.splitlines() if not ln.startswith("[")]
    assert len(tail) == 1 and tail[0].startswith("interrupted: kept "), out[-3000:]
    kept = _stored(tmp_path)
    assert f"({kept} in total)" in tail[0]


def _sweeps(tmp: Path, *names: str, args: str) -> subprocess.Popen:
    """``make reproduce``'s sweep step (scripts/run_sweeps.py) in its own session."""
    cmd = [sys.executable, "-m", "scripts.run_sweeps", "--results", str(tmp / "r"),
           "--outputs", str(tmp / "o"), "--suffix", "_quick", "--at-once", "2",
           "--launch", "hydra.launcher.n_jobs=1 n_jobs=1", "--no-aggregate", *names]
    env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1", PPM_ARGS=args)
    return subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_ctrl_c_of_make_reproduces_sweeps_counts_every_sweep(tmp_path):
    proc = _sweeps(tmp_path, "c1_realizable_d1", "c8_eta", "c9_domain",
                   args="trials=30 n_test=300000")
    _wait_for_trials(tmp_path, proc, k=3)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "Traceback" not in out + err, err[-3000:]
    lines = [ln for ln in err.splitlines() if not ln.startswith("[")]
    assert len(lines) == 1, err[-3000:]
    kept = _stored(tmp_path)
    assert kept >= 3
    assert lines[0].startswith(f"interrupted: kept {kept} trials finished in this run"), lines
    assert "stopped: c1_realizable_d1 c8_eta" in lines[0] and "1 not started" in lines[0]


def test_ctrl_c_while_a_sweep_imports_prints_no_traceback(tmp_path):
    proc = _start(tmp_path)
    time.sleep(0.3)  # still importing numpy, hydra, numba
    os.killpg(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "Traceback" not in out and len(out.strip().splitlines()) == 1, out[-3000:]
    assert out.startswith("interrupted"), out


def test_a_resumed_run_says_how_many_trials_it_reused(tmp_path):
    args = "trials=2 n_test=2000"
    first = _sweeps(tmp_path, "c8_eta", args=args)
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err[-3000:]
    assert "== 1 sweep(s) done: 6 trials computed in this run\n" in out
    again = _sweeps(tmp_path, "c8_eta", args=args)
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err[-3000:]
    assert "== 1 sweep(s) done: 0 trials computed in this run, 6 reused from the trial cache" in out
