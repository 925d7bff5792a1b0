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


def _wait_for_trials(tmp: Path, proc, k: int = 2) -> None:
    deadline = time.monotonic() + 240
    while len(list(tmp.glob("r/cache/*/trial_*.csv"))) < k:
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
    kept = len(list(tmp_path.glob("r/cache/*/trial_*.csv")))
    assert f"({kept} in total)" in tail[0]
