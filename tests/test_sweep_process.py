"""A sweep forked by ``make reproduce``'s runner (experiments/sweep_process.py) is the command it
replaces: the same trials, the same relayed lines, the same exit status and error line, as the
sweep started as ``python -m experiments.run`` (``PPM_SWEEP_SUBPROCESS=1``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from experiments.sweep_process import forking

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not forking(), reason="sweeps are forked on Linux only")


def _run(tmp: Path, results: Path, subprocess_env: bool, *names: str, args="trials=2 n_test=500",
         launch="hydra.launcher.n_jobs=1 n_jobs=1"):
    cmd = [sys.executable, "-m", "scripts.run_sweeps", "--results", str(results),
           "--outputs", str(tmp / "o"), "--suffix", "_quick", "--at-once", "2",
           "--launch", launch, "--no-aggregate", *names]
    env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1",
               PPM_ARGS=args)
    env.pop("PPM_SWEEP_SUBPROCESS", None)
    if subprocess_env:
        env["PPM_SWEEP_SUBPROCESS"] = "1"
    # a forked sweep that cannot leave (its worker pool joined before it was stopped) hangs
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)


def _lines(text: str, root: Path) -> list[str]:
    """The relayed lines without their times and cell counts, in a stable order (two sweeps
    interleave, and parallel cells finish in any order)."""
    text = re.sub(r"\] cell \d+/", "] cell <k>/", text.replace(str(root), "<root>"))
    return sorted(re.sub(r"\d+:\d\d(:\d\d)?", "<t>", ln) for ln in text.splitlines())


def test_a_forked_sweep_equals_the_sweep_started_as_a_command(tmp_path):
    """The forked sweeps run their cells in joblib's worker processes (as the default profile
    does), the started ones in-process: the same trials whatever the workers, and the forked
    sweeps end (their worker pools shut down before they leave)."""
    runs = {}
    for mode in ("forked", "started"):
        res = _run(tmp_path / mode, tmp_path / mode / "r", mode == "started", "c8_eta",
                   "c1_realizable_d2", launch="hydra.launcher.n_jobs=2 n_jobs=1" if mode == "forked"
                   else "hydra.launcher.n_jobs=1 n_jobs=1")
        assert res.returncode == 0, res.stderr[-3000:]
        runs[mode] = res
    forked, started = (_lines(runs[m].stdout + runs[m].stderr, tmp_path / m)
                       for m in ("forked", "started"))
    assert forked == started
    jobs = sorted((tmp_path / "forked" / "o").glob("*/*/trials.csv"))
    assert len(jobs) == 3 + 4  # c8_eta_quick's etas, c1_realizable_d2_quick's n
    assert sum(bool(re.search(r"\] cell <k>/\d done", ln)) for ln in forked) == len(jobs)
    for job in jobs:
        a = pd.read_csv(job).drop(columns="fit_seconds")
        b = pd.read_csv(tmp_path / "started" / job.relative_to(tmp_path / "forked")
                        ).drop(columns="fit_seconds")
        pd.testing.assert_frame_equal(a, b)
        assert set(a["trial"]) == {0, 1}  # trials=2


def test_a_failing_forked_sweep_ends_the_run_with_its_own_error_line(tmp_path):
    (tmp_path / "file").write_text("")  # a results root under a file cannot be written
    lines = {}
    for mode in ("forked", "started"):
        res = _run(tmp_path / mode, tmp_path / "file" / "r", mode == "started", "c8_eta", args="")
        assert res.returncode == 2, res.stderr[-3000:]
        assert "Traceback" not in res.stderr, res.stderr[-3000:]
        lines[mode] = res.stderr.strip().splitlines()[-1]
    assert lines["forked"] == lines["started"]
    assert lines["forked"].startswith("error: sweep c8_eta_quick failed (exit 2): ")
    assert "results_root" in lines["forked"], lines["forked"]
