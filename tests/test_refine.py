"""Tests for the design aid (analysis/refine.py, scripts/refine.py)."""

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm

from analysis.refine import (TRIAL_STEPS, cell_variance_needed, proposed_ns, simulated_log_sd,
                             trials_needed)
from analysis.sample_complexity import loglog_slope

ROOT = Path(__file__).resolve().parents[1]
CURVE = (-10.0, 2.2)  # probit in log n: ED90 ~ 169
NS = np.array([32, 48, 64, 96, 128, 192, 256, 384, 512], dtype=float)


def test_simulated_sd_falls_like_one_over_root_trials():
    sd100 = simulated_log_sd(NS, CURVE, 100, 0.9, datasets=600, seed=1)
    sd400 = simulated_log_sd(NS, CURVE, 400, 0.9, datasets=600, seed=2)
    assert sd400 / sd100 == pytest.approx(0.5, rel=0.2)


def test_cell_variance_needed_gives_the_slope_half_width_it_promises():
    # independent cells, each log n_hat with the needed variance: the least-squares slope's
    # sd, measured by simulation, is the promised half-width / 1.96
    xs = np.array([1.0, 2.0, 4.0, 8.0])
    v = cell_variance_needed(xs, 0.1)
    rng = np.random.default_rng(0)
    slopes = [loglog_slope(xs, np.exp(0.5 * np.log(xs) + rng.normal(0, math.sqrt(v), 4)))[0]
              for _ in range(4000)]
    assert 1.96 * np.std(slopes) == pytest.approx(0.1, rel=0.05)


def test_trials_needed_is_the_first_step_that_meets_the_target():
    ns = proposed_ns(NS, CURVE, 0.9)
    target_var = simulated_log_sd(ns, CURVE, 300, 0.9, seed=5) ** 2
    t, var = trials_needed(ns, CURVE, 0.9, target_var * 1.05, seed=5)
    assert t is not None and var <= target_var * 1.05
    before = TRIAL_STEPS[TRIAL_STEPS.index(t) - 1]
    assert simulated_log_sd(ns, CURVE, before, 0.9, seed=5) ** 2 > target_var * 1.05


def test_proposed_ns_surround_the_fitted_crossing():
    ns = proposed_ns(NS, CURVE, 0.9)
    ed90 = math.exp((norm.ppf(0.9) - CURVE[0]) / CURVE[1])
    assert ns.min() < ed90 < ns.max()
    assert np.all(np.diff(ns) > 0)


def _run(*args):
    return subprocess.run([sys.executable, "-m", "scripts.refine", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_refine_prints_override_lines_for_the_committed_results():
    out = _run("C5")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert re.match(r"C5: \d+ counted row\(s\) inconclusive", lines[0])
    overrides = [ln for ln in lines if ln.strip().startswith("make reproduce EXPERIMENTS=")]
    n_rows = int(lines[0].split()[1])
    assert len(overrides) == n_rows
    for ln in overrides:
        assert re.search(r'ARGS="trials=\d+ n=[0-9,]+', ln)
    assert all("CPU-hours" in ln for ln in lines if ln.strip().startswith("expected"))


def test_refine_rejects_an_unknown_claim_in_one_line():
    out = _run("C55")
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "no claim 'C55'" in out.stderr
